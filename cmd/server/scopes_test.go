package main

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/auth"
	"vibesell/store/storetest"
	"vibesell/toolkit/toolkittest"
	"vibesell/tools"
	"vibesell/workspace"
)

// accessToken connects a client the way Claude does (registration,
// sign-in, consent, code for tokens) asking for scope, and returns its
// access token.
func accessToken(t *testing.T, base, email, password, scope string) string {
	t.Helper()
	c := registerClaude(t, base, base)
	status, tok := c.token(base, c.code(base, email, password, scope))
	if status != http.StatusOK || tok.Scope != scope {
		t.Fatalf("token: %d, scope %q, want %q", status, tok.Scope, scope)
	}
	return tok.AccessToken
}

// The server as shipped steps a client up by the scope each tool of the
// catalog declares: a read token is asked for write on a tool that
// writes, a write token for act on order_sending_setup, and an act token
// reaches every tool (past the resource server and the gate).
func TestCatalogScopesAtTheHTTPEdge(t *testing.T) {
	t.Parallel()
	const email, password = "ada@scoped.test", "correct horse battery staple"
	url, _, _ := personInWorkspace(t, "Scoped", email, password)
	s := startServer(t, "DATABASE_URL", url, "LOG_LEVEL", "warn")
	s.waitReady(t)
	base := "http://" + s.addr
	call := func(token, session, tool string) (*http.Response, map[string]any) {
		return rpc(t, s.addr, token, session, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
			"params": map[string]any{"name": tool, "arguments": map[string]any{}}})
	}
	wantStepUp := func(t *testing.T, resp *http.Response, scope string) {
		t.Helper()
		challenge := resp.Header.Get("WWW-Authenticate")
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(challenge, `scope="`+scope+`"`) ||
			!strings.Contains(challenge, `error="insufficient_scope"`) {
			t.Errorf("%d %q, want 403 insufficient_scope asking for %s", resp.StatusCode, challenge, scope)
		}
	}

	t.Run("a read token calling a write tool is asked for vibesell:write", func(t *testing.T) {
		token := accessToken(t, base, email, password, "vibesell:read")
		session := initialize(t, s.addr, token)
		if _, out := call(token, session, "get_workspace_context"); out["result"].(map[string]any)["isError"] == true {
			t.Errorf("a read tool with a read token was refused: %v", out)
		}
		resp, _ := call(token, session, "save_offer")
		wantStepUp(t, resp, "vibesell:write")
	})

	t.Run("a write token calling order_sending_setup is asked for vibesell:act", func(t *testing.T) {
		token := accessToken(t, base, email, password, "vibesell:write")
		session := initialize(t, s.addr, token)
		resp, _ := call(token, session, "order_sending_setup")
		wantStepUp(t, resp, "vibesell:act")
	})

	t.Run("an act token calls every tool", func(t *testing.T) {
		token := accessToken(t, base, email, password, "vibesell:act")
		session := initialize(t, s.addr, token)
		refused := map[string]any{}
		for _, tool := range tools.Registry(tools.Deps{}) {
			resp, out := call(token, session, tool.Name())
			if resp.StatusCode != http.StatusOK {
				refused[tool.Name()] = resp.StatusCode
				continue
			}
			// With no arguments most tools refuse the arguments; none may
			// refuse the connection.
			res, _ := out["result"].(map[string]any)
			if meta, _ := res["_meta"].(map[string]any); meta["vibesell/refusal"] == vibesell.EUNAUTHORIZED {
				refused[tool.Name()] = res["content"]
			}
		}
		if diff := cmp.Diff(map[string]any{}, refused); diff != "" {
			t.Errorf("tools refused to an act token (-want +got):\n%s", diff)
		}
	})
}

// The gate holds on any transport: a call in-process, past no resource
// server, is refused when its tool needs more than the principal's
// scopes, and stdio's principal (every scope) calls it.
func TestGateRefusesBeyondThePrincipalsScopes(t *testing.T) {
	t.Parallel()
	url := storetest.NewURL(t)
	pool := connect(t, url)
	cfg, err := loadConfig(env("DATABASE_URL", url))
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	svc, err := newServices(cfg, pool, nil, logger)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(workspace.Deps{DB: pool, Clock: vibesell.SystemClock{}}).Create(context.Background(), "Gated")
	if err != nil {
		t.Fatal(err)
	}
	srv := newMCPServer(svc, logger)
	as := func(t *testing.T, scopes ...string) *toolkittest.Client {
		return toolkittest.Connect(t, srv, auth.Principal{WorkspaceID: ws.ID, WorkspaceSlug: ws.Slug, Scopes: scopes})
	}
	const remember = "This connection may not call remember: it needs the vibesell:write scope, which the person did not grant. Ask them to connect VibeSell again and allow it."
	t.Run("read may not write", func(t *testing.T) {
		if diff := cmp.Diff(remember, as(t, vibesell.ScopeRead).Refusal("remember", map[string]any{})); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("no scope may not read", func(t *testing.T) {
		got := as(t).Refusal("get_workspace_context", nil)
		if !strings.Contains(got, "needs the vibesell:read scope") {
			t.Errorf("refusal %q does not name vibesell:read", got)
		}
	})
	t.Run("write may not act", func(t *testing.T) {
		got := as(t, vibesell.ScopeWrite).Refusal("start_warmup", nil)
		if !strings.Contains(got, "start_warmup: it needs the vibesell:act scope") {
			t.Errorf("refusal %q does not name vibesell:act", got)
		}
	})
	t.Run("every scope, as stdio and workspace tokens carry, passes", func(t *testing.T) {
		as(t, vibesell.Scopes()...).Result("get_workspace_context", nil, nil)
	})
}
