package delivery

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// BounceWindow is how many of a mailbox's latest sends its bounce rate is
// measured over.
const BounceWindow = 100

// DefaultComplaintLimit is the spam-complaint rate that pauses a mailbox
// or campaign: 0.3%, the rate Gmail and Yahoo require bulk senders to
// stay under.
const DefaultComplaintLimit = 0.003

// BounceHealth is a mailbox's hard-bounce and complaint rates over its
// latest sends, and whether they pass the limits that pause it.
type BounceHealth struct {
	Sends   int
	Bounces int
	// Complaints counts the feedback-loop reports on those sends.
	Complaints int
	// Rate is Bounces over Sends; 0 with no sends.
	Rate float64
	// OverLimit says the rate is above the limit: the mailbox must stop
	// sending until someone looks at its list.
	OverLimit bool
	// Reason says so in a sentence for the person, when OverLimit, and
	// Why in a few words ("bounce rate", "spam complaints").
	Reason, Why string
}

// MailboxBounces measures the hard bounces among the mailbox's latest
// BounceWindow sends that went out (sent, or lost in the crash window)
// against limit (0.02 is 2%). Soft bounces do not count: the address may
// work on the next try.
func MailboxBounces(ctx context.Context, db *pgxpool.Pool, workspaceID uuid.UUID, mailbox string, limit float64) (BounceHealth, error) {
	return bounceHealth(ctx, db, workspaceID, "mailbox", mailbox, time.Time{}, limits{limit, DefaultComplaintLimit}, "sent from "+mailbox)
}

// CampaignBounces is [MailboxBounces] over a campaign's latest sends, from
// all its mailboxes, counted from since.
func CampaignBounces(ctx context.Context, db *pgxpool.Pool, workspaceID uuid.UUID, campaign string, since time.Time, limit float64) (BounceHealth, error) {
	return bounceHealth(ctx, db, workspaceID, "campaign_id", campaign, since, limits{limit, DefaultComplaintLimit}, "of this campaign")
}

// limits are the rates that pause a mailbox or campaign.
type limits struct{ bounces, complaints float64 }

// bounceHealth measures the sends whose column (mailbox or campaign_id)
// is value, claimed from since.
func bounceHealth(ctx context.Context, db *pgxpool.Pool, workspaceID uuid.UUID, column, value string, since time.Time, lim limits, which string) (BounceHealth, error) {
	var h BounceHealth
	err := db.QueryRow(ctx, `
		WITH recent AS (
		    SELECT workspace_id, campaign_id, lead_id, step FROM mail_sends
		     WHERE workspace_id = $1 AND `+column+` = $2 AND status IN ('sent', 'unknown', 'sending') AND claimed_at >= $4
		     ORDER BY claimed_at DESC LIMIT $3)
		SELECT `+bounceCounts+`
		  FROM recent`, workspaceID, value, BounceWindow, since).Scan(&h.Sends, &h.Bounces, &h.Complaints)
	if err != nil {
		return BounceHealth{}, fmt.Errorf("bounce rate: %w", err)
	}
	judge(&h, lim, which)
	return h, nil
}

// bounceCounts counts the sends of recent, the hard bounces among them
// and the complaints about them.
const bounceCounts = `count(*),
		       count(*) FILTER (WHERE EXISTS (
		           SELECT 1 FROM mail_replies r
		            WHERE r.workspace_id = recent.workspace_id AND r.campaign_id = recent.campaign_id AND r.lead_id = recent.lead_id
		              AND r.step = recent.step AND r.bounce = 'hard')),
		       count(*) FILTER (WHERE EXISTS (
		           SELECT 1 FROM mail_replies r
		            WHERE r.workspace_id = recent.workspace_id AND r.campaign_id = recent.campaign_id AND r.lead_id = recent.lead_id
		              AND r.step = recent.step AND r.classification = 'complaint'))`

// readBounceCounts measures, in one query, the latest sends of each
// mailbox (wss[i], addresses[i]) from mfrom[i] and of each campaign
// (cwss[i], cids[i]) from cfrom[i]; the verdicts are [judge]'s.
func readBounceCounts(ctx context.Context, db *pgxpool.Pool, wss []uuid.UUID, addresses []string, mfrom []time.Time,
	cwss []uuid.UUID, cids []string, cfrom []time.Time) (map[healthKey]BounceHealth, error) {
	rows, err := db.Query(ctx, `
		SELECT 'mailbox', k.ws, k.key, h.* FROM unnest($1::uuid[], $2::text[], $3::timestamptz[]) AS k (ws, key, since),
		LATERAL (SELECT `+bounceCounts+` FROM (
		    SELECT workspace_id, campaign_id, lead_id, step FROM mail_sends
		     WHERE workspace_id = k.ws AND mailbox = k.key AND status IN ('sent', 'unknown', 'sending') AND claimed_at >= k.since
		     ORDER BY claimed_at DESC LIMIT $7) recent) h
		UNION ALL
		SELECT 'campaign', k.ws, k.key, h.* FROM unnest($4::uuid[], $5::text[], $6::timestamptz[]) AS k (ws, key, since),
		LATERAL (SELECT `+bounceCounts+` FROM (
		    SELECT workspace_id, campaign_id, lead_id, step FROM mail_sends
		     WHERE workspace_id = k.ws AND campaign_id = k.key AND status IN ('sent', 'unknown', 'sending') AND claimed_at >= k.since
		     ORDER BY claimed_at DESC LIMIT $7) recent) h`,
		wss, addresses, mfrom, cwss, cids, cfrom, BounceWindow)
	if err != nil {
		return nil, fmt.Errorf("bounce rates: %w", err)
	}
	out := map[healthKey]BounceHealth{}
	var k healthKey
	var h BounceHealth
	if _, err := pgx.ForEachRow(rows, []any{&k.kind, &k.ws, &k.key, &h.Sends, &h.Bounces, &h.Complaints}, func() error {
		out[k] = h
		return nil
	}); err != nil {
		return nil, fmt.Errorf("bounce rates: %w", err)
	}
	return out, nil
}

// judge fills in h's rate and whether it passes the limits. One complaint
// never pauses alone (its address is suppressed at once, and over a few
// sends one person's click would be a rate of 1% or more): it takes two,
// and a rate past the limit.
func judge(h *BounceHealth, lim limits, which string) {
	limit := lim.bounces
	if h.Sends > 0 {
		h.Rate = float64(h.Bounces) / float64(h.Sends)
	}
	switch {
	case h.Rate > limit:
		h.OverLimit, h.Why = true, "bounce rate"
		h.Reason = fmt.Sprintf("%d of the last %s %s bounced for good (%.1f%%; the limit is %g%%). Remove the addresses that bounced, or check the list they came from, before it sends again.",
			h.Bounces, countOf(h.Sends, "email"), which, 100*h.Rate, 100*limit)
	case h.Complaints >= 2 && float64(h.Complaints)/float64(h.Sends) > lim.complaints:
		h.OverLimit, h.Why = true, "spam complaints"
		h.Reason = fmt.Sprintf("%d of the last %s %s were marked as spam by their recipients (%.1f%%; the limit is %g%%). Their addresses are suppressed; check who the campaign writes to and what it says before it sends again.",
			h.Complaints, countOf(h.Sends, "email"), which, 100*float64(h.Complaints)/float64(h.Sends), 100*lim.complaints)
	}
}

func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
