package campaigns

import (
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/workspace"
)

// ContextRows are what get_workspace_context shows of the campaigns: the
// campaigns that paused themselves (for bouncing, or the plan's monthly
// emails), newest first, which only a person can resume.
type ContextRows struct {
	AutoPaused []Campaign
}

// QueueRows queues the reads of [ContextRows] on b, to travel in the
// workspace context's batch; done returns them once the batch has run.
func (s *Service) QueueRows(b *pgx.Batch, ws uuid.UUID) (done func() (ContextRows, error)) {
	var r ContextRows
	complete := false
	b.Queue(`SELECT `+campaignColumns+` FROM campaigns c WHERE workspace_id = $1 AND status = 'paused' AND paused_automatically
		ORDER BY paused_at DESC, id LIMIT 10`, ws).Query(func(rows pgx.Rows) error {
		var err error
		r.AutoPaused, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (Campaign, error) { return scanCampaign(row) })
		complete = err == nil
		return err
	})
	return func() (ContextRows, error) {
		if !complete {
			return ContextRows{}, errors.New("campaigns: read before its batch was sent, or after the batch failed")
		}
		return r, nil
	}
}

// ContextPart is the campaigns' part of the workspace context: a campaign
// that paused itself is a pressing next step (the person must hear why and
// decide).
func (s *Service) ContextPart() workspace.Part {
	return workspace.NewPart(s.QueueRows, func(r ContextRows) (ContextRows, *workspace.NextStep) {
		if len(r.AutoPaused) == 0 {
			return r, nil
		}
		c := r.AutoPaused[0]
		why := fmt.Sprintf("Campaign %q (%s) paused itself: %s Tell the person why, and once they have dealt with the cause, call %s with campaign %s; only a signed-in person in the web app can approve that resume.",
			c.Name, c.ID, *c.PausedReason, vibesell.ToolResumeCampaign, c.ID)
		if n := len(r.AutoPaused); n > 1 {
			why += fmt.Sprintf(" %s paused themselves too (%s shows each).", vibesell.Plural(n-1, "other campaign", "other campaigns"), vibesell.ToolGetCampaign)
		}
		return r, &workspace.NextStep{Tool: vibesell.ToolResumeCampaign, Why: why, Pressing: true}
	})
}
