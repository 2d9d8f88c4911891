package store_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"vibesell/store"
	"vibesell/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// Two replicas starting at the same moment on one empty database must both
// come up with the schema applied once.
func TestMigrateConcurrentReplicas(t *testing.T) {
	t.Parallel()
	url := storetest.NewEmptyURL(t)
	ctx := context.Background()
	const replicas = 3
	errs := make(chan error, replicas)
	var wg sync.WaitGroup
	for range replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pool, err := store.Connect(ctx, url, 4)
			if err != nil {
				errs <- err
				return
			}
			defer pool.Close()
			if err := store.Migrate(ctx, pool, slog.New(slog.DiscardHandler)); err != nil {
				errs <- err
				return
			}
			errs <- store.Ready(ctx, pool)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("replica failed: %v", err)
		}
	}
	pool, err := store.Connect(ctx, url, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var applied int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM goose_db_version WHERE version_id > 0").Scan(&applied); err != nil {
		t.Fatal(err)
	}
	if applied != latestFileCount(t) {
		t.Fatalf("migrations recorded %d times, want each once (%d)", applied, latestFileCount(t))
	}
}

// Each migration is logged once: River's own progress messages would
// repeat every job queue migration, and say "No migrations to apply" at
// every start.
func TestMigrateLogsEachMigrationOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := store.Connect(ctx, storetest.NewEmptyURL(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var first, second strings.Builder
	// Each migration is a debug line (an operator at info hears one summary).
	if err := store.Migrate(ctx, pool, slog.New(slog.NewTextHandler(&first, &slog.HandlerOptions{Level: slog.LevelDebug}))); err != nil {
		t.Fatal(err)
	}
	versions := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(first.String()), "\n") {
		if strings.Contains(line, "rivermigrate") {
			t.Errorf("River logged its own migration line: %s", line)
		}
		if _, v, ok := strings.Cut(line, "applied job queue migration\" version="); ok {
			versions[v]++
		}
	}
	if len(versions) == 0 {
		t.Fatalf("no job queue migration logged:\n%s", first.String())
	}
	for v, n := range versions {
		if n != 1 {
			t.Errorf("job queue migration %s logged %d times", v, n)
		}
	}
	if err := store.Migrate(ctx, pool, slog.New(slog.NewTextHandler(&second, nil))); err != nil {
		t.Fatal(err)
	}
	if second.Len() > 0 {
		t.Errorf("a start with nothing to migrate logged:\n%s", second.String())
	}
}

func TestReadyRefusesUnmigratedDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := store.Connect(ctx, storetest.NewEmptyURL(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := store.Ready(ctx, pool); err == nil {
		t.Fatal("Ready on an empty database succeeded")
	}
}

func latestFileCount(t *testing.T) int {
	t.Helper()
	entries, err := store.MigrationsGlob()
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

type recordArgs struct {
	Label string `json:"label"`
}

func (recordArgs) Kind() string { return "test_record" }

type recordWorker struct {
	river.WorkerDefaults[recordArgs]
	mu   sync.Mutex
	seen []string
	runs atomic.Int32
}

func (w *recordWorker) Work(_ context.Context, job *river.Job[recordArgs]) error {
	w.mu.Lock()
	w.seen = append(w.seen, job.Args.Label)
	w.mu.Unlock()
	w.runs.Add(1)
	return nil
}

// A job enqueued in a transaction that rolls back never runs; one enqueued
// in a committed transaction does.
func TestJobEnqueuedInRolledBackTransactionNeverRuns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	worker := &recordWorker{}
	workers := river.NewWorkers()
	river.AddWorker(workers, worker)
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Queues:        map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 2}},
		Workers:       workers,
		FetchCooldown: 20 * time.Millisecond, FetchPollInterval: 50 * time.Millisecond,
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}

	errRollback := errors.New("roll back")
	err = store.InTx(ctx, pool, func(tx pgx.Tx) error {
		if _, err := client.InsertTx(ctx, tx, recordArgs{Label: "rolled back"}, nil); err != nil {
			return err
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatalf("InTx = %v, want the rollback error", err)
	}
	if err := store.InTx(ctx, pool, func(tx pgx.Tx) error {
		_, err := client.InsertTx(ctx, tx, recordArgs{Label: "committed"}, nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}

	events, cancel := client.Subscribe(river.EventKindJobCompleted)
	defer cancel()
	if err := client.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer client.Stop(context.Background())
	select {
	case ev := <-events:
		if ev.Job.Kind != "test_record" {
			t.Fatalf("completed %s", ev.Job.Kind)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the committed job did not run")
	}
	var jobs int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM river_job").Scan(&jobs); err != nil {
		t.Fatal(err)
	}
	if jobs != 1 {
		t.Fatalf("river_job holds %d rows, want only the committed job", jobs)
	}
	worker.mu.Lock()
	defer worker.mu.Unlock()
	if len(worker.seen) != 1 || worker.seen[0] != "committed" {
		t.Fatalf("ran %v, want only [committed]", worker.seen)
	}
}
