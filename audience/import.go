package audience

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/approvals"
	"vibesell/store"
)

// MaxImport is the most leads one import may ask for.
const MaxImport = 100_000

// Import is one import of leads into a workspace, carried out for one
// approval.
type Import struct {
	ApprovalID        string
	Requested         int // how many the approval covers
	Imported          int
	SkippedExisting   int // already leads of the workspace
	SkippedSuppressed int
	SkippedInvalid    int // invalid or role addresses; of an upload, its flagged rows skipped
	Sample            bool
	StartedAt         time.Time
	FinishedAt        *time.Time // nil: still running
	// StoppedAtLimit is true when the plan's monthly lead limit was
	// reached before the approved number was in.
	StoppedAtLimit bool
	// Upload is true for an import of an uploaded file: its lines that
	// failed the check (InvalidLines) or repeated an address
	// (DuplicateLines) never became rows to import, and SkippedInvalid
	// counts the rows the list check flagged, skipped as chosen.
	Upload                       bool
	InvalidLines, DuplicateLines int
}

const importColumns = `approval_id, requested, imported, skipped_existing, skipped_suppressed, skipped_invalid, sample, started_at, finished_at, stopped_at_limit,
	upload_id IS NOT NULL,
	coalesce((SELECT u.invalid_rows FROM lead_uploads u WHERE u.workspace_id = lead_imports.workspace_id AND u.id = lead_imports.upload_id), 0),
	coalesce((SELECT u.duplicate_rows FROM lead_uploads u WHERE u.workspace_id = lead_imports.workspace_id AND u.id = lead_imports.upload_id), 0)`

func scanImport(r pgx.Row) (Import, error) {
	var im Import
	err := r.Scan(&im.ApprovalID, &im.Requested, &im.Imported, &im.SkippedExisting, &im.SkippedSuppressed, &im.SkippedInvalid,
		&im.Sample, &im.StartedAt, &im.FinishedAt, &im.StoppedAtLimit, &im.Upload, &im.InvalidLines, &im.DuplicateLines)
	return im, err
}

// Skipped says what the import left out, each with its count, in words a
// person reads; the counts add up to everything not imported.
func (im Import) Skipped() []string {
	var out []string
	if im.InvalidLines > 0 {
		out = append(out, vibesell.Plural(im.InvalidLines, "invalid line", "invalid lines")+" of the file")
	}
	if im.DuplicateLines > 0 {
		out = append(out, vibesell.Plural(im.DuplicateLines, "line", "lines")+" repeating an address already in the file")
	}
	if im.SkippedExisting > 0 {
		out = append(out, fmt.Sprintf("%s already in the workspace", vibesell.Count(im.SkippedExisting)))
	}
	if im.SkippedSuppressed > 0 {
		out = append(out, fmt.Sprintf("%s suppressed (unsubscribed, bounced or blocked)", vibesell.Count(im.SkippedSuppressed)))
	}
	if im.SkippedInvalid > 0 {
		what := "with an invalid or role address"
		if im.Upload {
			what = "flagged by the list check (no mail server, disposable-address domain or role address)"
		}
		out = append(out, vibesell.Count(im.SkippedInvalid)+" "+what)
	}
	return out
}

// LeadLimit is the plan's limit on the leads a workspace imports per
// calendar month; billing's (billing.Service.Limit(billing.Leads)) is
// one, wired in cmd/server as [Deps].LeadLimit.
type LeadLimit interface {
	// Check refuses (EPAYMENTREQUIRED: the limit, the usage, and the
	// plan to change to as its step) when the plan does not allow n more
	// leads this month.
	Check(ctx context.Context, ws uuid.UUID, n int) error
	// Describe writes for a person what n more leads use of the plan.
	Describe(ctx context.Context, ws uuid.UUID, n int) (string, error)
	// Left holds the workspace's plan locked until tx ends and says how
	// many more leads it allows this month.
	Left(ctx context.Context, tx pgx.Tx, ws uuid.UUID) (int, error)
	// Use counts n more leads in tx, the transaction that adds them.
	Use(ctx context.Context, tx pgx.Tx, ws uuid.UUID, n int) error
}

// importArguments identify an import: the same number asked for, of the
// same confirmed filters, is one approval while it waits.
type importArguments struct {
	Count          int    `json:"count"`
	FiltersVersion int    `json:"filtersVersion,omitempty"`
	Upload         string `json:"upload,omitempty"`
	// SkipFlagged, for an upload, is the person's choice to skip the rows
	// the list check flagged: part of what is approved.
	SkipFlagged *bool `json:"skipFlagged,omitempty"`
}

