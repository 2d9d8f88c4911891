package oauth_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"vibesell/auth/oauth"
	"vibesell/auth/oauth/oauthtest"
)

// raw is an OAuth client written out by hand, to send what a well-behaved
// SDK never would.
type raw struct {
	t        testing.TB
	e        *env
	b        *oauthtest.Browser
	clientID string
	verifier string
}

func (e *env) raw(t testing.TB) *raw {
	t.Helper()
	c := &raw{t: t, e: e, b: e.browser(t), verifier: strings.Repeat("v", 43)}
	status, body := c.postJSON(oauth.PathRegister, map[string]any{
		"client_name": "Raw Client", "redirect_uris": []string{callback}, "token_endpoint_auth_method": "none",
	})
	if status != http.StatusCreated {
		t.Fatalf("register: %d %v", status, body)
	}
	c.clientID = body["client_id"].(string)
	return c
}

func (c *raw) postJSON(path string, v any) (int, map[string]any) {
	c.t.Helper()
	b, _ := json.Marshal(v)
	resp, err := http.Post(c.e.srv.URL+path, "application/json", strings.NewReader(string(b)))
	if err != nil {
		c.t.Fatal(err)
	}
	return decode(c.t, resp)
}

func decode(t testing.TB, resp *http.Response) (int, map[string]any) {
	t.Helper()
	defer resp.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("%s: not JSON: %v", resp.Request.URL, err)
	}
	return resp.StatusCode, body
}

func challengeOf(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// authURL is an authorization request; change alters its parameters.
func (c *raw) authURL(change func(url.Values)) string {
	q := url.Values{
		"response_type": {"code"}, "client_id": {c.clientID}, "redirect_uri": {callback}, "state": {"st"},
		"code_challenge": {challengeOf(c.verifier)}, "code_challenge_method": {"S256"},
		"resource": {c.e.publicURL + "/mcp"}, "scope": {"vibesell:read vibesell:write vibesell:act"},
	}
	if change != nil {
		change(q)
	}
	return c.e.srv.URL + oauth.PathAuthorize + "?" + q.Encode()
}

// code goes through consent and returns the code.
func (c *raw) code() string {
	c.t.Helper()
	path, page := c.b.ToConsent(c.authURL(nil))
	to := c.b.Consent(path, page, "allow")
	if to.Query().Get("state") != "st" || to.Query().Get("iss") != c.e.publicURL {
		c.t.Fatalf("redirect %s lacks state or iss", to)
	}
	return to.Query().Get("code")
}

func (c *raw) token(form url.Values) (int, map[string]any) {
	c.t.Helper()
	if form.Get("client_id") == "" {
		form.Set("client_id", c.clientID)
	}
	resp, err := http.PostForm(c.e.srv.URL+oauth.PathToken, form)
	if err != nil {
		c.t.Fatal(err)
	}
	return decode(c.t, resp)
}

func (c *raw) exchange(code string) (int, map[string]any) {
	c.t.Helper()
	return c.token(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {callback},
		"code_verifier": {c.verifier}, "resource": {c.e.publicURL + "/mcp"}})
}

// tokens runs the whole flow and returns an access and a refresh token.
func (c *raw) tokens() (string, string) {
	c.t.Helper()
	status, body := c.exchange(c.code())
	if status != http.StatusOK {
		c.t.Fatalf("token: %d %v", status, body)
	}
	return body["access_token"].(string), body["refresh_token"].(string)
}

func (c *raw) refresh(rt string) (int, map[string]any) {
	c.t.Helper()
	return c.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
}

