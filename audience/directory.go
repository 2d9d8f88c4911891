package audience

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell/store"
)

// DirectoryColumns are the columns a directory CSV may have, besides the
// required email; any other is reported and skipped.
var DirectoryColumns = []string{"first_name", "last_name", "title", "seniority", "department", "company", "company_domain",
	"industry", "company_size", "country", "time_zone", "linkedin_url", "email_status"}

// stagedColumns are the staging table's columns, in the order a row's
// values are given to COPY.
var stagedColumns = []string{"line", "email", "email_domain", "role_address", "email_status", "first_name", "last_name", "title",
	"seniority", "department", "company", "company_domain", "industry", "company_size", "country", "time_zone", "linkedin_url"}

// DirectoryReport says what one load of the directory did.
type DirectoryReport struct {
	Rows           int64    // data rows read
	Added          int64    // contacts new to the directory
	Updated        int64    // contacts already there, updated
	Unchanged      int64    // contacts already there, the same as in the file
	Duplicates     int64    // rows whose address came again later in the file (the last one counts)
	Rejected       int64    // rows without a usable address, or with the wrong number of fields
	RejectedLines  []int64  // the first lines rejected (line 1 is the header)
	UnknownColumns []string // columns skipped
	SampleRemoved  int64    // sample contacts removed because a real directory arrived
}

// MaxRejectedLines bounds the rejected lines a report lists.
const MaxRejectedLines = 20

