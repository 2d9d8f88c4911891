package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell/audit"
)

// cmdAuditExport runs `server audit export --workspace SLUG [--since
// DATE]`: the workspace's audit chain as JSON lines on standard output,
// streamed as the database gives them.
func (c console) cmdAuditExport(fs *flag.FlagSet) func(context.Context, []string) error {
	slug := fs.String("workspace", "", "the `SLUG` of the workspace whose chain to export")
	since := fs.String("since", "", "start at the first record on or after `DATE` (2026-12-01, or an RFC 3339 moment); verification then starts from that record's prev_hash")
	return func(ctx context.Context, _ []string) error {
		from, err := parseSince(*since)
		if err != nil {
			return err
		}
		return withDatabase(ctx, c.cfg, c.logger, false, func(db *pgxpool.Pool) error {
			ws, err := findWorkspace(ctx, db, *slug)
			if err != nil {
				return err
			}
			n, err := audit.New(audit.Deps{DB: db}).Export(ctx, ws.ID, from, c.stdout)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stderr, "Exported %d audit records of %s.\n", n, ws.Slug)
			return nil
		})
	}
}

func parseSince(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("--since %q is not a date (2026-12-01) or an RFC 3339 moment (2026-12-01T09:00:00Z)", s)
	}
	return t, nil
}

// cmdAuditVerify runs `server audit verify [--workspace SLUG] [EXPORT]`:
// an export read from EXPORT (standard input without it), or with
// --workspace the chain in the database; with both, the export is also
// compared with the database's chain, record by record. It fails naming
// the first record altered, removed or reordered.
func (c console) cmdAuditVerify(fs *flag.FlagSet) func(context.Context, []string) error {
	slug := fs.String("workspace", "", "verify the chain of the workspace `SLUG` in the database (and compare EXPORT with it, when given)")
	return func(ctx context.Context, args []string) error {
		if *slug == "" {
			in := c.stdin
			what := "the export on standard input"
			if len(args) == 1 {
				f, err := os.Open(args[0])
				if err != nil {
					return err
				}
				defer f.Close()
				in, what = f, args[0]
			}
			rep, err := audit.Verify(in)
			if err != nil {
				return err
			}
			return c.report(rep, what)
		}
		return withDatabase(ctx, c.cfg, c.logger, false, func(db *pgxpool.Pool) error {
			ws, err := findWorkspace(ctx, db, *slug)
			if err != nil {
				return err
			}
			chains := audit.New(audit.Deps{DB: db})
			rep, err := chains.VerifyDB(ctx, ws.ID)
			if err != nil {
				return err
			}
			if err := c.report(rep, "The database's chain of "+ws.Slug); err != nil || len(args) == 0 {
				return err
			}
			file, err := verifyFile(args[0])
			if err != nil {
				return err
			}
			if err := c.report(file, args[0]); err != nil {
				return err
			}
			f, err := os.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			p, err := chains.Compare(ctx, ws.ID, f)
			if err != nil {
				return err
			}
			if p != nil {
				return fmt.Errorf("%s does not match the database: %s (line %d)", args[0], p.What, p.Line)
			}
			fmt.Fprintf(c.stdout, "%s matches the database's chain, record for record.\n", args[0])
			return nil
		})
	}
}

func verifyFile(path string) (audit.Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return audit.Report{}, err
	}
	defer f.Close()
	return audit.Verify(f)
}

// report prints what a verification found, and fails when it found a
// problem.
func (c console) report(rep audit.Report, what string) error {
	if rep.Problem != nil {
		return fmt.Errorf("%s is not intact: %s (line %d)", what, rep.Problem.What, rep.Problem.Line)
	}
	out := io.Writer(c.stdout)
	if rep.Records == 0 {
		fmt.Fprintf(out, "%s holds no audit record.\n", what)
		return nil
	}
	fmt.Fprintf(out, "%s is intact: %d records, %d to %d.\n", what, rep.Records, rep.First, rep.Last.Seq)
	if rep.From != audit.Genesis {
		fmt.Fprintf(out, "It starts mid-chain: record %d follows a record with hash %s, not in it.\n", rep.First, rep.From)
	}
	fmt.Fprintf(out, "Head: record %d, hash %s.\n", rep.Last.Seq, rep.Last.Hash)
	return nil
}
