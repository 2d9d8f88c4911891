package approvals_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"

	"vibesell/approvals"
)

func approve(t *testing.T, e *env, id string) approvals.Approval {
	t.Helper()
	d := conversation
	d.Approve = true
	a, taken, err := e.svc.Decide(context.Background(), e.a.ID, id, d)
	if err != nil || !taken {
		t.Fatalf("approve %s: taken=%v err=%v", id, taken, err)
	}
	return a
}

func TestApprovedActionRunsOnceAndEndsDone(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ap := e.open(t, e.a.ID, "anvil", true)
	approve(t, e, ap.ID)
	done := e.execute(t, ap.ID)
	if done.Status != approvals.Done || *done.Outcome != "Ordered 2 anvil." || done.StartedAt == nil || done.FinishedAt == nil {
		t.Fatalf("after execution: %s %v", done.Status, done.Outcome)
	}
	if rows, calls := e.effects(t, ap.ID); rows != 1 || calls != 1 {
		t.Fatalf("provider: %d effects, %d calls", rows, calls)
	}
	want := []string{"opened:>pending@conversation", "approved:pending>approved@conversation",
		"executing:approved>executing@system", "done:executing>done@system"}
	if got := e.events(t, e.a.ID, ap.ID); !slices.Equal(got, want) {
		t.Fatalf("audit trail: %v", got)
	}
	// Running the job again (a duplicate delivery) acts no more.
	if err := e.svc.Execute(context.Background(), e.a.ID, ap.ID, 1, 8); err != nil {
		t.Fatal(err)
	}
	if _, calls := e.effects(t, ap.ID); calls != 1 || e.exec.executes.Load() != 1 {
		t.Fatalf("a duplicate run called the provider again (%d)", calls)
	}
}

func TestExecutionRechecksPreconditions(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ap := e.open(t, e.a.ID, "anvil", true)
	approve(t, e, ap.ID)
	// Between the decision and the execution, the anvil sold out.
	if _, err := e.pool.Exec(context.Background(), `INSERT INTO test_unavailable VALUES ('anvil')`); err != nil {
		t.Fatal(err)
	}
	a := e.execute(t, ap.ID)
	if a.Status != approvals.NotDone || *a.Outcome != "Not carried out: The anvil is no longer available." {
		t.Fatalf("after execution: %s %v", a.Status, a.Outcome)
	}
	if rows, _ := e.effects(t, ap.ID); rows != 0 || e.exec.executes.Load() != 0 {
		t.Fatal("the provider was called although the precondition failed")
	}
	if got := e.events(t, e.a.ID, ap.ID); got[len(got)-1] != "not_done:approved>not_done@system" {
		t.Fatalf("audit trail: %v", got)
	}
}

// An approval decided in time but reaching a worker after its expiry (the
// workers were down) is not carried out.
func TestExecutionRechecksExpiry(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ap := e.open(t, e.a.ID, "anvil", true)
	approve(t, e, ap.ID)
	e.clock.Advance(2 * time.Hour)
	a := e.execute(t, ap.ID)
	if a.Status != approvals.NotDone || !strings.Contains(*a.Outcome, "expired") || e.exec.executes.Load() != 0 {
		t.Fatalf("after execution: %s %v, %d executes", a.Status, a.Outcome, e.exec.executes.Load())
	}
}

func TestFailingExecutionEndsNotDoneOnTheLastAttempt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	ap := e.open(t, e.a.ID, "anvil", true)
	approve(t, e, ap.ID)
	e.exec.hold = func(context.Context) error { return errors.New("provider timed out") }
	if err := e.svc.Execute(ctx, e.a.ID, ap.ID, 1, approvals.MaxExecutionAttempts); err == nil {
		t.Fatal("a failing first attempt did not ask for a retry")
	}
	if a, _ := e.svc.Find(ctx, e.a.ID, ap.ID); a.Status != approvals.Approved || a.StartedAt == nil {
		t.Fatalf("after a failed attempt: %s", a.Status)
	}
	if err := e.svc.Execute(ctx, e.a.ID, ap.ID, approvals.MaxExecutionAttempts, approvals.MaxExecutionAttempts); err != nil {
		t.Fatal(err)
	}
	a, _ := e.svc.Find(ctx, e.a.ID, ap.ID)
	if a.Status != approvals.NotDone || !strings.Contains(*a.Outcome, "part of it may have been done") || !strings.Contains(*a.Outcome, ap.ID) {
		t.Fatalf("after the last attempt: %s %v", a.Status, a.Outcome)
	}
	if e.exec.resumed.Load() != 1 {
		t.Fatalf("the second attempt was not told it resumed (%d)", e.exec.resumed.Load())
	}
}

