package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/audience"
)

// cmdDirectoryImport runs `server directory import FILE`: it loads a CSV
// into the lead directory shared by every workspace of the installation.
func (c console) cmdDirectoryImport(*flag.FlagSet) func(context.Context, []string) error {
	return func(ctx context.Context, args []string) error { return c.directoryImport(ctx, args[0]) }
}

func (c console) directoryImport(ctx context.Context, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open the directory file: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("open the directory file: %w", err)
	}
	in := &countingReader{r: f}
	progress := progressPrinter(c.stderr, info.Size(), in)
	return withDatabase(ctx, c.cfg, c.logger, false, func(db *pgxpool.Pool) error {
		rep, err := audience.ImportDirectory(ctx, db, in, filepath.Base(path), progress)
		if isTerminal(c.stderr) {
			fmt.Fprintln(c.stderr)
		}
		if err != nil {
			return err
		}
		fmt.Fprint(c.stdout, directoryReportText(rep))
		return nil
	})
}

// directoryReportText says what a load did, for the operator.
func directoryReportText(rep audience.DirectoryReport) string {
	var b strings.Builder
	if rep.Read != "" {
		fmt.Fprintln(&b, rep.Read)
	}
	fmt.Fprintf(&b, "Read %s: %s new to the directory, %s updated, %s unchanged.\n", vibesell.Plural(int(rep.Rows), "row", "rows"),
		vibesell.Plural(int(rep.Added), "contact", "contacts"), vibesell.Count(int(rep.Updated)), vibesell.Count(int(rep.Unchanged)))
	if rep.Duplicates > 0 {
		fmt.Fprintf(&b, "%s repeated an address found later in the file; the later row was kept.\n", vibesell.Plural(int(rep.Duplicates), "row", "rows"))
	}
	if rep.Rejected > 0 {
		lines := make([]string, len(rep.RejectedLines))
		for i, l := range rep.RejectedLines {
			lines[i] = vibesell.Count(int(l))
		}
		more := ""
		if rep.Rejected > int64(len(rep.RejectedLines)) {
			more = ", …"
		}
		fmt.Fprintf(&b, "%s skipped: no usable email address or the wrong number of fields (lines %s%s).\n",
			vibesell.Plural(int(rep.Rejected), "row was", "rows were"), strings.Join(lines, ", "), more)
	}
	if len(rep.UnknownColumns) > 0 {
		fmt.Fprintf(&b, "Skipped %s not known to the directory: %s. Known columns: email, %s.\n",
			vibesell.Plural(len(rep.UnknownColumns), "column", "columns"), strings.Join(rep.UnknownColumns, ", "), strings.Join(audience.DirectoryColumns, ", "))
	}
	if rep.SampleRemoved > 0 {
		fmt.Fprintf(&b, "The sample directory (%s) was removed: this file replaces it.\n", vibesell.Plural(int(rep.SampleRemoved), "made-up contact", "made-up contacts"))
	}
	return b.String()
}

type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// progressPrinter shows a load's progress: a bar redrawn in place on a
// terminal, and otherwise (a log, a pipe) one line per 100,000 rows.
func progressPrinter(w io.Writer, size int64, read *countingReader) func(int64) {
	if isTerminal(w) {
		return func(rows int64) {
			done := 1.0
			if size > 0 {
				done = min(1, float64(read.n.Load())/float64(size))
			}
			const width = 30
			filled := int(done * width)
			fmt.Fprintf(w, "\r[%s%s] %3.0f%%  %s", strings.Repeat("#", filled), strings.Repeat(" ", width-filled), done*100,
				vibesell.Plural(int(rows), "row", "rows"))
		}
	}
	var printed int64
	return func(rows int64) {
		for printed+100_000 <= rows {
			printed += 100_000
			fmt.Fprintf(w, "%s rows read\n", vibesell.Count(int(printed)))
		}
	}
}