// importDetails are exactly what an approval of import_leads covers.
type importDetails struct {
	Filters        Filters `json:"filters"`
	FiltersVersion int     `json:"filtersVersion"`
	Count          int     `json:"count"` // leads to import
	Sample         bool    `json:"sample"`
	// Upload, when set, imports the valid rows of this upload as checked
	// at CheckedAt, instead of the directory's contacts.
	Upload    string     `json:"upload,omitempty"`
	CheckedAt *time.Time `json:"checkedAt,omitempty"`
	// SkipFlagged skips the upload's flagged rows; nil (approved before
	// flags) skips role addresses, as imports then did.
	SkipFlagged *bool `json:"skipFlagged,omitempty"`
}

// ImportRequest is one call of import_leads.
type ImportRequest struct {
	Count  int    // the most leads to import, 1 to [MaxImport]; with Upload, 0 imports every row
	Upload string // an upload's id: import its rows instead of the target's contacts
	// KeepFlagged, with Upload, imports the rows the list check flagged
	// too; by default they are skipped.
	KeepFlagged bool
	RequestedBy string // the signed-in person it is asked by or for (approvals.Request.RequestedBy); empty: no one known
	// RequestedVia is where it was asked (approvals.ViaConversation by
	// default, approvals.ViaWeb from the web app).
	RequestedVia string
}

// RequestImport opens (or returns the waiting) approval to import leads
// of the confirmed target. created reports whether this call opened it.
// Its impact states how many are imported, how many are skipped and why,
// and what that uses of the plan's monthly leads; it costs nothing, so the
// person may decide it in the conversation.
// Refusals: EINVALID when the filters are not confirmed, the count is out
// of range, or no contact can be imported; EPAYMENTREQUIRED when the plan
// does not allow that many more leads this month.
func (s *Service) RequestImport(ctx context.Context, ws uuid.UUID, r ImportRequest) (approvals.Approval, bool, error) {
	if r.Upload != "" {
		return s.requestUploadImport(ctx, ws, r)
	}
	if r.Count == 0 {
		return approvals.Approval{}, false, vibesell.Errorf(vibesell.EINVALID,
			"Give count (how many leads of the confirmed target to import), or upload (the id of a CSV file the person uploaded at %s, a page only the person opens, signed in).", s.cfg.UploadURL)
	}
	if r.Count < 1 || r.Count > MaxImport {
		return approvals.Approval{}, false, vibesell.Errorf(vibesell.EINVALID,
			"count is %s; give how many leads to import, from 1 to %s.", vibesell.Count(r.Count), vibesell.Count(MaxImport))
	}
	t, err := s.confirmedFilters(ctx, s.db, ws)
	if err != nil {
		return approvals.Approval{}, false, err
	}
	p, err := s.countPool(ctx, s.db, ws, *t.Filters)
	if err != nil {
		return approvals.Approval{}, false, err
	}
	if p.Available == 0 {
		return approvals.Approval{}, false, vibesell.Errorf(vibesell.EINVALID,
			"No contact can be imported: %s the target, and %s.",
			vibesell.Plural(p.Matched, "contact matches", "contacts match"), vibesell.JoinAnd(subtractions(p, *t.Filters, true))).Then(
			vibesell.Next{Do: "Widen the filters, then confirm them again.", Tool: vibesell.ToolSaveTargetFilters})
	}
	n := min(r.Count, p.Available)
	planLine, err := s.checkPlan(ctx, ws, n)
	if err != nil {
		return approvals.Approval{}, false, err
	}
	req := s.importApproval(ws, t, p, r.Count, n, planLine)
	req.RequestedBy, req.RequestedVia = r.RequestedBy, r.RequestedVia
	return s.openImport(ctx, req)
}

func (s *Service) openImport(ctx context.Context, req approvals.Request) (approvals.Approval, bool, error) {
	a, created, err := s.approvals.Open(ctx, req)
	if err != nil {
		return approvals.Approval{}, false, err
	}
	return a, created, nil
}

// importImpact is the impact of an import: what and its items differ by
// where the leads come from; the rest is the same for every import.
func (s *Service) importImpact(what string, items []string) approvals.Impact {
	zero := vibesell.NewMoney(0, s.cfg.Currency)
	return approvals.Impact{
		What:        what,
		Items:       items,
		Who:         "No one is contacted: importing only adds them to the workspace's leads. Emails go out only from a campaign launched later, with its own approval.",
		When:        fmt.Sprintf("In the background as soon as it is approved, in batches of %s; the leads page of the web app shows its progress.", vibesell.Count(s.cfg.ImportBatch)),
		CostOnce:    zero,
		CostMonthly: zero,
		Renewal:     "Nothing renews: it is one import, counted in the leads the plan allows this month.",
		Undo:        "Imported leads stay in the workspace and count in the plan's leads this month; suppressed addresses are never imported.",
	}
}

