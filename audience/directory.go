package audience

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"runtime"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell/store"
)

// DirectoryColumns are the columns a directory CSV may have, besides the
// required email; any other is reported and skipped.
var DirectoryColumns = []string{"first_name", "last_name", "title", "seniority", "department", "company", "company_domain",
	"industry", "company_size", "country", "time_zone", "linkedin_url", "email_status"}

// The positions of [DirectoryColumns], in its order.
const (
	colFirstName = iota
	colLastName
	colTitle
	colSeniority
	colDepartment
	colCompany
	colCompanyDomain
	colIndustry
	colCompanySize
	colCountry
	colTimeZone
	colLinkedIn
	colEmailStatus
)

// contactColumns are the directory's columns a file fills, in the order
// [directoryRows] gives a row's values to COPY.
const contactColumns = `email, email_domain, role_address, email_status, first_name, last_name, title, seniority, department,
	company, company_domain, industry, company_size, country, time_zone, linkedin_url`

// DirectoryReport says what one load of the directory did.
type DirectoryReport struct {
	Read           string   // how the file was read: its encoding and separator, or its sheet
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
// columns (email and any of [DirectoryColumns], in any order). The file
// is read as an upload is: UTF-8, UTF-16 or Windows-1252, with commas,
// semicolons or tabs, or an .xlsx workbook's first sheet
// ([directoryInput]); a file that is none of them is refused (EINVALID). The rows
// are normalised as they are read and streamed with a binary COPY, in one
// transaction, deduplicated by normalised address: stopped at any point,
// it leaves the directory as it was, and run again it completes without
// duplicates. The first file loaded replaces the sample directory.
// progress, when not nil, is called with the rows read so far, every
// 10,000 rows and at the end.
//
// Into an empty directory (or the sample), the rows go straight into it,
// and its indexes are built once afterwards (the segment index from the
// sorted rows). Into a directory that has contacts, they go to an unlogged
// staging table first, then update the contacts that changed and add the
// new ones. Either way, the counts per segment and the distinct titles
// the pool count reads are rebuilt in the same transaction.
func ImportDirectory(ctx context.Context, db *pgxpool.Pool, r io.Reader, name string, progress func(rows int64)) (DirectoryReport, error) {
	text, how, err := directoryInput(r)
	if err != nil {
		return DirectoryReport{}, fmt.Errorf("%s: %w", name, err)
	}
	defer text.Close()
	in := csv.NewReader(bufio.NewReaderSize(text, 1<<16))
	in.Comma = how.Separator
	in.FieldsPerRecord = -1
	header, err := in.Read()
	if err != nil {
		return DirectoryReport{}, fmt.Errorf("%s: read the header line: %w", name, err)
	}
	rep := DirectoryReport{Read: how.Said()}
	src := &directoryRows{in: in, email: -1, columns: len(header), report: &rep, progress: progress, line: 1, seed: maphash.MakeSeed()}
	for i := range src.at {
		src.at[i] = -1
	}
	seen := map[string]bool{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		col := slices.Index(DirectoryColumns, h)
		switch {
		case seen[h] && (h == "email" || col >= 0):
			return DirectoryReport{}, fmt.Errorf("%s: the column %q appears twice in the header", name, h)
		case h == "email":
			src.email = i
		case col >= 0:
			src.at[col] = i
		default:
			rep.UnknownColumns = append(rep.UnknownColumns, h)
		}
		seen[h] = true
	}
	if src.email < 0 {
		return DirectoryReport{}, fmt.Errorf("%s: the header has no email column (it has %s)", name, strings.Join(header, ", "))
	}
	defer src.stop()

	err = store.InTx(ctx, db, func(tx pgx.Tx) error {
		// One load at a time: two merging at once would each count the
		// other's rows as theirs.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('directory_contacts'))`); err != nil {
			return err
		}
		// Deduplicating and building indexes sort every row: in memory,
		// not in files. Each index is built by this backend alone:
		// parallel workers would each sort their share of rows that are
		// already in the segment index's order and merge them again,
		// which took 2.3 s against 1.4 s alone for a million contacts
		// (and the address index 0.87 s against 0.81 s), on two cores.
		if _, err := tx.Exec(ctx, `SET LOCAL work_mem = '256MB'; SET LOCAL maintenance_work_mem = '512MB';
			SET LOCAL max_parallel_maintenance_workers = 0`); err != nil {
			return err
		}
		sample, err := DirectoryIsSample(ctx, tx)
		if err != nil {
			return err
		}
		empty := sample
		if !sample {
			if err := tx.QueryRow(ctx, `SELECT NOT EXISTS (SELECT 1 FROM directory_contacts)`).Scan(&empty); err != nil {
				return err
			}
		}
		if empty {
			err = loadEmptyDirectory(ctx, tx, src, name, sample)
		} else {
			err = mergeIntoDirectory(ctx, tx, src, name)
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO directory_loads (source, name, rows_read, added, updated, duplicates, rejected, finished_at)
			VALUES ('file', $1, $2, $3, $4, $5, $6, now())`, name, rep.Rows, rep.Added, rep.Updated, rep.Duplicates, rep.Rejected)
		return err
	})
	if err != nil {
		return DirectoryReport{}, fmt.Errorf("import %s into the directory: %w", name, err)
	}
	return rep, nil
}

// loadEmptyDirectory loads a file into a directory that has no contacts,
// or only the sample's, which it removes. Emptied in this transaction, the
// table takes the rows frozen, already visible to every later transaction
// (the title index is read index-only without waiting for a vacuum), and
// its indexes are dropped and built again once the rows are in, which
// costs a fraction of adding each row to them. Until the load commits,
// counts wait for it.
func loadEmptyDirectory(ctx context.Context, tx pgx.Tx, src *directoryRows, name string, sample bool) error {
	rep := src.report
	if sample {
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM directory_contacts`).Scan(&rep.SampleRemoved); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, `TRUNCATE directory_contacts`); err != nil {
		return err
	}
	indexes, err := dropIndexes(ctx, tx)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `ALTER TABLE directory_contacts DROP CONSTRAINT directory_contacts_email_key, DROP CONSTRAINT directory_contacts_pkey`); err != nil {
		return err
	}
	src.source = name
	copy := `COPY directory_contacts (` + contactColumns + `, source) FROM STDIN (FORMAT binary, FREEZE)`
	if src.hold(ctx) {
		// Sent in another order, the rows take their ids from the file's
		// order all the same (imports go through contacts by id).
		if _, err := tx.Exec(ctx, `ALTER TABLE directory_contacts ALTER COLUMN id SET GENERATED BY DEFAULT`); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT nextval(pg_get_serial_sequence('directory_contacts', 'id'))`).Scan(&src.firstID); err != nil {
			return err
		}
		copy = `COPY directory_contacts (id, ` + contactColumns + `, source) FROM STDIN (FORMAT binary, FREEZE)`
	}
	copied, err := src.copyInto(ctx, tx, copy)
	if err != nil {
		return err
	}
	if src.firstID > 0 {
		if _, err := tx.Exec(ctx, `ALTER TABLE directory_contacts ALTER COLUMN id SET GENERATED ALWAYS`); err != nil {
			return err
		}
		if len(src.rows) > 0 {
			last := src.firstID + int64(len(src.rows)) - 1
			if _, err := tx.Exec(ctx, `SELECT setval(pg_get_serial_sequence('directory_contacts', 'id'), $1)`, last); err != nil {
				return err
			}
		}
	}
	// A file too big to hold went in its order, repeats and all: of an
	// address's rows, the last has the highest id.
	deleted, err := dropRepeats(ctx, tx, src, "directory_contacts", "id")
	if err != nil {
		return err
	}
	rep.Duplicates += deleted
	rep.Added = copied - deleted
	if _, err := tx.Exec(ctx, `ALTER TABLE directory_contacts ADD CONSTRAINT directory_contacts_pkey PRIMARY KEY (id)`); err != nil {
		return fmt.Errorf("build the identity index: %w", err)
	}
	if _, err := tx.Exec(ctx, `ALTER TABLE directory_contacts ADD CONSTRAINT directory_contacts_email_key UNIQUE (email)`); err != nil {
		return fmt.Errorf("build the address index: %w", err)
	}
	if err := buildIndexes(ctx, tx, indexes); err != nil {
		return err
	}
	return refreshDirectoryCounts(ctx, tx, true)
}

// mergeIntoDirectory loads a file into a directory that has contacts: the
// rows go to an unlogged staging table (made and dropped in the load's
// transaction), then update the contacts whose row changed and add the
// others. A contact whose row is the same as before is not written: a
// rerun rewrites nothing. A load bigger than the directory drops the
// indexes no constraint owns and builds them again after the merge.
func mergeIntoDirectory(ctx context.Context, tx pgx.Tx, src *directoryRows, name string) error {
	rep := src.report
	if _, err := tx.Exec(ctx, `CREATE UNLOGGED TABLE directory_staging (line bigint NOT NULL, email text NOT NULL, email_domain text NOT NULL,
		role_address boolean NOT NULL, email_status text NOT NULL, first_name text NOT NULL, last_name text NOT NULL, title text NOT NULL,
		seniority text NOT NULL, department text NOT NULL, company text NOT NULL, company_domain text NOT NULL, industry text NOT NULL,
		company_size text NOT NULL, country text NOT NULL, time_zone text NOT NULL, linkedin_url text)`); err != nil {
		return err
	}
	src.withLine = true
	staged, err := src.copyInto(ctx, tx, `COPY directory_staging (line, `+contactColumns+`) FROM STDIN (FORMAT binary, FREEZE)`)
	if err != nil {
		return err
	}
	if rep.Duplicates, err = dropRepeats(ctx, tx, src, "directory_staging", "line"); err != nil {
		return err
	}
	distinct := staged - rep.Duplicates
	var existing int64
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM directory_contacts`).Scan(&existing); err != nil {
		return err
	}
	var indexes []string
	if distinct > existing {
		if indexes, err = dropIndexes(ctx, tx); err != nil {
			return err
		}
	}
	tag, err := tx.Exec(ctx, `
		UPDATE directory_contacts d SET role_address = s.role_address, email_status = s.email_status,
			first_name = s.first_name, last_name = s.last_name, title = s.title, seniority = s.seniority, department = s.department,
			company = s.company, company_domain = s.company_domain, industry = s.industry, company_size = s.company_size,
			country = s.country, time_zone = s.time_zone, linkedin_url = coalesce(s.linkedin_url, d.linkedin_url),
			source = $1, updated_at = now()
		FROM directory_staging s
		WHERE d.email = s.email
		  AND (d.role_address, d.email_status, d.first_name, d.last_name, d.title, d.seniority, d.department, d.company,
		       d.company_domain, d.industry, d.company_size, d.country, d.time_zone, d.linkedin_url)
		      IS DISTINCT FROM
		      (s.role_address, s.email_status, s.first_name, s.last_name, s.title, s.seniority, s.department, s.company,
		       s.company_domain, s.industry, s.company_size, s.country, s.time_zone, coalesce(s.linkedin_url, d.linkedin_url))`, name)
	if err != nil {
		return fmt.Errorf("update the directory's contacts: %w", err)
	}
	rep.Updated = tag.RowsAffected()
	// The load holds the directory's lock: no other writer can add an
	// address between the check and the insert.
	tag, err = tx.Exec(ctx, `
		INSERT INTO directory_contacts (`+contactColumns+`, source)
		SELECT `+contactColumns+`, $1 FROM directory_staging s
		WHERE NOT EXISTS (SELECT 1 FROM directory_contacts d WHERE d.email = s.email)
		ORDER BY s.line`, name)
	if err != nil {
		return fmt.Errorf("add the directory's new contacts: %w", err)
	}
	rep.Added = tag.RowsAffected()
	rep.Unchanged = distinct - rep.Added - rep.Updated
	if err := buildIndexes(ctx, tx, indexes); err != nil {
		return err
	}
	if _, err = tx.Exec(ctx, `DROP TABLE directory_staging`); err != nil {
		return err
	}
	return refreshDirectoryCounts(ctx, tx, false)
}