// ImportDirectory loads a CSV into the lead directory. Its header names the
// columns (email and any of [DirectoryColumns], in any order). The rows
// are streamed with COPY into a staging table and merged in one
// transaction, deduplicated by normalised address: stopped at any point,
// it leaves the directory as it was, and run again it completes without
// duplicates. The first file loaded replaces the sample directory.
// progress, when not nil, is called with the rows read so far, every
// 10,000 rows and at the end.
func ImportDirectory(ctx context.Context, db *pgxpool.Pool, r io.Reader, name string, progress func(rows int64)) (DirectoryReport, error) {
	in := csv.NewReader(r)
	in.ReuseRecord = true
	in.FieldsPerRecord = -1
	header, err := in.Read()
	if err != nil {
		return DirectoryReport{}, fmt.Errorf("%s: read the header line: %w", name, err)
	}
	var rep DirectoryReport
	src := &stagedRows{in: in, index: map[string]int{}, report: &rep, progress: progress, line: 1}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		switch {
		case h == "email" || slices.Contains(DirectoryColumns, h):
			if _, dup := src.index[h]; dup {
				return DirectoryReport{}, fmt.Errorf("%s: the column %q appears twice in the header", name, h)
			}
			src.index[h] = i
		default:
			rep.UnknownColumns = append(rep.UnknownColumns, h)
		}
	}
	if _, ok := src.index["email"]; !ok {
		return DirectoryReport{}, fmt.Errorf("%s: the header has no email column (it has %s)", name, strings.Join(header, ", "))
	}
	src.columns = len(header)

	err = store.InTx(ctx, db, func(tx pgx.Tx) error {
		// One load at a time: two merging at once would each count the
		// other's rows as theirs.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('directory_contacts'))`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE directory_staging (
			line bigint, email text, email_domain text, role_address boolean, email_status text, first_name text, last_name text,
			title text, seniority text, department text, company text, company_domain text, industry text, company_size text,
			country text, time_zone text, linkedin_url text) ON COMMIT DROP`); err != nil {
			return err
		}
		staged, err := tx.CopyFrom(ctx, pgx.Identifier{"directory_staging"}, stagedColumns, src)
		if err != nil {
			if src.err != nil {
				return src.err
			}
			return err
		}
		if progress != nil {
			progress(rep.Rows)
		}
		var existing int64
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM directory_contacts`).Scan(&existing); err != nil {
			return err
		}
		// Adding many rows into an index one at a time costs several times
		// building it again from sorted rows: a load bigger than the
		// directory drops the segment index and builds it after the merge,
		// and the first load (nothing to merge with) the unique index on
		// the address too. Until the load commits, counts wait for it.
		var rebuild []string
		if staged > existing {
			var def string
			if err := tx.QueryRow(ctx, `SELECT pg_get_indexdef('directory_contacts_segment'::regclass)`).Scan(&def); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `DROP INDEX directory_contacts_segment`); err != nil {
				return err
			}
			rebuild = append(rebuild, def)
		}
		conflict := onConflictUpdate
		if existing == 0 {
			if _, err := tx.Exec(ctx, `ALTER TABLE directory_contacts DROP CONSTRAINT directory_contacts_email_key`); err != nil {
				return err
			}
			rebuild = append(rebuild, `ALTER TABLE directory_contacts ADD CONSTRAINT directory_contacts_email_key UNIQUE (email)`)
			conflict = ""
		}
		if _, err := tx.Exec(ctx, `SET LOCAL work_mem = '256MB'`); err != nil {
			return err
		}
		var distinct int64
		err = tx.QueryRow(ctx, `
			WITH latest AS (
				SELECT DISTINCT ON (email) * FROM directory_staging ORDER BY email, line DESC),
			merged AS (
				INSERT INTO directory_contacts AS d (email, email_domain, role_address, email_status, first_name, last_name, title,
					seniority, department, company, company_domain, industry, company_size, country, time_zone, linkedin_url, source)
				SELECT email, email_domain, role_address, email_status, first_name, last_name, title,
					seniority, department, company, company_domain, industry, company_size, country, time_zone, linkedin_url, $1
				FROM latest
				`+conflict+`
				RETURNING (xmax = 0) AS added)
			SELECT (SELECT count(*) FROM latest), count(*) FILTER (WHERE added), count(*) FILTER (WHERE NOT added) FROM merged`,
			name).Scan(&distinct, &rep.Added, &rep.Updated)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		rep.Duplicates = staged - distinct
		rep.Unchanged = distinct - rep.Added - rep.Updated
		if _, err := tx.Exec(ctx, `SET LOCAL maintenance_work_mem = '512MB'`); err != nil {
			return err
		}
		for _, ddl := range rebuild {
			if _, err := tx.Exec(ctx, ddl); err != nil {
				return fmt.Errorf("build an index again: %w", err)
			}
		}
		sample, err := DirectoryIsSample(ctx, tx)
		if err != nil {
			return err
		}
		var tag pgconn.CommandTag
		if sample {
			if tag, err = tx.Exec(ctx, `DELETE FROM directory_contacts WHERE source = 'sample'`); err != nil {
				return err
			}
		}
		rep.SampleRemoved = tag.RowsAffected()
		_, err = tx.Exec(ctx, `INSERT INTO directory_loads (source, name, rows_read, added, updated, duplicates, rejected, finished_at)
			VALUES ('file', $1, $2, $3, $4, $5, $6, now())`, name, rep.Rows, rep.Added, rep.Updated, rep.Duplicates, rep.Rejected)
		return err
	})
	if err != nil {
		return DirectoryReport{}, fmt.Errorf("import %s into the directory: %w", name, err)
	}
	return rep, nil
}

// onConflictUpdate merges a file's row into the contact already there. A
// contact whose row is the same as before is left as it is: a rerun
// rewrites nothing.
const onConflictUpdate = `ON CONFLICT (email) DO UPDATE SET role_address = EXCLUDED.role_address, email_status = EXCLUDED.email_status,
	first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name, title = EXCLUDED.title,
	seniority = EXCLUDED.seniority, department = EXCLUDED.department, company = EXCLUDED.company,
	company_domain = EXCLUDED.company_domain, industry = EXCLUDED.industry, company_size = EXCLUDED.company_size,
	country = EXCLUDED.country, time_zone = EXCLUDED.time_zone,
	linkedin_url = coalesce(EXCLUDED.linkedin_url, d.linkedin_url), source = EXCLUDED.source, updated_at = now()
WHERE (d.role_address, d.email_status, d.first_name, d.last_name, d.title, d.seniority, d.department, d.company,
       d.company_domain, d.industry, d.company_size, d.country, d.time_zone, d.linkedin_url)
      IS DISTINCT FROM
      (EXCLUDED.role_address, EXCLUDED.email_status, EXCLUDED.first_name, EXCLUDED.last_name, EXCLUDED.title,
       EXCLUDED.seniority, EXCLUDED.department, EXCLUDED.company, EXCLUDED.company_domain, EXCLUDED.industry,
       EXCLUDED.company_size, EXCLUDED.country, EXCLUDED.time_zone, coalesce(EXCLUDED.linkedin_url, d.linkedin_url))`

