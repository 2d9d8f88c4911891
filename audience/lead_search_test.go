package audience_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/audience"
	"vibesell/store"
	"vibesell/store/storetest"
	"vibesell/workspace"
)

// lastQuery keeps the last statement a pool ran, and its arguments.
type lastQuery struct {
	mu   sync.Mutex
	sql  string
	args []any
}

func (q *lastQuery) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sql, q.args = d.SQL, d.Args
	return ctx
}

func (q *lastQuery) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// The leads list's search, on a workspace of 100,000 leads, reads the
// leads its trigram index finds, not every lead of the workspace.
func TestLeadSearchUsesItsIndex(t *testing.T) {
	t.Parallel()
	url := storetest.NewURL(t)
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	traced := &lastQuery{}
	cfg.ConnConfig.Tracer = traced
	store.Configure(cfg)
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	ctx := t.Context()
	// The index is made where the server has pg_trgm (migration 00281);
	// where it has it, the index must be there.
	var available bool
	if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm')`).Scan(&available); err != nil {
		t.Fatal(err)
	}
	if !available {
		t.Skip("this PostgreSQL has no pg_trgm: the search reads every lead, as before the index")
	}
	ws, err := workspace.Create(ctx, pool, "Search")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `
		INSERT INTO leads (workspace_id, email, first_name, last_name, title, company, company_domain, country, time_zone, approval_id, created_at)
		SELECT $1, 'lead' || g || '@company' || g % 5000 || '.test', 'First' || g % 997, 'Last' || g % 991, 'Title', 'Company ' || g % 5000,
			'company' || g % 5000 || '.test', 'DE', 'Europe/Berlin', 'ap_search', now()
		FROM generate_series(1, 100000) g`, ws.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE leads SET last_name = 'Quartermaine' WHERE workspace_id = $1 AND id % 25000 = 7`, ws.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE leads`); err != nil {
		t.Fatal(err)
	}
	svc := audience.New(audience.Deps{DB: pool, Clock: vibesell.SystemClock{}})
	page, err := svc.Leads(ctx, ws.ID, audience.LeadQuery{Search: "quarterMAINE"})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Leads) != 4 {
		t.Errorf("found %d leads named Quartermaine; want 4", len(page.Leads))
	}
	traced.mu.Lock()
	sql, args := traced.sql, traced.args
	traced.mu.Unlock()
	rows, err := pool.Query(ctx, "EXPLAIN "+sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	plan := strings.Join(lines, "\n")
	if !strings.Contains(plan, "Bitmap Index Scan on leads_search") {
		t.Errorf("the search does not read the trigram index:\n%s", plan)
	}
	if testing.Verbose() {
		t.Log("plan:\n" + plan)
	}
}