// dropIndexes drops the directory's indexes that no constraint owns (the
// segment index and those the pool count reads, migrations 00070 and
// 00280) and returns their definitions, the segment index's first: a load
// builds them again once its rows are in ([buildIndexes]), which costs a
// fraction of adding each row to them.
func dropIndexes(ctx context.Context, tx pgx.Tx) ([]string, error) {
	rows, err := tx.Query(ctx, `SELECT c.relname, pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE i.indrelid = 'directory_contacts'::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
		ORDER BY c.relname <> 'directory_contacts_segment', c.relname`)
	if err != nil {
		return nil, err
	}
	var names, defs []string
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			return nil, err
		}
		names, defs = append(names, pgx.Identifier{name}.Sanitize()), append(defs, def)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(names) > 0 {
		if _, err := tx.Exec(ctx, `DROP INDEX `+strings.Join(names, ", ")); err != nil {
			return nil, err
		}
	}
	return defs, nil
}

// buildIndexes builds the indexes [dropIndexes] dropped, in its order:
// the segment index first, from rows a load sent in its order.
func buildIndexes(ctx context.Context, tx pgx.Tx, defs []string) error {
	for _, def := range defs {
		if _, err := tx.Exec(ctx, def); err != nil {
			return fmt.Errorf("build an index of the directory (%s): %w", def, err)
		}
	}
	return nil
}

