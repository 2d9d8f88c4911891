package main

import (
	"fmt"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"vibesell/auth"
	"vibesell/store/storetest"
	"vibesell/toolkit"
)

var vmRSS = regexp.MustCompile(`(?m)^VmRSS:\s+(\d+) kB$`)

// rss is a process's resident memory in KB (Linux).
func rss(t *testing.T, pid int) int {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	m := vmRSS.FindSubmatch(raw)
	if m == nil {
		t.Skip("no VmRSS in /proc")
	}
	kb, _ := strconv.Atoi(string(m[1]))
	return kb
}

// A flood of initializes with one token leaves the server process's
// memory near where it started: the sessions deleted to make room are
// forgotten at once, what stays in memory is bounded per workspace, and
// the rest goes at the session memory TTL. The long form is the flood as
// reported (20,000 initializes, a TTL of 2 s); the short form, which CI
// runs, floods 2,000 with a TTL of an hour, so that only the bounds can
// bring the memory back. An idle Go process collects its garbage every
// two minutes and returns memory to the system gradually, hence the wait.
func TestSuiteSessionMemoryComesBack(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a server process for minutes")
	}
	t.Parallel()
	url := storetest.NewURL(t)
	_, token := workspaceWithToken(t, connect(t, url), "Memory")
	addr := freeAddr(t)
	ttl := suiteSize("1h", "2s")
	proc := startKillable(t, addr, "DATABASE_URL="+url, "MCP_SESSION_MEMORY_TTL="+ttl)
	// A few sessions first, so the start figure counts a warm server.
	for range 50 {
		initialize(t, addr, token)
	}
	start := rss(t, proc.Process.Pid)

	initializes := suiteSize(2_000, 20_000)
	caps := `{"experimental":{"padding":"` + strings.Repeat("x", 3000) + `"}}`
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":` + caps +
		`,"clientInfo":{"name":"memory-test","version":"1"}}}`
	var wg sync.WaitGroup
	var mu sync.Mutex
	failed := 0
	for w := range 10 {
		wg.Go(func() {
			for i := w; i < initializes; i += 10 {
				status, _, err := mcpCall(addr, token, "", body)
				if err != nil || status != http.StatusOK {
					mu.Lock()
					failed++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if failed > 0 {
		t.Fatalf("%d of %d initializes failed", failed, initializes)
	}
	peak := rss(t, proc.Process.Pid)
	var now int
	began := time.Now()
	for now = rss(t, proc.Process.Pid); now > start*12/10; now = rss(t, proc.Process.Pid) {
		if time.Since(began) > 5*time.Minute {
			t.Fatalf("RSS %d MB at the start, %d MB after %d initializes, still %d MB 5 minutes later", start/1024, peak/1024, initializes, now/1024)
		}
		time.Sleep(time.Second)
	}
	took := time.Since(began)
	t.Logf("%d initializes: RSS %d MB at the start, %d MB after them, %d MB %s later (TTL %s)",
		initializes, start/1024, peak/1024, now/1024, took.Round(100*time.Millisecond), ttl)
}

// The short form of TestSuiteSessionMemoryComesBack, in this process: what
// initializes keep in memory is freed once the sweeper has dropped their
// sessions. Not parallel: it measures this process's heap.
func TestSessionMemoryIsFreed(t *testing.T) {
	f := setupSessions(t)
	e := startMCP(t, f.tokens, f.sessions, time.Second)
	const initializes = 1000
	start, ids := floodInitializes(t, e, f.acmeToken, initializes)
	peak := heapAlloc()
	storetest.WaitFor(t, "the sweeper to drop every session", func() bool {
		for _, id := range ids {
			if !e.dropped(id) {
				return false
			}
		}
		return true
	})
	after := heapAlloc()
	t.Logf("%d initializes of 20 KB: heap %d KB before, %d KB after them, %d KB once swept", initializes, start>>10, peak>>10, after>>10)
	if after > start*12/10+1<<20 {
		t.Errorf("heap %d KB before, %d KB once swept: the sessions' memory was kept", start>>10, after>>10)
	}
}

// A flood of initializes with one token keeps, in this process, no more
// memory than the sessions the workspace keeps: each session deleted to
// make room for a new one is forgotten at once, long before its memory
// TTL (an hour here). Not parallel: it measures this process's heap.
func TestSessionMemoryOfSessionsMadeRoomForIsFreed(t *testing.T) {
	f := setupSessions(t)
	f.sessions = auth.NewSessions(auth.SessionsDeps{DB: f.pool, Limits: auth.SessionLimits{PerWorkspace: 10}})
	e := startMCP(t, f.tokens, f.sessions, time.Hour, toolkit.SessionMemoryLimits{PerWorkspace: 1_000_000, PerReplica: 1_000_000})
	const initializes = 1000
	start, _ := floodInitializes(t, e, f.acmeToken, initializes)
	after := heapAlloc()
	t.Logf("%d initializes of 20 KB, the workspace keeping 10 sessions: heap %d KB before, %d KB after them", initializes, start>>10, after>>10)
	if after > start*12/10+1<<20 {
		t.Errorf("heap %d KB before, %d KB after: the sessions deleted to make room kept their memory", start>>10, after>>10)
	}
}

// heapAlloc is this process's live heap, collected first.
func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// floodInitializes warms e up with 20 small initializes, reads the heap,
// then initializes n sessions with token, each carrying 20 KB of
// capabilities. It returns the heap before the flood and the sessions'
// ids.
func floodInitializes(t *testing.T, e *mcpEndpoint, token string, n int) (start uint64, ids []string) {
	t.Helper()
	for range 20 {
		e.initialize(t, token)
	}
	start = heapAlloc()
	caps := `{"experimental":{"padding":"` + strings.Repeat("x", 20_000) + `"}}`
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":` + caps +
		`,"clientInfo":{"name":"memory-test","version":"1"}}}`
	ids = make([]string, 0, n)
	for range n {
		status, id, b := e.send(t, http.MethodPost, token, "", body)
		if status != http.StatusOK {
			t.Fatalf("initialize: %d %s", status, b)
		}
		ids = append(ids, id)
	}
	return start, ids
}
