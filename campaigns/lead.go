package campaigns

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// A lead's part in its campaigns, as its story tells it (the audience
// feature assembles the story): which campaigns it is in, when its next
// step falls due, and taking it out of them when a person removes it.

// LeadCampaign is one campaign a lead is in.
type LeadCampaign struct {
	Campaign Campaign
	// Steps is how many emails the campaign's sequence has.
	Steps int
	// RemovedAt is when the lead was taken out of the campaign (a person
	// removed it); nil while it is in.
	RemovedAt *time.Time
	waits     []int
	location  *time.Location
}

// Running says whether the campaign sends now (scheduled or sending).
func (lc LeadCampaign) Running() bool {
	return lc.Campaign.Status == Scheduled || lc.Campaign.Status == Sending
}

// Due says when step (1-based) would go to the lead, not before now: the
// first step at the campaign's first send, a follow-up its business days
// after prev (when the step before went out), each at the next moment the
// schedule allows in the lead's time zone. Nil before the campaign is
// launched.
func (lc LeadCampaign) Due(step int, prev, now time.Time) *time.Time {
	var at time.Time
	switch {
	case step == 1 && lc.Campaign.FirstSendAt == nil:
		return nil
	case step == 1:
		at = *lc.Campaign.FirstSendAt
	default:
		y, m, d := prev.In(lc.location).Date()
		day := addBusinessDays(time.Date(y, m, d, 0, 0, 0, 0, lc.location), lc.waits[step-1])
		at = lc.Campaign.Schedule.Next(day, lc.location)
	}
	if at.Before(now) {
		at = now
	}
	at = lc.Campaign.Schedule.Next(at, lc.location)
	return &at
}

