package audience

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/campaigns"
	"vibesell/store"
)

// The leads list: every lead of a workspace, newest first, a page at a
// time (keyset on the lead's number, so a page deep in the list costs as
// much as the first), searched and filtered; and removing a lead.

// A lead's status, as the list shows and filters it: the first that holds,
// in this order.
const (
	LeadRemoved    = "removed"     // a person removed it
	LeadBlocked    = "blocked"     // its address or domain is suppressed (unsubscribed, bounced, blocked)
	LeadReplied    = "replied"     // someone answered an email sent to it
	LeadEmailed    = "emailed"     // at least one email went out to it
	LeadNotEmailed = "not_emailed" // nothing sent yet
)

// LeadStatuses are the statuses, in the order the list offers them.
var LeadStatuses = []string{LeadNotEmailed, LeadEmailed, LeadReplied, LeadBlocked, LeadRemoved}

// leadStatusSQL is the status of a lead l of workspace $1. It reads the
// sending engine's ledger and the replies kept (the list filters and pages
// on the status, so it is read in the same statement): a lead was emailed
// once a send went out (or may have), and replied once someone answered
// in words (not a bounce, an out-of-office or a complaint). OFFSET 0
// keeps each a lookup per lead (by mail_sends_lead_idx and its replies
// twin): a page of 25 leads reads 25 index entries, where the planner's
// hashed alternative reads every send of the workspace.
const leadStatusSQL = `CASE WHEN l.removed_at IS NOT NULL THEN 'removed'
	WHEN ` + leadSuppressedSQL + ` THEN 'blocked'
	WHEN EXISTS (SELECT 1 FROM mail_replies r WHERE r.workspace_id = $1 AND r.lead_id = l.id
		AND r.classification IN ('interested', 'not_now', 'not_interested', 'unsubscribe', 'other') OFFSET 0) THEN 'replied'
	WHEN EXISTS (SELECT 1 FROM mail_sends s WHERE s.workspace_id = $1 AND s.lead_id = l.id
		AND s.status IN ('sent', 'unknown', 'sending') OFFSET 0) THEN 'emailed'
	ELSE 'not_emailed' END`

// LeadQuery narrows and pages [Service.Leads]. The zero value is the
// first page of every lead.
type LeadQuery struct {
	// Search keeps the leads whose name, address or company contains it
	// (any case); "" keeps all.
	Search string
	// Status keeps the leads of one of [LeadStatuses]; "" keeps all.
	Status string
	// Campaign keeps the leads a campaign (its id) writes to; "" keeps all.
	Campaign string
	// After is where the page starts: the Next of the page before; 0 for
	// the first page.
	After int64
	Limit int // 1 to 100; default 50
}

// ListedLead is one lead as the list shows it.
type ListedLead struct {
	ID        int64
	Email     string
	FirstName string
	LastName  string
	Company   string
	Title     string
	Status    string
	AddedAt   time.Time
}

// Name is the lead's name, "" when the import had none.
func (l ListedLead) Name() string { return strings.TrimSpace(l.FirstName + " " + l.LastName) }

// LeadPage is one page of the leads list.
type LeadPage struct {
	Leads []ListedLead
	// Next is where the next page starts (LeadQuery.After); 0 on the last.
	Next int64
}

// likePattern is s as a LIKE pattern that finds it anywhere, its own
// wildcards taken literally.
func likePattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(strings.TrimSpace(s)) + "%"
}

// leadSearchSQL is what the leads search index (migration 00281) holds
// of a lead l: its address, company and name, so that any text found in
// one of them is found in it.
const leadSearchSQL = `(l.email || ' ' || l.company || ' ' || l.first_name || ' ' || l.last_name)`

