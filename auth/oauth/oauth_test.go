package oauth_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"
	mcpserver "github.com/mark3labs/mcp-go/server"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
	"vibesell/auth/oauth"
	"vibesell/auth/oauth/oauthtest"
	"vibesell/store/storetest"
	"vibesell/toolkit"
	"vibesell/web"
	"vibesell/workspace"
)

func TestMain(m *testing.M) { storetest.Main(m) }

const password = "correct horse battery staple"

// env is one test's server on 127.0.0.1: the authorization server, the
// web app's sign-in and consent pages, and an MCP endpoint guarded by the
// resource server's checks whose one tool says who it acts for.
type env struct {
	srv       *httptest.Server
	publicURL string // srv.URL, or for a replica the first one's
	pool      *pgxpool.Pool
	clock     *vibesell.ManualClock
	oauth     *oauth.Server
	tokens    *auth.Tokens
	acme      workspace.Workspace
	ada       auth.User
	globex    workspace.Workspace
}

type options struct {
	// replicaOf makes this env a second replica of another: same database,
	// same PUBLIC_URL, its own listener and its own Server.
	replicaOf     *env
	clock         *vibesell.ManualClock
	clientFetches oauth.FetchConfig
	rateLimits    oauth.RateLimits
	clientIP      func(*http.Request) string
}

func setup(t testing.TB, opts ...options) *env {
	t.Helper()
	var o options
	if len(opts) > 0 {
		o = opts[0]
	}
	ctx := context.Background()
	e := &env{clock: o.clock}
	if o.replicaOf != nil {
		e.pool, e.clock = o.replicaOf.pool, o.replicaOf.clock
		e.acme, e.ada, e.globex = o.replicaOf.acme, o.replicaOf.ada, o.replicaOf.globex
	} else {
		e.pool = storetest.New(t)
	}
	if e.clock == nil {
		e.clock = vibesell.NewManualClock(time.Now())
	}
	var h http.Handler
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(e.srv.Close)
	e.publicURL = e.srv.URL
	if o.replicaOf != nil {
		e.publicURL = o.replicaOf.publicURL
	}
	logger := slog.New(slog.DiscardHandler)

	var err error
	e.oauth = oauth.New(oauth.Deps{PublicURL: e.publicURL, DB: e.pool, Clock: e.clock, Logger: logger, ClientMetadata: o.clientFetches,
		RateLimits: o.rateLimits, ClientIP: o.clientIP})
	if err := e.oauth.Keys().Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	accounts := auth.NewAccounts(auth.AccountsDeps{DB: e.pool})
	e.tokens = auth.NewTokens(auth.TokensDeps{DB: e.pool})
	if o.replicaOf == nil {
		ws := workspace.New(workspace.Deps{DB: e.pool, Clock: vibesell.SystemClock{}})
		if e.acme, err = ws.Create(ctx, "Acme Sales"); err != nil {
			t.Fatal(err)
		}
		if e.globex, err = ws.Create(ctx, "Globex"); err != nil {
			t.Fatal(err)
		}
		if e.ada, err = accounts.CreateUser(ctx, auth.NewUser{WorkspaceID: e.acme.ID, Email: "ada@acme.test", Password: password}); err != nil {
			t.Fatal(err)
		}
		if _, err = accounts.CreateUser(ctx, auth.NewUser{WorkspaceID: e.globex.ID, Email: "bob@globex.test", Password: password}); err != nil {
			t.Fatal(err)
		}
	}
	appr := approvals.New(approvals.Deps{DB: e.pool, Clock: vibesell.SystemClock{}, PublicURL: e.publicURL, Logger: logger})
	webApp := web.New(web.Deps{PublicURL: e.publicURL, Accounts: accounts, Approvals: appr, Logger: logger, OAuth: e.oauth})

	mcpTools := []toolkit.Tool{
		sayTool("whoami", vibesell.ScopeRead, func(p auth.Principal) string {
			return p.WorkspaceSlug + " " + p.UserID.String() + " " + p.UserEmail + " via " + p.ClientName
		}),
		sayTool("rename", vibesell.ScopeWrite, func(auth.Principal) string { return "renamed" }),
		sayTool("launch", vibesell.ScopeAct, func(auth.Principal) string { return "launched" }),
	}
	mcpSrv := toolkit.NewServer(mcpTools, &toolkit.Options{Logger: logger})
	streamable := mcpserver.NewStreamableHTTPServer(mcpSrv, mcpserver.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
		if p, ok := auth.FromContext(r.Context()); ok {
			return auth.NewContext(ctx, p)
		}
		return ctx
	}))

	mux := http.NewServeMux()
	mux.Handle("/.well-known/", e.oauth.Handler())
	mux.Handle("/oauth/", e.oauth.Handler())
	mux.Handle(web.Prefix, webApp)
	mux.Handle("/mcp", e.oauth.RequireBearer(e.tokens, toolkit.ScopeOf(mcpTools), logger, streamable))
	h = mux
	return e
}