// The worker is stopped mid-way (after the provider call, before the
// outcome is recorded) and another one starts: the execution resumes with
// the same idempotency key and the order is placed once.
func TestExecutionSurvivesAWorkerStoppedMidway(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	acted := make(chan struct{})
	e.exec.hold = func(ctx context.Context) error {
		close(acted)
		<-ctx.Done() // the worker is being stopped
		return ctx.Err()
	}
	first := startWorkers(t, e.pool, e.svc, workerOptions{})
	ap := e.open(t, e.a.ID, "anvil", true)
	approve(t, e, ap.ID)
	select {
	case <-acted:
	case <-time.After(30 * time.Second):
		t.Fatal("the first worker never acted")
	}
	stopCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := first.StopAndCancel(stopCtx); err != nil {
		t.Fatal(err)
	}
	if a, _ := e.svc.Find(ctx, e.a.ID, ap.ID); a.Status != approvals.Approved || a.StartedAt == nil {
		t.Fatalf("after the stop: %s started %v", a.Status, a.StartedAt)
	}

	e.exec.hold = nil
	startWorkers(t, e.pool, e.svc, workerOptions{})
	a := e.wait(t, e.a.ID, ap.ID)
	if a.Status != approvals.Done {
		t.Fatalf("after the restart: %s %v", a.Status, a.Outcome)
	}
	rows, calls := e.effects(t, ap.ID)
	if rows != 1 || calls != 2 || e.exec.resumed.Load() != 1 {
		t.Fatalf("provider: %d effects from %d calls, %d resumed; want 1 effect from 2 calls, 1 resumed", rows, calls, e.exec.resumed.Load())
	}
	if got := e.events(t, e.a.ID, ap.ID); strings.Count(strings.Join(got, " "), "executing:") != 1 || got[len(got)-1] != "done:executing>done@system" {
		t.Fatalf("audit trail: %v", got)
	}
}

// A pending approval past its expiry becomes not done through the periodic
// job, and can be neither decided nor executed afterwards.
func TestPendingApprovalsExpireThroughThePeriodicJob(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	late := e.open(t, e.a.ID, "anvil", true)
	if n, err := e.svc.ExpireDue(ctx); err != nil || n != 0 {
		t.Fatalf("nothing is due yet: %d %v", n, err)
	}
	e.clock.Advance(61 * time.Minute)
	fresh := e.open(t, e.b.ID, "rocket", true) // opened now, not due

	// The sweep is scheduled every minute and on start; one run of it,
	// worked as River would.
	periodic := approvals.AddWorkers(river.NewWorkers(), e.svc)
	if len(periodic) != 2 {
		t.Fatalf("%d periodic jobs, want the expiry sweep and the escalation sweep", len(periodic))
	}
	tx, err := e.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	sweep := rivertest.NewWorker(t, riverpgxv5.New(e.pool), &river.Config{}, river.Worker[approvals.ExpireArgs](&approvals.ExpireWorker{Service: e.svc}))
	if _, err := sweep.Work(ctx, t, tx, approvals.ExpireArgs{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	a, _ := e.svc.Find(ctx, e.a.ID, late.ID)
	if a.Status != approvals.NotDone || !strings.HasPrefix(*a.Outcome, "Not carried out: it expired on ") || a.DecidedAt != nil {
		t.Fatalf("after the sweep: %s %v", a.Status, a.Outcome)
	}
	if f, _ := e.svc.Find(ctx, e.b.ID, fresh.ID); f.Status != approvals.Pending {
		t.Fatalf("an approval not yet due expired: %s", f.Status)
	}
	d := conversation
	d.Approve = true
	after, taken, err := e.svc.Decide(ctx, e.a.ID, late.ID, d)
	if err != nil || taken || after.Status != approvals.NotDone {
		t.Fatalf("approving an expired approval: %s taken=%v err=%v", after.Status, taken, err)
	}
	if e.jobCount(t, late.ID) != 0 || e.exec.executes.Load() != 0 {
		t.Fatal("an expired approval was executed")
	}
	if got := e.events(t, e.a.ID, late.ID); !slices.Equal(got, []string{"opened:>pending@conversation", "expired:pending>not_done@system"}) {
		t.Fatalf("audit trail: %v", got)
	}
}

// A decision arriving after the expiry but before the sweep finds the
// approval expired, not decidable.
func TestDecidingAfterExpiryExpiresIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	ap := e.open(t, e.a.ID, "anvil", true)
	e.clock.Advance(time.Hour)
	d := conversation
	d.Approve = true
	a, taken, err := e.svc.Decide(ctx, e.a.ID, ap.ID, d)
	if err != nil || taken || a.Status != approvals.NotDone || e.jobCount(t, ap.ID) != 0 {
		t.Fatalf("decide after expiry: %s taken=%v err=%v", a.Status, taken, err)
	}
	// And the same request opens a new approval instead of the expired one.
	if next, created, _ := e.svc.Open(ctx, orderRequest(e.a.ID, "anvil", true)); !created || next.ID == ap.ID {
		t.Fatal("an expired approval was returned as pending")
	}
}
