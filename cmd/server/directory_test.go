package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell/store/storetest"
)

// The operator's load: an unknown column reported and skipped, a line per
// 100,000 rows when not on a terminal, duplicates merged, and a rerun (as
// after a crash or Ctrl-C) completing without duplicates.
func TestDirectoryImportCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 200,000 rows twice")
	}
	t.Parallel()
	url := storetest.NewURL(t)
	getenv := env("DATABASE_URL", url, "LOG_LEVEL", "error")
	var csv bytes.Buffer
	csv.WriteString("Email,first_name,shoe_size,country\n")
	const rows = 200_001
	for i := range rows - 1 {
		fmt.Fprintf(&csv, "person%d@company%d.test,P%d,42,DE\n", i, i%500, i)
	}
	csv.WriteString("PERSON7@company7.test,Seven,43,FR\n") // the same address as row 8, later: it wins
	path := filepath.Join(t.TempDir(), "contacts.csv")
	if err := os.WriteFile(path, csv.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}

	load := func() (string, string) {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), []string{"server", "directory", "import", path}, getenv, strings.NewReader(""), &stdout, &stderr); err != nil {
			t.Fatal(err)
		}
		return stdout.String(), stderr.String()
	}
	out, progress := load()
	want := "Read as UTF-8, columns separated by commas.\n" +
		"Read 200,001 rows: 200,000 contacts new to the directory, 0 updated, 0 unchanged.\n" +
		"1 row repeated an address found later in the file; the later row was kept.\n" +
		"Skipped 1 column not known to the directory: shoe_size. Known columns: email, first_name, last_name, title, seniority, department, company, company_domain, industry, company_size, country, time_zone, linkedin_url, email_status.\n"
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("report (-want +got):\n%s", d)
	}
	if d := cmp.Diff("100,000 rows read\n200,000 rows read\n", progress); d != "" {
		t.Errorf("progress (-want +got):\n%s", d)
	}

	out, _ = load()
	if !strings.HasPrefix(out, "Read as UTF-8, columns separated by commas.\nRead 200,001 rows: 0 contacts new to the directory, 0 updated, 200,000 unchanged.\n") {
		t.Errorf("rerun: %s", out)
	}
	db, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	var country string
	db.QueryRow(context.Background(), `SELECT count(*), (SELECT country FROM directory_contacts WHERE email = 'person7@company7.test') FROM directory_contacts`).Scan(&n, &country)
	if n != 200_000 || country != "FR" {
		t.Errorf("%d contacts, person7 in %q; want 200,000 and FR", n, country)
	}
}