// refreshDirectoryCounts rebuilds what the pool count reads instead of
// the contacts (migration 00280): the count of contacts per segment, and
// the distinct titles. Every load calls it in its transaction, so they
// never disagree with the contacts. emptied says the load emptied the
// directory in this transaction: the tables are emptied the same way;
// otherwise their rows are deleted, and counts running meanwhile read
// the rows as they were. Analyzed at once (a fraction of a second), the
// counts are planned on what they hold from the first one.
func refreshDirectoryCounts(ctx context.Context, tx pgx.Tx, emptied bool) error {
	clear := `DELETE FROM directory_segments; DELETE FROM directory_titles;`
	if emptied {
		clear = `TRUNCATE directory_segments, directory_titles;`
	}
	_, err := tx.Exec(ctx, clear+`
		INSERT INTO directory_segments
		SELECT industry, seniority, country, company_size, department, count(*), count(*) FILTER (WHERE email_status = 'invalid' OR role_address)
		FROM directory_contacts GROUP BY 1, 2, 3, 4, 5;
		INSERT INTO directory_titles SELECT DISTINCT title COLLATE "C" FROM directory_contacts;
		ANALYZE directory_segments, directory_titles`)
	if err != nil {
		return fmt.Errorf("count the directory's segments and titles: %w", err)
	}
	return nil
}

