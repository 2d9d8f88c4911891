package audience

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell/store"
)

// Pool is how many contacts the confirmed target reaches, and what is
// subtracted on the way. Every count is exact (a full count of the
// directory), and the subtractions do not overlap: each contact counts
// once, in the first one that applies.
type Pool struct {
	Target  Target
	Sample  bool // the directory is the sample one
	Matched int  // contacts of the directory matching the filters
	// Suppressed are matches whose address or domain the workspace
	// suppresses.
	Suppressed int
	// ContactedInWindow are matches already leads of the workspace and
	// contacted within the target's window (0 when it has none).
	ContactedInWindow int
	// AlreadyImported are the other matches already leads of the workspace.
	AlreadyImported int
	// Unusable are matches with an invalid address or one that reaches a
	// role (info@, sales@…) rather than a person.
	Unusable int
	// Available is what an import can bring in.
	Available int
	// LastImport is the workspace's latest import, when there is one.
	LastImport *Import
	// Loosened says, when fewer than [NarrowPool] are available, how many
	// would match with each narrowing filter left out; nil otherwise.
	Loosened []Loosened
}

// EstimatePool counts the confirmed target's pool, with, for a narrow
// pool, what each filter leaves out. On the replica's index of the
// directory ([directoryIndex]), when it stands for the directory as it
// is, that is one round trip: the target, the workspace's side of the
// count and the last import in one batch. Otherwise the counts are made
// in SQL: the target is read, then the counts and the last import in one
// batch, and for a narrow pool what each filter leaves out (a third).
// Refusals: EINVALID when the filters are missing or not confirmed.
func (s *Service) EstimatePool(ctx context.Context, ws uuid.UUID) (Pool, error) {
	if x := s.index.ready(); x != nil {
		var b pgx.Batch
		var sides poolSides
		var t Target
		s.queueSides(&b, x, ws, nil, &sides, &t)
		last := queueLastImport(&b, ws)
		if err := s.db.SendBatch(ctx, &b).Close(); err != nil {
			return Pool{}, err
		}
		if err := t.confirmed(); err != nil {
			return Pool{}, err
		}
		p, loosened, ok := s.fastCount(x, ws, *t.Filters, &sides)
		if ok {
			p.Target, p.LastImport = t, *last
			if p.Available < NarrowPool {
				p.Loosened = loosened
			}
			return p, nil
		}
	}
	t, err := s.confirmedFilters(ctx, s.db, ws)
	if err != nil {
		return Pool{}, err
	}
	var p Pool
	var b pgx.Batch
	sql, args := s.poolCounts(ws, *t.Filters)
	b.Queue(sql, args...).QueryRow(func(row pgx.Row) error { return scanPoolCounts(row, &p) })
	last := queueLastImport(&b, ws)
	if err := s.db.SendBatch(ctx, &b).Close(); err != nil {
		return Pool{}, err
	}
	p.Target, p.LastImport = t, *last
	if p.Available < NarrowPool {
		// Which filter narrows it: one more statement, only then.
		if p.Loosened, err = s.loosen(ctx, ws, *t.Filters); err != nil {
			return Pool{}, err
		}
	}
	return p, nil
}

// queueLastImport adds to b the read of the workspace's last import,
// which the returned pointer holds once b is sent.
func queueLastImport(b *pgx.Batch, ws uuid.UUID) **Import {
	last := new(*Import)
	b.Queue(lastImportSQL, ws).QueryRow(func(row pgx.Row) (err error) {
		*last, err = scanLastImport(row)
		return err
	})
	return last
}

// countPool counts the pool of f for the workspace ws: on the index when
// it stands for the directory as it is, in SQL otherwise.
func (s *Service) countPool(ctx context.Context, db store.DBTX, ws uuid.UUID, f Filters) (Pool, error) {
	if x := s.index.ready(); x != nil {
		var b pgx.Batch
		var sides poolSides
		var t Target
		titles := f.Titles
		if titles == nil {
			titles = []string{} // none, not the target's
		}
		s.queueSides(&b, x, ws, titles, &sides, &t)
		if err := db.SendBatch(ctx, &b).Close(); err != nil {
			return Pool{}, err
		}
		if p, _, ok := s.fastCount(x, ws, f, &sides); ok {
			return p, nil
		}
	}
	return s.countPoolSQL(ctx, db, ws, f)
}