// Leads returns a page of the workspace's leads, newest first. Refusals:
// EINVALID for an unknown status or a limit out of range.
func (s *Service) Leads(ctx context.Context, ws uuid.UUID, q LeadQuery) (LeadPage, error) {
	if q.Limit == 0 {
		q.Limit = 50
	}
	if q.Limit < 1 || q.Limit > 100 {
		return LeadPage{}, vibesell.Errorf(vibesell.EINVALID, "A page holds 1 to 100 leads; %d was asked for.", q.Limit)
	}
	if q.Status != "" && !slices.Contains(LeadStatuses, q.Status) {
		return LeadPage{}, vibesell.Errorf(vibesell.EINVALID, "%q is not a status of leads. Use one of %s, or leave it out for every lead.",
			q.Status, vibesell.JoinOr(LeadStatuses))
	}
	// A removed lead is told apart before any status is worked out: the
	// removed ones are found by their own index, and the others never
	// look at them.
	after := q.After
	if after <= 0 {
		after = 1<<63 - 1
	}
	// A search reads the leads the trigram index (migration 00281) finds
	// for the name, address and company together, then checks each field.
	fields := `l.email ILIKE $4 OR l.company ILIKE $4 OR (l.first_name || ' ' || l.last_name) ILIKE $4`
	search := `$3 = '' OR ` + fields
	if strings.TrimSpace(q.Search) != "" {
		search = `$3 <> '' AND ` + leadSearchSQL + ` ILIKE $4 AND (` + fields + `)`
	}
	rows, err := s.db.Query(ctx, `SELECT * FROM (
		SELECT l.id, l.email, l.first_name, l.last_name, l.company, l.title, `+leadStatusSQL+` AS status, l.created_at
		  FROM leads l
		 WHERE l.workspace_id = $1 AND l.id < $2
		   AND ($6 = '' OR ($6 = 'removed') = (l.removed_at IS NOT NULL))
		   AND (`+search+`)
		   AND ($5 = '' OR EXISTS (SELECT 1 FROM campaign_leads cl WHERE cl.workspace_id = $1 AND cl.lead_id = l.id AND cl.campaign_id = $5))
		) l WHERE ($6 = '' OR l.status = $6)
		ORDER BY l.id DESC LIMIT $7`,
		ws, after, strings.TrimSpace(q.Search), likePattern(q.Search), q.Campaign, q.Status, q.Limit+1)
	if err != nil {
		return LeadPage{}, fmt.Errorf("list leads: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ListedLead, error) {
		var l ListedLead
		err := r.Scan(&l.ID, &l.Email, &l.FirstName, &l.LastName, &l.Company, &l.Title, &l.Status, &l.AddedAt)
		return l, err
	})
	if err != nil {
		return LeadPage{}, fmt.Errorf("list leads: %w", err)
	}
	page := LeadPage{Leads: list}
	if len(list) > q.Limit {
		page.Leads = list[:q.Limit]
		page.Next = page.Leads[q.Limit-1].ID
	}
	return page, nil
}

// Removal is a lead a person removed.
type Removal struct {
	Email string
	At    time.Time
	By    string
	// Campaigns is how many campaigns it was taken out of by this removal.
	Campaigns int
	// Already says it was removed before (At and By are that removal's).
	Already bool
}

// RemoveLead removes a lead: in one transaction it is marked removed (who
// and when, kept for its story) and taken out of every campaign, so none
// of its steps still to come goes out. Removing it again changes nothing.
// Refusals: ENOTFOUND when the workspace has no such lead.
func (s *Service) RemoveLead(ctx context.Context, ws uuid.UUID, id int64, by string) (Removal, error) {
	now := s.clock.Now()
	var out Removal
	err := store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `UPDATE leads SET removed_at = $3, removed_by = $4
			WHERE workspace_id = $1 AND id = $2 AND removed_at IS NULL RETURNING email`, ws, id, now, by).Scan(&out.Email)
		if errors.Is(err, pgx.ErrNoRows) {
			err = tx.QueryRow(ctx, `SELECT email, removed_at, removed_by FROM leads WHERE workspace_id = $1 AND id = $2`, ws, id).
				Scan(&out.Email, &out.At, &out.By)
			if errors.Is(err, pgx.ErrNoRows) {
				return vibesell.Errorf(vibesell.ENOTFOUND, "Lead %d is not one of the workspace's leads.", id)
			}
			out.Already = true
			return err
		}
		if err != nil {
			return err
		}
		out.At, out.By = now, by
		out.Campaigns, err = campaigns.StopLead(ctx, tx, ws, id, now)
		return err
	})
	if err != nil && vibesell.ErrorCode(err) == vibesell.EINTERNAL {
		return Removal{}, fmt.Errorf("remove lead %d: %w", id, err)
	}
	return out, err
}
