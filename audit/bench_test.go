package audit_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell/audit"
	"vibesell/store/storetest"
	"vibesell/workspace/workspacetest"
)

var benchRecords = flag.Int("audit.records", 1_000_000, "how many records BenchmarkExport exports")

// BenchmarkExport exports a workspace's chain of a million records (the
// issue's goal: under 10 seconds) to a file, and reports it beside a
// baseline measured in the same run on the same rows: PostgreSQL's own
// COPY of them to a file, the least any export could cost. It then
// verifies the file, which also proves the chain it wrote is whole.
//
//	go test ./audit -run '^$' -bench Export -benchtime 1x
func BenchmarkExport(b *testing.B) {
	pool := storetest.New(b)
	ctx := context.Background()
	ws := workspacetest.Two(b, pool).Acme.ID
	n := *benchRecords
	if err := fillChain(ctx, pool.Config().ConnConfig.ConnString(), ws, n); err != nil {
		b.Fatal(err)
	}
	chains := audit.New(audit.Deps{DB: pool})
	path := filepath.Join(b.TempDir(), "chain.jsonl")

	var export, baseline time.Duration
	for b.Loop() {
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		got, err := chains.Export(ctx, ws, time.Time{}, f)
		export += time.Since(start)
		if cerr := f.Close(); err != nil || cerr != nil || got != int64(n) {
			b.Fatalf("exported %d of %d: %v %v", got, n, err, cerr)
		}

		b.StopTimer()
		f, err = os.Create(path + ".copy")
		if err != nil {
			b.Fatal(err)
		}
		conn, err := pool.Acquire(ctx)
		if err != nil {
			b.Fatal(err)
		}
		start = time.Now()
		_, err = conn.Conn().PgConn().CopyTo(ctx, f, fmt.Sprintf(`COPY (SELECT seq, at, kind, subject, body, prev_hash, hash FROM audit_events
			WHERE workspace_id = '%s' ORDER BY seq) TO STDOUT`, ws))
		baseline += time.Since(start)
		conn.Release()
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
		b.StartTimer()
	}
	b.StopTimer()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	start := time.Now()
	rep, err := audit.Verify(f)
	verify := time.Since(start)
	if err != nil || rep.Problem != nil || rep.Records != int64(n) {
		b.Fatalf("the export does not verify: %+v, %v", rep, err)
	}
	per := export.Seconds() / float64(b.N)
	b.ReportMetric(per, "export-s")
	b.ReportMetric(baseline.Seconds()/float64(b.N), "copy-s")
	b.ReportMetric(export.Seconds()/baseline.Seconds(), "export/copy")
	b.ReportMetric(verify.Seconds(), "verify-s")
	ratio := export.Seconds() / baseline.Seconds()
	b.Logf("%d records: export %.2f s, COPY of the same rows %.2f s (%.2f×), verify %.2f s", n, per, baseline.Seconds()/float64(b.N), ratio, verify.Seconds())
	// The goal is under 10 s for a million; on a machine so loaded that
	// the database's own COPY of the rows takes about as long, the export
	// is held to the COPY's pace instead.
	if ratio > 1.5 || (n == 1_000_000 && per > 10 && ratio > 1.1) {
		b.Errorf("exporting %d records took %.1f s, %.2f× the COPY of the same rows; the goal is under 10 s for a million, at the COPY's pace", n, per, ratio)
	}
}

// fillChain writes a whole, valid chain of n records for ws, as the
// database's trigger would have, with one COPY.
func fillChain(ctx context.Context, url string, ws uuid.UUID, n int) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	prev := audit.Genesis
	kinds := []string{"opened", "shown", "approved", "executing", "done"}
	i := 0
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"audit_events"},
		[]string{"workspace_id", "seq", "at", "kind", "subject", "body", "prev_hash", "hash"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if i == n {
				return nil, nil
			}
			i++
			seq := int64(i)
			when := at.Add(time.Duration(i) * time.Second)
			kind := kinds[i%len(kinds)]
			subject := fmt.Sprintf("ap_%016x", i/len(kinds))
			// As PostgreSQL writes jsonb: keys by length, then bytes.
			body := []byte(`{"to": "approved", "via": "web", "actor": "ada@acme.test", "reason": "Fits the plan for “Q1” <2027>"}`)
			hash := audit.Hash(prev, seq, audit.FormatAt(when), kind, subject, body)
			row := []any{ws, seq, when, kind, subject, string(body), prev, hash}
			prev = hash
			return row, nil
		}))
	if err != nil {
		return err
	}
	_, err = conn.Exec(ctx, `INSERT INTO audit_heads (workspace_id, seq, hash) VALUES ($1, $2, $3)`, ws, n, prev)
	return err
}
