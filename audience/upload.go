package audience

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/approvals"
	"vibesell/store"
)

// LeadFields are the fields a column of an uploaded CSV can fill; email
// is required.
var LeadFields = []string{"email", "first_name", "last_name", "title", "company", "company_domain", "country", "time_zone"}

// MaxUploadBytes bounds an uploaded file (about 300,000 rows of a usual
// export).
const MaxUploadBytes = 32 << 20

// UploadPreviewRows is how many rows of a file its page shows.
const UploadPreviewRows = 5

// MaxInvalidLines bounds the invalid rows an upload lists.
const MaxInvalidLines = 100

// InvalidLine is a row of an upload that cannot be imported.
type InvalidLine struct {
	Line int    `json:"line"` // 1 is the header
	Why  string `json:"why"`
}

// Upload is a file of leads a person uploaded in the web app.
type Upload struct {
	ID         string
	FileName   string
	Reading    Reading // how the file was read
	Header     []string
	FirstRows  [][]string // the first rows as in the file
	Suggested  []string   // a guess of the mapping, from the header's names
	Mapping    []string   // per column: the field it fills or "" (skipped); nil until checked
	UploadedAt time.Time
	CheckedAt  *time.Time
	// Known once checked:
	RowsRead, Valid, Duplicates, Invalid int
	InvalidLines                         []InvalidLine
	// Flagged counts the valid rows the list check flagged (each with one
	// reason, counted in FlagCounts in [flagOrder]); FlaggedLines are the
	// first [MaxInvalidLines] of them. Read by [Service.Upload] only.
	Flagged      int
	FlagCounts   []FlagCount
	FlaggedLines []FlaggedLine
	// UnansweredDomains counts the domains the DNS did not answer for in
	// time: their rows are not flagged for their mail servers.
	UnansweredDomains int
}

// Checked reports whether the upload was checked with a mapping: only then
// can it be imported.
func (u Upload) Checked() bool { return u.CheckedAt != nil }

func newUploadID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "up_" + hex.EncodeToString(b[:])
}

