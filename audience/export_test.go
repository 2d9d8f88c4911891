package audience

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
)

// SetAfterBatch makes an import run f after each committed batch; an error
// stops the import there, the way a killed job stops.
func (s *Service) SetAfterBatch(f func() error) { s.afterBatch = f }

// ExplainPool returns PostgreSQL's plan, as run, of the pool count of f
// for the workspace ws.
func ExplainPool(ctx context.Context, tb testing.TB, db *pgxpool.Pool, ws uuid.UUID, f Filters) string {
	s := &Service{clock: vibesell.SystemClock{}}
	sql, args := s.poolCounts(ws, f)
	rows, err := db.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+sql, args...)
	if err != nil {
		tb.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		tb.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// SegmentColumns are the columns a directory load orders its rows by.
var SegmentColumns = segmentColumns

// SetMaxHeldBytes bounds the rows a directory load holds in memory until
// the test ends. It is not safe while other tests load a directory: call
// it from a test that does not run in parallel.
func SetMaxHeldBytes(tb testing.TB, n int) {
	before := maxHeldBytes
	maxHeldBytes = n
	tb.Cleanup(func() { maxHeldBytes = before })
}

// IsDisposable is isDisposable, for the list's tests.
var IsDisposable = isDisposable

// DisposableListSize is how many domains and wildcard domains the embedded
// list holds.
func DisposableListSize() (exact, wildcard int) {
	e, w := loadDisposable()
	return len(e), len(w)
}
