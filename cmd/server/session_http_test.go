package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/mark3labs/mcp-go/server"

	"vibesell"
	"vibesell/auth"
	"vibesell/store/storetest"
	"vibesell/toolkit"
	"vibesell/ui"
	"vibesell/workspace"
)

// mcpEndpoint is /mcp as cmd/server wires it (bearer tokens, sessions in
// PostgreSQL), with the echo tool only, on 127.0.0.1.
type mcpEndpoint struct {
	url string
	// unregistered lists the sessions whose in-memory state mcp-go
	// dropped.
	mu           sync.Mutex
	unregistered []string
}

// startMCP serves /mcp; limits, when given, bound the sessions it keeps
// in memory.
func startMCP(t *testing.T, tokens *auth.Tokens, sessions *auth.Sessions, memoryTTL time.Duration, limits ...toolkit.SessionMemoryLimits) *mcpEndpoint {
	t.Helper()
	e := &mcpEndpoint{}
	logger := slog.New(slog.DiscardHandler)
	hooks := toolkit.RecordSessions(sessions, logger)
	hooks.AddOnUnregisterSession(func(_ context.Context, s server.ClientSession) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.unregistered = append(e.unregistered, s.SessionID())
	})
	mcp := toolkit.NewServer(nil, &toolkit.Options{Echo: true, Logger: logger, CardHTML: ui.CardHTML, ServerOptions: []server.ServerOption{server.WithHooks(hooks)}})
	var memory toolkit.SessionMemoryLimits
	if len(limits) > 0 {
		memory = limits[0]
	}
	srv := httptest.NewServer(toolkit.NewHTTPHandler(mcp, toolkit.HTTPOptions{
		Tokens: tokens, Sessions: sessions, Logger: logger, SessionMemoryTTL: memoryTTL, SessionMemory: memory,
	}))
	t.Cleanup(srv.Close)
	e.url = srv.URL + "/mcp"
	return e
}

func (e *mcpEndpoint) dropped(id string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, u := range e.unregistered {
		if u == id {
			return true
		}
	}
	return false
}

