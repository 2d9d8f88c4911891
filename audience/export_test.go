package audience

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

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

// PoolCounts counts the pool of f for the workspace ws three ways: on
// the replica's index of the directory, as [Service.EstimatePool] does
// once the index stands for the directory (waiting for it); in SQL, as
// it does until then (each with the count without each filter, asked for
// whatever the pool); and as a plain COUNT(*) of every contact matching
// [Filters.where] would, with the same subtractions. The three must
// always agree.
func PoolCounts(ctx context.Context, tb testing.TB, s *Service, ws uuid.UUID, f Filters) (index, sql, plain Pool) {
	tb.Helper()
	f, err := f.normalize()
	if err != nil {
		tb.Fatal(err)
	}
	if sql, err = s.countPoolSQL(ctx, s.db, ws, f); err != nil {
		tb.Fatal(err)
	}
	if sql.Loosened, err = s.loosen(ctx, ws, f); err != nil {
		tb.Fatal(err)
	}
	x := WaitPoolIndex(ctx, tb, s)
	var b pgx.Batch
	var sides poolSides
	var t Target
	s.queueSides(&b, x, ws, f.Titles, &sides, &t)
	if err := s.db.SendBatch(ctx, &b).Close(); err != nil {
		tb.Fatal(err)
	}
	var ok bool
	index, index.Loosened, ok = s.fastCount(x, ws, f, &sides)
	if !ok {
		tb.Fatal("the directory moved while the test counted")
	}
	args := []any{ws, s.windowStart(f)}
	err = s.db.QueryRow(ctx, `
		SELECT count(*),
			count(*) FILTER (WHERE m.suppressed),
			count(*) FILTER (WHERE NOT m.suppressed AND l.last_contacted_at >= $2),
			count(*) FILTER (WHERE NOT m.suppressed AND l.email IS NOT NULL AND NOT coalesce(l.last_contacted_at >= $2, false)),
			count(*) FILTER (WHERE NOT m.suppressed AND l.email IS NULL AND (m.email_status = 'invalid' OR m.role_address))
		FROM (SELECT c.email, c.email_status, c.role_address, `+suppressedSQL("$1")+` AS suppressed
		      FROM directory_contacts c WHERE `+f.where(&args)+`) m
		LEFT JOIN leads l ON l.workspace_id = $1 AND l.email = m.email`, args...).
		Scan(&plain.Matched, &plain.Suppressed, &plain.ContactedInWindow, &plain.AlreadyImported, &plain.Unusable)
	if err != nil {
		tb.Fatal(err)
	}
	plain.Available = plain.Matched - plain.Suppressed - plain.ContactedInWindow - plain.AlreadyImported - plain.Unusable
	index.Sample, sql.Sample = false, false
	out, without := f.loosenings()
	for i, g := range without {
		var gargs []any
		if err := s.db.QueryRow(ctx, `SELECT count(*) FROM directory_contacts c WHERE `+g.where(&gargs), gargs...).Scan(&out[i].Matched); err != nil {
			tb.Fatal(err)
		}
	}
	plain.Loosened = out
	return index, sql, plain
}

// WaitPoolIndex waits until the replica's index of the directory stands
// for the directory as it is, building it when needed, and returns it.
func WaitPoolIndex(ctx context.Context, tb testing.TB, s *Service) *directoryIndex {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		var version int64
		if err := s.db.QueryRow(ctx, `SELECT version FROM directory_version`).Scan(&version); err != nil {
			tb.Fatal(err)
		}
		x := s.index.ready()
		if x != nil && x.version == version {
			return x
		}
		if x != nil {
			s.index.stale(x)
		}
		s.index.mu.Lock()
		building := s.index.building
		s.index.mu.Unlock()
		if building == nil {
			tb.Fatalf("the directory's index is neither ready nor being built: %v", s.index.failed)
		}
		<-building
	}
	tb.Fatal("the directory's index was not built in 5 minutes")
	return nil
}

// PoolIndexVersion is the version of the directory the replica's index
// stands for, or 0 when it has none.
func PoolIndexVersion(s *Service) int64 {
	s.index.mu.Lock()
	defer s.index.mu.Unlock()
	if s.index.cur == nil {
		return 0
	}
	return s.index.cur.version
}

// ExplainLoosen returns PostgreSQL's plan, as run, of the count of f
// without each of its filters.
func ExplainLoosen(ctx context.Context, tb testing.TB, db *pgxpool.Pool, f Filters) string {
	out, without := f.loosenings()
	if len(out) == 0 {
		return ""
	}
	q := &countQuery{}
	matched, _ := q.matches(without, false)
	rows, err := db.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+q.sql("SELECT "+strings.Join(matched, ", ")+" FROM "+q.fromMatches()), q.args...)
	if err != nil {
		tb.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		tb.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// ExplainIndexCount says what a count of f for ws reads on the replica's
// index (which must stand for the directory), and PostgreSQL's plan, as
// run, of the statement it reads the workspace's side with.
func ExplainIndexCount(ctx context.Context, tb testing.TB, s *Service, db *pgxpool.Pool, ws uuid.UUID, f Filters) string {
	tb.Helper()
	x := WaitPoolIndex(ctx, tb, s)
	var b pgx.Batch
	var sides poolSides
	var t Target
	s.queueSides(&b, x, ws, f.Titles, &sides, &t)
	if err := s.db.SendBatch(ctx, &b).Close(); err != nil {
		tb.Fatal(err)
	}
	var titles []uint32
	if len(f.Titles) > 0 {
		titles = x.matchedTitles(ws, f, &sides)
	}
	m := x.directoryCount(f, titles).m
	kept, visited, excluded, leads, suppressed := 0, 0, 0, 0, 0
	for s := range x.segs {
		if m.segMask[s] == 0 {
			kept++
		}
	}
	for _, t := range titles {
		visited += len(x.byTitle.of(t))
	}
	excluded = len(m.excluded)
	for _, e := range sides.leads {
		if _, ok := x.emails.find(e); ok {
			leads++
		}
	}
	suppressed = len(sides.addresses)
	for _, d := range sides.domains {
		suppressed += len(x.emailDomains.of(d))
	}
	how := fmt.Sprintf("index of %d contacts in %d segments (version %d): %d segments kept", x.n, len(x.segs), x.version, kept)
	if m.titled {
		how += fmt.Sprintf("; %d titles matched, their %d contacts read", len(titles), visited)
	} else {
		how += ", their counts summed"
	}
	how += fmt.Sprintf("; %d contacts of companies left out; %d leads found by address of %d; %d suppressed contacts",
		excluded, leads, len(sides.leads), suppressed)
	rows, err := db.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+poolSidesSQL, ws, titlesJSON(f.Titles), nil)
	if err != nil {
		tb.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		tb.Fatal(err)
	}
	return how + "\nthe workspace's side:\n" + strings.Join(lines, "\n")
}
