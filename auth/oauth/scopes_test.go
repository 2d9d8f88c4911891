package oauth_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// accessWith runs the whole flow asking for scope (none when "") and
// returns the access token and the scope the token response says was
// granted.
func (c *raw) accessWith(scope string) (string, string) {
	c.t.Helper()
	path, page := c.b.ToConsent(c.authURL(func(q url.Values) {
		q.Del("scope")
		if scope != "" {
			q.Set("scope", scope)
		}
	}))
	status, body := c.exchange(c.b.Consent(path, page, "allow").Query().Get("code"))
	if status != http.StatusOK {
		c.t.Fatalf("token: %d %v", status, body)
	}
	return body["access_token"].(string), body["scope"].(string)
}

// mcpAnswer is how /mcp answered a request.
type mcpAnswer struct {
	Status    int
	Challenge string // WWW-Authenticate
	Body      string
}

// post sends one JSON-RPC message (or a batch) to /mcp with access and the
// session, if any.
func (e *env) post(t testing.TB, access, session, msg string) (mcpAnswer, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/mcp", strings.NewReader(msg))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+access)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return mcpAnswer{resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(b)}, resp.Header.Get("Mcp-Session-Id")
}

// callTools opens a session with access and calls each tool, returning how
// /mcp answered each call.
func (e *env) callTools(t testing.TB, access string, tools ...string) []mcpAnswer {
	t.Helper()
	init, session := e.post(t, access, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if init.Status != http.StatusOK {
		t.Fatalf("initialize answered %d (%s): %s", init.Status, init.Challenge, init.Body)
	}
	var out []mcpAnswer
	for i, tool := range tools {
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i + 2, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": map[string]any{}}})
		a, _ := e.post(t, access, session, string(msg))
		out = append(out, a)
	}
	return out
}

// stepUp is the 403 that asks for scope.
func (e *env) stepUp(tool, scope string) mcpAnswer {
	return mcpAnswer{Status: http.StatusForbidden,
		Challenge: `Bearer resource_metadata="` + e.srv.URL + `/.well-known/oauth-protected-resource/mcp", scope="` + scope +
			`", error="insufficient_scope", error_description="` + tool + ` needs the '` + scope + `' scope, which this token lacks: authorize again with it."`,
		Body: tool + ` needs the "` + scope + `" scope, which this token lacks: authorize again with it.` + "\n"}
}

// passed keeps only whether a call got through the resource server, and
// what the tool said.
func passed(answers []mcpAnswer) []mcpAnswer {
	out := make([]mcpAnswer, len(answers))
	for i, a := range answers {
		out[i] = a
		if a.Status == http.StatusOK {
			out[i] = mcpAnswer{Status: http.StatusOK, Body: sayOf(a.Body)}
		}
	}
	return out
}

// sayOf is the text of a tools/call answer sent as JSON or as one SSE
// event.
func sayOf(body string) string {
	if i := strings.Index(body, "data: "); i >= 0 {
		body = body[i+len("data: "):]
	}
	var r struct {
		Result struct {
			Content []struct{ Text string }
		}
	}
	if json.Unmarshal([]byte(strings.TrimSpace(body)), &r) != nil || len(r.Result.Content) != 1 {
		return "unreadable: " + body
	}
	return r.Result.Content[0].Text
}

// The scopes are the catalog's, each covering those below it: a token is
// refused, with the scope to ask for, exactly the tools that declare more
// than it was granted.
func TestScopesStepUpByTheToolsDeclaredScope(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ok := func(say string) mcpAnswer { return mcpAnswer{Status: http.StatusOK, Body: say} }
	whoami := "acme-sales " + e.ada.ID.String() + " ada@acme.test via Raw Client"

	for _, tc := range []struct {
		scope, granted string
		want           []mcpAnswer // whoami (read), rename (write), launch (act)
	}{
		{"vibesell:read", "vibesell:read", []mcpAnswer{ok(whoami), e.stepUp("rename", "vibesell:write"), e.stepUp("launch", "vibesell:act")}},
		{"vibesell:write", "vibesell:write", []mcpAnswer{ok(whoami), ok("renamed"), e.stepUp("launch", "vibesell:act")}},
		{"vibesell:act", "vibesell:act", []mcpAnswer{ok(whoami), ok("renamed"), ok("launched")}},
		{"vibesell:read offline_access vibesell:act", "vibesell:read vibesell:act", []mcpAnswer{ok(whoami), ok("renamed"), ok("launched")}},
		{"", "vibesell:read vibesell:write vibesell:act", []mcpAnswer{ok(whoami), ok("renamed"), ok("launched")}},
		{"offline_access", "vibesell:read vibesell:write vibesell:act", []mcpAnswer{ok(whoami), ok("renamed"), ok("launched")}},
	} {
		t.Run("asked "+tc.scope, func(t *testing.T) {
			access, granted := e.raw(t).accessWith(tc.scope)
			if granted != tc.granted {
				t.Errorf("granted %q, want %q", granted, tc.granted)
			}
			got := passed(e.callTools(t, access, "whoami", "rename", "launch"))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("answers to whoami, rename, launch (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("a batch is asked the most any of its calls needs", func(t *testing.T) {
		access, _ := e.raw(t).accessWith("vibesell:read")
		got, _ := e.post(t, access, "", `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"launch"}},`+
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"rename"}}]`)
		if diff := cmp.Diff(e.stepUp("launch", "vibesell:act"), got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})

	t.Run("a scope that is not offered is refused", func(t *testing.T) {
		c := e.raw(t)
		resp, body := c.b.Get(c.authURL(func(q url.Values) { q.Set("scope", "mcp") }))
		to := wantBackToClient(t, resp, body)
		if to.Get("error") != "invalid_scope" || !strings.Contains(to.Get("error_description"), "vibesell:read, vibesell:write, vibesell:act") {
			t.Errorf("redirect query %v, want invalid_scope naming the scopes offered", to)
		}
	})
}

// The consent page says what each scope the client asks for allows, and
// where a narrower grant stops.
func TestConsentSaysWhatEachScopeAllows(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for _, tc := range []struct{ scope, says, not string }{
		{"vibesell:read", "to change anything, it must ask you again", "Nothing leaves VibeSell"},
		{"vibesell:write", "to start anything outside VibeSell or ask for anything that costs money, it must ask you again", "Set things going as you"},
		{"vibesell:act", "Set things going as you", "it must ask you again"},
	} {
		t.Run(tc.scope, func(t *testing.T) {
			c := e.raw(t)
			_, page := c.b.ToConsent(c.authURL(func(q url.Values) { q.Set("scope", tc.scope) }))
			if !strings.Contains(page, "See your workspace") || !strings.Contains(page, tc.says) || strings.Contains(page, tc.not) {
				t.Errorf("the consent page for %s does not say %q, or says %q:\n%s", tc.scope, tc.says, tc.not, page)
			}
		})
	}
}
