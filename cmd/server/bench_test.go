package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
	"vibesell/cards"
	"vibesell/sending"
	"vibesell/store"
	"vibesell/store/storetest"
	"vibesell/toolkit"
	"vibesell/tools"
	"vibesell/workspace"
)

// Load of the tool-call benchmark: clients, and how long each measured
// phase runs. Phases alternate echo and get_workspace_context so that
// drift on a noisy machine hits them alike.
const (
	benchClients   = 50
	benchPhase     = 4 * time.Second
	benchWarmup    = 2 * time.Second
	benchRounds    = 2       // measured phases per tool
	benchMaxCalls  = 200_000 // per client and phase: every loop is bounded
	benchCallLimit = 30 * time.Second
)

// BenchmarkToolCalls measures, in one run, the throughput and latency of
// tools/call for a bare mcp-go echo server (the baseline: no token, no
// session, no database), for echo (the framework alone: bearer token,
// session check, validation, mapping) and get_workspace_context (the same
// plus the workspace's context: served as production serves it, tokens,
// sessions and contexts kept in memory, and again from a server that
// keeps nothing, so that every call reads everything), with
// benchClients concurrent clients, each with its own workspace, token and
// initialized session, over real HTTP on loopback and a real PostgreSQL.
// The work is bounded by time, not b.N:
//
//	go test -run '^$' -bench ToolCalls -benchtime 1x ./cmd/server
func BenchmarkToolCalls(b *testing.B) {
	// The pool the server uses in production (store.Connect's default
	// size), with its round trips to the database counted.
	pool, queries := storetest.NewCounted(b)

	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	// Two servers on one database, as two replicas: the services as
	// production wires them (services.toolDeps), one keeping workspace
	// contexts between calls as production does, the other keeping none,
	// so the run also measures get_workspace_context when every call reads
	// everything (a context that changed since it was last read). Without
	// Sending, get_workspace_context would skip the sending setup's reads
	// and the benchmark would measure less than the server does.
	clock := vibesell.SystemClock{}
	notes := storetest.StartNotifications(b, pool)
	workspaces := workspace.New(workspace.Deps{DB: pool, Clock: vibesell.SystemClock{}, Notes: notes})
	deps := tools.Deps{
		Workspaces: workspaces,
		Sending:    sending.New(sending.Deps{DB: pool, Clock: clock, Config: sending.DefaultConfig(), Cards: cards.New(cards.Deps{DB: pool, Clock: clock}), Offers: workspaces, Contexts: workspaces}),
	}
	// The served one keeps tokens, sessions and contexts in memory, kept
	// true by notifications, as serve wires it; the other reads them all
	// on every call. Approvals too: the context reads the approvals waiting.
	deps.Approvals = approvals.New(approvals.Deps{DB: pool, Clock: clock, PublicURL: "http://127.0.0.1", Logger: logger})
	endpoint := startBenchServer(b, pool, deps, notes, logger)
	uncached := deps
	uncached.ContextCacheSize = -1
	uncachedEndpoint := startBenchServer(b, pool, uncached, nil, logger)
	bareEndpoint := startBareEchoServer(b)

	httpClient := &http.Client{
		Transport: &http.Transport{MaxIdleConns: benchClients * 2, MaxIdleConnsPerHost: benchClients * 2, IdleConnTimeout: time.Minute},
		Timeout:   benchCallLimit,
	}
	clients := make([]*benchClient, benchClients)
	for i := range clients {
		clients[i] = newBenchClient(b, pool, httpClient, endpoint, i)
	}

	bare := benchTarget{"bare_echo", "echo", bareEndpoint}
	echo := benchTarget{"echo", "echo", endpoint}
	wsctx := benchTarget{"ctx", "get_workspace_context", endpoint}
	uncachedCtx := benchTarget{"ctx_uncached", "get_workspace_context", uncachedEndpoint}
	card := benchTarget{"card", "choose_sending_source", endpoint}
	targets := []benchTarget{bare, echo, wsctx, uncachedCtx, card}

	// Warm up connections, pools and caches with every target.
	for _, t := range targets {
		runPhase(b, pool, queries, clients, t, benchWarmup)
	}

	b.ResetTimer()
	results := map[benchTarget]*phaseResult{}
	for range benchRounds {
		for _, t := range targets {
			if results[t] == nil {
				results[t] = &phaseResult{}
			}
			results[t].add(runPhase(b, pool, queries, clients, t, benchPhase))
		}
	}
	b.StopTimer()

	b.ReportMetric(0, "ns/op") // the work is not per b.N iteration
	for _, t := range targets {
		r := results[t]
		b.ReportMetric(r.throughput(), t.name+"_calls/s")
		b.ReportMetric(r.percentile(50), t.name+"_p50_ms")
		b.ReportMetric(r.percentile(99), t.name+"_p99_ms")
		b.ReportMetric(r.acquireWait(), t.name+"_db_wait_ms/call")
		b.ReportMetric(r.roundTripsPerCall(), t.name+"_db_roundtrips/call")
		b.ReportMetric(r.cpuPerCall(), t.name+"_cpu_us/call")
		b.ReportMetric(r.dbCPUPerCall(), t.name+"_db_cpu_us/call")
		b.Logf("%-12s %6.0f calls/s, p50 %5.1f ms, p99 %5.1f ms, %.1f round trips, CPU per call %4.0f µs here + %4.0f µs PostgreSQL",
			t.name, r.throughput(), r.percentile(50), r.percentile(99), r.roundTripsPerCall(), r.cpuPerCall(), r.dbCPUPerCall())
	}
	ratio := results[wsctx].throughput() / results[bare].throughput()
	uncachedRatio := results[uncachedCtx].throughput() / results[bare].throughput()
	echoRatio := results[echo].throughput() / results[bare].throughput()
	cardRatio := results[card].throughput() / results[bare].throughput()
	b.ReportMetric(cardRatio, "card/bare")
	b.ReportMetric(ratio, "ctx/bare")
	b.ReportMetric(uncachedRatio, "ctx_uncached/bare")
	b.ReportMetric(echoRatio, "echo/bare")
	b.Logf("%d clients, %d database connections. Throughput against a bare mcp-go echo server: get_workspace_context %.2f as served (goal at least 0.5, p99 under 25 ms: %.1f ms), %.2f when every call reads everything; answering a choice card %.2f (goal at least 0.3); our echo %.2f.",
		benchClients, pool.Config().MaxConns, ratio, results[wsctx].percentile(99), uncachedRatio, cardRatio, echoRatio)
}

