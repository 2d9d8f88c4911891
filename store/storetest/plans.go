package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell/store"
)

// Statement is one statement a feature ran, with its arguments, as pgx
// sent it.
type Statement struct {
	SQL  string
	Args []any
}

// Statements records what a pool runs (its tracer): a plan test runs a
// feature's real method on a big database and then explains what it ran,
// so the SQL stays in its feature and the test sees exactly its
// statements.
type Statements struct {
	mu   sync.Mutex
	list []Statement
}

// TraceQueryStart records the statement.
func (s *Statements) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	s.add(d.SQL, d.Args)
	return ctx
}

// TraceQueryEnd does nothing.
func (s *Statements) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TraceBatchStart does nothing: each query of the batch is recorded.
func (s *Statements) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

// TraceBatchQuery records one statement of a batch.
func (s *Statements) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	s.add(d.SQL, d.Args)
}

// TraceBatchEnd does nothing.
func (s *Statements) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

func (s *Statements) add(sql string, args []any) {
	switch strings.ToLower(strings.Fields(sql + " x")[0]) {
	case "select", "with", "insert", "update", "delete":
	default:
		return // begin, commit, set, explain itself
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.list = append(s.list, Statement{sql, slices.Clone(args)})
}

// Take returns what was recorded since the last Take, and forgets it.
func (s *Statements) Take() []Statement {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.list
	s.list = nil
	return out
}

// TracedPool is a pool on url whose statements rec records.
func TracedPool(t testing.TB, url string, rec pgx.QueryTracer) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.Tracer = rec
	store.Configure(cfg)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// SeqScans explains each statement on db with its own arguments (a custom
// plan, as PostgreSQL plans a statement's first executions) and returns,
// for each that reads one of the big tables with a sequential scan, the
// statement and its plan. Statements that touch none of the big tables
// are not explained.
func SeqScans(t testing.TB, db *pgxpool.Pool, statements []Statement, big ...string) []string {
	t.Helper()
	var found []string
	seen := map[string]bool{}
	for _, st := range statements {
		touches := false
		for _, table := range big {
			touches = touches || strings.Contains(st.SQL, table)
		}
		if !touches || seen[st.SQL] {
			continue
		}
		seen[st.SQL] = true
		var plan []byte
		// Explained in a transaction that is rolled back: EXPLAIN without
		// ANALYZE runs nothing, and the rollback says so twice.
		tx, err := db.Begin(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		err = tx.QueryRow(context.Background(), "EXPLAIN (FORMAT JSON) "+st.SQL, st.Args...).Scan(&plan)
		_ = tx.Rollback(context.Background())
		if err != nil {
			t.Fatalf("explain %s: %v", oneLine(st.SQL), err)
		}
		var root []struct {
			Plan planNode `json:"Plan"`
		}
		if err := json.Unmarshal(plan, &root); err != nil {
			t.Fatal(err)
		}
		var scans []string
		for _, r := range root {
			r.Plan.walk(func(n planNode) {
				if n.NodeType == "Seq Scan" && slices.Contains(big, n.Relation) {
					scans = append(scans, n.Relation)
				}
			})
		}
		if len(scans) > 0 {
			found = append(found, fmt.Sprintf("Seq Scan on %s in\n%s\nplan: %s", strings.Join(scans, ", "), oneLine(st.SQL), plan))
		}
	}
	return found
}

// Explained is how many distinct statements over the big tables
// SeqScans would explain: a plan test checks it found the statements it
// meant to.
func Explained(statements []Statement, big ...string) int {
	seen := map[string]bool{}
	for _, st := range statements {
		for _, table := range big {
			if strings.Contains(st.SQL, table) {
				seen[st.SQL] = true
			}
		}
	}
	return len(seen)
}

type planNode struct {
	NodeType string     `json:"Node Type"`
	Relation string     `json:"Relation Name"`
	Plans    []planNode `json:"Plans"`
}

func (n planNode) walk(f func(planNode)) {
	f(n)
	for _, c := range n.Plans {
		c.walk(f)
	}
}

func oneLine(sql string) string { return strings.Join(strings.Fields(sql), " ") }