// dropRepeats deletes from table the rows whose address comes again in a
// later row (by the column later), when the file had any, and returns how
// many.
func dropRepeats(ctx context.Context, tx pgx.Tx, src *directoryRows, table, later string) (int64, error) {
	if !src.repeats() {
		return 0, nil
	}
	tag, err := tx.Exec(ctx, `DELETE FROM `+table+` t USING (
			SELECT email, max(`+later+`) AS last FROM `+table+` GROUP BY email HAVING count(*) > 1) r
		WHERE t.email = r.email AND t.`+later+` < r.last`)
	if err != nil {
		return 0, fmt.Errorf("drop the rows an address repeats: %w", err)
	}
	return tag.RowsAffected(), nil
}

// directoryRows reads a directory CSV as PostgreSQL's binary COPY format,
// each row normalised and encoded as COPY reads it. It skips (and counts)
// the rows it cannot use, and keeps a hash of each address, to tell
// whether any came twice. Streamed, it holds nothing but the row being
// read; after [directoryRows.hold], it sends the rows it holds first, in
// the order hold put them in.
type directoryRows struct {
	in       *csv.Reader
	batches  chan *csvBatch          // read and being encoded, in the file's order
	stopped  chan struct{}           // closed when the load is over
	cur      *csvBatch               // the batch next takes records from
	curAt    int                     // its next record
	email    int                     // the email's field
	at       [colEmailStatus + 1]int // the field of each of DirectoryColumns, or -1
	columns  int                     // fields in a row
	withLine bool                    // each row starts with its line (the staging table)
	source   string                  // when not empty, each row ends with it (the source column)
	report   *DirectoryReport
	progress func(int64)
	line     int64
	seed     maphash.Seed
	hashes   []uint64 // of each row's address, in the file's order
	segment  []byte   // the last row's segment key (see segmentKey)
	buf      []byte   // encoded and not read yet
	started  bool     // the signature is in buf
	eof      bool     // the CSV is read to its end
	ended    bool     // the end of the data is in buf
	err      error

	held  [][]byte  // rows held by hold, encoded, in chunks
	rows  []heldRow // where each held row is, in the file's order
	order []int32   // which held rows to send, in order
	// firstID, when not 0, is the id of the first held row: each row sent
	// starts with its id, firstID plus its place among the held rows.
	firstID int64
	sent    int // how many of order are in buf
}

