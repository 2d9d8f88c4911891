package campaigns

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/workspace"
)

// ContextCampaigns is how many campaigns get_workspace_context lists, the
// newest first; Total counts them all.
const ContextCampaigns = 20

// ContextRows are what get_workspace_context shows of the campaigns: the
// newest campaigns with their status (and why one is paused), how many
// there are, and the newest sequence's latest version, which the next
// step depends on while there is no campaign. They come from campaigns
// and sequence_versions, which carry the context stamp's trigger.
type ContextRows struct {
	Campaigns []Campaign // newest first, at most [ContextCampaigns]
	Total     int
	Sequence  *Sequence // nil: no sequence written yet
}

// QueueRows queues the reads of [ContextRows] on b, to travel in the
// workspace context's batch; done returns them once the batch has run.
func (s *Service) QueueRows(b *pgx.Batch, ws uuid.UUID) (done func() (ContextRows, error)) {
	var r ContextRows
	b.Queue(`SELECT `+campaignColumns+` FROM campaigns c WHERE workspace_id = $1 ORDER BY created_at DESC, id LIMIT $2`, ws, ContextCampaigns).
		Query(func(rows pgx.Rows) (err error) {
			r.Campaigns, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (Campaign, error) { return scanCampaign(row) })
			return err
		})
	b.Queue(`SELECT count(*) FROM campaigns WHERE workspace_id = $1`, ws).QueryRow(func(row pgx.Row) error {
		return row.Scan(&r.Total)
	})
	sequence := workspace.QueueOptional(b, scanSequence, // queued last
		`SELECT `+sequenceColumns+` FROM sequence_versions v WHERE workspace_id = $1 ORDER BY created_at DESC, version DESC LIMIT 1`, ws)
	return func() (ContextRows, error) {
		q, err := sequence()
		if err != nil {
			return ContextRows{}, fmt.Errorf("campaigns: %w", err)
		}
		r.Sequence = q
		return r, nil
	}
}

// ContextPart is the campaigns' part of the workspace context: the
// campaigns and the next step they call for. A campaign VibeSell paused
// for deliverability comes before anything else but a decision waiting
// (sending has stopped, and only the person may resume it); then a staged
// campaign to launch; then, with no campaign yet, the sequence to write,
// approve or stage.
func (s *Service) ContextPart() workspace.Part {
	return workspace.NewPart(s.QueueRows, func(ctx context.Context, r ContextRows) (ContextRows, *workspace.NextStep) {
		return r, r.NextStep(ctx)
	})
}

// NextStep is what the campaigns need next, or nil when nothing.
func (r ContextRows) NextStep(ctx context.Context) *workspace.NextStep {
	first := func(status string, automatic bool) *Campaign {
		for i, c := range r.Campaigns {
			if c.Status == status && c.PausedAutomatically == automatic {
				return &r.Campaigns[i]
			}
		}
		return nil
	}
	if c := first(Paused, true); c != nil {
		return &workspace.NextStep{Pressing: true, Why: fmt.Sprintf(
			"VibeSell paused campaign %s (%q) to protect the mailboxes: %s Tell the person.", c.ID, c.Name, *c.PausedReason),
			Next: []vibesell.Next{stepResume.With("campaign", c.ID)}}
	}
	if c := first(Staged, false); c != nil {
		return &workspace.NextStep{Why: fmt.Sprintf("Campaign %s (%q) is staged, not launched.", c.ID, c.Name), Next: []vibesell.Next{
			stepLaunch.With("campaign", c.ID), stepSeeCampaign.With("campaign", c.ID)}}
	}
	if len(r.Campaigns) > 0 {
		c := r.Campaigns[0]
		return &workspace.NextStep{Why: fmt.Sprintf("Campaign %s (%q) is %s.", c.ID, c.Name, CampaignStatusText(ctx, c)), Next: []vibesell.Next{
			stepSeeCampaign.With("campaign", c.ID)}}
	}
	switch q := r.Sequence; {
	case q == nil:
		return &workspace.NextStep{Why: "No campaign yet.", Next: []vibesell.Next{
			stepWrite, stepApprove, stepStage}}
	case !q.Approved():
		return &workspace.NextStep{Why: fmt.Sprintf("Sequence %s version %d is not approved yet.", q.ID, q.Version), Next: []vibesell.Next{
			stepApprove.With("sequence", q.ID, "version", q.Version), stepStage.With("sequence", q.ID)}}
	}
	return &workspace.NextStep{Why: fmt.Sprintf("Sequence %s version %d is approved; nothing is sent until a launch is approved.", r.Sequence.ID, r.Sequence.Version), Next: []vibesell.Next{
		stepStage.With("sequence", r.Sequence.ID)}}
}

// CampaignStatusText says where a campaign stands, for the assistant:
// "scheduled, first email due Tue 1 Dec 2026, 08:00 UTC", "paused: …".
func CampaignStatusText(ctx context.Context, c Campaign) string {
	switch {
	case c.Status == Paused:
		// The reason is a sentence of its own; the callers end this one.
		return "paused: " + strings.TrimRight(*c.PausedReason, ".")
	case c.Status == Scheduled && c.FirstSendAt != nil:
		return "scheduled, first email due " + vibesell.FormatTimeFor(ctx, *c.FirstSendAt)
	}
	return c.Status
}
