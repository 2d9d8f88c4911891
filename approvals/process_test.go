package approvals_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"vibesell"
	"vibesell/approvals"
	"vibesell/store"
	"vibesell/store/storetest"
)

// The tests in this file run a second server process: the test binary
// itself, re-run as TestHelperProcess with what to do in its environment.

const helperEnv = "APPROVALS_TEST_HELPER"

type helperResult struct {
	Taken    int      `json:"taken"`
	Statuses []string `json:"statuses"`
	Errors   []string `json:"errors"`
}

// startHelper starts a second process working on the test's database,
// as TestHelperProcess in mode.
func startHelper(t *testing.T, mode string, e *env, approvalID string) *storetest.Process {
	t.Helper()
	return storetest.StartProcess(t, "TestHelperProcess", helperEnv+"="+mode, "HELPER_DB="+e.url,
		"HELPER_WORKSPACE="+e.a.ID.String(), "HELPER_APPROVAL="+approvalID)
}

// 32 concurrent decisions, 16 from this process and 16 from another: one is
// taken.
func TestDecisionIsTakenOnceAcrossTwoProcesses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	ap := e.open(t, e.a.ID, "anvil", true)
	h := startHelper(t, "decide", e, ap.ID)
	h.Expect(t, "READY")

	start := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	local := helperResult{}
	for i := range 16 {
		wg.Go(func() {
			<-start
			a, taken, err := e.svc.Decide(ctx, e.a.ID, ap.ID, approvals.Decision{Approve: i%2 == 1, By: "process one", Via: approvals.ViaConversation})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				local.Errors = append(local.Errors, err.Error())
				return
			}
			if taken {
				local.Taken++
			}
			local.Statuses = append(local.Statuses, string(a.Status))
		})
	}
	if _, err := io.WriteString(h.Stdin, "GO\n"); err != nil {
		t.Fatal(err)
	}
	close(start)
	wg.Wait()
	var remote helperResult
	if err := json.Unmarshal([]byte(h.Expect(t, "RESULT ")), &remote); err != nil {
		t.Fatal(err)
	}
	if len(local.Errors)+len(remote.Errors) > 0 {
		t.Fatalf("errors: %v %v", local.Errors, remote.Errors)
	}
	if local.Taken+remote.Taken != 1 || len(local.Statuses) != 16 || len(remote.Statuses) != 16 {
		t.Fatalf("taken here %d, there %d (answers %d + %d); want exactly one of 32", local.Taken, remote.Taken, len(local.Statuses), len(remote.Statuses))
	}
	final, _ := e.svc.Find(ctx, e.a.ID, ap.ID)
	for _, s := range append(local.Statuses, remote.Statuses...) {
		if s != string(final.Status) {
			t.Fatalf("an answer reports %s, the record says %s", s, final.Status)
		}
	}
	if trail := e.events(t, e.a.ID, ap.ID); len(trail) != 2 {
		t.Fatalf("audit trail: %v", trail)
	}
}

// The process executing an approval is killed (SIGKILL) after the provider
// call and before the outcome is recorded; another process's River client
// rescues the job, and the order is placed once.
func TestExecutionSurvivesAKilledProcess(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	// Leadership (which runs the rescuer) stays in this process, with a
	// client that works another queue: the killed process must not hold it.
	leader := startWorkers(t, e.pool, e.svc, workerOptions{queues: map[string]river.QueueConfig{"idle": {MaxWorkers: 1}}})
	ap := e.open(t, e.a.ID, "anvil", true)
	approve(t, e, ap.ID)

	h := startHelper(t, "crash", e, ap.ID)
	h.Expect(t, "ACTED")
	if err := h.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = h.Cmd.Wait()
	if a, _ := e.svc.Find(ctx, e.a.ID, ap.ID); a.Status != approvals.Approved || a.StartedAt == nil {
		t.Fatalf("after the kill: %s started %v", a.Status, a.StartedAt)
	}
	var state string
	var attemptedAt time.Time
	if err := e.pool.QueryRow(ctx, `SELECT state, attempted_at FROM river_job WHERE kind = 'approvals.execute'`).Scan(&state, &attemptedAt); err != nil {
		t.Fatal(err)
	}
	if state != "running" {
		t.Fatalf("the killed process's job is %s, want running", state)
	}

	// A new process: it becomes leader, finds the job stuck, retries it.
	stopCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := leader.Stop(stopCtx); err != nil {
		t.Fatal(err)
	}
	const rescueAfter = 2 * time.Second
	time.Sleep(time.Until(attemptedAt.Add(rescueAfter + 100*time.Millisecond)))
	startWorkers(t, e.pool, e.svc, workerOptions{executeTimeout: rescueAfter, jobTimeout: rescueAfter, rescueAfter: rescueAfter})
	a := e.wait(t, e.a.ID, ap.ID)
	if a.Status != approvals.Done {
		t.Fatalf("after the restart: %s %v", a.Status, a.Outcome)
	}
	rows, calls := e.effects(t, ap.ID)
	if rows != 1 || calls != 2 || e.exec.resumed.Load() != 1 {
		t.Fatalf("provider: %d effects from %d calls, %d resumed here; want 1 effect from 2 calls, 1 resumed", rows, calls, e.exec.resumed.Load())
	}
	if got := e.events(t, e.a.ID, ap.ID); strings.Count(strings.Join(got, " "), "executing:") != 1 || got[len(got)-1] != "done:executing>done@system" {
		t.Fatalf("audit trail: %v", got)
	}
}

// TestHelperProcess is the second process of the tests above; it does
// nothing when run as a test.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("helper process only")
	}
	ctx := context.Background()
	pool, err := store.Connect(ctx, os.Getenv("HELPER_DB"), 20)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	svc := newService(t, pool, vibesell.SystemClock{})
	ws := uuid.MustParse(os.Getenv("HELPER_WORKSPACE"))
	id := os.Getenv("HELPER_APPROVAL")

	switch mode {
	case "decide":
		// Warm the pool so that the 16 calls start together.
		var conns []*pgxpool.Conn
		for range 16 {
			c, err := pool.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
		}
		for _, c := range conns {
			c.Release()
		}
		fmt.Println("READY")
		if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		var res helperResult
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := range 16 {
			wg.Go(func() {
				a, taken, err := svc.Decide(ctx, ws, id, approvals.Decision{Approve: i%2 == 0, By: "process two", Via: approvals.ViaWeb})
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					res.Errors = append(res.Errors, err.Error())
					return
				}
				if taken {
					res.Taken++
				}
				res.Statuses = append(res.Statuses, string(a.Status))
			})
		}
		wg.Wait()
		out, _ := json.Marshal(res)
		fmt.Println("RESULT " + string(out))

	case "crash":
		exec := &testExecutor{db: pool, hold: func(context.Context) error {
			fmt.Println("ACTED")
			select {} // killed here
		}}
		svc.Register(testAction, exec)
		startWorkers(t, pool, svc, workerOptions{executeTimeout: time.Minute})
		select {} // until killed
	}
}