// checkPlan refuses n more leads when the plan does not allow them this
// month, and otherwise writes what they use of it for the impact; "" when
// imports are not limited.
func (s *Service) checkPlan(ctx context.Context, ws uuid.UUID, n int) (string, error) {
	if s.limit == nil {
		return "", nil
	}
	if err := s.limit.Check(ctx, ws, n); err != nil {
		return "", err
	}
	return s.limit.Describe(ctx, ws, n)
}

// subtractions writes each non-empty subtraction of a pool, e.g. "12
// suppressed".
func subtractions(p Pool, f Filters, withNone bool) []string {
	var out []string
	if p.AlreadyImported > 0 {
		out = append(out, fmt.Sprintf("%s already in the workspace", vibesell.Count(p.AlreadyImported)))
	}
	if p.ContactedInWindow > 0 {
		out = append(out, fmt.Sprintf("%s contacted in the last %s", vibesell.Count(p.ContactedInWindow), vibesell.Plural(f.NotContactedDays, "day", "days")))
	}
	if p.Suppressed > 0 {
		out = append(out, fmt.Sprintf("%s suppressed (unsubscribed, bounced, complained or blocked)", vibesell.Count(p.Suppressed)))
	}
	if p.Unusable > 0 {
		out = append(out, fmt.Sprintf("%s with an invalid or role address (info@, sales@…)", vibesell.Count(p.Unusable)))
	}
	if len(out) == 0 && withNone {
		out = append(out, "none of them is left out")
	}
	return out
}

func (s *Service) importApproval(ws uuid.UUID, t Target, p Pool, asked, n int, planLine string) approvals.Request {
	f := *t.Filters
	from := "the lead directory"
	if p.Sample {
		from = "the sample directory"
	}
	what := fmt.Sprintf("Imports %s from %s into the workspace's leads: contacts matching the confirmed target (%s).",
		vibesell.Plural(n, "contact", "contacts"), from, f.Describe())
	if p.Sample {
		what += " These are made-up sample contacts on reserved domains: none of them can ever receive email."
	}
	items := []string{fmt.Sprintf("Matching the target: %s", vibesell.Plural(p.Matched, "contact", "contacts"))}
	for _, sub := range subtractions(p, f, false) {
		items = append(items, "Skipped: "+sub)
	}
	if n < p.Available {
		items = append(items, fmt.Sprintf("Imported: %s of the %s available (the number asked for)", vibesell.Count(n), vibesell.Count(p.Available)))
	} else {
		items = append(items, fmt.Sprintf("Imported: %s, every one available", vibesell.Count(n)))
	}
	if planLine != "" {
		items = append(items, planLine)
	}
	return approvals.Request{
		WorkspaceID: ws,
		Action:      vibesell.ToolImportLeads,
		Arguments:   importArguments{Count: asked, FiltersVersion: t.FiltersVersion},
		Details:     importDetails{Filters: f, FiltersVersion: t.FiltersVersion, Count: n, Sample: p.Sample},
		Summary:     fmt.Sprintf("Import %s matching the target from %s", vibesell.Plural(n, "lead", "leads"), from),
		Impact:      s.importImpact(what, items),
		DecideHere:  true,
	}
}

// ImportAction carries out an approved import_leads: register it with the
// approvals service under [vibesell.ToolImportLeads].
//
// It imports in batches, each one transaction that adds its leads and
// moves the import's cursor, so that an attempt resumed after a crash
// carries on where the last batch ended and no lead is added twice.
func ImportAction(s *Service) approvals.Executor { return importAction{s} }

type importAction struct{ s *Service }

func approvedImport(ex approvals.Execution) (importDetails, error) {
	var d importDetails
	if err := json.Unmarshal(ex.Approval.Details, &d); err != nil {
		return d, fmt.Errorf("read approved import: %w", err)
	}
	return d, nil
}

