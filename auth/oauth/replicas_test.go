package oauth_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"vibesell/auth/oauth/oauthtest"
)

var disconnectForm = regexp.MustCompile(`action="(/app/connections/[^"]+/disconnect)"`)

// Two replicas on one database behind one PUBLIC_URL: a token issued by
// one works on the other, and a disconnect in the web app of one is
// refused by the other at its very next request.
func TestTwoReplicas(t *testing.T) {
	t.Parallel()
	one := setup(t)
	two := setup(t, options{replicaOf: one})

	c := one.raw(t)
	access, rt := c.tokens()
	if status, _ := two.call(t, access); status != http.StatusOK {
		t.Fatalf("a token from replica one on replica two: %d", status)
	}
	c.e = two
	status, body := c.refresh(rt)
	if status != http.StatusOK {
		t.Fatalf("refresh on replica two: %d %v", status, body)
	}
	access = body["access_token"].(string)
	if status, _ := one.call(t, access); status != http.StatusOK {
		t.Fatalf("a token from replica two on replica one: %d", status)
	}

	// Ada disconnects the app in the web app served by replica two.
	b := two.browser(t)
	page := b.Open("/app/connections")
	if !strings.Contains(page, "Raw Client") || !strings.Contains(page, "ada@acme.test") || !strings.Contains(page, "In the last minute") {
		t.Fatalf("connected apps page does not list the client with its last use:\n%s", page)
	}
	m := disconnectForm.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no disconnect form:\n%s", page)
	}
	resp, body2 := b.Post(m[1], url.Values{"csrf": {oauthtest.CSRF(t, page)}}, two.publicURL)
	oauthtest.WantStatus(t, resp, http.StatusSeeOther, body2)
	if page := b.Open(resp.Header.Get("Location")); !strings.Contains(page, "The app was disconnected") || strings.Contains(page, "Raw Client") {
		t.Errorf("after disconnecting:\n%s", page)
	}

	wantRefused(t, one, access, http.StatusUnauthorized, "invalid_token", "disconnected")
	c.e = one
	status, body = c.refresh(body["refresh_token"].(string))
	wantOAuthError(t, status, body, http.StatusBadRequest, "invalid_grant", "disconnected")
}

// A key rotated through one replica signs the next tokens of every
// replica, and the tokens the old key signed keep working until they
// expire.
func TestKeyRotationAcrossReplicas(t *testing.T) {
	t.Parallel()
	one := setup(t)
	two := setup(t, options{replicaOf: one})
	c := one.raw(t)
	old, rt := c.tokens()

	kid, err := one.oauth.Keys().Rotate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c.e = two
	status, body := c.refresh(rt)
	if status != http.StatusOK {
		t.Fatalf("refresh: %d %v", status, body)
	}
	fresh := body["access_token"].(string)
	if h := headerOf(t, fresh); !strings.Contains(h, `"kid":"`+kid+`"`) {
		t.Errorf("the token issued after rotation has header %s, want kid %s", h, kid)
	}
	for name, tok := range map[string]string{"old key": old, "new key": fresh} {
		for _, replica := range []*env{one, two} {
			if status, _ := replica.call(t, tok); status != http.StatusOK {
				t.Errorf("token signed with the %s: %d", name, status)
			}
		}
	}
	var jwks struct{ Keys []map[string]any }
	getJSON(t, one.srv.URL+"/oauth/jwks", &jwks)
	if len(jwks.Keys) != 2 {
		t.Errorf("JWKS has %d keys, want the new and the retired one", len(jwks.Keys))
	}
}

func headerOf(t testing.TB, jwt string) string {
	t.Helper()
	part, _, _ := strings.Cut(jwt, ".")
	b, err := base64.RawURLEncoding.DecodeString(part)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
