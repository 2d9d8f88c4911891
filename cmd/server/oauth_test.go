package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	neturl "net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"vibesell"
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
	const email, password = "ada@connected.test", "correct horse battery staple"
	url, pool, ws := personInWorkspace(t, "Connected", email, password)
	ctx := context.Background()
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
	if err != nil {
		t.Fatalf("list_pending_approvals: %v", err)
	}
	if res.IsError {
		t.Fatalf("list_pending_approvals refused: %s", res.Content[0].(*mcp.TextContent).Text)
	}
	for _, want := range []string{"Connect Claude to VibeSell?", "claude.ai", "Connected", "unverified"} {
		if !strings.Contains(consent, want) {
			t.Errorf("the consent page does not say %q", want)
		}
	}

	token, _ := auth.NewTokens(auth.TokensDeps{DB: pool}).Create(ctx, ws.ID)
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

// Two server processes on one database behind one PUBLIC_URL: the person
// allows on one, the code is exchanged on the other, the token works on
// both, and a disconnect in the web app of one is refused by the other
// within a second.
func TestOAuthAcrossTwoProcesses(t *testing.T) {
	t.Parallel()
	const email, password = "ada@replicated.test", "correct horse battery staple"
	dbURL, _, _ := personInWorkspace(t, "Replicated", email, password)
	const public = "http://vibesell.test" // what a load balancer in front of both would answer at
	one := startProcess(t, "DATABASE_URL="+dbURL, "PUBLIC_URL="+public)
	two := startProcess(t, "DATABASE_URL="+dbURL, "PUBLIC_URL="+public)

	c := registerClaude(t, "http://"+one.addr, public)
	status, tok := c.token("http://"+two.addr, c.code("http://"+one.addr, email, password, ""))
	if status != 200 || tok.AccessToken == "" {
		t.Fatalf("token on the second process: %d", status)
	}
	init := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize",
		"params": map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}}
	for _, s := range []*testServer{one, two} {
		if resp, _ := rpc(t, s.addr, tok.AccessToken, "", init); resp.StatusCode != 200 {
			t.Fatalf("the token on %s: %d", s.addr, resp.StatusCode)
		}
	}

	b2 := oauthtest.New(t, "http://"+two.addr, public, email, password)
	page := b2.Open("/app/connections")
	action := regexp.MustCompile(`action="(/app/connections/[^"]+/disconnect)"`).FindStringSubmatch(page)
	if action == nil {
		t.Fatalf("no disconnect form:\n%s", page)
	}
	resp2, body := b2.Post(action[1], neturl.Values{"csrf": {oauthtest.CSRF(t, page)}}, public)
	oauthtest.WantStatus(t, resp2, http.StatusSeeOther, body)
	// Each process keeps the grants it checked in memory, told of a
	// disconnect by the database: within a second.
	var last *http.Response
	took := storetest.WaitFor(t, "the other process to refuse the disconnected token", func() bool {
		last, _ = rpc(t, one.addr, tok.AccessToken, "", init)
		return last.StatusCode == 401
	})
	if !strings.Contains(last.Header.Get("WWW-Authenticate"), "disconnected") {
		t.Errorf("a disconnected token on the other process: %d %q", last.StatusCode, last.Header.Get("WWW-Authenticate"))
	}
	t.Logf("disconnected on one process, refused by the other after %s", took)
}

const claudeCallback = "https://claude.ai/api/mcp/auth_callback"

// claude is an OAuth client registered as Claude registers, driven by hand
// so that each step can go to another process.
type claude struct {
	t                          *testing.T
	public, clientID, verifier string
}

// registerClaude registers the client with the process at, which serves
// PUBLIC_URL public.
func registerClaude(t *testing.T, at, public string) *claude {
	t.Helper()
	resp, err := http.Post(at+"/oauth/register", "application/json",
		strings.NewReader(`{"client_name":"Claude","redirect_uris":["`+claudeCallback+`"]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	c := &claude{t: t, public: public, verifier: strings.Repeat("v", 43)}
	var reg struct {
		ClientID string `json:"client_id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&reg); err != nil || reg.ClientID == "" {
		t.Fatalf("register: %d %v", resp.StatusCode, err)
	}
	c.clientID = reg.ClientID
	return c
}

// code signs the person in and allows on the process at, asking for scope
// (none when ""), and returns the authorization code.
func (c *claude) code(at, email, password, scope string) string {
	c.t.Helper()
	sum := sha256.Sum256([]byte(c.verifier))
	q := neturl.Values{"response_type": {"code"}, "client_id": {c.clientID}, "redirect_uri": {claudeCallback},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}, "resource": {c.public + "/mcp"}}
	if scope != "" {
		q.Set("scope", scope)
	}
	b := oauthtest.New(c.t, at, c.public, email, password)
	path, page := b.ToConsent("/oauth/authorize?" + q.Encode())
	return b.Consent(path, page, "allow").Query().Get("code")
}

type tokenResponse struct {
	AccessToken string `json:"access_token"`
	Scope       string `json:"scope"`
}

// token exchanges code on the process at.
func (c *claude) token(at, code string) (int, tokenResponse) {
	c.t.Helper()
	resp, err := http.PostForm(at+"/oauth/token", neturl.Values{"grant_type": {"authorization_code"}, "client_id": {c.clientID},
		"code": {code}, "redirect_uri": {claudeCallback}, "code_verifier": {c.verifier}, "resource": {c.public + "/mcp"}})
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok tokenResponse
	json.NewDecoder(resp.Body).Decode(&tok)
	return resp.StatusCode, tok
}

// personInWorkspace makes, on a fresh database, a workspace with one
// person who can sign in.
func personInWorkspace(t *testing.T, workspaceName, email, password string) (string, *pgxpool.Pool, workspace.Workspace) {
	t.Helper()
	url := storetest.NewURL(t)
	pool := connect(t, url)
	ctx := context.Background()
	ws, err := workspace.New(workspace.Deps{DB: pool, Clock: vibesell.SystemClock{}}).Create(ctx, workspaceName)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := auth.NewAccounts(auth.AccountsDeps{DB: pool}).CreateUser(ctx, auth.NewUser{WorkspaceID: ws.ID, Email: email, Password: password}); err != nil {
		t.Fatal(err)
	}
	return url, pool, ws
}
