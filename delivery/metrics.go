package delivery

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/campaigns"
)

// UnsubscribedLister says which of a workspace's addresses unsubscribed
// (through the one-click link or otherwise): the suppression list, read
// for a campaign's metrics.
type UnsubscribedLister interface {
	Unsubscribed(ctx context.Context, ws uuid.UUID, addresses []string) (map[string]bool, error)
}

// Tallies counts campaigns' sends and replies from the ledger and the
// replies kept, as they are now: the campaigns' metrics.
type Tallies struct {
	db           *pgxpool.Pool
	unsubscribed UnsubscribedLister
}

// TalliesDeps is what the counter of campaigns' metrics needs.
type TalliesDeps struct {
	DB *pgxpool.Pool
	// Unsubscribed may be nil: only unsubscribe replies count then.
	Unsubscribed UnsubscribedLister
}

// NewTallies returns the counter of campaigns' metrics.
func NewTallies(d TalliesDeps) *Tallies {
	return &Tallies{db: d.DB, unsubscribed: d.Unsubscribed}
}

// CampaignTallies counts, in total and step by step: sent (handed to the
// server: accepted, or the connection broke as it was; a step that
// bounced for now and waits for another try counts too; never a step
// still marked sending, nor one lost: a worker stopped before writing its
// outcome, so whether it left is not known), lost (those, settled by
// [Dispatcher.SettleLost] once their lease is over), bounced (a
// bounce came back for it), delivered (sent and not bounced), replied (a
// person answered it: not an out-of-office or other automatic reply, not a bounce), positive
// (the answer was interested) and unsubscribed (an unsubscribe request,
// or the lead's address unsubscribed, counted at the last step it got).
// Totals count each lead once for replies and unsubscribes.
func (t *Tallies) CampaignTallies(ctx context.Context, ws uuid.UUID, id string, steps int) (campaigns.Tally, []campaigns.Tally, error) {
	rows, err := t.db.Query(ctx, `
		SELECT s.lead_id, s.step, s.recipient,
		       s.status IN ('sent', 'unknown') OR (s.status = 'failed' AND s.error LIKE 'soft bounce:%'),
		       s.status = 'lost',
		       coalesce(bool_or(r.classification = 'bounce'), false),
		       coalesce(bool_or(r.classification NOT IN ('bounce', 'complaint', 'out_of_office', 'auto_reply')), false),
		       coalesce(bool_or(r.classification = 'interested'), false),
		       coalesce(bool_or(r.classification = 'unsubscribe'), false)
		  FROM mail_sends s
		  LEFT JOIN mail_replies r ON r.workspace_id = s.workspace_id AND r.campaign_id = s.campaign_id AND r.lead_id = s.lead_id AND r.step = s.step
		 WHERE s.workspace_id = $1 AND s.campaign_id = $2 AND s.step > 0
		 GROUP BY s.lead_id, s.step, s.recipient, s.status, s.error
		 ORDER BY s.lead_id, s.step`, ws, id)
	if err != nil {
		return campaigns.Tally{}, nil, fmt.Errorf("count campaign %s: %w", id, err)
	}
	type row struct {
		lead                                                    int64
		step                                                    int
		recipient                                               string
		went, lost, bounced, replied, positive, unsubscribeText bool
	}
	var all []row
	var r row
	if _, err := pgx.ForEachRow(rows, []any{&r.lead, &r.step, &r.recipient, &r.went, &r.lost, &r.bounced, &r.replied, &r.positive, &r.unsubscribeText}, func() error {
		all = append(all, r)
		return nil
	}); err != nil {
		return campaigns.Tally{}, nil, fmt.Errorf("count campaign %s: %w", id, err)
	}
	unsubscribed := map[string]bool{}
	if t.unsubscribed != nil && len(all) > 0 {
		var addresses []string
		for _, r := range all {
			if r.step == 1 {
				addresses = append(addresses, r.recipient)
			}
		}
		if unsubscribed, err = t.unsubscribed.Unsubscribed(ctx, ws, addresses); err != nil {
			return campaigns.Tally{}, nil, err
		}
	}
	perStep := make([]campaigns.Tally, steps)
	var total campaigns.Tally
	type leadFlags struct{ replied, positive, unsubscribed bool }
	leads := map[int64]*leadFlags{}
	lastWent := map[int64]int{}
	for _, r := range all {
		if r.went {
			lastWent[r.lead] = max(lastWent[r.lead], r.step)
		}
	}
	for _, r := range all {
		if r.step < 1 || r.step > steps {
			continue
		}
		st := &perStep[r.step-1]
		f := leads[r.lead]
		if f == nil {
			f = &leadFlags{}
			leads[r.lead] = f
		}
		if r.went {
			st.Sent++
			total.Sent++
		}
		if r.lost {
			st.Lost++
			total.Lost++
		}
		if r.bounced {
			st.Bounced++
			total.Bounced++
		}
		if r.went && !r.bounced {
			st.Delivered++
			total.Delivered++
		}
		if r.replied {
			st.Replied++
			f.replied = true
		}
		if r.positive {
			st.Positive++
			f.positive = true
		}
		unsub := r.unsubscribeText || (unsubscribed[r.recipient] && lastWent[r.lead] == r.step && !f.unsubscribed)
		if unsub && !f.unsubscribed {
			st.Unsubscribed++
			f.unsubscribed = true
		}
	}
	// Every reply that came in, by kind: what the count of people who
	// replied leaves out is said beside it.
	if err := t.db.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE classification = 'out_of_office'),
			count(*) FILTER (WHERE classification = 'bounce'), count(*) FILTER (WHERE classification = 'complaint')
		FROM mail_replies WHERE workspace_id = $1 AND campaign_id = $2`, ws, id).Scan(&total.Received, &total.OutOfOffice, &total.BounceNotices, &total.Complaints); err != nil {
		return campaigns.Tally{}, nil, fmt.Errorf("count campaign %s's replies: %w", id, err)
	}
	for _, f := range leads {
		if f.replied {
			total.Replied++
		}
		if f.positive {
			total.Positive++
		}
		if f.unsubscribed {
			total.Unsubscribed++
		}
	}
	return total, perStep, nil
}

// CampaignProgress says where each lead of campaign c stands now, read
// from what the engine works from (the ledger, the replies that stop a
// lead, the suppression list): no email yet, due step k+1 after k, every
// step had, or stopped.
func (t *Tallies) CampaignProgress(ctx context.Context, ws uuid.UUID, c campaigns.Campaign, leads []vibesell.Lead, steps int) (campaigns.Progress, error) {
	p := campaigns.Progress{FollowUps: make([]int, max(steps, 1))}
	key := campaignKey{ws, c.ID}
	ledgers, err := readLedgers(ctx, t.db, []campaignKey{key})
	if err != nil {
		return p, err
	}
	replied, err := readReplied(ctx, t.db, []campaignKey{key})
	if err != nil {
		return p, err
	}
	ledger, stopped := ledgers[key], stoppedFrom(c, leads, replied[key])
	unsubscribed := map[string]bool{}
	if t.unsubscribed != nil && len(leads) > 0 {
		addresses := make([]string, len(leads))
		for i, l := range leads {
			addresses[i] = l.Email
		}
		if unsubscribed, err = t.unsubscribed.Unsubscribed(ctx, ws, addresses); err != nil {
			return p, err
		}
	}
	for _, l := range leads {
		rows := ledger[l.ID]
		last := 0
		if len(rows) > 0 {
			last = rows[len(rows)-1].Step
		}
		switch {
		case last >= steps:
			p.Done++
		case stopped[l.ID] || unsubscribed[l.Email]:
			p.Stopped++
		case last == 0:
			p.NotStarted++
		default:
			p.FollowUps[last]++
		}
	}
	return p, nil
}
