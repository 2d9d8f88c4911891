package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"vibesell/auth"
	"vibesell/store/storetest"
	"vibesell/workspace"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// binary builds the server once per test run.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "vibesell-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "server")
		out, err := exec.Command("go", "build", "-o", builtBin, ".").CombinedOutput()
		if err != nil {
			buildErr = err
			builtBin = string(out)
		}
	})
	if buildErr != nil {
		t.Fatalf("build: %v\n%s", buildErr, builtBin)
	}
	return builtBin
}

// startProcess runs the built server as its own process.
func startProcess(t *testing.T, envs ...string) *testServer {
	t.Helper()
	s, _ := startProcessAt(t, freeAddr(t), append([]string{"LOG_LEVEL=warn"}, envs...)...)
	return s
}

// startProcessAt runs the built server as its own process listening on
// addr, and returns the process too, for a test that reads its memory.
func startProcessAt(t *testing.T, addr string, envs ...string) (*testServer, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(binary(t))
	cmd.Env = append(append(os.Environ(), "LISTEN_ADDR="+addr), envs...)
	stderr := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = io.Discard, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &testServer{addr: addr, stderr: stderr, done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
		}
	})
	s.waitReady(t)
	return s, cmd
}

// rpc posts one JSON-RPC message to /mcp and returns the response and the
// decoded result message (nil for a notification or an error status).
func rpc(t *testing.T, addr, token, session string, msg map[string]any, headers ...string) (*http.Response, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(msg)
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/mcp", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return resp, nil
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(raw))
		for sc.Scan() {
			if line, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				raw = []byte(line)
			}
		}
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("decode %q: %v", raw, err)
	}
	return resp, out
}

func initialize(t *testing.T, addr, token string) string {
	t.Helper()
	resp, out := rpc(t, addr, token, "", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize",
		"params": map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/ui": map[string]any{}}},
			"clientInfo": map[string]any{"name": "replica-test", "version": "7"}}})
	if resp.StatusCode != 200 || out["result"] == nil {
		t.Fatalf("initialize: %d %v", resp.StatusCode, out)
	}
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" {
		t.Fatal("initialize issued no Mcp-Session-Id")
	}
	if instr, _ := out["result"].(map[string]any)["instructions"].(string); !strings.Contains(instr, "null means") {
		t.Fatalf("initialize carries no instructions: %v", out)
	}
	rpc(t, addr, token, id, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return id
}

// A session opened on one server process is served by another process on
// the same database; unknown, foreign and terminated sessions get 404.
func TestMCPSessionsAcrossTwoProcesses(t *testing.T) {
	t.Parallel()
	url := storetest.NewURL(t)
	ctx := context.Background()
	pool := connect(t, url)
	wsA, err := workspace.Create(ctx, pool, "Replica A")
	if err != nil {
		t.Fatal(err)
	}
	wsB, _ := workspace.Create(ctx, pool, "Replica B")
	tokenA, _ := auth.NewTokens(auth.TokensDeps{DB: pool}).Create(ctx, wsA.ID)
	tokenB, _ := auth.NewTokens(auth.TokensDeps{DB: pool}).Create(ctx, wsB.ID)

	one := startProcess(t, "DATABASE_URL="+url)
	two := startProcess(t, "DATABASE_URL="+url)

	session := initialize(t, one.addr, tokenA)
	call := map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
		"params": map[string]any{"name": "get_workspace_context", "arguments": map[string]any{}}}
	resp, out := rpc(t, two.addr, tokenA, session, call)
	if resp.StatusCode != 200 {
		t.Fatalf("the second process refused the session: %d", resp.StatusCode)
	}
	result, _ := out["result"].(map[string]any)
	sc, _ := result["structuredContent"].(map[string]any)
	if sc["kind"] != "workspace" || sc["workspace"].(map[string]any)["slug"] != wsA.Slug {
		t.Fatalf("second process answered %v", out)
	}

	stored, err := auth.NewSessions(auth.SessionsDeps{DB: pool}).Find(ctx, wsA.ID, session)
	if err != nil {
		t.Fatal(err)
	}
	type client struct {
		Name, Version, Protocol string
		Apps                    bool // declared the MCP Apps extension
	}
	got := client{stored.ClientName, stored.ClientVersion, stored.ProtocolVersion, strings.Contains(string(stored.Capabilities), "io.modelcontextprotocol/ui")}
	if d := cmp.Diff(client{Name: "replica-test", Version: "7", Protocol: "2025-06-18", Apps: true}, got); d != "" {
		t.Fatalf("session stored mismatch (-want +got):\n%s", d)
	}

	if resp, _ := rpc(t, two.addr, tokenA, "mcp_invented", call); resp.StatusCode != 404 {
		t.Fatalf("an invented session got %d, want 404", resp.StatusCode)
	}
	if resp, _ := rpc(t, two.addr, tokenB, session, call); resp.StatusCode != 404 {
		t.Fatalf("another workspace's token with this session got %d, want 404", resp.StatusCode)
	}

	del, _ := http.NewRequest(http.MethodDelete, "http://"+one.addr+"/mcp", nil)
	del.Header.Set("Authorization", "Bearer "+tokenA)
	del.Header.Set("Mcp-Session-Id", session)
	delResp, err := http.DefaultClient.Do(del)
	if err != nil {
		t.Fatal(err)
	}
	delResp.Body.Close()
	if delResp.StatusCode != 200 {
		t.Fatalf("DELETE: %d", delResp.StatusCode)
	}
	// Each process keeps sessions in memory, told of an end by a
	// notification: the other process sees it within a second.
	took := storetest.WaitFor(t, "the other process to answer the terminated session with 404", func() bool {
		resp, _ := rpc(t, two.addr, tokenA, session, call)
		return resp.StatusCode == 404
	})
	t.Logf("the other process saw the session ended after %s", took)
	delResp, _ = http.DefaultClient.Do(del)
	if delResp.StatusCode != 404 {
		t.Fatalf("DELETE of an ended session: %d", delResp.StatusCode)
	}
}