type heldRow struct{ chunk, off, len int32 }

// segmentColumns are the key columns of the directory's segment index
// (migrations 00070 and 00180), in its order: rows sent in this order,
// the index is built from rows already sorted. A test checks them against
// the index.
var segmentColumns = []string{"industry", "seniority", "country", "company_size", "department"}

// maxHeldBytes bounds the encoded rows [directoryRows.hold] keeps in
// memory (about 250 bytes a contact).
var maxHeldBytes = 1 << 30

// hold reads the file's rows and keeps them in memory, up to
// [maxHeldBytes]. When the whole file fits, it drops the rows whose
// address comes again later in the file, and orders the others by the
// segment index's key, in the file's order among equal keys: the
// segment index then builds from presorted rows, several times faster
// than from rows in any other order. It reports whether the whole file
// fit; when not, the held rows go out in the file's order, followed by
// the rest of the file. A cancelled ctx stops it within 10,000 rows.
func (s *directoryRows) hold(ctx context.Context) bool {
	const chunkSize = 4 << 20
	ids := map[string]int32{} // segment key → its number
	var keys []string         // by number
	var rowKey []int32        // each held row's key number
	held := 0
	s.buf = make([]byte, 0, chunkSize)
	for !s.eof && s.err == nil && held < maxHeldBytes {
		start := len(s.buf)
		if !s.next() {
			continue
		}
		s.rows = append(s.rows, heldRow{int32(len(s.held)), int32(start), int32(len(s.buf) - start)})
		if len(s.rows)%10_000 == 0 && ctx.Err() != nil {
			s.err = ctx.Err() // stopped while reading: nothing is sent
			break
		}
		held += len(s.buf) - start
		id, ok := ids[string(s.segment)]
		if !ok {
			id = int32(len(keys))
			keys = append(keys, string(s.segment))
			ids[keys[id]] = id
		}
		rowKey = append(rowKey, id)
		if cap(s.buf)-len(s.buf) < 64<<10 {
			s.held = append(s.held, s.buf)
			s.buf = make([]byte, 0, chunkSize)
		}
	}
	s.held = append(s.held, s.buf)
	s.buf = nil
	if !s.eof || s.err != nil {
		s.order = make([]int32, len(s.rows))
		for i := range s.order {
			s.order[i] = int32(i)
		}
		return false
	}

	drop := s.superseded()
	s.hashes = nil // no repeats left to drop
	// A counting sort by the rank of each row's key keeps the file's order
	// among equal keys.
	byKey := make([]int32, len(keys))
	for i := range byKey {
		byKey[i] = int32(i)
	}
	slices.SortFunc(byKey, func(a, b int32) int { return strings.Compare(keys[a], keys[b]) })
	rank := make([]int32, len(keys))
	for r, id := range byKey {
		rank[id] = int32(r)
	}
	next := make([]int, len(keys)+1)
	for i, id := range rowKey {
		if !drop[i] {
			next[rank[id]+1]++
		}
	}
	for r := 1; r < len(next); r++ {
		next[r] += next[r-1]
	}
	s.order = make([]int32, len(s.rows)-len(drop))
	for i, id := range rowKey {
		if !drop[i] {
			s.order[next[rank[id]]] = int32(i)
			next[rank[id]]++
		}
	}
	return true
}