// startBareEchoServer is the baseline: a bare mcp-go server, stateless
// streamable HTTP, one echo tool, no database, no token. Its answer has
// the shape the load clients check.
func startBareEchoServer(b *testing.B) string {
	b.Helper()
	s := server.NewMCPServer("bare", "1", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text", mcp.Required())),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text := req.GetString("text", "")
			return mcp.NewToolResultStructured(map[string]any{"kind": "echo", "text": text}, text), nil
		})
	srv := httptest.NewServer(server.NewStreamableHTTPServer(s, server.WithStateLess(true)))
	b.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// benchTarget is what a phase calls: a tool on one of the servers.
type benchTarget struct{ name, tool, endpoint string }

// startBenchServer serves the tools of deps and echo at /mcp on a new
// loopback server, as cmd/server wires them, and returns the endpoint.
// With notes, tokens and sessions are kept in memory as serve keeps them.
func startBenchServer(b *testing.B, pool *pgxpool.Pool, deps tools.Deps, notes *store.Notifications, logger *slog.Logger) string {
	b.Helper()
	tokens := auth.NewTokens(auth.TokensDeps{DB: pool, Notes: notes, Kept: tokensKept})
	sessions := auth.NewSessions(auth.SessionsDeps{DB: pool, Notes: notes, Kept: sessionsKept})
	mcpServer := tools.NewServer(deps, &toolkit.Options{
		Echo:          true,
		Logger:        logger,
		ServerOptions: []server.ServerOption{server.WithHooks(toolkit.RecordSessions(sessions, logger))},
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", toolkit.NewHTTPHandler(mcpServer, toolkit.HTTPOptions{
		Tokens:   tokens,
		Sessions: sessions,
		Logger:   logger,
	}))
	srv := httptest.NewServer(mux) // listens on 127.0.0.1
	b.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// benchClient is one MCP client: its own workspace, token and session.
type benchClient struct {
	http    *http.Client
	token   string
	session string
	// card is the choose_sending_source card the client answers, again
	// and again: the same answer to a card is accepted each time.
	card string
	buf  bytes.Buffer
}