// StoreUpload keeps an uploaded file of leads: a CSV or other text file
// in any of the encodings spreadsheets write, with commas, semicolons or
// tabs, or an .xlsx workbook (its first sheet); how it was read is kept
// with it ([Reading]). Refusals: EINVALID for an empty or oversized file,
// one that cannot be read (naming what it seems to be), one out of the
// bounds of [MaxUploadColumns], [MaxHeaderCellChars] and
// [MaxUploadLineBytes], or one whose first line is not a header.
func (s *Service) StoreUpload(ctx context.Context, ws uuid.UUID, name string, content []byte) (Upload, error) {
	if len(content) > MaxUploadBytes {
		return Upload{}, vibesell.Errorf(vibesell.EINVALID, "The file is %s MB; files of up to %d MB can be uploaded. Split it and upload each part.", vibesell.Count(len(content)>>20), MaxUploadBytes>>20)
	}
	text, r, err := readUpload(content)
	if err != nil {
		return Upload{}, err
	}
	header, err := readHeader(text, r)
	if err != nil {
		return Upload{}, err
	}
	name = strings.TrimSpace(name)
	if name == "" {
		name = "upload.csv"
	}
	var workbook []byte
	if r.Encoding == EncodingXLSX {
		workbook = content // another of its sheets can be read
	}
	id := newUploadID()
	if _, err := s.db.Exec(ctx, `INSERT INTO lead_uploads (workspace_id, id, file_name, content, header, uploaded_at, encoding, separator, workbook, sheets, sheet)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		ws, id, name, text, header, s.clock.Now(), r.Encoding, string(r.Separator), workbook, r.Sheets, r.Sheet); err != nil {
		return Upload{}, fmt.Errorf("store upload: %w", err)
	}
	return s.Upload(ctx, ws, id)
}

// readHeader reads the header of a file's text, and holds it to
// [checkHeader]. Refusals: EINVALID.
func readHeader(text []byte, r Reading) ([]string, error) {
	header, err := newCSVReader(text, r).Read()
	if err != nil || len(header) == 0 {
		where := "its first line"
		if r.Encoding == EncodingXLSX {
			where = "the sheet's first row"
		}
		return nil, vibesell.Errorf(vibesell.EINVALID, "The file has no header line: %s must name the columns (for example email, first_name, company). Add it and upload the file again.", where)
	}
	for i := range header {
		header[i] = strings.TrimSpace(strings.TrimPrefix(header[i], "\ufeff"))
	}
	if err := checkHeader(header); err != nil {
		return nil, err
	}
	return header, nil
}

// newCSVReader reads the text of an upload as it was read at upload:
// the preview, the check and the import all read it through this.
func newCSVReader(text []byte, r Reading) *csv.Reader {
	in := csv.NewReader(bytes.NewReader(text))
	in.Comma = r.Separator
	if in.Comma == 0 {
		in.Comma = ','
	}
	in.FieldsPerRecord = -1
	return in
}

// ReadSheet reads another sheet of an uploaded workbook (sheet from 0, in
// the workbook's order) in place of the one read: its header and rows
// replace the file's, and its mapping and check are cleared (an import
// approved before is then refused as checked again). Refusals:
// ENOTFOUND; EINVALID for an upload that is not a workbook, a sheet it
// does not have, or a sheet out of the bounds of a file.
func (s *Service) ReadSheet(ctx context.Context, ws uuid.UUID, id string, sheet int) (Upload, error) {
	err := store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		var fileName string
		var workbook []byte
		err := tx.QueryRow(ctx, `SELECT file_name, workbook FROM lead_uploads WHERE workspace_id = $1 AND id = $2 FOR UPDATE`, ws, id).Scan(&fileName, &workbook)
		if errors.Is(err, pgx.ErrNoRows) {
			return vibesell.Errorf(vibesell.ENOTFOUND, "There is no upload %s in this workspace. The person uploads a file at the leads page of the web app.", id)
		}
		if err != nil {
			return err
		}
		if workbook == nil {
			return vibesell.Errorf(vibesell.EINVALID, "The file %s is not an Excel workbook: it has no sheets to choose from.", fileName)
		}
		text, sheets, err := sheetText(workbook, sheet)
		if err != nil {
			return err
		}
		r := Reading{Encoding: EncodingXLSX, Separator: ',', Sheets: sheets, Sheet: sheet}
		if err := checkText(text, r.Separator); err != nil {
			return err
		}
		header, err := readHeader(text, r)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM lead_upload_rows WHERE workspace_id = $1 AND upload_id = $2`, ws, id); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE lead_uploads SET content = $3, header = $4, sheet = $5, mapping = NULL, rows_read = NULL, valid_rows = NULL,
			duplicate_rows = NULL, invalid_rows = NULL, invalid_lines = NULL, unanswered_domains = NULL, checked_at = NULL WHERE workspace_id = $1 AND id = $2`,
			ws, id, text, header, sheet)
		return err
	})
	if err != nil {
		if vibesell.ErrorCode(err) != vibesell.EINTERNAL {
			return Upload{}, err
		}
		return Upload{}, fmt.Errorf("read sheet %d of upload %s: %w", sheet, id, err)
	}
	return s.Upload(ctx, ws, id)
}

// Upload returns an upload of the workspace. Refusals: ENOTFOUND; EINVALID
// for one kept before the bounds with more than [MaxUploadColumns] columns.
func (s *Service) Upload(ctx context.Context, ws uuid.UUID, id string) (Upload, error) {
	// The first rows are within their first lines: only those are read.
	u, content, err := s.upload(ctx, s.db, ws, id, (UploadPreviewRows+1)*(MaxUploadLineBytes+1))
	if err != nil {
		return Upload{}, err
	}
	in := newCSVReader(content, u.Reading)
	_, _ = in.Read()
	for len(u.FirstRows) < UploadPreviewRows {
		rec, err := in.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			continue
		}
		u.FirstRows = append(u.FirstRows, rec)
	}
	u.Suggested = suggestMapping(u.Header)
	if u.Checked() {
		if err := s.readFlags(ctx, ws, &u); err != nil {
			return Upload{}, err
		}
	}
	return u, nil
}

// readFlags reads how many rows of a checked upload carry each flag, and
// the first of them.
func (s *Service) readFlags(ctx context.Context, ws uuid.UUID, u *Upload) error {
	counts := map[string]int{}
	rows, err := s.db.Query(ctx, `SELECT flag, count(*) FROM lead_upload_rows WHERE workspace_id = $1 AND upload_id = $2 AND flag IS NOT NULL GROUP BY flag`, ws, u.ID)
	if err != nil {
		return fmt.Errorf("count flags of upload %s: %w", u.ID, err)
	}
	var flag string
	var n int
	if _, err := pgx.ForEachRow(rows, []any{&flag, &n}, func() error { counts[flag] = n; return nil }); err != nil {
		return fmt.Errorf("count flags of upload %s: %w", u.ID, err)
	}
	u.FlagCounts = orderFlagCounts(counts)
	for _, c := range u.FlagCounts {
		u.Flagged += c.Count
	}
	rows, err = s.db.Query(ctx, `SELECT line, email, flag FROM lead_upload_rows WHERE workspace_id = $1 AND upload_id = $2 AND flag IS NOT NULL ORDER BY line LIMIT $3`,
		ws, u.ID, MaxInvalidLines)
	if err != nil {
		return fmt.Errorf("read flagged rows of upload %s: %w", u.ID, err)
	}
	if u.FlaggedLines, err = pgx.CollectRows(rows, pgx.RowToStructByPos[FlaggedLine]); err != nil {
		return fmt.Errorf("read flagged rows of upload %s: %w", u.ID, err)
	}
	return nil
}

// orderFlagCounts lists the non-zero counts in [flagOrder].
func orderFlagCounts(counts map[string]int) []FlagCount {
	var out []FlagCount
	for _, f := range flagOrder {
		if counts[f] > 0 {
			out = append(out, FlagCount{Flag: f, Count: counts[f]})
		}
	}
	return out
}

// upload reads an upload and the first contentBytes of its file (all of
// it with [MaxUploadBytes]). An upload kept before the bounds of
// [checkUploadShape] with more than [MaxUploadColumns] columns is refused
// as such, and only that many of its header's cells are ever read.
func (s *Service) upload(ctx context.Context, db store.DBTX, ws uuid.UUID, id string, contentBytes int) (Upload, []byte, error) {
	var u Upload
	var content, invalid []byte
	var columns int
	var separator string
	err := db.QueryRow(ctx, `SELECT id, file_name, substring(content FROM 1 FOR $3), header[1:$4], mapping[1:$4], cardinality(header), uploaded_at, checked_at,
			coalesce(rows_read, 0), coalesce(valid_rows, 0), coalesce(duplicate_rows, 0), coalesce(invalid_rows, 0), invalid_lines,
			coalesce(unanswered_domains, 0), encoding, separator, coalesce(sheets, '{}'), sheet
		FROM lead_uploads WHERE workspace_id = $1 AND id = $2`, ws, id, contentBytes, MaxUploadColumns).
		Scan(&u.ID, &u.FileName, &content, &u.Header, &u.Mapping, &columns, &u.UploadedAt, &u.CheckedAt, &u.RowsRead, &u.Valid, &u.Duplicates, &u.Invalid, &invalid,
			&u.UnansweredDomains, &u.Reading.Encoding, &separator, &u.Reading.Sheets, &u.Reading.Sheet)
	if errors.Is(err, pgx.ErrNoRows) {
		return Upload{}, nil, vibesell.Errorf(vibesell.ENOTFOUND, "There is no upload %s in this workspace. The person uploads a file at the leads page of the web app.", id)
	}
	if err != nil {
		return Upload{}, nil, fmt.Errorf("read upload %s: %w", id, err)
	}
	u.Reading.Separator, _ = utf8.DecodeRuneInString(separator)
	if columns > MaxUploadColumns {
		// Said to a person on the upload's page as to the assistant: no id.
		return Upload{}, nil, vibesell.Errorf(vibesell.EINVALID, "The file %s has %s columns, more than the %d a file may have, so it cannot be checked or imported. Upload it again with only the columns about the leads.",
			u.FileName, vibesell.Count(columns), MaxUploadColumns)
	}
	if invalid != nil {
		if err := json.Unmarshal(invalid, &u.InvalidLines); err != nil {
			return Upload{}, nil, fmt.Errorf("read upload %s: %w", id, err)
		}
	}
	return u, content, nil
}

// suggestMapping guesses which field each column fills from its name.
func suggestMapping(header []string) []string {
	out := make([]string, len(header))
	taken := map[string]bool{}
	for i, h := range header {
		key := strings.NewReplacer(" ", "", "_", "", "-", "").Replace(strings.ToLower(h))
		var field string
		switch key {
		case "email", "emailaddress", "mail", "workemail":
			field = "email"
		case "firstname", "givenname", "first":
			field = "first_name"
		case "lastname", "surname", "familyname", "last":
			field = "last_name"
		case "title", "jobtitle", "position", "role":
			field = "title"
		case "company", "companyname", "organization", "organisation", "account":
			field = "company"
		case "companydomain", "domain", "website", "companywebsite":
			field = "company_domain"
		case "country":
			field = "country"
		case "timezone", "tz":
			field = "time_zone"
		}
		if field != "" && !taken[field] {
			out[i], taken[field] = field, true
		}
	}
	return out
}

// CheckUpload reads every row of an upload with mapping (per column, the
// field it fills or "" to skip it) and keeps its valid rows for
// import_leads. A row is invalid without a usable email address or with
// more or fewer fields than the header; an address seen earlier in the
// file is a duplicate (the first row counts). A valid row is flagged
// (list hygiene) when its domain has no mail server (MX, else an address,
// looked up through [Deps].MailDomains), is a disposable-address
// domain, or the address is a role's; the import's approval says whether
// flagged rows are skipped. Checking again with another
// mapping replaces the rows. Refusals: EINVALID for a mapping that does
// not fit the header, fills a field twice or leaves out email, and for an
// upload kept before the bounds with more than [MaxUploadColumns] columns.
func (s *Service) CheckUpload(ctx context.Context, ws uuid.UUID, id string, mapping []string) (Upload, error) {
	var out Upload
	// The domains are looked up before the transaction, so that no
	// connection or lock is held while the DNS answers; one the file has
	// only once read in it (another sheet read meanwhile) is looked up there.
	states := s.uploadMailStates(ctx, ws, id, mapping)
	err := store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		u, content, err := s.upload(ctx, tx, ws, id, MaxUploadBytes)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT 1 FROM lead_uploads WHERE workspace_id = $1 AND id = $2 FOR UPDATE`, ws, id); err != nil {
			return err
		}
		if err := checkMapping(u.Header, mapping); err != nil {
			return err
		}
		col := map[string]int{}
		for i, f := range mapping {
			if f != "" {
				col[f] = i
			}
		}
		get := func(rec []string, field string) string {
			if i, ok := col[field]; ok {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		in := newCSVReader(content, u.Reading)
		in.ReuseRecord = true
		if _, err := in.Read(); err != nil {
			return err
		}
		seen := map[string]bool{}
		var rows [][]any
		type hygiene struct {
			domain string
			role   bool
		}
		var checks []hygiene
		lookup := map[string]bool{} // domains to ask the DNS about
		var rowsRead, duplicates, invalid int
		var lines []InvalidLine
		bad := func(line int, why string) {
			invalid++
			if len(lines) < MaxInvalidLines {
				lines = append(lines, InvalidLine{Line: line, Why: why})
			}
		}
		for {
			rec, err := in.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			rowsRead++
			var parseErr *csv.ParseError
			if errors.As(err, &parseErr) {
				bad(parseErr.StartLine, "the line cannot be read as CSV (a quote is not closed or is misplaced)")
				continue
			}
			if err != nil {
				return err
			}
			line, _ := in.FieldPos(0)
			if len(rec) != len(u.Header) {
				bad(line, fmt.Sprintf("it has %s, the header has %d", vibesell.Plural(len(rec), "field", "fields"), len(u.Header)))
				continue
			}
			raw := get(rec, "email")
			email, domain, role, ok := normalEmail(raw)
			if !ok {
				why := "the email is empty"
				if raw != "" {
					why = fmt.Sprintf("'%s' is not an email address%s", shorten(raw, 100), separatorHint(raw, u.Reading.Separator))
				}
				bad(line, why)
				continue
			}
			if seen[email] {
				duplicates++
				continue
			}
			seen[email] = true
			checks = append(checks, hygiene{domain, role})
			if !isDisposable(domain) {
				lookup[domain] = true
			}
			rows = append(rows, []any{ws, id, line, email, domain, role, get(rec, "first_name"), get(rec, "last_name"), get(rec, "title"),
				get(rec, "company"), normalDomainOrEmpty(get(rec, "company_domain")), countryOrRaw(get(rec, "country")), get(rec, "time_zone")})
		}
		var missing []string
		for d := range lookup {
			if _, ok := states[d]; !ok {
				missing = append(missing, d)
			}
		}
		maps.Copy(states, s.mailStates(ctx, missing))
		unanswered := 0
		if s.mailDomains != nil {
			for d := range lookup {
				if states[d] == mailUnknown {
					unanswered++
				}
			}
		}
		for i, c := range checks {
			var flag any // NULL: not flagged
			switch {
			case states[c.domain] == mailNone:
				flag = FlagNoMailServer
			case isDisposable(c.domain):
				flag = FlagDisposable
			case c.role:
				flag = FlagRole
			}
			rows[i] = append(rows[i], flag)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM lead_upload_rows WHERE workspace_id = $1 AND upload_id = $2`, ws, id); err != nil {
			return err
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"lead_upload_rows"},
			[]string{"workspace_id", "upload_id", "line", "email", "email_domain", "role_address", "first_name", "last_name", "title",
				"company", "company_domain", "country", "time_zone", "flag"}, pgx.CopyFromRows(rows)); err != nil {
			return err
		}
		invalidJSON, _ := json.Marshal(append([]InvalidLine{}, lines...))
		_, err = tx.Exec(ctx, `UPDATE lead_uploads SET mapping = $3, rows_read = $4, valid_rows = $5, duplicate_rows = $6, invalid_rows = $7,
			invalid_lines = $8, checked_at = $9, unanswered_domains = $10 WHERE workspace_id = $1 AND id = $2`,
			ws, id, mapping, rowsRead, len(rows), duplicates, invalid, invalidJSON, s.clock.Now(), unanswered)
		return err
	})
	if err != nil {
		if vibesell.ErrorCode(err) != vibesell.EINTERNAL {
			return Upload{}, err
		}
		return Upload{}, fmt.Errorf("check upload %s: %w", id, err)
	}
	if out, err = s.Upload(ctx, ws, id); err != nil {
		return Upload{}, err
	}
	return out, nil
}

// uploadMailStates looks up the domains of an upload's addresses (not
// those on the disposable list) read with mapping; none when there is no
// DNS to ask, or the upload or mapping will be refused by the check.
func (s *Service) uploadMailStates(ctx context.Context, ws uuid.UUID, id string, mapping []string) map[string]mailState {
	states := map[string]mailState{}
	if s.mailDomains == nil {
		return states
	}
	u, content, err := s.upload(ctx, s.db, ws, id, MaxUploadBytes)
	if err != nil || checkMapping(u.Header, mapping) != nil {
		return states // the check refuses it (or fails) in the transaction, in its words
	}
	email := slices.Index(mapping, "email")
	in := newCSVReader(content, u.Reading)
	in.ReuseRecord = true
	domains := map[string]bool{}
	for first := true; ; first = false {
		rec, err := in.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if first || err != nil || len(rec) != len(u.Header) {
			continue
		}
		if _, domain, _, ok := normalEmail(rec[email]); ok && !isDisposable(domain) {
			domains[domain] = true
		}
	}
	return s.mailStates(ctx, slices.Sorted(maps.Keys(domains)))
}

// separatorHint says, of a cell that is not an address, that it holds
// another separator than the one the file was read with: a row read as
// one column, as a file with semicolons once was.
func separatorHint(cell string, sep rune) string {
	for _, other := range separators {
		if other != sep && strings.ContainsRune(cell, other) {
			return fmt.Sprintf(" (it holds %s, but the file's columns were read as separated by %s)", separatorNames[other], separatorNames[sep])
		}
	}
	return ""
}

func checkMapping(header, mapping []string) error {
	if len(mapping) != len(header) {
		return vibesell.Errorf(vibesell.EINVALID, "Say for each of the file's %d columns which field it fills (or skip it).", len(header))
	}
	var problems []string
	seen := map[string]bool{}
	for i, f := range mapping {
		if f == "" {
			continue
		}
		if !slices.Contains(LeadFields, f) {
			problems = append(problems, fmt.Sprintf("the column '%s' is set to '%s', which is not a field", header[i], f))
			continue
		}
		if seen[f] {
			problems = append(problems, fmt.Sprintf("two columns fill %s", strings.ReplaceAll(f, "_", " ")))
		}
		seen[f] = true
	}
	if !seen["email"] {
		problems = append(problems, "no column is set to email, and every lead needs an address")
	}
	if len(problems) > 0 {
		return vibesell.Errorf(vibesell.EINVALID, "%s. Change the mapping and check again.", capitalize(strings.Join(problems, "; ")))
	}
	return nil
}

// requestUploadImport opens the approval to import a checked upload's rows.
func (s *Service) requestUploadImport(ctx context.Context, ws uuid.UUID, r ImportRequest) (approvals.Approval, bool, error) {
	if r.Count < 0 || r.Count > MaxImport {
		return approvals.Approval{}, false, vibesell.Errorf(vibesell.EINVALID,
			"count is %s; give how many of the file's rows to import at most, from 1 to %s, or leave it out to import them all.", vibesell.Count(r.Count), vibesell.Count(MaxImport))
	}
	u, _, err := s.upload(ctx, s.db, ws, r.Upload, 0)
	if err != nil {
		return approvals.Approval{}, false, err
	}
	if !u.Checked() {
		return approvals.Approval{}, false, vibesell.Errorf(vibesell.EINVALID,
			"The file %s is not checked yet: the person says which column is which on its page, %s/uploads/%s (only the person opens it, signed in), and checks it there first.",
			u.FileName, s.cfg.UploadURL, u.ID)
	}
	var p Pool
	counts := map[string]int{}
	var noMail, disposable, role int
	err = s.db.QueryRow(ctx, `
		SELECT count(*),
			count(*) FILTER (WHERE m.suppressed),
			count(*) FILTER (WHERE NOT m.suppressed AND m.existing),
			count(*) FILTER (WHERE NOT m.suppressed AND NOT m.existing AND m.flag = 'no_mail_server'),
			count(*) FILTER (WHERE NOT m.suppressed AND NOT m.existing AND m.flag = 'disposable'),
			count(*) FILTER (WHERE NOT m.suppressed AND NOT m.existing AND m.flag = 'role')
		FROM (SELECT `+uploadFlagSQL+` AS flag, `+suppressedSQL("$1")+` AS suppressed,
		             EXISTS (SELECT 1 FROM leads l WHERE l.workspace_id = $1 AND l.email = c.email) AS existing
		      FROM lead_upload_rows c WHERE c.workspace_id = $1 AND c.upload_id = $2) m`, ws, u.ID).
		Scan(&p.Matched, &p.Suppressed, &p.AlreadyImported, &noMail, &disposable, &role)
	if err != nil {
		return approvals.Approval{}, false, fmt.Errorf("count upload %s: %w", u.ID, err)
	}
	counts[FlagNoMailServer], counts[FlagDisposable], counts[FlagRole] = noMail, disposable, role
	flags := orderFlagCounts(counts)
	skip := !r.KeepFlagged
	if skip {
		p.Unusable = noMail + disposable + role
	}
	p.Available = p.Matched - p.Suppressed - p.AlreadyImported - p.Unusable
	if p.Available == 0 {
		hint := ""
		if skip && p.Unusable > 0 {
			hint = " The flagged rows can be imported by choosing not to skip them."
		}
		return approvals.Approval{}, false, vibesell.Errorf(vibesell.EINVALID,
			"No row of %s can be imported: of its %s, %s.%s", u.FileName, vibesell.Plural(u.RowsRead, "row", "rows"), vibesell.JoinAnd(uploadSkips(u, p, flags)), hint)
	}
	n := p.Available
	if r.Count > 0 {
		n = min(n, r.Count)
	}
	planLine, err := s.checkPlan(ctx, ws, n)
	if err != nil {
		return approvals.Approval{}, false, err
	}
	items := []string{fmt.Sprintf("Rows in the file: %s", vibesell.Count(u.RowsRead))}
	for _, skip := range uploadSkips(u, p, flags) {
		items = append(items, "Skipped: "+skip)
	}
	if !skip && len(flags) > 0 {
		items = append(items, "Flagged by the list check but imported, as chosen: "+flagSkips(flags))
	}
	if u.UnansweredDomains > 0 {
		items = append(items, fmt.Sprintf("Domains not looked up (the DNS failed or did not answer in time): %s; rows at them are not flagged for mail servers",
			vibesell.Count(u.UnansweredDomains)))
	}
	if n < p.Available {
		items = append(items, fmt.Sprintf("Imported: %s of the %s importable rows (the number asked for)", vibesell.Count(n), vibesell.Count(p.Available)))
	} else {
		items = append(items, fmt.Sprintf("Imported: %s, every importable row", vibesell.Count(n)))
	}
	if planLine != "" {
		items = append(items, planLine)
	}
	impact := s.importImpact(fmt.Sprintf("Imports %s from the file %s into the workspace's leads.",
		vibesell.Plural(n, "row", "rows"), u.FileName), items)
	return s.openImport(ctx, approvals.Request{
		WorkspaceID:  ws,
		Action:       vibesell.ToolImportLeads,
		Arguments:    importArguments{Count: r.Count, Upload: u.ID, SkipFlagged: &skip},
		Details:      importDetails{Count: n, Upload: u.ID, CheckedAt: u.CheckedAt, SkipFlagged: &skip},
		Summary:      fmt.Sprintf("Import %s from the uploaded file %s", vibesell.Plural(n, "lead", "leads"), u.FileName),
		Impact:       impact,
		DecideHere:   true,
		RequestedBy:  r.RequestedBy,
		RequestedVia: r.RequestedVia,
	})
}

// uploadFlagSQL is the flag of an upload's row c; a row checked before
// flags were kept is flagged for its role address only.
const uploadFlagSQL = `coalesce(c.flag, CASE WHEN c.role_address THEN 'role' END)`

// uploadSkips writes each non-empty reason a row of an upload is skipped;
// p.Unusable counts the flagged rows skipped (flags).
func uploadSkips(u Upload, p Pool, flags []FlagCount) []string {
	var out []string
	if u.Duplicates > 0 {
		out = append(out, fmt.Sprintf("%s repeating an address found earlier in the file", vibesell.Count(u.Duplicates)))
	}
	if u.Invalid > 0 {
		var lines []string
		for _, l := range u.InvalidLines[:min(len(u.InvalidLines), 10)] {
			lines = append(lines, vibesell.Count(l.Line))
		}
		more := ""
		if u.Invalid > len(lines) {
			more = ", …"
		}
		out = append(out, fmt.Sprintf("%s invalid (%s %s%s; the upload's page says why)", vibesell.Count(u.Invalid), plural(u.Invalid, "line", "lines"), strings.Join(lines, ", "), more))
	}
	if p.AlreadyImported > 0 {
		out = append(out, fmt.Sprintf("%s already in the workspace", vibesell.Count(p.AlreadyImported)))
	}
	if p.Suppressed > 0 {
		out = append(out, fmt.Sprintf("%s suppressed (unsubscribed, bounced, complained or blocked)", vibesell.Count(p.Suppressed)))
	}
	if p.Unusable > 0 {
		out = append(out, fmt.Sprintf("%s flagged by the list check, as chosen: %s", vibesell.Count(p.Unusable), flagSkips(flags)))
	}
	return out
}

// shorten cuts s to at most n characters, marking the cut: text from a
// file quoted back is kept short whatever the file holds.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