func TestMCPNeedsABearerTokenAndChecksOrigin(t *testing.T) {
	t.Parallel()
	url := storetest.NewURL(t)
	pool := connect(t, url)
	ctx := context.Background()
	ws, _ := workspace.Create(ctx, pool, "Guarded")
	token, _ := auth.NewTokens(auth.TokensDeps{DB: pool}).Create(ctx, ws.ID)
	s := startServer(t, "DATABASE_URL", url, "LOG_LEVEL", "warn", "PUBLIC_URL", "https://vibesell.example.com", "ALLOWED_ORIGINS", "https://claude.ai")
	s.waitReady(t)
	init := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize",
		"params": map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}}

	resp, _ := rpc(t, s.addr, "", "", init)
	if resp.StatusCode != 401 || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Fatalf("no token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	resp, _ = rpc(t, s.addr, "vs_not-a-real-token", "", init)
	if resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "invalid_token") {
		t.Fatalf("bad token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	cases := []struct {
		headers []string
		want    int
	}{
		{[]string{"Origin", "https://evil.example"}, 403},
		{[]string{"Host", "evil.example"}, 403},
		{[]string{"Host", "attacker.test:8080", "Origin", "http://attacker.test:8080"}, 403},
		{[]string{"Origin", "https://claude.ai"}, 200},
		{[]string{"Host", "vibesell.example.com", "Origin", "https://vibesell.example.com"}, 200},
		{[]string{"Origin", "http://localhost:5173"}, 200},
	}
	for _, c := range cases {
		resp, _ := rpc(t, s.addr, token, "", init, c.headers...)
		if resp.StatusCode != c.want {
			t.Errorf("%v: %d, want %d", c.headers, resp.StatusCode, c.want)
		}
	}
}

// stdio serves one workspace on stdin/stdout; logs stay on stderr.
func TestStdioServesTheWorkspace(t *testing.T) {
	t.Parallel()
	url := storetest.NewURL(t)
	pool := connect(t, url)
	ws, _ := workspace.Create(context.Background(), pool, "Stdio Co")
	cmd := exec.Command(binary(t), "stdio", "--workspace", ws.Slug)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+url, "LOG_LEVEL=info")
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_workspace_context","arguments":{}}}`,
	}, "\n") + "\n"
	// Like a script: write every request and close stdin at once. Each
	// request read before the input ended is answered before the server
	// exits.
	cmd.Stdin = strings.NewReader(in)
	stderr := &syncBuffer{}
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("stdio exited with %v\n%s", err, stderr.String())
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("stdio did not exit within 60s of its input ending:\n%s", stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want the two responses on stdout, got %d lines:\n%s\n%s", len(lines), stdout.String(), stderr.String())
	}
	// JSON-RPC does not order responses, and mcp-go's stdio answers tool
	// calls from a worker pool: find the tools/call response by its id.
	var call string
	for _, line := range lines {
		if strings.HasPrefix(line, `{"jsonrpc":"2.0","id":2,`) {
			call = line
		}
	}
	var out struct {
		Result struct {
			StructuredContent struct {
				Workspace struct{ Slug string } `json:"workspace"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(call), &out); err != nil {
		t.Fatalf("no tools/call response (%v) in:\n%s", err, stdout.String())
	}
	if out.Result.StructuredContent.Workspace.Slug != ws.Slug {
		t.Fatalf("tools/call over stdio: %s", call)
	}
	if !strings.Contains(stderr.String(), "level=") {
		t.Fatalf("nothing logged to stderr: %q", stderr.String())
	}
}
