package storetest

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
)

// StartRiver starts a River client on pool with cfg, works its jobs until
// the test ends, and returns it. Left unset in cfg: the default queue with
// 2 workers, a 100 ms poll, no logging, and River's test mode.
func StartRiver(t testing.TB, pool *pgxpool.Pool, cfg *river.Config) *river.Client[pgx.Tx] {
	t.Helper()
	if cfg.Queues == nil {
		cfg.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 2}}
	}
	if cfg.FetchPollInterval == 0 {
		cfg.FetchPollInterval = 100 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.TestOnly = true
	client, err := river.NewClient(riverpgxv5.New(pool), cfg)
	if err != nil {
		t.Fatalf("storetest: river client: %v", err)
	}
	if err := client.Start(context.Background()); err != nil {
		t.Fatalf("storetest: start river: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = client.StopAndCancel(ctx)
	})
	return client
}
