package audience_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/audience"
	"vibesell/store/storetest"
	"vibesell/workspace"
)

// benchRows is the size of the directory the benchmarks load and count.
const benchRows = 1_000_000

// writeBenchCSV writes a directory CSV of n made-up contacts, the same
// every time.
func writeBenchCSV(b *testing.B, n int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "directory.csv")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	countries := []string{"US", "GB", "DE", "FR", "NL", "ES", "SE", "IN", "CA", "AU", "BR", "JP"}
	fmt.Fprintln(w, "email,first_name,last_name,title,seniority,department,company,company_domain,industry,company_size,country,time_zone")
	for i := range n {
		co := rng.IntN(50_000)
		fmt.Fprintf(w, "person%d@company%d.test,First%d,Last%d,%s of %s,%s,%s,Company %d,company%d.test,%s,%s,%s,Europe/Berlin\n",
			i, co, i%997, i%991, audience.Seniorities[i%len(audience.Seniorities)], audience.Departments[i%len(audience.Departments)],
			audience.Seniorities[rng.IntN(len(audience.Seniorities))], audience.Departments[rng.IntN(len(audience.Departments))],
			co, co, audience.Industries[co%len(audience.Industries)], audience.CompanySizes[co%len(audience.CompanySizes)], countries[co%len(countries)])
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkDirectoryImport loads a 1,000,000-row directory CSV the way
// `server directory import` does, and in the same run COPYs the same file
// into an unindexed table of text columns: the goal is the import within
// twice the plain COPY.
//
//	go test -run '^$' -bench DirectoryImport -benchtime 1x ./audience
func BenchmarkDirectoryImport(b *testing.B) {
	path := writeBenchCSV(b, benchRows)
	ctx := context.Background()
	pool := storetest.New(b)
	for b.Loop() {
		if _, err := pool.Exec(ctx, `DROP TABLE IF EXISTS plain_copy; CREATE TABLE plain_copy (email text, first_name text, last_name text,
			title text, seniority text, department text, company text, company_domain text, industry text, company_size text, country text, time_zone text)`); err != nil {
			b.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `TRUNCATE directory_contacts, directory_loads`); err != nil {
			b.Fatal(err)
		}
		plain := timed(b, func() {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			conn, err := pool.Acquire(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Release()
			if _, err := conn.Conn().PgConn().CopyFrom(ctx, f, `COPY plain_copy FROM STDIN (FORMAT csv, HEADER true)`); err != nil {
				b.Fatal(err)
			}
		})
		load := func() time.Duration {
			return timed(b, func() {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				defer f.Close()
				rep, err := audience.ImportDirectory(ctx, pool, f, "directory.csv", nil)
				if err != nil {
					b.Fatal(err)
				}
				if rep.Rows != benchRows {
					b.Fatalf("read %d rows", rep.Rows)
				}
			})
		}
		first := load()
		rerun := load()
		b.ReportMetric(plain.Seconds(), "copy-s")
		b.ReportMetric(first.Seconds(), "import-s")
		b.ReportMetric(first.Seconds()/plain.Seconds(), "import/copy")
		b.ReportMetric(rerun.Seconds()/plain.Seconds(), "rerun/copy")
	}
}

func timed(b *testing.B, f func()) time.Duration {
	b.Helper()
	start := time.Now()
	f()
	return time.Since(start)
}

// BenchmarkEstimateLeadPool counts the pool of a three-filter target on a
// 1,000,000-contact directory, from one workspace with a thousand leads
// and a few suppressions, and reports the p99 of 200 counts. The goal is
// under 50 ms, from the directory's segment index alone (the plan is
// printed with -v).
//
//	go test -run '^$' -bench EstimateLeadPool -benchtime 1x -v ./audience
func BenchmarkEstimateLeadPool(b *testing.B) {
	path := writeBenchCSV(b, benchRows)
	ctx := context.Background()
	pool, trips := storetest.NewCounted(b) // a query, or a batch, is one round trip
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := audience.ImportDirectory(ctx, pool, f, "directory.csv", nil); err != nil {
		b.Fatal(err)
	}
	f.Close()
	if _, err := pool.Exec(ctx, `VACUUM ANALYZE directory_contacts`); err != nil {
		b.Fatal(err)
	}
	ws := benchWorkspace(b, pool)
	clock := vibesell.NewManualClock(time.Now())
	svc := audience.New(pool, clock, audience.Config{}, nil)
	filters := audience.Filters{Industries: []string{"Software", "Banking"}, Seniorities: []string{"VP", "Director"}, Countries: []string{"DE", "FR"}}
	saved, err := svc.SaveFilters(ctx, ws, filters, []string{"company7.test", "person12@company12.test"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := svc.Confirm(ctx, ws, saved.Target.FiltersVersion); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO leads (workspace_id, email, first_name, last_name, title, company, company_domain, country, time_zone, approval_id, created_at)
		SELECT $1, email, '', '', '', '', '', '', '', 'ap_bench', now() FROM directory_contacts ORDER BY id LIMIT 1000`, ws); err != nil {
		b.Fatal(err)
	}
	pool.Exec(ctx, `ANALYZE`)
	if testing.Verbose() {
		b.Log("plan:\n" + audience.ExplainPool(ctx, b, pool, ws, filters))
	}
	for b.Loop() {
		var times []time.Duration
		var p audience.Pool
		before := trips.Count()
		for range 200 {
			start := time.Now()
			if p, err = svc.EstimatePool(ctx, ws); err != nil {
				b.Fatal(err)
			}
			times = append(times, time.Since(start))
		}
		slices.Sort(times)
		b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(p.Matched), "matched")
		b.ReportMetric(float64(trips.Count()-before)/200, "round-trips")
	}
}

func benchWorkspace(b *testing.B, pool *pgxpool.Pool) uuid.UUID {
	ws, err := workspace.Create(context.Background(), pool, "Bench")
	if err != nil {
		b.Fatal(err)
	}
	return ws.ID
}
