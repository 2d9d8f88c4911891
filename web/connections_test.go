package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"vibesell/auth"
	"vibesell/web"
)

// A person sees the workspace's token among the connected apps, ticks
// that they mean it and revokes it, in a real browser; the next check of
// the token refuses it. Another workspace's person cannot revoke it.
func TestBrowserRevokesAToken(t *testing.T) {
	t.Parallel()
	var tokens *auth.Tokens
	a := setup(t, func(a *app, cfg *web.Deps) {
		tokens = auth.NewTokens(auth.TokensDeps{DB: a.pool})
		cfg.Tokens = tokens
	})
	ctx := context.Background()
	token, err := tokens.CreateBy(ctx, a.acme.ID, auth.CreatedByCommandLine)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tokens.Authenticate(ctx, token); err != nil {
		t.Fatal(err)
	}
	infos, err := tokens.List(ctx, a.acme.ID)
	if err != nil || len(infos) != 1 {
		t.Fatalf("tokens: %v, %v", infos, err)
	}
	id := infos[0].ID.String()

	// Globex's person cannot revoke Acme's token.
	bob := a.browser(t)
	bob.signIn("bob@globex.test")
	page := bob.Get("/app/connections")
	if strings.Contains(page.Body, id) {
		t.Fatalf("Globex's connected apps list Acme's token")
	}
	if p := bob.Post("/app/connections/tokens/"+id+"/revoke", url.Values{"csrf": {page.CSRF(t)}, "confirm": {"yes"}}); p.Status != 404 {
		t.Fatalf("Globex revoking Acme's token: %d", p.Status)
	}

	tab := signedInTab(t, a.srv.URL+"/app/connections", "ada@acme.test")
	tab.Step("wait for the token", chromedp.WaitVisible(chromedp.ID("revoke-"+id)))
	text := tab.Text("token-" + id)
	for _, want := range []string{"the server's command line", "In the last minute"} {
		if !strings.Contains(text, want) {
			t.Errorf("the token's row does not say %q: %q", want, text)
		}
	}
	mustNotNameTools(t, text)
	tab.Screenshot("connections-token")
	tab.Step("tick yes, revoke it", chromedp.Click(chromedp.CSS(`#token-`+id+` input[name="confirm"]`)))
	tab.Step("revoke", chromedp.Click(chromedp.ID("revoke-"+id)))
	tab.Step("wait for the notice", chromedp.WaitVisible(`//div[@class="notice"][contains(., "The token was revoked")]`))
	if _, err := tokens.Authenticate(ctx, token); err != auth.ErrBadToken {
		t.Fatalf("the revoked token is still accepted: %v", err)
	}
}
