package web_test

import (
	"net/http"
	"strings"
	"testing"
)

// The sign-in page tells someone without an account how to get one: there
// is no sign-up, so it says who makes accounts and how.
func TestSignInPageSaysHowToGetAnAccount(t *testing.T) {
	t.Parallel()
	a := setup(t)
	p := a.browser(t).Get("/app/sign-in")
	if p.Status != http.StatusOK {
		t.Fatalf("sign-in page: %d", p.Status)
	}
	for _, want := range []string{
		"No account yet?",
		"whoever runs this VibeSell server creates the accounts",
		"<code>server user create --workspace <var>your-workspace</var> --email <var>you@example.com</var></code>",
		"it prints your password",
	} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("the sign-in page does not say %q", want)
		}
	}
}