// countPoolSQL counts the pool of f for the workspace ws in SQL.
func (s *Service) countPoolSQL(ctx context.Context, db store.DBTX, ws uuid.UUID, f Filters) (Pool, error) {
	var p Pool
	sql, args := s.poolCounts(ws, f)
	if err := scanPoolCounts(db.QueryRow(ctx, sql, args...), &p); err != nil {
		return Pool{}, err
	}
	return p, nil
}

// poolCounts is the statement counting the pool of the filters f for the
// workspace ws, and its arguments; scanPoolCounts reads its row.
// It counts the matches and each subtraction, and says whether the
// directory is the sample, in one statement ($1 the workspace, $2 the
// start of the window or null, then the filters' parameters): the matches
// as [countQuery.matches] does, without reading every matching contact;
// the subtractions from the workspace's side, its leads and suppressions
// that are contacts matching the filters (see pool_counts.go).
func (s *Service) poolCounts(ws uuid.UUID, f Filters) (string, []any) {
	q := &countQuery{args: []any{ws, s.windowStart(f)}}
	matched, unusable := q.matches([]Filters{f}, true)
	// The workspace's contacts matching the filters, found from its side:
	// its leads by address (with whether each is suppressed), then the
	// suppressed contacts that are not its leads, by address or domain.
	where := func() string { return f.whereWith(q.param) }
	contact := `SELECT c.id, ` + unusableSQL + ` AS unusable FROM directory_contacts c `
	notLead := ` AND NOT EXISTS (SELECT 1 FROM leads l WHERE l.workspace_id = $1 AND l.email = c.email)`
	q.with("lm", `SELECT `+unusableSQL+` AS unusable, `+suppressedSQL("$1")+` AS suppressed, l.last_contacted_at
		FROM leads l JOIN directory_contacts c ON c.email = l.email WHERE l.workspace_id = $1 AND `+where())
	q.with("sm", contact+`JOIN suppressions s ON c.email = s.value WHERE s.workspace_id = $1 AND s.kind = 'address' AND `+where()+notLead+`
		UNION
		`+contact+`JOIN suppressions s ON c.email_domain COLLATE "C" = s.value WHERE s.workspace_id = $1 AND s.kind = 'domain' AND `+where()+notLead)
	q.with("ws", `SELECT (SELECT count(*) FROM sm) + count(*) FILTER (WHERE lm.suppressed) AS suppressed,
			count(*) FILTER (WHERE NOT lm.suppressed AND lm.last_contacted_at >= $2) AS contacted_in_window,
			count(*) FILTER (WHERE NOT lm.suppressed AND NOT coalesce(lm.last_contacted_at >= $2, false)) AS already_imported,
			(SELECT count(*) FILTER (WHERE sm.unusable) FROM sm) + count(*) FILTER (WHERE lm.unusable) AS unusable
		FROM lm`)
	// The unusable that are not leads nor suppressed: the others were
	// counted above.
	return q.sql(`SELECT NOT EXISTS (SELECT 1 FROM directory_loads WHERE source = 'file'), ` + matched[0] +
		`, ws.suppressed, ws.contacted_in_window, ws.already_imported, ` + unusable[0] + ` - ws.unusable
		FROM ` + q.fromMatches() + `, ws`), q.args
}

func scanPoolCounts(row pgx.Row, p *Pool) error {
	if err := row.Scan(&p.Sample, &p.Matched, &p.Suppressed, &p.ContactedInWindow, &p.AlreadyImported, &p.Unusable); err != nil {
		return fmt.Errorf("count the lead pool: %w", err)
	}
	p.Available = p.Matched - p.Suppressed - p.ContactedInWindow - p.AlreadyImported - p.Unusable
	return nil
}

// windowStart is when the "not contacted in the last N days" window
// starts, or nil when the filters have none.
func (s *Service) windowStart(f Filters) *time.Time {
	if f.NotContactedDays <= 0 {
		return nil
	}
	start := s.clock.Now().AddDate(0, 0, -f.NotContactedDays)
	return &start
}

// PreviewContact is one contact of a preview, as a salesperson checks it
// before importing: the address stays masked until imported.
type PreviewContact struct {
	Name        string
	Title       string
	Company     string
	Country     string // the country's name
	MaskedEmail string // "a***@northwind.example"
	Why         []string
}

// Preview is a sample of the contacts an import would bring in.
type Preview struct {
	Target    Target
	Sample    bool
	Available int // how many an import could bring in
	Contacts  []PreviewContact
}

// PreviewSize is how many contacts a preview shows at most.
const PreviewSize = 10