type sayOutput struct {
	Kind string `json:"kind" enum:"support"`
}

// sayTool is a tool of the test server that needs scope and answers with
// what say returns.
func sayTool(name, scope string, say func(auth.Principal) string) toolkit.Tool {
	readOnly := toolkit.No
	if scope == vibesell.ScopeRead {
		readOnly = toolkit.Yes
	}
	return toolkit.Define(toolkit.Spec[struct{}, sayOutput]{
		Name: name, Title: name, Description: "Answers with a sentence; it needs " + scope + ".",
		Annotations: toolkit.Annotations{ReadOnly: readOnly, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: scope},
		Handler: func(ctx context.Context, p auth.Principal, _ struct{}) (toolkit.Result[sayOutput], error) {
			return toolkit.Result[sayOutput]{Markdown: say(p)}, nil
		},
	})
}

// browser is Ada's browser on this env.
func (e *env) browser(t testing.TB) *oauthtest.Browser {
	return oauthtest.New(t, e.srv.URL, e.publicURL, "ada@acme.test", password)
}

// connect connects the official Go SDK client with handler and returns
// its session.
func (e *env) connect(t testing.TB, handler sdkauth.OAuthHandler) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "oauth-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: e.srv.URL + "/mcp", OAuthHandler: handler}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func whoami(t testing.TB, cs *mcp.ClientSession) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"})
	if err != nil {
		t.Fatalf("call whoami: %v", err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("whoami: %d content items", len(res.Content))
	}
	return res.Content[0].(*mcp.TextContent).Text
}

const callback = "http://127.0.0.1:9/callback"

func dcrHandler(t testing.TB, b *oauthtest.Browser, check func(string)) *sdkauth.AuthorizationCodeHandler {
	t.Helper()
	h, err := sdkauth.NewAuthorizationCodeHandler(&sdkauth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &sdkauth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName:              "Test Client",
			RedirectURIs:            []string{callback},
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			TokenEndpointAuthMethod: "none",
		}},
		AuthorizationCodeFetcher: b.Fetcher(check),
		RequestRefreshToken:      true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// The official Go SDK client registers itself, sends the person through
// sign-in and consent on the real pages, and calls a tool as that person.
func TestGoSDKClientConnectsWithDynamicRegistration(t *testing.T) {
	t.Parallel()
	e := setup(t)
	b := e.browser(t)
	var consentPage string
	cs := e.connect(t, dcrHandler(t, b, func(page string) { consentPage = page }))

	if diff := cmp.Diff("acme-sales "+e.ada.ID.String()+" ada@acme.test via Test Client", whoami(t, cs)); diff != "" {
		t.Errorf("whoami mismatch (-want +got):\n%s", diff)
	}
	for _, want := range []string{"Connect Test Client to VibeSell?", "unverified", "127.0.0.1", "Acme Sales", "ada@acme.test"} {
		if !strings.Contains(consentPage, want) {
			t.Errorf("the consent page does not say %q:\n%s", want, consentPage)
		}
	}
	conns, err := e.oauth.Connections(context.Background(), e.acme.ID)
	if err != nil {
		t.Fatal(err)
	}
	type connection struct {
		Client, Person string
		Used           bool
	}
	var got []connection
	for _, c := range conns {
		got = append(got, connection{c.ClientName, c.Person, c.LastUsedAt != nil})
	}
	if d := cmp.Diff([]connection{{Client: "Test Client", Person: "ada@acme.test", Used: true}}, got); d != "" {
		t.Errorf("connections mismatch (-want +got):\n%s", d)
	}
	if other, _ := e.oauth.Connections(context.Background(), e.globex.ID); len(other) != 0 {
		t.Errorf("Globex sees %d connections of Acme", len(other))
	}
}

