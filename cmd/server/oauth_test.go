package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"vibesell/auth"
	"vibesell/auth/oauth/oauthtest"
	"vibesell/store/storetest"
	"vibesell/workspace"
)

// The server as shipped: the official Go SDK client registers, a person
// signs in and allows on the web app's pages, and the client calls a tool
// of the catalog; workspace tokens keep working beside it. Then the
// signing key is rotated with the command while the server runs, and the
// server publishes the new key beside the old one.
func TestClaudeStyleClientConnectsWithOAuth(t *testing.T) {
	t.Parallel()
	url := storetest.NewURL(t)
	pool := connect(t, url)
	ctx := context.Background()
	ws, err := workspace.NewService(pool).Create(ctx, "Connected")
	if err != nil {
		t.Fatal(err)
	}
	const email, password = "ada@connected.test", "correct horse battery staple"
	if _, err := auth.NewAccounts(pool, nil).CreateUser(ctx, auth.NewUser{WorkspaceID: ws.ID, Email: email, Password: password}); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, "DATABASE_URL", url, "LOG_LEVEL", "warn")
	s.waitReady(t)
	base := "http://" + s.addr

	var consent string
	b := oauthtest.New(t, base, base, email, password)
	h, err := sdkauth.NewAuthorizationCodeHandler(&sdkauth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &sdkauth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "Claude", RedirectURIs: []string{"https://claude.ai/api/mcp/auth_callback", "https://claude.com/api/mcp/auth_callback"},
			GrantTypes: []string{"authorization_code", "refresh_token"}, TokenEndpointAuthMethod: "none",
		}},
		AuthorizationCodeFetcher: b.Fetcher(func(page string) { consent = page }),
	})
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "claude-style", Version: "1"}, nil)
	cs, err := client.Connect(cctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", OAuthHandler: h}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "list_pending_approvals", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("list_pending_approvals: %v %+v", err, res)
	}
	for _, want := range []string{"Connect Claude to VibeSell?", "claude.ai", "Connected", "unverified"} {
		if !strings.Contains(consent, want) {
			t.Errorf("the consent page does not say %q", want)
		}
	}

	token, _ := auth.NewTokens(pool).Create(ctx, ws.ID)
	if resp, _ := rpc(t, s.addr, token, "", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize",
		"params": map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}}); resp.StatusCode != 200 {
		t.Errorf("a workspace token beside OAuth: %d", resp.StatusCode)
	}

	out, err := runCmd(t, env("DATABASE_URL", url, "LOG_LEVEL", "warn"), "oauth", "rotate-keys")
	if err != nil || !strings.Contains(out, "Access tokens are now signed with key") {
		t.Fatalf("oauth rotate-keys: %q %v", out, err)
	}
	resp, err := http.Get(base + "/oauth/jwks")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var jwks struct{ Keys []json.RawMessage }
	if err := json.NewDecoder(resp.Body).Decode(&jwks); err != nil || len(jwks.Keys) != 2 {
		t.Errorf("JWKS after rotation: %d keys, %v; want 2", len(jwks.Keys), err)
	}
}