// superseded returns the held rows whose address comes again in a later
// row, and counts them as duplicates.
func (s *directoryRows) superseded() map[int]bool {
	repeated := map[uint64]bool{}
	sorted := slices.Sorted(slices.Values(s.hashes))
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			repeated[sorted[i]] = true
		}
	}
	drop := map[int]bool{}
	if len(repeated) == 0 {
		return drop
	}
	last := map[string]int{}
	for i, h := range s.hashes {
		if repeated[h] {
			if j, ok := last[s.heldEmail(i)]; ok {
				drop[j] = true
			}
			last[s.heldEmail(i)] = i
		}
	}
	s.report.Duplicates = int64(len(drop))
	return drop
}

// heldEmail returns the address of held row i: its first field.
func (s *directoryRows) heldEmail(i int) string {
	r := s.rows[i]
	row := s.held[r.chunk][r.off : r.off+r.len]
	n := binary.BigEndian.Uint32(row[2:6])
	return string(row[6 : 6+n])
}

// copyInto runs the COPY statement sql with the file's rows, and returns
// how many rows it wrote.
func (s *directoryRows) copyInto(ctx context.Context, tx pgx.Tx, sql string) (int64, error) {
	tag, err := tx.Conn().PgConn().CopyFrom(ctx, s, sql)
	if s.err != nil {
		return 0, s.err
	}
	if err != nil {
		return 0, err
	}
	if s.progress != nil {
		s.progress(s.report.Rows)
	}
	return tag.RowsAffected(), nil
}

// repeats reports whether an address may have come twice: false means
// that none did.
func (s *directoryRows) repeats() bool {
	slices.Sort(s.hashes)
	for i := 1; i < len(s.hashes); i++ {
		if s.hashes[i] == s.hashes[i-1] {
			return true
		}
	}
	return false
}

// copySignature starts binary COPY data: the signature, no flags and no
// header extension.
const copySignature = "PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00"

func (s *directoryRows) Read(p []byte) (int, error) {
	if !s.started {
		s.buf = append(s.buf, copySignature...)
		s.started = true
	}
	for len(s.buf) < len(p) && !s.ended && s.err == nil {
		switch {
		case s.sent < len(s.order):
			i := s.order[s.sent]
			r := s.rows[i]
			row := s.held[r.chunk][r.off : r.off+r.len]
			if s.firstID > 0 { // the row's id first: its place in the file
				s.buf = binary.BigEndian.AppendUint16(s.buf, binary.BigEndian.Uint16(row)+1)
				s.buf = binary.BigEndian.AppendUint32(s.buf, 8)
				s.buf = binary.BigEndian.AppendUint64(s.buf, uint64(s.firstID+int64(i)))
				row = row[2:]
			}
			s.buf = append(s.buf, row...)
			s.sent++
		case !s.eof:
			s.next()
		default:
			s.buf = binary.BigEndian.AppendUint16(s.buf, 0xffff)
			s.ended = true
		}
	}
	if s.err != nil {
		return 0, s.err
	}
	if len(s.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.buf)
	s.buf = s.buf[:copy(s.buf, s.buf[n:])]
	return n, nil
}