// call sends an MCP initialize with the access token and returns the
// status and the WWW-Authenticate header.
func (e *env) call(t testing.TB, access string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if access != "" {
		req.Header.Set("Authorization", "Bearer "+access)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
}

// wantOAuthError checks an error response's code and that its description
// says something a person can act on.
func wantOAuthError(t testing.TB, status int, body map[string]any, wantStatus int, wantCode, wantInDescription string) {
	t.Helper()
	if status != wantStatus || body["error"] != wantCode {
		t.Fatalf("got %d %v, want %d %s", status, body, wantStatus, wantCode)
	}
	if d, _ := body["error_description"].(string); !strings.Contains(d, wantInDescription) {
		t.Errorf("error_description %q does not say %q", d, wantInDescription)
	}
}

func wantRefused(t testing.TB, e *env, access string, wantStatus int, wantError, wantInDescription string) {
	t.Helper()
	status, challenge := e.call(t, access)
	if status != wantStatus || !strings.Contains(challenge, `error="`+wantError+`"`) || !strings.Contains(challenge, wantInDescription) ||
		!strings.Contains(challenge, `resource_metadata="`+e.srv.URL+`/.well-known/oauth-protected-resource/mcp"`) {
		t.Errorf("/mcp answered %d %q, want %d with error %q saying %q", status, challenge, wantStatus, wantError, wantInDescription)
	}
}

func TestRefusals(t *testing.T) {
	t.Parallel()
	e := setup(t)

	t.Run("a valid token works, and a workspace token still does", func(t *testing.T) {
		access, _ := e.raw(t).tokens()
		if status, _ := e.call(t, access); status != http.StatusOK {
			t.Fatalf("a fresh token: %d", status)
		}
		wsToken, err := e.tokens.Create(context.Background(), e.acme.ID)
		if err != nil {
			t.Fatal(err)
		}
		if status, _ := e.call(t, wsToken); status != http.StatusOK {
			t.Fatalf("a workspace token: %d", status)
		}
	})

	t.Run("wrong audience", func(t *testing.T) {
		access, _ := e.raw(t).tokens()
		forged, err := oauth.Reissue(e.oauth, access, func(aud *[]string, _ *string) { *aud = []string{"https://other.example/mcp"} })
		if err != nil {
			t.Fatal(err)
		}
		wantRefused(t, e, forged, http.StatusUnauthorized, "invalid_token", "is for https://other.example/mcp, not for "+e.srv.URL+"/mcp")
	})

	t.Run("insufficient scope", func(t *testing.T) {
		access, _ := e.raw(t).tokens()
		forged, err := oauth.Reissue(e.oauth, access, func(_ *[]string, scope *string) { *scope = "" })
		if err != nil {
			t.Fatal(err)
		}
		wantRefused(t, e, forged, http.StatusForbidden, "insufficient_scope", `authorize again with 'vibesell:read'`)
	})

	t.Run("a token for another resource is never issued", func(t *testing.T) {
		c := e.raw(t)
		resp, body := c.b.Get(c.authURL(func(q url.Values) { q.Set("resource", "https://other.example/mcp") }))
		to := wantBackToClient(t, resp, body)
		if to.Get("error") != "invalid_target" || !strings.Contains(to.Get("error_description"), "for "+e.srv.URL+"/mcp only") {
			t.Errorf("redirect query %v, want invalid_target", to)
		}
		resp, body = c.b.Get(c.authURL(func(q url.Values) { q.Del("resource") }))
		if to := wantBackToClient(t, resp, body); to.Get("error") != "invalid_target" {
			t.Errorf("without resource: %v, want invalid_target", to)
		}
		code := c.code()
		status, tb := c.token(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {callback},
			"code_verifier": {c.verifier}, "resource": {"https://other.example/mcp"}})
		wantOAuthError(t, status, tb, http.StatusBadRequest, "invalid_target", "not for https://other.example/mcp")
	})

	t.Run("reused refresh token revokes the grant", func(t *testing.T) {
		c := e.raw(t)
		access, rt1 := c.tokens()
		status, body := c.refresh(rt1)
		if status != http.StatusOK {
			t.Fatalf("first refresh: %d %v", status, body)
		}
		access2, rt2 := body["access_token"].(string), body["refresh_token"].(string)
		if rt2 == rt1 {
			t.Fatal("the refresh token did not rotate")
		}
		status, body = c.refresh(rt1)
		wantOAuthError(t, status, body, http.StatusBadRequest, "invalid_grant", "already used")
		status, body = c.refresh(rt2)
		wantOAuthError(t, status, body, http.StatusBadRequest, "invalid_grant", "disconnected")
		wantRefused(t, e, access, http.StatusUnauthorized, "invalid_token", "disconnected")
		wantRefused(t, e, access2, http.StatusUnauthorized, "invalid_token", "disconnected")
	})

	t.Run("a code used twice revokes the grant", func(t *testing.T) {
		c := e.raw(t)
		code := c.code()
		status, body := c.exchange(code)
		if status != http.StatusOK {
			t.Fatalf("first exchange: %d %v", status, body)
		}
		access := body["access_token"].(string)
		status, body = c.exchange(code)
		wantOAuthError(t, status, body, http.StatusBadRequest, "invalid_grant", "already used")
		wantRefused(t, e, access, http.StatusUnauthorized, "invalid_token", "disconnected")
	})

	t.Run("a failed redeem uses nothing up", func(t *testing.T) {
		c, other := e.raw(t), e.raw(t)
		code := c.code()
		// Someone who saw the code in a log: a wrong verifier, another
		// client, another redirect URI. None of them ends the connection.
		status, body := c.token(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {callback},
			"code_verifier": {strings.Repeat("w", 43)}, "resource": {e.srv.URL + "/mcp"}})
		wantOAuthError(t, status, body, http.StatusBadRequest, "invalid_grant", "does not match the code_challenge")
		status, body = other.exchange(code)
		wantOAuthError(t, status, body, http.StatusBadRequest, "invalid_grant", "issued to another client")
		status, body = c.token(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {"http://127.0.0.1:9/elsewhere"},
			"code_verifier": {c.verifier}, "resource": {e.srv.URL + "/mcp"}})
		wantOAuthError(t, status, body, http.StatusBadRequest, "invalid_grant", "redirect_uri must be the one")
		status, body = c.exchange(code)
		if status != http.StatusOK {
			t.Fatalf("the real client's redeem after the failed ones: %d %v", status, body)
		}
		access, rt := body["access_token"].(string), body["refresh_token"].(string)

		// A refresh token presented with another client_id first.
		status, body = other.refresh(rt)
		wantOAuthError(t, status, body, http.StatusBadRequest, "invalid_grant", "issued to another client")
		status, body = c.refresh(rt)
		if status != http.StatusOK {
			t.Fatalf("the real client's refresh after another client's: %d %v", status, body)
		}
		if status, _ := e.call(t, access); status != http.StatusOK {
			t.Errorf("the connection ended: /mcp answered %d", status)
		}
		if status, _ := e.call(t, body["access_token"].(string)); status != http.StatusOK {
			t.Errorf("the refreshed token: /mcp answered %d", status)
		}
	})

	t.Run("disconnected, then deleted client", func(t *testing.T) {
		e := setup(t) // alone, so that its one connection is this client's
		c := e.raw(t)
		access, rt := c.tokens()
		conns, err := e.oauth.Connections(context.Background(), e.acme.ID)
		if err != nil || len(conns) != 1 {
			t.Fatalf("connections: %v %v", conns, err)
		}
		grant := conns[0].GrantID
		if err := e.oauth.Disconnect(context.Background(), e.globex.ID, grant, "someone@globex.test"); err != oauth.ErrNoConnection {
			t.Fatalf("another workspace disconnected the grant: %v", err)
		}
		if err := e.oauth.Disconnect(context.Background(), e.acme.ID, grant, "ada@acme.test"); err != nil {
			t.Fatal(err)
		}
		wantRefused(t, e, access, http.StatusUnauthorized, "invalid_token", "disconnected")
		status, body := c.refresh(rt)
		wantOAuthError(t, status, body, http.StatusBadRequest, "invalid_grant", "disconnected")

		// A day later, the unused registration is collected, and the
		// client is told to register again (Claude does, on invalid_client).
		e.clock.Advance(25 * time.Hour)
		if _, err := e.oauth.PruneClients(context.Background()); err != nil {
			t.Fatal(err)
		}
		status, body = c.refresh(rt)
		wantOAuthError(t, status, body, http.StatusUnauthorized, "invalid_client", "Register again")
		resp, page := c.b.Get(c.authURL(nil))
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, "is not registered here") {
			t.Errorf("authorize with a deleted client: %d\n%s", resp.StatusCode, page)
		}
	})

	t.Run("redirect URI not registered", func(t *testing.T) {
		c := e.raw(t)
		resp, page := c.b.Get(c.authURL(func(q url.Values) { q.Set("redirect_uri", "https://evil.example/callback") }))
		if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Location") != "" ||
			!strings.Contains(page, "https://evil.example/callback, which it did not register") {
			t.Errorf("authorize with an unregistered redirect: %d %q\n%s", resp.StatusCode, resp.Header.Get("Location"), page)
		}
		// A loopback redirect may use another port (RFC 8252 §7.3).
		resp, page = c.b.Get(c.authURL(func(q url.Values) { q.Set("redirect_uri", "http://127.0.0.1:54321/callback") }))
		if resp.StatusCode != http.StatusSeeOther {
			t.Errorf("authorize with a loopback redirect on another port: %d\n%s", resp.StatusCode, page)
		}
	})

	t.Run("PKCE missing or plain", func(t *testing.T) {
		c := e.raw(t)
		for name, change := range map[string]func(url.Values){
			"missing": func(q url.Values) { q.Del("code_challenge"); q.Del("code_challenge_method") },
			"plain":   func(q url.Values) { q.Set("code_challenge", c.verifier); q.Set("code_challenge_method", "plain") },
			"no method, so plain": func(q url.Values) {
				q.Del("code_challenge_method")
			},
		} {
			resp, body := c.b.Get(c.authURL(change))
			to := wantBackToClient(t, resp, body)
			if to.Get("error") != "invalid_request" || !strings.Contains(to.Get("error_description"), "S256") {
				t.Errorf("%s: redirect query %v, want invalid_request about S256", name, to)
			}
		}
		code := c.code()
		status, body := c.token(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {callback},
			"code_verifier": {strings.Repeat("w", 43)}, "resource": {e.srv.URL + "/mcp"}})
		wantOAuthError(t, status, body, http.StatusBadRequest, "invalid_grant", "does not match the code_challenge")
	})

	t.Run("consent posted from another origin", func(t *testing.T) {
		c := e.raw(t)
		path, page := c.b.ToConsent(c.authURL(nil))
		resp, body := c.b.Post(path, url.Values{"csrf": {oauthtest.CSRF(t, page)}, "decision": {"allow"}}, "https://evil.example")
		if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Location") != "" || !strings.Contains(body, "was not accepted") {
			t.Errorf("cross-origin consent: %d %q\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
		}
		// The request still waits for the person's own answer.
		if to := c.b.Consent(path, page, "deny"); to.Query().Get("error") != "access_denied" {
			t.Errorf("deny: %s, want access_denied", to)
		}
	})
}

