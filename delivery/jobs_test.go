package delivery_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell/delivery"
	"vibesell/store/storetest"
)

// Two ticks never run at once, on one replica or several: while one
// holds the lock, the next is skipped; once it is done, the next runs.
func TestOneTickAtATime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	engine := delivery.NewEngine(delivery.EngineDeps{DB: pool})
	other := delivery.NewEngine(delivery.EngineDeps{DB: pool}) // another replica's
	ran := 0
	if err := delivery.Alone(engine, ctx, func() error {
		return delivery.Alone(other, ctx, func() error { ran++; return nil })
	}); err != nil {
		t.Fatal(err)
	}
	if ran != 0 {
		t.Fatal("a tick ran while another was running")
	}
	if err := delivery.Alone(other, ctx, func() error { ran++; return nil }); err != nil || ran != 1 {
		t.Fatalf("once the first tick is done, the next ran %d times (%v), want once", ran, err)
	}
}

// The tick's lock is a session's, so it is taken on the sessions pool
// (direct to PostgreSQL) and never on the queries' pool, which may run
// through a transaction pooler that would hand the lock and its release
// to different server connections.
func TestTheTickLockIsTakenOnTheSessionsPool(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	queries := storetest.New(t)
	cfg := queries.Config().Copy()
	cfg.ConnConfig.RuntimeParams["application_name"] = "vibesell-sessions"
	sessions, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sessions.Close)
	engine := delivery.NewEngine(delivery.EngineDeps{DB: queries, Sessions: sessions})
	var holder string
	if err := delivery.Alone(engine, ctx, func() error {
		return queries.QueryRow(ctx, `SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
			WHERE l.locktype = 'advisory' AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&holder)
	}); err != nil {
		t.Fatal(err)
	}
	if holder != "vibesell-sessions" {
		t.Fatalf("the tick's lock is held by a connection named %q, want the sessions pool's", holder)
	}
}