// next takes the next record and appends its row to s.buf, reporting
// whether it did: it does not when the record is skipped or at the end of
// the file. The records are read and encoded on other goroutines (see
// [directoryRows.parse]); next counts them, in the file's order.
func (s *directoryRows) next() bool {
	if s.batches == nil {
		s.parse()
	}
	for s.cur == nil || s.curAt == len(s.cur.fields) {
		if s.cur != nil && (s.cur.eof || s.cur.err != nil) {
			s.eof, s.err = s.cur.eof, s.cur.err
			return false
		}
		s.cur, s.curAt = <-s.batches, 0
		<-s.cur.encoded
	}
	b, i := s.cur, s.curAt
	s.curAt++
	s.line++
	if b.fields[i] == nil {
		s.reject() // a record that could not be parsed
		return false
	}
	s.report.Rows++
	if s.progress != nil && s.report.Rows%10_000 == 0 {
		s.progress(s.report.Rows)
	}
	r := b.rows[i]
	if r.reject {
		s.reject()
		return false
	}
	s.hashes = append(s.hashes, r.hash)
	s.segment = b.keys[r.keyStart:r.keyEnd]
	s.buf = append(s.buf, b.out[r.start:r.end]...)
	return true
}

// csvBatch is a run of a CSV's records, as read, then as encoded.
type csvBatch struct {
	line   int64      // the line of the first record (the header is 1)
	fields [][]string // each record's fields; nil for one that could not be parsed
	eof    bool       // the file ends after the records
	err    error      // reading the file failed after the records

	encoded chan struct{} // closed once the fields below are set
	rows    []encodedRow
	out     []byte // the rows, encoded
	keys    []byte // their segment keys
}

type encodedRow struct {
	reject                       bool // no usable address, or the wrong number of fields
	start, end, keyStart, keyEnd int
	hash                         uint64
}

// csvBatchSize is how many records a batch holds.
const csvBatchSize = 2048

// parse starts reading the CSV on one goroutine and encoding its records
// on others, a batch at a time; s.batches has the batches in the file's
// order. They stop at the end of the file, or when s.stop is called.
func (s *directoryRows) parse() {
	s.batches = make(chan *csvBatch, 8)
	s.stopped = make(chan struct{})
	work := make(chan *csvBatch, 8)
	line := s.line + 1
	go func() {
		defer close(work)
		for {
			b := &csvBatch{line: line, encoded: make(chan struct{})}
			for len(b.fields) < csvBatchSize {
				rec, err := s.in.Read()
				var parseErr *csv.ParseError
				if errors.Is(err, io.EOF) {
					b.eof = true
					break
				} else if errors.As(err, &parseErr) {
					b.fields = append(b.fields, nil)
					continue
				} else if err != nil {
					b.err = err
					break
				}
				b.fields = append(b.fields, rec)
			}
			line += int64(len(b.fields))
			for _, ch := range []chan *csvBatch{s.batches, work} {
				select {
				case ch <- b:
				case <-s.stopped:
					return
				}
			}
			if b.eof || b.err != nil {
				return
			}
		}
	}()
	for range max(1, runtime.GOMAXPROCS(0)) {
		go func() {
			for b := range work {
				s.encode(b)
				close(b.encoded)
			}
		}()
	}
}

// stop ends the goroutines reading and encoding the CSV, if they run.
func (s *directoryRows) stop() {
	if s.stopped != nil {
		close(s.stopped)
	}
}

