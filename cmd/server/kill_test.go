package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"vibesell/store/storetest"
	"vibesell/workspace"
)

// startKillable runs the built server as a process the test can kill -9.
func startKillable(t *testing.T, addr string, envs ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(binary(t))
	cmd.Env = append(append(os.Environ(), "LISTEN_ADDR="+addr, "LOG_LEVEL=error"), envs...)
	stderr := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = io.Discard, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	s := &testServer{addr: addr, stderr: stderr, done: make(chan error, 1)}
	s.waitReady(t)
	return cmd
}

// kill -9 under load: every write the server acknowledged is there after
// a restart, and the sessions carry on.
func TestSuiteKillUnderLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := storetest.NewURL(t)
	pool := connect(t, url)
	clients := suiteSize(5, 20)
	rounds := suiteSize(1, 3)
	type client struct {
		ws           workspace.Workspace
		token, ses   string
		acknowledged []string
	}
	cs := make([]*client, clients)
	for i := range cs {
		ws, token := workspaceWithToken(t, pool, fmt.Sprintf("Kill %d", i))
		cs[i] = &client{ws: ws, token: token}
	}
	addr := freeAddr(t)
	env := "DATABASE_URL=" + url
	unanswered := 0
	for round := range rounds {
		proc := startKillable(t, addr, env)
		var wg sync.WaitGroup
		var mu sync.Mutex
		stop := make(chan struct{})
		for i, c := range cs {
			if c.ses == "" {
				c.ses = initialize(t, addr, c.token)
			}
			wg.Go(func() {
				for k := 0; k < 60; k++ {
					select {
					case <-stop:
						return
					default:
					}
					fact := fmt.Sprintf("round %d client %d fact %d", round, i, k)
					body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": k + 10, "method": "tools/call",
						"params": map[string]any{"name": "remember", "arguments": map[string]any{"fact": fact}}})
					status, answer, err := mcpCall(addr, c.token, c.ses, string(body))
					if err != nil || status != 200 {
						mu.Lock()
						unanswered++
						mu.Unlock()
						return
					}
					if strings.Contains(answer, `"action":"remembered"`) {
						mu.Lock()
						c.acknowledged = append(c.acknowledged, fact)
						mu.Unlock()
					}
				}
			})
		}
		// Killed mid-load: once a quarter of the round's writes are
		// acknowledged.
		storetest.WaitFor(t, "writes to be acknowledged", func() bool {
			mu.Lock()
			defer mu.Unlock()
			n := 0
			for _, c := range cs {
				n += len(c.acknowledged)
			}
			return n >= (round+1)*clients*15
		})
		if err := proc.Process.Kill(); err != nil { // SIGKILL: no shutdown at all
			t.Fatal(err)
		}
		close(stop)
		wg.Wait()
	}

	// Back up once more: every acknowledged write is stored, and the
	// sessions opened before the kills still serve.
	startKillable(t, addr, env)
	acknowledged, lost := 0, 0
	for _, c := range cs {
		rows, err := pool.Query(ctx, `SELECT fact FROM memories WHERE workspace_id = $1`, c.ws.ID)
		if err != nil {
			t.Fatal(err)
		}
		stored := map[string]bool{}
		for rows.Next() {
			var f string
			if err := rows.Scan(&f); err != nil {
				t.Fatal(err)
			}
			stored[f] = true
		}
		rows.Close()
		for _, f := range c.acknowledged {
			acknowledged++
			if !stored[f] {
				lost++
				t.Errorf("acknowledged but not stored: %s", f)
			}
		}
		if status, body, err := mcpCall(addr, c.token, c.ses, contextCall); err != nil || status != 200 || !strings.Contains(body, `"kind":"workspace"`) {
			t.Errorf("a session opened before the kills: %d %v %.200s", status, err, body)
		}
	}
	if acknowledged == 0 {
		t.Fatal("no write was acknowledged before the kill: the test measured nothing")
	}
	t.Logf("kill -9 %d time(s) under %d writing clients: %d writes acknowledged, %d lost, %d requests cut by the kill", rounds, clients, acknowledged, lost, unanswered)
}