// newBenchClient opens its session on endpoint; the session, kept in
// PostgreSQL, is served by every server on the database.
func newBenchClient(b *testing.B, pool *pgxpool.Pool, httpClient *http.Client, endpoint string, i int) *benchClient {
	b.Helper()
	ctx := context.Background()
	svc := workspace.New(workspace.Deps{DB: pool, Clock: vibesell.SystemClock{}})
	ws, err := svc.Create(ctx, fmt.Sprintf("Bench %02d", i))
	if err != nil {
		b.Fatal(err)
	}
	// A workspace with something in it, so get_workspace_context reads and
	// renders real rows rather than nulls.
	if _, err := svc.SaveOffer(ctx, ws.ID, workspace.Offer{
		CompanyName: "Acme Analytics", CompanyDomain: "acme.com", Product: "Revenue attribution for B2B SaaS",
		Audience: "Heads of marketing at SaaS companies with 50 to 500 people", Value: "Know which campaigns bring paying customers",
		ProofPoints: []string{"Used by 120 SaaS teams", "Set up in one afternoon"}, CallToAction: "A 20-minute call next week",
		Price: new(workspace.NewPrice(1450, "EUR", "month")),
	}); err != nil {
		b.Fatal(err)
	}
	if _, err := svc.SavePlaybook(ctx, ws.ID, workspace.Playbook{
		Tone: "Plain and direct", Angles: []string{"Attribution blind spots"},
		Objections: []workspace.Objection{{Objection: "We already use Google Analytics", Answer: "It tells you clicks; we tell you which clicks paid"}},
		Dos:        []string{"Mention one number"}, Donts: []string{"Never promise ROI"},
	}); err != nil {
		b.Fatal(err)
	}
	for _, fact := range []string{"Prefers to be called Sam", "Never email on Fridays"} {
		if _, err := svc.Remember(ctx, ws.ID, "preference", fact); err != nil {
			b.Fatal(err)
		}
	}
	token, err := auth.NewTokens(auth.TokensDeps{DB: pool}).Create(ctx, ws.ID)
	if err != nil {
		b.Fatal(err)
	}
	c := &benchClient{http: httpClient, token: token}
	resp, _, err := c.post(endpoint, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	if err != nil {
		b.Fatalf("initialize: %v", err)
	}
	if c.session = resp.Header.Get("Mcp-Session-Id"); c.session == "" {
		b.Fatal("initialize gave no Mcp-Session-Id")
	}
	if _, _, err := c.post(endpoint, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		b.Fatalf("notifications/initialized: %v", err)
	}
	_, raw, err := c.post(endpoint, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"choose_sending_source","arguments":{}}}`)
	if err != nil {
		b.Fatalf("choose_sending_source: %v", err)
	}
	var asked struct {
		Result struct {
			StructuredContent struct {
				Card string `json:"card"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &asked); err != nil || asked.Result.StructuredContent.Card == "" {
		b.Fatalf("choose_sending_source gave no card: %v %.300s", err, raw)
	}
	c.card = asked.Result.StructuredContent.Card
	return c
}

// post sends one JSON-RPC message and returns the response and the JSON
// of the message it carries (from an SSE stream too).
func (c *benchClient) post(endpoint, body string) (*http.Response, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+c.token)
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	c.buf.Reset()
	if _, err := c.buf.ReadFrom(resp.Body); err != nil {
		return nil, nil, err
	}
	if resp.StatusCode/100 != 2 {
		return resp, nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(c.buf.String()))
	}
	raw := c.buf.Bytes()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
		for sc.Scan() {
			if line, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); ok {
				raw = slices.Clone(line)
			}
		}
	}
	return resp, raw, nil
}