// LeadCampaigns returns the campaigns lead is in, oldest first.
func (s *Service) LeadCampaigns(ctx context.Context, ws uuid.UUID, lead int64) ([]LeadCampaign, error) {
	sender, err := s.senders.Sender(ctx, ws)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.Query(ctx, `SELECT `+campaignColumns+`, v.steps, cl.time_zone, cl.removed_at
		FROM campaign_leads cl
		JOIN campaigns c ON c.workspace_id = cl.workspace_id AND c.id = cl.campaign_id
		JOIN sequence_versions v ON v.workspace_id = c.workspace_id AND v.sequence_id = c.sequence_id AND v.version = c.sequence_version
		WHERE cl.workspace_id = $1 AND cl.lead_id = $2 ORDER BY c.created_at, c.id`, ws, lead)
	if err != nil {
		return nil, fmt.Errorf("read the campaigns of lead %d: %w", lead, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (LeadCampaign, error) {
		var lc LeadCampaign
		var raw []byte
		var zone string
		if err := scanCampaignInto(r, &lc.Campaign, &raw, &zone, &lc.RemovedAt); err != nil {
			return lc, err
		}
		var steps []Step
		if err := json.Unmarshal(raw, &steps); err != nil {
			return lc, err
		}
		lc.Steps = len(steps)
		for _, st := range steps {
			lc.waits = append(lc.waits, st.WaitBusinessDays)
		}
		// The engine reads the window in the lead's zone, or the
		// workspace's when the lead's is unknown (Run.Location).
		lc.location = sender.Location()
		if zone != "" {
			if loc, err := time.LoadLocation(zone); err == nil {
				lc.location = loc
			}
		}
		return lc, nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the campaigns of lead %d: %w", lead, err)
	}
	return out, nil
}

// StopLead takes lead out of every campaign it is in, in tx (the
// transaction that removes the lead): the engine reads a campaign's leads
// without it from then on, so none of its steps still to come goes out.
// It returns how many campaigns it was taken out of.
func StopLead(ctx context.Context, tx pgx.Tx, ws uuid.UUID, lead int64, now time.Time) (int, error) {
	tag, err := tx.Exec(ctx, `UPDATE campaign_leads SET removed_at = $3 WHERE workspace_id = $1 AND lead_id = $2 AND removed_at IS NULL`, ws, lead, now)
	if err != nil {
		return 0, fmt.Errorf("take lead %d out of its campaigns: %w", lead, err)
	}
	return int(tag.RowsAffected()), nil
}

// RemovedLeads says which of leads were taken out of campaign, read in the
// transaction that claims their steps (the sending engine's gate). It
// locks their rows for share: a removal in flight is waited for, then read.
func RemovedLeads(ctx context.Context, tx pgx.Tx, ws uuid.UUID, campaign string, leads []int64) (map[int64]bool, error) {
	rows, err := tx.Query(ctx, `SELECT lead_id, removed_at IS NOT NULL FROM campaign_leads
		WHERE workspace_id = $1 AND campaign_id = $2 AND lead_id = ANY($3) FOR SHARE`, ws, campaign, leads)
	if err != nil {
		return nil, fmt.Errorf("read the removed leads of campaign %s: %w", campaign, err)
	}
	out := map[int64]bool{}
	var id int64
	var removed bool
	if _, err := pgx.ForEachRow(rows, []any{&id, &removed}, func() error {
		if removed {
			out[id] = true
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read the removed leads of campaign %s: %w", campaign, err)
	}
	return out, nil
}

// CampaignLead is one lead in one campaign.
type CampaignLead struct {
	CampaignID string
	LeadID     int64
}

// RemovedFrom returns, of the pairs of workspace ws, those whose lead was
// taken out of its campaign: what the sending engine reads right before a
// message's DATA, in the transaction that marks its step sending (beside
// [StoppedCampaigns]). It locks every pair's row for share in tx (a
// removal in flight is waited for, then read) and filters after the lock,
// so a row removed meanwhile is read as it is now.
func RemovedFrom(ctx context.Context, tx pgx.Tx, ws uuid.UUID, pairs []CampaignLead) (map[CampaignLead]bool, error) {
	ids, leads := make([]string, len(pairs)), make([]int64, len(pairs))
	for i, p := range pairs {
		ids[i], leads[i] = p.CampaignID, p.LeadID
	}
	rows, err := tx.Query(ctx, `SELECT x.campaign_id, x.lead_id FROM (
		SELECT cl.campaign_id, cl.lead_id, cl.removed_at FROM campaign_leads cl
		 WHERE cl.workspace_id = $1 AND (cl.campaign_id, cl.lead_id) IN (SELECT * FROM unnest($2::text[], $3::bigint[]))
		   FOR SHARE) x
		WHERE x.removed_at IS NOT NULL`, ws, ids, leads)
	if err != nil {
		return nil, fmt.Errorf("read the removed leads: %w", err)
	}
	out := map[CampaignLead]bool{}
	var k CampaignLead
	if _, err := pgx.ForEachRow(rows, []any{&k.CampaignID, &k.LeadID}, func() error {
		out[k] = true
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read the removed leads: %w", err)
	}
	return out, nil
}

// SentStep is one step of a campaign sent (or being sent) to a lead, as
// the sending engine's ledger has it.
type SentStep struct {
	Campaign string
	Step     int
	Mailbox  string // the sending address
	At       time.Time
	// Outcome is one of the Step* outcomes.
	Outcome string
	// RetryAt is when a step that failed is tried again; nil otherwise.
	RetryAt *time.Time
	// Attempts is how many times it was tried.
	Attempts int
	// Answer says it is an answer to the lead's reply, sent once a person
	// approved it, not a step of the sequence (Step is then 0).
	Answer bool
}

// The outcomes of a step sent.
const (
	StepDelivered = "delivered" // the receiving server accepted it, and no bounce came back
	StepBounced   = "bounced"   // a hard bounce came back
	StepRetrying  = "retrying"  // not handed over (or bounced softly): it is tried again
	StepFailed    = "failed"    // not handed over after every try: never sent
	StepUnknown   = "unknown"   // the connection broke while it was handed over: never tried again
	StepSending   = "sending"   // being handed over now
)

// LeadReply is one reply that answers an email sent to a lead.
type LeadReply struct {
	Campaign       string
	Step           int
	From           string
	ReceivedAt     time.Time
	Classification string
	// MatchedBy is thread, address or domain: domain when someone else at
	// the lead's company wrote.
	MatchedBy string
	Bounce    *string // hard or soft, for a bounce
	Excerpt   string
	// Stops says the reply stopped the lead's sequence (anything a person
	// wrote, an unsubscribe request, a hard bounce).
	Stops bool
	// CorrectedBy is who corrected Classification, when someone did
	// ("" otherwise).
	CorrectedBy string
}
