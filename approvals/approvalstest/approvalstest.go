// Package approvalstest runs an approval's execution in a test the way a
// River worker would, synchronously (rivertest's worker), instead of
// starting a polling River client and waiting in wall-clock time.
package approvalstest

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"

	"vibesell/approvals"
)

// Execute works the execution job that approving approval id enqueued, once,
// with svc's executors, and returns the approval as it stands afterwards.
// It fails the test when no such job is waiting (nothing was approved) or
// when the job ends in an error (a retry, not an outcome). It holds one of
// pool's connections while the executor runs, which needs its own: give
// the pool a few.
func Execute(t testing.TB, pool *pgxpool.Pool, svc *approvals.Service, id string) approvals.Approval {
	t.Helper()
	// A guard, not a wait: an execution that blocks fails the test.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatalf("approvalstest: begin: %v", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()

	var (
		jobID int64
		ws    uuid.UUID
	)
	err = tx.QueryRow(ctx, `SELECT id, (args->>'workspace_id')::uuid FROM river_job
		WHERE kind = $1 AND args->>'approval_id' = $2 AND state = 'available' ORDER BY id LIMIT 1`,
		approvals.ExecuteArgs{}.Kind(), id).Scan(&jobID, &ws)
	if err != nil {
		t.Fatalf("approvalstest: no execution of %s is waiting: %v", id, err)
	}
	driver := riverpgxv5.New(pool)
	client, err := river.NewClient(driver, &river.Config{})
	if err != nil {
		t.Fatalf("approvalstest: client: %v", err)
	}
	job, err := client.JobGetTx(ctx, tx, jobID)
	if err != nil {
		t.Fatalf("approvalstest: read job %d: %v", jobID, err)
	}
	worker := rivertest.NewWorker(t, driver, &river.Config{}, river.Worker[approvals.ExecuteArgs](&approvals.ExecuteWorker{Service: svc}))
	res, err := worker.WorkJob(ctx, t, tx, job)
	if err != nil {
		t.Fatalf("approvalstest: work %s: %v", id, err)
	}
	if res.EventKind != river.EventKindJobCompleted {
		t.Fatalf("approvalstest: the execution of %s ended %s, not completed: %v", id, res.EventKind, res.Job.Errors)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("approvalstest: commit: %v", err)
	}
	a, err := svc.Find(ctx, ws, id)
	if err != nil {
		t.Fatalf("approvalstest: read %s: %v", id, err)
	}
	return a
}
