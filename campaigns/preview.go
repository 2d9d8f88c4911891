package campaigns

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/approvals"
)

// LaunchPreview is what a person approves when they approve a launch: the
// first email as it goes out to one real lead of the campaign, and every
// step of the sequence as written.
type LaunchPreview struct {
	Campaign Campaign
	Sequence Sequence
	// Lead is the lead the first email is shown for: the campaign's first.
	Lead vibesell.Lead
	// First is the first step composed for Lead from the campaign's first
	// mailbox, footer included, as the sending engine composes it.
	First Composed
}

// LaunchPreviewOf is the preview of the launch approval a asks for, or
// nil when a is not a launch, or its campaign has no lead left to show
// the first email for.
func (s *Service) LaunchPreviewOf(ctx context.Context, ws uuid.UUID, a approvals.Approval) (*LaunchPreview, error) {
	if a.Action != vibesell.ToolLaunchCampaign || a.WorkspaceID != ws {
		return nil, nil
	}
	if s.composer == nil {
		return nil, errors.New("campaigns: no composer: the launch's first email cannot be shown as it is sent")
	}
	var args campaignArguments
	if err := json.Unmarshal(a.Arguments, &args); err != nil {
		return nil, fmt.Errorf("read launch approval %s: %w", a.ID, err)
	}
	c, err := s.campaign(ctx, s.db, ws, args.Campaign, false)
	if err != nil {
		return nil, err
	}
	q, err := s.Sequence(ctx, ws, c.SequenceID, c.SequenceVersion)
	if err != nil {
		return nil, err
	}
	ps, err := parseSteps(q.Steps)
	if err != nil {
		return nil, fmt.Errorf("parse stored sequence %s: %w", q.ID, err)
	}
	leads, err := s.campaignLeads(ctx, ws, c.ID)
	if err != nil || len(leads) == 0 {
		return nil, err
	}
	sender, err := s.senders.Sender(ctx, ws)
	if err != nil {
		return nil, err
	}
	all, err := s.mailboxes.Mailboxes(ctx, ws)
	if err != nil {
		return nil, err
	}
	run := Run{WorkspaceID: ws, Campaign: c, Sequence: q, Sender: sender, Mailboxes: all, Leads: leads[:1], parsed: ps, location: sender.Location()}
	mailbox := ""
	if len(c.Mailboxes) > 0 {
		mailbox = c.Mailboxes[0]
	}
	return &LaunchPreview{Campaign: c, Sequence: q, Lead: leads[0], First: s.composer.Compose(run, 1, leads[0], mailbox)}, nil
}

// LeadsOf returns the first limit leads of campaign id, in the order the
// campaign writes to them, and how many it has in all (less those a
// person removed).
func (s *Service) LeadsOf(ctx context.Context, ws uuid.UUID, id string, limit int) ([]vibesell.Lead, int, error) {
	rows, err := s.db.Query(ctx, `SELECT count(*) OVER (), `+campaignLeadColumns+` FROM campaign_leads
		WHERE workspace_id = $1 AND campaign_id = $2 AND removed_at IS NULL ORDER BY lead_id LIMIT $3`, ws, id, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("read leads of campaign %s: %w", id, err)
	}
	var total int
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (vibesell.Lead, error) { return scanCampaignLead(r, &total) })
	if err != nil {
		return nil, 0, fmt.Errorf("read leads of campaign %s: %w", id, err)
	}
	return out, total, nil
}