// Check refuses when the target changed after the approval: the person
// approved these people, not whoever the new filters reach.
func (a importAction) Check(ctx context.Context, ex approvals.Execution) error {
	d, err := approvedImport(ex)
	if err != nil {
		return err
	}
	if d.Upload != "" {
		u, _, err := a.s.upload(ctx, a.s.db, ex.Approval.WorkspaceID, d.Upload, 0)
		if err != nil {
			return err
		}
		if u.CheckedAt == nil || d.CheckedAt == nil || !u.CheckedAt.Equal(*d.CheckedAt) {
			return vibesell.Errorf(vibesell.ECONFLICT,
				"the uploaded file was checked again with another mapping after this import was approved, so nothing was imported.").Then(
				vibesell.Call("Ask for the import of the file again.", vibesell.ToolImportLeads, "upload", d.Upload))
		}
		return nil
	}
	t, err := a.s.Target(ctx, ex.Approval.WorkspaceID)
	if err != nil {
		return err
	}
	if !t.Confirmed() || t.FiltersVersion != d.FiltersVersion || !reflect.DeepEqual(*t.Filters, d.Filters) {
		return vibesell.Errorf(vibesell.ECONFLICT,
			"the target's filters changed after this import was approved, so nothing was imported.").Then(
			vibesell.Next{Do: "Confirm the target again.", Tool: vibesell.ToolConfirmTarget},
			vibesell.Next{Do: "Ask for the import again.", Tool: vibesell.ToolImportLeads})
	}
	return nil
}

// Execute imports, batch after batch, until the approved number is in or
// no contact is left.
func (a importAction) Execute(ctx context.Context, ex approvals.Execution) (string, error) {
	d, err := approvedImport(ex)
	if err != nil {
		return "", err
	}
	ws, id := ex.Approval.WorkspaceID, ex.Approval.ID
	var upload *string
	if d.Upload != "" {
		upload = &d.Upload
	}
	if _, err := a.s.db.Exec(ctx, `INSERT INTO lead_imports (workspace_id, approval_id, requested, sample, started_at, upload_id)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`, ws, id, d.Count, d.Sample, a.s.clock.Now(), upload); err != nil {
		return "", fmt.Errorf("start import %s: %w", id, err)
	}
	for {
		done, err := a.s.importBatch(ctx, ws, id, d)
		if err != nil {
			return "", fmt.Errorf("import %s: %w", id, err)
		}
		if done {
			break
		}
		if a.s.afterBatch != nil {
			if err := a.s.afterBatch(); err != nil {
				return "", err
			}
		}
	}
	im, err := scanImport(a.s.db.QueryRow(ctx, `SELECT `+importColumns+` FROM lead_imports WHERE workspace_id = $1 AND approval_id = $2`, ws, id))
	if err != nil {
		return "", fmt.Errorf("read import %s: %w", id, err)
	}
	return ImportDoneText(im), nil
}

// ImportDoneText says what an import did.
func ImportDoneText(im Import) string {
	from := "the lead directory"
	if im.Upload {
		from = "the uploaded file"
	}
	if im.Sample {
		from = "the sample directory (made-up contacts that can never receive email)"
	}
	text := fmt.Sprintf("Imported %s from %s.", vibesell.Plural(im.Imported, "lead", "leads"), from)
	if skipped := im.Skipped(); len(skipped) > 0 {
		text += " Not imported: " + vibesell.JoinAnd(skipped) + "."
	}
	switch {
	case im.Imported < im.Requested && im.StoppedAtLimit:
		text += fmt.Sprintf(" %s fewer than approved: the plan's leads for this month ran out while it ran (another import used them first); a higher plan on the billing page allows more.",
			vibesell.Count(im.Requested-im.Imported))
	case im.Imported < im.Requested:
		text += fmt.Sprintf(" %s fewer than approved: the rest were no longer available when the import ran.", vibesell.Count(im.Requested-im.Imported))
	}
	return text
}