// call runs one tools/call and checks that it is a result of the tool's
// kind: a benchmark of refusals or errors would measure nothing useful.
// Decoding each answer in full would cost the load clients, which share the
// server's cores, a good part of what the server spends on a large result;
// so an answer passes when it carries the kind's structuredContent and no
// isError (which every refusal, internal error and JSON-RPC error fails),
// and the answer is decoded in full when decode is set or the quick check
// fails.
func (c *benchClient) call(id int, t benchTarget, decode bool) error {
	tool, args, kind := t.tool, `{}`, "workspace"
	switch tool {
	case "echo":
		args, kind = `{"text":"hello"}`, "echo"
	case "choose_sending_source":
		args, kind = `{"answers":[{"card":"`+c.card+`","answer":"own_names"}]}`, "sending_choice"
	}
	_, raw, err := c.post(t.endpoint, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args))
	if err != nil {
		return err
	}
	if !decode && bytes.Contains(raw, []byte(`"structuredContent":{"kind":"`+kind+`"`)) && !bytes.Contains(raw, []byte(`"isError":true`)) {
		return nil
	}
	var msg struct {
		Error  *struct{ Message string } `json:"error"`
		Result struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				Kind string `json:"kind"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &msg); err != nil {
		return fmt.Errorf("decode %.200q: %w", raw, err)
	}
	if msg.Error != nil {
		return fmt.Errorf("JSON-RPC error: %s", msg.Error.Message)
	}
	if msg.Result.IsError || msg.Result.StructuredContent.Kind != kind {
		return fmt.Errorf("not a %s result: %.300s", kind, raw)
	}
	return nil
}

// phaseResult accumulates the calls of one tool over its phases.
type phaseResult struct {
	calls      int
	elapsed    time.Duration
	latencies  []time.Duration
	acquireDur time.Duration
	queries    int
	cpu        time.Duration
	dbCPU      time.Duration
}

func (r *phaseResult) add(o *phaseResult) {
	r.calls += o.calls
	r.elapsed += o.elapsed
	r.latencies = append(r.latencies, o.latencies...)
	r.acquireDur += o.acquireDur
	r.queries += o.queries
	r.cpu += o.cpu
	r.dbCPU += o.dbCPU
}

func (r *phaseResult) throughput() float64 { return float64(r.calls) / r.elapsed.Seconds() }

func (r *phaseResult) percentile(p int) float64 {
	if len(r.latencies) == 0 {
		return 0
	}
	slices.Sort(r.latencies)
	i := min(len(r.latencies)-1, len(r.latencies)*p/100)
	return float64(r.latencies[i].Microseconds()) / 1000
}

// acquireWait is the time calls spent waiting for a database connection
// from the pool, per call: the pool's own accounting.
func (r *phaseResult) acquireWait() float64 {
	if r.calls == 0 {
		return 0
	}
	return float64(r.acquireDur.Microseconds()) / 1000 / float64(r.calls)
}

// roundTripsPerCall is how many times per call the server waited for
// PostgreSQL: a query or a batch of queries is one round trip.
func (r *phaseResult) roundTripsPerCall() float64 {
	if r.calls == 0 {
		return 0
	}
	return float64(r.queries) / float64(r.calls)
}

// cpuPerCall is the CPU time of this process (server and load clients
// alike, PostgreSQL not included) per call, in microseconds: less
// sensitive than throughput to what else runs on the machine.
func (r *phaseResult) cpuPerCall() float64 {
	if r.calls == 0 {
		return 0
	}
	return float64(r.cpu.Microseconds()) / float64(r.calls)
}

// dbCPUPerCall is the CPU time PostgreSQL's processes on this machine used
// per call, in microseconds (0 where /proc cannot tell): with the server
// and the clients it makes up what a call costs the machine.
func (r *phaseResult) dbCPUPerCall() float64 {
	if r.calls == 0 {
		return 0
	}
	return float64(r.dbCPU.Microseconds()) / float64(r.calls)
}

// processCPU is the user and system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// postgresCPU is the user and system CPU time used so far by the processes
// named postgres that are running on this machine (Linux only; 0
// elsewhere). A backend that exits takes its time with it, but the pool
// keeps its connections open for the whole benchmark.
func postgresCPU() time.Duration {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var ticks int64
	for _, path := range stats {
		raw, err := os.ReadFile(path)
		if err != nil {
			continue // the process has exited
		}
		// pid (comm) state ppid ...: comm may hold spaces, so fields are
		// counted from the last ')'.
		end := bytes.LastIndexByte(raw, ')')
		start := bytes.IndexByte(raw, '(')
		if start < 0 || end < start || string(raw[start+1:end]) != "postgres" {
			continue
		}
		fields := strings.Fields(string(raw[end+1:]))
		if len(fields) < 13 {
			continue
		}
		utime, _ := strconv.ParseInt(fields[11], 10, 64)
		stime, _ := strconv.ParseInt(fields[12], 10, 64)
		ticks += utime + stime
	}
	const clockTicksPerSecond = 100 // USER_HZ on Linux
	return time.Duration(ticks) * time.Second / clockTicksPerSecond
}

// runPhase has every client call tool back to back for d, and returns
// what was done. Any failed call stops the benchmark.
func runPhase(b *testing.B, pool *pgxpool.Pool, queries *storetest.RoundTrips, clients []*benchClient, t benchTarget, d time.Duration) *phaseResult {
	b.Helper()
	before := pool.Stat().AcquireDuration()
	queriesBefore := queries.Count()
	cpuBefore := processCPU()
	dbCPUBefore := postgresCPU()
	start := time.Now()
	deadline := start.Add(d)
	var (
		mu       sync.Mutex
		res      = &phaseResult{}
		firstErr error
		wg       sync.WaitGroup
	)
	for _, c := range clients {
		wg.Go(func() {
			lat := make([]time.Duration, 0, 1024)
			for i := range benchMaxCalls {
				t0 := time.Now()
				if !t0.Before(deadline) {
					break
				}
				if err := c.call(i+2, t, i == 0); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("%s: %w", t.name, err)
					}
					mu.Unlock()
					break
				}
				lat = append(lat, time.Since(t0))
			}
			mu.Lock()
			res.calls += len(lat)
			res.latencies = append(res.latencies, lat...)
			mu.Unlock()
		})
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	res.acquireDur = pool.Stat().AcquireDuration() - before
	res.queries = int(queries.Count() - queriesBefore)
	res.cpu = processCPU() - cpuBefore
	res.dbCPU = postgresCPU() - dbCPUBefore
	if firstErr != nil {
		b.Fatal(firstErr)
	}
	return res
}
