package approvals

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
)

// Filter chooses which approvals [Service.List] returns.
type Filter string

// The filters.
const (
	Open Filter = "open" // pending, and approved ones still being carried out
	Past Filter = "past" // done, not done and rejected
	All  Filter = "all"
)

// ListOptions narrow and page a list. The zero value lists the 20 newest
// open approvals.
type ListOptions struct {
	Filter Filter
	Limit  int    // 1 to 100; default 20
	Cursor string // from a previous page's Next; empty for the newest
}

// Page is one page of approvals, newest first.
type Page struct {
	Approvals []Approval
	Next      string // the cursor of the next page; empty on the last page
}

// List returns approvals of the workspace, newest first, a page at a time.
// Pending approvals past their expiry are expired first, so a list never
// shows as waiting what can no longer be decided.
// Refusals: EINVALID for a cursor this method did not give.
func (s *Service) List(ctx context.Context, ws uuid.UUID, o ListOptions) (Page, error) {
	if o.Limit == 0 {
		o.Limit = 20
	}
	if o.Limit < 1 || o.Limit > 100 {
		return Page{}, vibesell.Errorf(vibesell.EINVALID, "A page holds 1 to 100 approvals; %d was asked for.", o.Limit)
	}
	var statuses []string
	switch o.Filter {
	case Open, "":
		statuses = []string{"pending", "approved", "executing"}
	case Past:
		statuses = []string{"done", "not_done", "rejected"}
	case All:
		statuses = []string{"pending", "approved", "executing", "done", "not_done", "rejected"}
	default:
		return Page{}, fmt.Errorf("approvals: unknown filter %q", o.Filter)
	}
	// The first page starts after every real approval: no id sorts after
	// this one, and no approval is created in year 9999.
	afterAt, afterID := time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC), "ap_gggggggggggggggg"
	if o.Cursor != "" {
		var ok bool
		if afterAt, afterID, ok = decodeCursor(o.Cursor); !ok {
			return Page{}, vibesell.Errorf(vibesell.EINVALID,
				"The cursor %q is not one this list gave. Leave it out to start from the newest approval.", o.Cursor)
		}
	}
	if err := s.expire(ctx, s.db, s.clock.Now(), expireScope{workspace: &ws}); err != nil {
		return Page{}, err
	}
	rows, err := s.db.Query(ctx, `SELECT `+columns+` FROM approvals
		WHERE workspace_id = $1 AND status = ANY($2) AND (created_at, id) < ($3, $4)
		ORDER BY created_at DESC, id DESC LIMIT $5`,
		ws, statuses, afterAt, afterID, o.Limit+1)
	if err != nil {
		return Page{}, fmt.Errorf("list approvals: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Approval, error) { return s.scanApproval(r) })
	if err != nil {
		return Page{}, fmt.Errorf("list approvals: %w", err)
	}
	var p Page
	if len(list) > o.Limit {
		list = list[:o.Limit]
		last := list[len(list)-1]
		p.Next = encodeCursor(last.CreatedAt, last.ID)
	}
	p.Approvals = list
	return p, nil
}

// Current returns one approval of the workspace as it stands now, whatever
// its status: like [Service.List], a pending approval past its expiry is
// expired first, so it never reads as waiting when it can no longer be
// decided. Refusals: ENOTFOUND (an unknown id, or another workspace's).
func (s *Service) Current(ctx context.Context, ws uuid.UUID, id string) (Approval, error) {
	if !validID(id) {
		return Approval{}, errNotFound(id)
	}
	if err := s.expire(ctx, s.db, s.clock.Now(), expireScope{workspace: &ws, id: &id}); err != nil {
		return Approval{}, err
	}
	// Shown whole, it shows what it would do now (see [Reviser]).
	if err := s.revise(ctx, ws, id); err != nil {
		return Approval{}, err
	}
	return s.Find(ctx, ws, id)
}

func encodeCursor(at time.Time, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(at.UTC().Format(time.RFC3339Nano) + "|" + id))
}

func decodeCursor(c string) (time.Time, string, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return time.Time{}, "", false
	}
	at, id, ok := strings.Cut(string(raw), "|")
	if !ok || !validID(id) {
		return time.Time{}, "", false
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return time.Time{}, "", false
	}
	return t, id, true
}
