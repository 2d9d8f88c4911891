package storetest

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell/store"
)

// RoundTrips counts the times a pool waits for PostgreSQL: a query, or a
// batch of queries, is one round trip. It is a pgx.QueryTracer and
// pgx.BatchTracer.
type RoundTrips struct{ n atomic.Int64 }

// Count is how many round trips have been made so far.
func (q *RoundTrips) Count() int64 { return q.n.Load() }

func (q *RoundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	q.n.Add(1)
	return ctx
}

func (q *RoundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (q *RoundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	q.n.Add(1)
	return ctx
}

func (q *RoundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (q *RoundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// NewCounted returns a pool on a fresh, migrated database, sized as the
// server's (pgxpool's default), whose round trips are counted.
func NewCounted(t testing.TB) (*pgxpool.Pool, *RoundTrips) {
	t.Helper()
	return NewCountedOn(t, NewURL(t))
}

// NewCountedOn is [NewCounted] on the database at url: a pool of its own,
// as another replica on the same database has.
func NewCountedOn(t testing.TB, url string) (*pgxpool.Pool, *RoundTrips) {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	trips := &RoundTrips{}
	cfg.ConnConfig.Tracer = trips
	store.Configure(cfg)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool, trips
}