// send makes one request to /mcp and returns its status, session header
// and body (at most the first 4 MB).
func (e *mcpEndpoint) send(t *testing.T, method, token, session, body string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, e.url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") && method == http.MethodGet {
		return res.StatusCode, res.Header.Get("Mcp-Session-Id"), "(event stream)"
	}
	b, _ := io.ReadAll(io.LimitReader(res.Body, 4<<20))
	return res.StatusCode, res.Header.Get("Mcp-Session-Id"), string(b)
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`

func (e *mcpEndpoint) initialize(t *testing.T, token string) string {
	t.Helper()
	status, id, body := e.send(t, http.MethodPost, token, "", initializeBody)
	if status != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %q %s", status, id, body)
	}
	return id
}

type sessionFixture struct {
	pool         *pgxpool.Pool
	tokens       *auth.Tokens
	sessions     *auth.Sessions
	acme, globex workspace.Workspace
	acmeToken    string
	globexToken  string
}

func setupSessions(t *testing.T) *sessionFixture {
	t.Helper()
	ctx := context.Background()
	f := &sessionFixture{pool: storetest.New(t)}
	f.tokens, f.sessions = auth.NewTokens(auth.TokensDeps{DB: f.pool}), auth.NewSessions(auth.SessionsDeps{DB: f.pool})
	ws := workspace.New(workspace.Deps{DB: f.pool, Clock: vibesell.SystemClock{}})
	var err error
	if f.acme, err = ws.Create(ctx, "Acme"); err != nil {
		t.Fatal(err)
	}
	if f.globex, err = ws.Create(ctx, "Globex"); err != nil {
		t.Fatal(err)
	}
	if f.acmeToken, err = f.tokens.Create(ctx, f.acme.ID); err != nil {
		t.Fatal(err)
	}
	if f.globexToken, err = f.tokens.Create(ctx, f.globex.ID); err != nil {
		t.Fatal(err)
	}
	return f
}

// The idle sweeper drops each idle session's memory, again and again, and
// ends none of the sessions: their clients carry on with them.
func TestIdleSessionsMemoryIsDroppedAndTheSessionsLiveOn(t *testing.T) {
	t.Parallel()
	f := setupSessions(t)
	e := startMCP(t, f.tokens, f.sessions, time.Second)
	first, second := e.initialize(t, f.acmeToken), e.initialize(t, f.acmeToken)
	storetest.WaitFor(t, "the sweeper to drop both sessions' memory", func() bool { return e.dropped(first) && e.dropped(second) })
	third := e.initialize(t, f.acmeToken)
	storetest.WaitFor(t, "the sweeper, after its first sweep, to drop a later session's memory", func() bool { return e.dropped(third) })

	for _, id := range []string{first, second, third} {
		if ended, err := f.sessions.Check(context.Background(), f.acme.ID, id); err != nil || ended {
			t.Errorf("session %s after its memory was dropped: ended %v, %v", id, ended, err)
		}
		status, _, body := e.send(t, http.MethodPost, f.acmeToken, id, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		if status != http.StatusOK || !strings.Contains(body, `"echo"`) {
			t.Errorf("tools/list on session %s after its memory was dropped: %d %s", id, status, body)
		}
	}
}

// GET /mcp opens an event stream only on a live session of the token's
// workspace, and stores nothing without one.
func TestGETChecksTheSession(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setupSessions(t)
	e := startMCP(t, f.tokens, f.sessions, 0)
	ours, theirs, ended := e.initialize(t, f.acmeToken), e.initialize(t, f.globexToken), e.initialize(t, f.acmeToken)
	if status, _, body := e.send(t, http.MethodDelete, f.acmeToken, ended, ""); status != http.StatusOK {
		t.Fatalf("DELETE: %d %s", status, body)
	}
	var before int
	if err := f.pool.QueryRow(ctx, `SELECT count(*) FROM mcp_sessions`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, session string
		want          int
	}{
		{"another workspace's session", theirs, http.StatusNotFound},
		{"an ended session", ended, http.StatusNotFound},
		{"an invented session", auth.NewSessionID(), http.StatusNotFound},
		{"no session", "", http.StatusBadRequest},
		{"its own live session", ours, http.StatusOK},
	} {
		if status, _, body := e.send(t, http.MethodGet, f.acmeToken, c.session, ""); status != c.want {
			t.Errorf("GET with %s: %d %s, want %d", c.name, status, body, c.want)
		}
	}
	for _, method := range []string{http.MethodPost, http.MethodDelete} {
		if status, _, _ := e.send(t, method, f.acmeToken, theirs, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); status != http.StatusNotFound {
			t.Errorf("%s with another workspace's session: %d", method, status)
		}
	}
	var after int
	if err := f.pool.QueryRow(ctx, `SELECT count(*) FROM mcp_sessions`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("the GETs stored %d sessions", after-before)
	}
}

// A session check that fails on the database is an outage with a ref, not
// a 404 that sends the client to start over.
func TestASessionCheckOnAStoppedDatabaseIsAnOutage(t *testing.T) {
	t.Parallel()
	f := setupSessions(t)
	live := startMCP(t, f.tokens, f.sessions, 0)
	id := live.initialize(t, f.acmeToken)
	dead, err := pgxpool.New(context.Background(), storetest.StoppedURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dead.Close)
	e := startMCP(t, f.tokens, auth.NewSessions(auth.SessionsDeps{DB: dead}), 0)
	status, _, body := e.send(t, http.MethodPost, f.acmeToken, id, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if status != http.StatusServiceUnavailable || !regexp.MustCompile(`\(ref [0-9a-f]{8}\)`).MatchString(body) {
		t.Errorf("%d %s", status, body)
	}
}

// A session deleted to make room for a new one (past
// MCP_SESSIONS_PER_WORKSPACE) is forgotten from memory at once, not when
// its memory TTL is over; so is one its client ended.
func TestSessionsEndedAreForgottenAtOnce(t *testing.T) {
	t.Parallel()
	f := setupSessions(t)
	f.sessions = auth.NewSessions(auth.SessionsDeps{DB: f.pool, Limits: auth.SessionLimits{PerWorkspace: 3}})
	e := startMCP(t, f.tokens, f.sessions, time.Hour)
	var ids []string
	for range 8 {
		ids = append(ids, e.initialize(t, f.acmeToken))
	}
	for i, id := range ids {
		if want := i < 5; e.dropped(id) != want {
			t.Errorf("session %d of 8 (the workspace keeps 3): forgotten %v, want %v", i+1, e.dropped(id), want)
		}
	}
	if status, _, body := e.send(t, http.MethodDelete, f.acmeToken, ids[7], ""); status != http.StatusOK {
		t.Fatalf("DELETE: %d %s", status, body)
	}
	if !e.dropped(ids[7]) {
		t.Error("a session its client ended is still in memory")
	}
}

// What a replica keeps in memory is bounded per workspace and in all
// (MCP_SESSION_MEMORY_PER_WORKSPACE, MCP_SESSION_MEMORY_PER_REPLICA): the
// least recently used sessions are forgotten first, and live on in
// PostgreSQL: their next request is served.
func TestSessionMemoryIsBoundedPerWorkspaceAndPerReplica(t *testing.T) {
	t.Parallel()
	f := setupSessions(t)
	e := startMCP(t, f.tokens, f.sessions, time.Hour, toolkit.SessionMemoryLimits{PerWorkspace: 3, PerReplica: 5})
	var acme []string
	for range 3 {
		acme = append(acme, e.initialize(t, f.acmeToken))
	}
	// The first is used again, so the second is the least recently used.
	if status, _, body := e.send(t, http.MethodPost, f.acmeToken, acme[0], `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); status != http.StatusOK {
		t.Fatalf("tools/list: %d %s", status, body)
	}
	acme = append(acme, e.initialize(t, f.acmeToken), e.initialize(t, f.acmeToken))
	forgotten := func(ids []string) []bool {
		var out []bool
		for _, id := range ids {
			out = append(out, e.dropped(id))
		}
		return out
	}
	// Acme keeps 3: of 5 sessions, the two least recently used went.
	if d := cmp.Diff([]bool{false, true, true, false, false}, forgotten(acme)); d != "" {
		t.Errorf("Acme's sessions forgotten (-want +got):\n%s", d)
	}
	// Globex's 3 make 6 in all, one more than the replica keeps: the
	// least recently used of all (Acme's oldest kept) goes.
	var globex []string
	for range 3 {
		globex = append(globex, e.initialize(t, f.globexToken))
	}
	if d := cmp.Diff([]bool{true, true, true, false, false}, forgotten(acme)); d != "" {
		t.Errorf("Acme's sessions forgotten once Globex opened 3 (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]bool{false, false, false}, forgotten(globex)); d != "" {
		t.Errorf("Globex's sessions forgotten (-want +got):\n%s", d)
	}
	// Forgotten is not ended: the session serves its next request.
	for _, id := range acme[:3] {
		if ended, err := f.sessions.Check(context.Background(), f.acme.ID, id); err != nil || ended {
			t.Errorf("session %s after it was forgotten: ended %v, %v", id, ended, err)
		}
		status, _, body := e.send(t, http.MethodPost, f.acmeToken, id, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
		if status != http.StatusOK || !strings.Contains(body, `"echo"`) {
			t.Errorf("tools/list on forgotten session %s: %d %s", id, status, body)
		}
	}
}

// sendModern posts one 2026-07-28 request: its headers name the revision,
// the method (unless empty) and the tool, prompt or resource (unless
// empty); session, unless empty, is sent as a client of 2025-11-25 would.
func (e *mcpEndpoint) sendModern(t *testing.T, method, name, token, session, body string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	if method != "" {
		req.Header.Set("Mcp-Method", method)
	}
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 4<<20))
	return res.StatusCode, res.Header.Get("Mcp-Session-Id"), string(b)
}