func TestMetadata(t *testing.T) {
	t.Parallel()
	e := setup(t)
	var as map[string]any
	getJSON(t, e.srv.URL+"/.well-known/oauth-authorization-server", &as)
	for k, want := range map[string]any{
		"issuer":                                         e.srv.URL,
		"code_challenge_methods_supported":               []any{"S256"},
		"registration_endpoint":                          e.srv.URL + "/oauth/register",
		"client_id_metadata_document_supported":          true,
		"authorization_response_iss_parameter_supported": true,
		"token_endpoint_auth_methods_supported":          []any{"none"},
		"scopes_supported":                               []any{"vibesell:read", "vibesell:write", "vibesell:act", "offline_access"},
	} {
		if diff := cmp.Diff(want, as[k]); diff != "" {
			t.Errorf("authorization server metadata %s mismatch (-want +got):\n%s", k, diff)
		}
	}
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		var prm map[string]any
		getJSON(t, e.srv.URL+path, &prm)
		if diff := cmp.Diff(map[string]any{
			"resource": e.srv.URL + "/mcp", "authorization_servers": []any{e.srv.URL}, "scopes_supported": []any{"vibesell:read", "vibesell:write", "vibesell:act"},
			"bearer_methods_supported": []any{"header"}, "resource_name": "VibeSell",
		}, prm); diff != "" {
			t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
		}
	}
	resp, err := http.Post(e.srv.URL+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := `Bearer resource_metadata="` + e.srv.URL + `/.well-known/oauth-protected-resource/mcp", scope="vibesell:read vibesell:write vibesell:act"`
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != want {
		t.Errorf("/mcp without a token: %d %q, want 401 %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), want)
	}
}

func getJSON(t testing.TB, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", u, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// Step-up: a client that asked only to read calls a tool that needs act,
// gets 403 insufficient_scope naming vibesell:act, asks the person again
// for it (the official Go SDK does this by itself), and the call goes
// through.
func TestStepUpFromReadToAct(t *testing.T) {
	t.Parallel()
	e := setup(t)
	b := e.browser(t)
	var pages []string
	var asked [][]string
	h, err := sdkauth.NewAuthorizationCodeHandler(&sdkauth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &sdkauth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "Careful Client", RedirectURIs: []string{callback}, TokenEndpointAuthMethod: "none",
		}},
		AuthorizationCodeFetcher: b.Fetcher(func(page string) { pages = append(pages, page) }),
		ScopeFilter: func(discovered []string) []string {
			asked = append(asked, discovered)
			if len(pages) == 0 {
				return []string{"vibesell:read"}
			}
			return discovered
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	cs := e.connect(t, h)
	if got := whoami(t, cs); !strings.HasPrefix(got, "acme-sales ") {
		t.Fatalf("a read tool with a read token: %q", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "launch"})
	if err != nil {
		t.Fatalf("launch after step-up: %v", err)
	}
	if res.IsError {
		t.Fatalf("launch after step-up refused: %s", res.Content[0].(*mcp.TextContent).Text)
	}
	if len(pages) != 2 {
		t.Fatalf("the person was asked %d times, want twice (read, then the step-up)", len(pages))
	}
	want := [][]string{{"vibesell:read", "vibesell:write", "vibesell:act"}, {"vibesell:act"}}
	if diff := cmp.Diff(want, asked); diff != "" {
		t.Errorf("scopes the client was told to ask for, by the 401 then by the 403 mismatch (-want +got):\n%s", diff)
	}
	if !strings.Contains(pages[0], "to change anything, it must ask you again") || strings.Contains(pages[0], "Set things going as you") {
		t.Errorf("the first consent page does not say it only reads:\n%s", pages[0])
	}
	if !strings.Contains(pages[1], "Set things going as you") || strings.Contains(pages[1], "it must ask you again") {
		t.Errorf("the step-up consent page does not say it will act as you:\n%s", pages[1])
	}
}
