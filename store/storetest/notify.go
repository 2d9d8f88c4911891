package storetest

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell/store"
)

// StartNotifications runs store.Notifications on pool's database until
// the test ends, and returns them once they are fresh.
func StartNotifications(t testing.TB, pool *pgxpool.Pool) *store.Notifications {
	t.Helper()
	notes := store.NewNotifications(pool, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		notes.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	WaitFor(t, "notifications to be fresh", notes.Fresh)
	return notes
}

// DropListeners cuts the listening connections of store.Notifications on
// pool's database, as a network failure or a database restart would.
func DropListeners(t testing.TB, pool *pgxpool.Pool) {
	t.Helper()
	var n int
	err := pool.QueryRow(context.Background(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND application_name = $1`, store.ListenerName).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("storetest: no listening connection to drop")
	}
}

// WaitFor waits until cond holds, checking every 10 ms, for at most 10 s:
// for what another goroutine or connection makes true in its own time.
func WaitFor(t testing.TB, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("waited 10 s for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(start)
}