// wantBackToClient checks that authorize sent the browser back to the
// client and returns the query it carries.
func wantBackToClient(t testing.TB, resp *http.Response, body string) url.Values {
	t.Helper()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || err != nil || !strings.HasPrefix(loc.String(), callback+"?") {
		t.Fatalf("authorize: %d to %q, want back to %s\n%s", resp.StatusCode, resp.Header.Get("Location"), callback, body)
	}
	if diff := cmp.Diff([]string{"st"}, loc.Query()["state"]); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
	return loc.Query()
}

func TestExpiredToken(t *testing.T) {
	t.Parallel()
	e := setup(t)
	c := e.raw(t)
	access, rt := c.tokens()
	e.clock.Advance(time.Hour)
	wantRefused(t, e, access, http.StatusUnauthorized, "invalid_token", "expired")
	status, body := c.refresh(rt)
	if status != http.StatusOK {
		t.Fatalf("refresh after expiry: %d %v", status, body)
	}
	if status, _ := e.call(t, body["access_token"].(string)); status != http.StatusOK {
		t.Errorf("the refreshed token: %d", status)
	}
}

// A client metadata URL on this machine is refused before any connection
// is made, as one on a private network is (see TestPublicAddr for the
// ranges; the test connects to nothing but loopback, even if the guard
// were broken).
func TestClientMetadataOnPrivateAddressIsNotFetched(t *testing.T) {
	t.Parallel()
	e := setup(t) // production configuration: no loopback either
	b := e.browser(t)
	for _, id := range []string{"https://127.0.0.1:1/client.json", "https://[::1]:1/client.json", "https://localhost:1/client.json"} {
		q := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {callback},
			"code_challenge": {challengeOf(strings.Repeat("v", 43))}, "code_challenge_method": {"S256"}, "resource": {e.srv.URL + "/mcp"}}
		resp, page := b.Get(oauth.PathAuthorize + "?" + q.Encode())
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, "could not be fetched: it must be served over HTTPS on port 443 from a public address") {
			t.Errorf("%s: %d\n%s", id, resp.StatusCode, page)
		}
	}
}