// encode normalises and encodes the records of b. It runs on several
// goroutines at once: it reads s's settings and writes only to b.
func (s *directoryRows) encode(b *csvBatch) {
	b.rows = make([]encodedRow, len(b.fields))
	size := 0
	for _, rec := range b.fields {
		for _, f := range rec {
			size += len(f)
		}
	}
	// A row is its fields, their lengths (4 bytes each) and a few more.
	b.out = make([]byte, 0, size+len(b.fields)*(18*4+48))
	b.keys = make([]byte, 0, len(b.fields)*48)
	for i, rec := range b.fields {
		if rec == nil {
			continue
		}
		if len(rec) != s.columns {
			b.rows[i].reject = true
			continue
		}
		email, domain, role, ok := normalEmail(rec[s.email])
		if !ok {
			b.rows[i].reject = true
			continue
		}
		get := func(col int) string {
			if i := s.at[col]; i >= 0 {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		status := strings.ToLower(get(colEmailStatus))
		if !slices.Contains([]string{"valid", "risky", "invalid", "unknown"}, status) {
			status = "unknown"
		}
		seniority, department := onto(Seniorities, get(colSeniority)), onto(Departments, get(colDepartment))
		industry, size, country := onto(Industries, get(colIndustry)), bandOrRaw(get(colCompanySize)), countryOrRaw(get(colCountry))
		r := &b.rows[i]
		r.hash = maphash.String(s.seed, email)
		r.keyStart = len(b.keys)
		b.keys = append(b.keys, industry...)
		for _, v := range []string{seniority, country, size, department} {
			b.keys = append(append(b.keys, 0), v...)
		}
		r.keyEnd = len(b.keys)
		r.start = len(b.out)
		fields := 16
		if s.withLine {
			fields++
		}
		if s.source != "" {
			fields++
		}
		o := binary.BigEndian.AppendUint16(b.out, uint16(fields))
		if s.withLine {
			o = binary.BigEndian.AppendUint32(o, 8)
			o = binary.BigEndian.AppendUint64(o, uint64(b.line+int64(i)))
		}
		o = appendCopyText(o, email)
		o = appendCopyText(o, domain)
		o = binary.BigEndian.AppendUint32(o, 1)
		if role {
			o = append(o, 1)
		} else {
			o = append(o, 0)
		}
		for _, v := range []string{status, get(colFirstName), get(colLastName), get(colTitle), seniority, department, get(colCompany),
			normalDomainOrEmpty(get(colCompanyDomain)), industry, size, country, get(colTimeZone)} {
			o = appendCopyText(o, v)
		}
		if l := get(colLinkedIn); l != "" {
			o = appendCopyText(o, l)
		} else {
			o = binary.BigEndian.AppendUint32(o, 0xffffffff) // NULL
		}
		if s.source != "" {
			o = appendCopyText(o, s.source)
		}
		b.out = o
		r.end = len(b.out)
	}
}

// appendCopyText appends a text field of binary COPY data: its length in
// bytes, then its bytes.
func appendCopyText(b []byte, v string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
	return append(b, v...)
}

func (s *directoryRows) reject() {
	s.report.Rejected++
	if len(s.report.RejectedLines) < MaxRejectedLines {
		s.report.RejectedLines = append(s.report.RejectedLines, s.line)
	}
}

// onto stores a value as the vocabulary's word for it: its own name
// whatever the case, or the one word its alias points to ("saas" is
// Software); anything else is kept as written.
func onto(vocabulary []string, v string) string {
	if slices.Contains(vocabulary, v) { // as the vocabulary writes it: most files
		return v
	}
	if k, ok := known(vocabulary, v); ok {
		return k
	}
	if a := aliases[strings.ToLower(v)]; len(a) == 1 && slices.Contains(vocabulary, a[0]) {
		return a[0]
	}
	return v
}

func bandOrRaw(v string) string {
	if slices.Contains(CompanySizes, v) {
		return v
	}
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