// PreviewSample returns up to [PreviewSize] contacts an import of the
// confirmed target would bring in. The same filters on the same directory
// give the same people: they are ordered by a hash of the filters and the
// address, not by chance. Refusals as [Service.EstimatePool].
func (s *Service) PreviewSample(ctx context.Context, ws uuid.UUID) (Preview, error) {
	t, err := s.confirmedFilters(ctx, s.db, ws)
	if err != nil {
		return Preview{}, err
	}
	f := *t.Filters
	p, err := s.countPool(ctx, s.db, ws, f)
	if err != nil {
		return Preview{}, err
	}
	raw, _ := json.Marshal(f)
	seed := sha256.Sum256(raw)
	// Leads contacted within the window are leads: the preview leaves out
	// every lead, so it needs no window.
	args := []any{ws, hex.EncodeToString(seed[:8])}
	where := f.where(&args)
	rows, err := s.db.Query(ctx, `
		SELECT c.first_name, c.last_name, c.title, c.company, c.country, c.email, c.seniority, c.department, c.industry, c.company_size
		FROM directory_contacts c
		WHERE `+where+` AND c.email_status <> 'invalid' AND NOT c.role_address AND NOT `+suppressedSQL("$1")+`
		  AND NOT EXISTS (SELECT 1 FROM leads l WHERE l.workspace_id = $1 AND l.email = c.email)
		ORDER BY md5($2 || c.email), c.email
		LIMIT `+fmt.Sprint(PreviewSize), args...)
	if err != nil {
		return Preview{}, fmt.Errorf("preview the lead pool: %w", err)
	}
	out := Preview{Target: t, Sample: p.Sample, Available: p.Available, Contacts: []PreviewContact{}}
	for rows.Next() {
		var first, last, title, company, country, email, seniority, dept, industry, size string
		if err := rows.Scan(&first, &last, &title, &company, &country, &email, &seniority, &dept, &industry, &size); err != nil {
			return Preview{}, fmt.Errorf("preview the lead pool: %w", err)
		}
		out.Contacts = append(out.Contacts, PreviewContact{
			Name: strings.TrimSpace(first + " " + last), Title: title, Company: company, Country: CountryName(country),
			MaskedEmail: MaskEmail(email), Why: whyMatch(f, title, seniority, dept, industry, size, country),
		})
	}
	if err := rows.Err(); err != nil {
		return Preview{}, fmt.Errorf("preview the lead pool: %w", err)
	}
	return out, nil
}

// whyMatch lists the filters a contact meets, in the person's words.
func whyMatch(f Filters, title, seniority, dept, industry, size, country string) []string {
	var why []string
	if len(f.Seniorities) > 0 {
		why = append(why, seniority+" seniority")
	}
	for _, t := range f.Titles {
		if strings.Contains(strings.ToLower(title), strings.ToLower(t)) {
			why = append(why, "title contains '"+t+"'")
			break
		}
	}
	if len(f.Departments) > 0 {
		why = append(why, dept+" department")
	}
	if len(f.Industries) > 0 {
		why = append(why, industry+" industry")
	}
	if len(f.CompanySizes) > 0 {
		why = append(why, size+" employees")
	}
	if len(f.Countries) > 0 || len(f.Regions) > 0 {
		place := "in " + CountryName(country)
		if !slices.Contains(f.Countries, country) {
			for _, r := range f.Regions {
				if slices.Contains(countriesIn(r), country) {
					place += " (" + r + ")"
					break
				}
			}
		}
		why = append(why, place)
	}
	return why
}

// MaskEmail hides an address but its first letter and its domain:
// "ana.silva@acme.example" is "a***@acme.example".
func MaskEmail(email string) string {
	at := strings.LastIndexByte(email, '@')
	if at < 1 {
		return "***"
	}
	return email[:1] + "***" + email[at:]
}

const lastImportSQL = `SELECT ` + importColumns + ` FROM lead_imports WHERE workspace_id = $1 ORDER BY started_at DESC, approval_id DESC LIMIT 1`

// LastImport returns the workspace's latest import and its progress, or
// nil when there was none.
func (s *Service) LastImport(ctx context.Context, ws uuid.UUID) (*Import, error) {
	return s.lastImport(ctx, ws)
}

// lastImport returns the workspace's latest import, or nil.
func (s *Service) lastImport(ctx context.Context, ws uuid.UUID) (*Import, error) {
	return scanLastImport(s.db.QueryRow(ctx, lastImportSQL, ws))
}

// scanLastImport reads the row of lastImportSQL: nil when there was none.
func scanLastImport(row pgx.Row) (*Import, error) {
	im, err := scanImport(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the last import: %w", err)
	}
	return &im, nil
}