// importBatch adds the next batch of leads of an import and moves its
// cursor, in one transaction; done reports that the import is complete.
func (s *Service) importBatch(ctx context.Context, ws uuid.UUID, id string, d importDetails) (done bool, err error) {
	err = store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		var imported, after int64
		var finished *time.Time
		err := tx.QueryRow(ctx, `SELECT imported, after_contact_id, finished_at FROM lead_imports
			WHERE workspace_id = $1 AND approval_id = $2 FOR UPDATE`, ws, id).Scan(&imported, &after, &finished)
		if err != nil {
			return err
		}
		if finished != nil {
			done = true
			return nil
		}
		remaining := int64(d.Count) - imported
		// The plan's leads are taken under its lock, batch by batch: two
		// imports running at once never both take the last lead; one that
		// finds none left stops there.
		limited := false
		if s.limit != nil {
			left, err := s.limit.Left(ctx, tx, ws)
			if err != nil {
				return err
			}
			if int64(left) < remaining {
				remaining, limited = int64(left), true
			}
		}
		args := []any{ws, after, s.cfg.ImportBatch}
		var source string
		if d.Upload != "" {
			// An upload's rows are read in the file's order; their cursor
			// is the line, and they come from no directory contact.
			args = append(args, d.Upload, d.SkipFlagged == nil || *d.SkipFlagged)
			source = `SELECT c.line::bigint, NULL::bigint, c.email, c.first_name, c.last_name, c.title, c.company, c.company_domain, c.country, c.time_zone,
				` + suppressedSQL("$1") + `,
				EXISTS (SELECT 1 FROM leads l WHERE l.workspace_id = $1 AND l.email = c.email),
				$5::boolean AND ` + uploadFlagSQL + ` IS NOT NULL
			FROM lead_upload_rows c
			WHERE c.workspace_id = $1 AND c.upload_id = $4 AND c.line > $2
			ORDER BY c.line LIMIT $3`
		} else {
			source = `SELECT c.id, c.id, c.email, c.first_name, c.last_name, c.title, c.company, c.company_domain, c.country, c.time_zone,
				` + suppressedSQL("$1") + `,
				EXISTS (SELECT 1 FROM leads l WHERE l.workspace_id = $1 AND l.email = c.email),
				c.email_status = 'invalid' OR c.role_address
			FROM directory_contacts c
			WHERE ` + d.Filters.where(&args) + ` AND c.id > $2
			ORDER BY c.id LIMIT $3`
		}
		rows, err := tx.Query(ctx, source, args...)
		if err != nil {
			return err
		}
		type lead struct {
			pos                                                                  int64
			contactID                                                            *int64
			email, first, last, title, company, companyDomain, country, timeZone string
			suppressed, existing, unusable                                       bool
		}
		batch, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (lead, error) {
			var l lead
			err := r.Scan(&l.pos, &l.contactID, &l.email, &l.first, &l.last, &l.title, &l.company, &l.companyDomain, &l.country, &l.timeZone,
				&l.suppressed, &l.existing, &l.unusable)
			return l, err
		})
		if err != nil {
			return err
		}
		var skipExisting, skipSuppressed, skipInvalid int
		stoppedAtLimit := false
		var ids []*int64
		var emails, firsts, lasts, titles, companies, domains, countries, zones []string
		cursor := after
		for _, l := range batch {
			switch {
			case l.suppressed:
				skipSuppressed++
			case l.existing:
				skipExisting++
			case l.unusable:
				skipInvalid++
			case int64(len(ids)) < remaining:
				ids, emails, firsts, lasts = append(ids, l.contactID), append(emails, l.email), append(firsts, l.first), append(lasts, l.last)
				titles, companies, domains = append(titles, l.title), append(companies, l.company), append(domains, l.companyDomain)
				countries, zones = append(countries, l.country), append(zones, l.timeZone)
			default:
				// The approved number (or what the plan allows) is in: the
				// rest of the batch is not looked at.
				done, stoppedAtLimit = true, limited
			}
			if done {
				break
			}
			cursor = l.pos
		}
		tag, err := tx.Exec(ctx, `
			INSERT INTO leads (workspace_id, email, contact_id, first_name, last_name, title, company, company_domain, country, time_zone, approval_id, created_at)
			SELECT $1, email, contact_id, first_name, last_name, title, company, company_domain, country, time_zone, $2, $3
			FROM unnest($4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[])
			     AS n (email, contact_id, first_name, last_name, title, company, company_domain, country, time_zone)
			ON CONFLICT (workspace_id, email) DO NOTHING`,
			ws, id, s.clock.Now(), emails, ids, firsts, lasts, titles, companies, domains, countries, zones)
		if err != nil {
			return err
		}
		added := int(tag.RowsAffected())
		if s.limit != nil {
			if err := s.limit.Use(ctx, tx, ws, added); err != nil {
				return err
			}
		}
		// An address added meanwhile by another import is already there.
		skipExisting += len(ids) - added
		if imported+int64(added) >= int64(d.Count) || len(batch) < s.cfg.ImportBatch {
			done = true
		}
		var finishedAt *time.Time
		if done {
			now := s.clock.Now()
			finishedAt = &now
		}
		_, err = tx.Exec(ctx, `UPDATE lead_imports SET imported = imported + $3, skipped_existing = skipped_existing + $4,
			skipped_suppressed = skipped_suppressed + $5, skipped_invalid = skipped_invalid + $6, after_contact_id = $7, finished_at = $8,
			stopped_at_limit = $9
			WHERE workspace_id = $1 AND approval_id = $2`, ws, id, added, skipExisting, skipSuppressed, skipInvalid, cursor, finishedAt, stoppedAtLimit)
		return err
	})
	if err != nil {
		return false, err
	}
	return done, nil
}