// stagedRows feeds COPY from the CSV, one normalised row at a time, and
// skips (and counts) the rows it cannot use.
type stagedRows struct {
	in       *csv.Reader
	index    map[string]int
	columns  int
	report   *DirectoryReport
	progress func(int64)
	line     int64
	row      []any
	err      error
}

func (s *stagedRows) Next() bool {
	for {
		rec, err := s.in.Read()
		if errors.Is(err, io.EOF) {
			return false
		}
		s.line++
		var parseErr *csv.ParseError
		if errors.As(err, &parseErr) {
			s.reject()
			continue
		}
		if err != nil {
			s.err = err
			return false
		}
		s.report.Rows++
		if s.progress != nil && s.report.Rows%10_000 == 0 {
			s.progress(s.report.Rows)
		}
		if len(rec) != s.columns {
			s.reject()
			continue
		}
		email, domain, role, ok := normalEmail(rec[s.index["email"]])
		if !ok {
			s.reject()
			continue
		}
		get := func(col string) string {
			if i, ok := s.index[col]; ok {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		status := strings.ToLower(get("email_status"))
		if !slices.Contains([]string{"valid", "risky", "invalid", "unknown"}, status) {
			status = "unknown"
		}
		var linkedin *string
		if l := get("linkedin_url"); l != "" {
			linkedin = &l
		}
		s.row = []any{s.line, email, domain, role, status, get("first_name"), get("last_name"), get("title"),
			onto(Seniorities, get("seniority")), onto(Departments, get("department")), get("company"),
			normalDomainOrEmpty(get("company_domain")), onto(Industries, get("industry")), bandOrRaw(get("company_size")),
			countryOrRaw(get("country")), get("time_zone"), linkedin}
		return true
	}
}

func (s *stagedRows) reject() {
	s.report.Rejected++
	if len(s.report.RejectedLines) < MaxRejectedLines {
		s.report.RejectedLines = append(s.report.RejectedLines, s.line)
	}
}

func (s *stagedRows) Values() ([]any, error) { return s.row, nil }
func (s *stagedRows) Err() error             { return s.err }

// onto stores a value as the vocabulary's word for it: its own name
// whatever the case, or the one word its alias points to ("saas" is
// Software); anything else is kept as written.
func onto(vocabulary []string, v string) string {
	if k, ok := known(vocabulary, v); ok {
		return k
	}
	if a := aliases[strings.ToLower(v)]; len(a) == 1 && slices.Contains(vocabulary, a[0]) {
		return a[0]
	}
	return v
}

func bandOrRaw(v string) string {
	if b, ok := sizeBand(v); ok {
		return b
	}
	return v
}

func countryOrRaw(v string) string {
	if c, ok := countryCode(v); ok {
		return c
	}
	if a := aliases[strings.ToLower(v)]; len(a) == 1 {
		if c, ok := countryCode(a[0]); ok {
			return c
		}
	}
	return v
}

func normalDomainOrEmpty(v string) string {
	v = strings.ToLower(strings.TrimSpace(v))
	v = strings.TrimPrefix(strings.TrimPrefix(v, "https://"), "http://")
	v = strings.TrimPrefix(v, "www.")
	if i := strings.IndexAny(v, "/?#"); i >= 0 {
		v = v[:i]
	}
	return v
}

// DirectoryIsSample reports whether the directory is the sample one: no
// file was ever loaded into it.
func DirectoryIsSample(ctx context.Context, db store.DBTX) (bool, error) {
	var sample bool
	err := db.QueryRow(ctx, `SELECT NOT EXISTS (SELECT 1 FROM directory_loads WHERE source = 'file')`).Scan(&sample)
	if err != nil {
		return false, fmt.Errorf("read the directory's loads: %w", err)
	}
	return sample, nil
}

// sampleWords is what every text built on the sample directory says.
const sampleWords = "This is the sample directory: made-up contacts on reserved domains (example.com, .example, .test) that can never receive email. An operator loads a real directory with `server directory import FILE`."
