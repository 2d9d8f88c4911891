package main

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"vibesell/store/storetest"
)

// Many simultaneous sessions calling at once: every call is answered,
// none fails.
func TestSuiteLoad(t *testing.T) {
	t.Parallel()
	url := storetest.NewURL(t)
	pool := connect(t, url)
	sessions := suiteSize(20, 200)
	duration := suiteSize(3*time.Second, 30*time.Second)
	workspaces := suiteSize(5, 20)
	tokens := make([]string, workspaces)
	for i := range tokens {
		_, tokens[i] = workspaceWithToken(t, pool, fmt.Sprintf("Load %d", i))
	}
	srv := startServer(t, "DATABASE_URL", url, "LOG_LEVEL", "error")
	srv.waitReady(t)
	type session struct{ token, id string }
	ss := make([]session, sessions)
	for i := range ss {
		ss[i] = session{tokens[i%workspaces], initialize(t, srv.addr, tokens[i%workspaces])}
	}
	calls := map[string]string{
		"get_workspace_context": contextCall,
		"remember (listing)":    `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"remember","arguments":{}}}`,
		"tools/list":            listTools,
	}
	names := []string{"get_workspace_context", "get_workspace_context", "remember (listing)", "tools/list"}
	var mu sync.Mutex
	counts := tally{}
	start := time.Now()
	var wg sync.WaitGroup
	for i, s := range ss {
		wg.Go(func() {
			for k := 0; k < 1_000_000 && time.Since(start) < duration; k++ {
				name := names[(i+k)%len(names)]
				status, body, err := mcpCall(srv.addr, s.token, s.id, calls[name])
				outcome := "answered"
				switch {
				case err != nil:
					outcome = "no answer"
				case status != 200:
					outcome = fmt.Sprintf("HTTP %d", status)
				case strings.Contains(body, `"isError":true`) || strings.Contains(body, `"error":{`):
					outcome = "failed"
				}
				mu.Lock()
				counts[outcome]++
				mu.Unlock()
				if outcome != "answered" {
					t.Errorf("%s on session %d: %s %.200s", name, i, outcome, body)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	t.Logf("%d sessions in %d workspaces for %s: %s (%.0f calls/s)", sessions, workspaces, elapsed.Round(100*time.Millisecond),
		counts, float64(counts["answered"])/elapsed.Seconds())
}
