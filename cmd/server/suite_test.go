package main

// The load and fault suite: the attacks and faults the server was put
// through from outside, as tests that report what they counted. `go test
// ./cmd/server` runs its short form (CI does); the long form runs longer
// and heavier:
//
//	SUITE=long go test -run Suite -v -timeout 30m ./cmd/server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/auth"
	"vibesell/store/storetest"
	"vibesell/workspace"
)

// suiteLong reports whether the long form runs.
func suiteLong() bool { return os.Getenv("SUITE") == "long" }

// suiteSize picks the short or the long form's figure.
func suiteSize[T any](short, long T) T {
	if suiteLong() {
		return long
	}
	return short
}

// dbProxy stands between a server and PostgreSQL, to stop the database
// (connections refused, open ones cut) or hang it (connections accepted,
// nothing forwarded either way) and bring it back, without touching the
// PostgreSQL other tests share.
type dbProxy struct {
	target string
	l      net.Listener

	mu    sync.Mutex
	cond  *sync.Cond
	mode  string // "up", "stopped" or "hung"
	conns map[net.Conn]bool
}

func startDBProxy(t *testing.T, target string) *dbProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &dbProxy{target: target, l: l, mode: "up", conns: map[net.Conn]bool{}}
	p.cond = sync.NewCond(&p.mu)
	t.Cleanup(func() {
		l.Close()
		p.set("stopped")
	})
	go p.serve()
	return p
}

func (p *dbProxy) serve() {
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		mode := p.mode
		if mode != "stopped" {
			p.conns[c] = true
		}
		p.mu.Unlock()
		if mode == "stopped" {
			c.Close()
			continue
		}
		go p.forward(c)
	}
}

func (p *dbProxy) forward(c net.Conn) {
	defer p.drop(c)
	p.wait() // a hung database does not even answer the start-up
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	p.mu.Lock()
	p.conns[up] = true
	p.mu.Unlock()
	defer p.drop(up)
	done := make(chan struct{}, 2)
	go func() { p.copy(up, c); done <- struct{}{} }()
	go func() { p.copy(c, up); done <- struct{}{} }()
	<-done
}

// copy forwards until either side closes, holding every chunk while the
// database hangs.
func (p *dbProxy) copy(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.wait() {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// wait blocks while the database hangs, and reports whether it is up.
func (p *dbProxy) wait() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.mode == "hung" {
		p.cond.Wait()
	}
	return p.mode == "up"
}

func (p *dbProxy) drop(c net.Conn) {
	c.Close()
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// set stops, hangs or brings back the database. Stopping cuts every open
// connection, as a database that shuts down does.
func (p *dbProxy) set(mode string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode = mode
	if mode == "stopped" {
		for c := range p.conns {
			c.Close()
		}
	}
	p.cond.Broadcast()
}

// through returns url with its host replaced by the proxy's address.
func (p *dbProxy) through(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = p.l.Addr().String()
	return u.String()
}

// suiteClient makes requests with a deadline and never fails the test on
// a transport error: under fault, a refused or cut request is an outcome
// to count.
var suiteClient = &http.Client{Timeout: 20 * time.Second}

// mcpCall posts one JSON-RPC message and returns the status and body.
func mcpCall(addr, token, session, body string) (int, string, error) {
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	res, err := suiteClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, string(b), err
}

const contextCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_workspace_context","arguments":{}}}`

var (
	refInAnswer = regexp.MustCompile(`\(ref [0-9a-f]{8}\)`)
	errorLine   = regexp.MustCompile(`(?m)^.*level=ERROR.*$`)
)

// A stopped and a hung database: every request gets an answer, and every
// failed one a sentence with a ref; the server logs a line a second at
// most; and it recovers by itself once the database is back.
func TestSuiteDatabaseOutage(t *testing.T) {
	t.Parallel()
	direct := storetest.NewURL(t)
	pool := connect(t, direct)
	_, token := workspaceWithToken(t, pool, "Outage")
	proxy := startDBProxy(t, mustHost(t, direct))
	srv := startProcess(t, "DATABASE_URL="+proxy.through(t, direct), "LOG_LEVEL=info")
	session := initialize(t, srv.addr, token)
	if status, body, err := mcpCall(srv.addr, token, session, contextCall); err != nil || status != 200 {
		t.Fatalf("before the outage: %d %v %s", status, err, body)
	}

	for _, fault := range []string{"stopped", "hung"} {
		duration := suiteSize(4*time.Second, 30*time.Second)
		clients := suiteSize(10, 50)
		logBefore := len(errorLine.FindAllString(srv.stderr.String(), -1))
		proxy.set(fault)
		start := time.Now()
		var mu sync.Mutex
		counts := map[string]int{}
		var wg sync.WaitGroup
		for range clients {
			wg.Go(func() {
				for i := 0; i < 100_000 && time.Since(start) < duration; i++ {
					status, body, err := mcpCall(srv.addr, token, session, contextCall)
					outcome := fmt.Sprintf("%d", status)
					switch {
					case err != nil:
						outcome = "no answer: " + err.Error()
					case status == 200 && strings.Contains(body, `"isError":true`) && refInAnswer.MatchString(body):
						outcome = "200, a tool error with a ref"
					case status == 200 && strings.Contains(body, `"kind":"workspace"`):
						outcome = "200, the context (kept in memory)"
					case status != 200 && refInAnswer.MatchString(body):
						outcome += " with a ref"
					default:
						outcome += ": " + body
					}
					mu.Lock()
					counts[outcome]++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(start)
		logged := len(errorLine.FindAllString(srv.stderr.String(), -1)) - logBefore
		proxy.set("up")
		recovered := storetest.WaitFor(t, "the server to recover by itself", func() bool {
			status, _, err := mcpCall(srv.addr, token, session, contextCall)
			return err == nil && status == 200
		})
		t.Logf("database %s for %s, %d clients: answers %v; %d ERROR lines logged; recovered %s after the database came back",
			fault, elapsed.Round(100*time.Millisecond), clients, counts, logged, recovered.Round(10*time.Millisecond))
		for outcome, n := range counts {
			if !strings.HasPrefix(outcome, "200") && !strings.HasSuffix(outcome, "with a ref") {
				t.Errorf("database %s: %d answers without a ref: %s", fault, n, outcome)
			}
		}
		if most := 1 + int(elapsed/time.Second); logged > most {
			t.Errorf("database %s for %s: %d ERROR lines, want at most %d (one a second)\n%s", fault, elapsed, logged, most,
				strings.Join(errorLine.FindAllString(srv.stderr.String(), -1)[logBefore:], "\n"))
		}
	}
}

// workspaceWithToken creates a workspace and a token for it.
func workspaceWithToken(t *testing.T, pool *pgxpool.Pool, name string) (workspace.Workspace, string) {
	t.Helper()
	ctx := context.Background()
	ws, err := workspace.New(workspace.Deps{DB: pool, Clock: vibesell.SystemClock{}}).Create(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	token, err := auth.NewTokens(auth.TokensDeps{DB: pool}).Create(ctx, ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	return ws, token
}

func mustHost(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

var _ = bytes.NewReader
