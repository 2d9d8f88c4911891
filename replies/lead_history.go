package replies

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell/campaigns"
	"vibesell/delivery"
	"vibesell/mail"
)

// stopping is the condition, on replies r, that a reply stops its lead's
// sequence, by the engine's rule ([delivery.PassingClassifications]) with
// its values in parameters $n and $n+1.
func stopping(n int) string {
	return fmt.Sprintf(`(r.classification <> ALL($%d::text[]) AND r.bounce IS DISTINCT FROM $%d::text)`, n, n+1)
}

// LeadHistory reads what the engine did for one lead (the steps of the
// ledger, the replies that answer them), for the lead's story: the
// audience feature assembles the story and asks this for the engine's
// part.
type LeadHistory struct {
	db *pgxpool.Pool
}

// LeadHistoryDeps is what the reader of a lead's history needs.
type LeadHistoryDeps struct {
	DB *pgxpool.Pool
}

// NewLeadHistory returns the reader.
func NewLeadHistory(d LeadHistoryDeps) *LeadHistory { return &LeadHistory{db: d.DB} }

// LeadSends returns every step sent (or tried) to lead, oldest first,
// and the answers to its replies; not a step its removal held back before
// it went out.
func (h *LeadHistory) LeadSends(ctx context.Context, ws uuid.UUID, lead int64) ([]campaigns.SentStep, error) {
	rows, err := h.db.Query(ctx, `SELECT s.campaign_id, greatest(s.step, 0), s.step < 0, s.mailbox, coalesce(s.settled_at, s.claimed_at), s.status, s.attempts, s.retry_at,
			EXISTS (SELECT 1 FROM mail_replies r WHERE r.workspace_id = s.workspace_id AND r.campaign_id = s.campaign_id
				AND r.lead_id = s.lead_id AND r.step = s.step AND r.bounce = 'hard')
		FROM mail_sends s WHERE s.workspace_id = $1 AND s.lead_id = $2 AND s.status <> 'claimed'
		  AND s.error IS DISTINCT FROM $3
		ORDER BY s.claimed_at, s.campaign_id, s.step`, ws, lead, delivery.RemovedAfterClaim)
	if err != nil {
		return nil, fmt.Errorf("read the sends of lead %d: %w", lead, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (campaigns.SentStep, error) {
		var st campaigns.SentStep
		var status string
		var bounced bool
		if err := r.Scan(&st.Campaign, &st.Step, &st.Answer, &st.Mailbox, &st.At, &status, &st.Attempts, &st.RetryAt, &bounced); err != nil {
			return st, err
		}
		switch {
		case bounced:
			st.Outcome = campaigns.StepBounced
		case status == delivery.StatusSent:
			st.Outcome = campaigns.StepDelivered
		case status == delivery.StatusFailed && st.Attempts >= delivery.Tries:
			st.Outcome = campaigns.StepFailed
		case status == delivery.StatusFailed:
			st.Outcome = campaigns.StepRetrying
		case status == delivery.StatusUnknown:
			st.Outcome = campaigns.StepUnknown
		default:
			st.Outcome = campaigns.StepSending
		}
		return st, nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the sends of lead %d: %w", lead, err)
	}
	return out, nil
}

// leadReplyColumns are the columns [scanLeadReply] reads, the rule's
// values in parameters $1 and $2. An answer's step is negative in the
// ledger: a reply to it answers no step of the sequence, 0 here.
var leadReplyColumns = `r.campaign_id, CASE WHEN r.step < 0 THEN 0 ELSE r.step END, r.from_address, r.received_at, r.classification, r.matched_by, r.bounce, r.excerpt, ` + stopping(1) + `, coalesce(r.corrected_by, '')`

func scanLeadReply(row pgx.CollectableRow) (campaigns.LeadReply, error) {
	var r campaigns.LeadReply
	err := row.Scan(&r.Campaign, &r.Step, &r.From, &r.ReceivedAt, &r.Classification, &r.MatchedBy, &r.Bounce, &r.Excerpt, &r.Stops, &r.CorrectedBy)
	return r, err
}

// LeadReplies returns the replies that answer an email sent to lead (its
// own, and a colleague's matched by the company's domain), newest first.
func (h *LeadHistory) LeadReplies(ctx context.Context, ws uuid.UUID, lead int64) ([]campaigns.LeadReply, error) {
	rows, err := h.db.Query(ctx, `SELECT `+leadReplyColumns+` FROM mail_replies r
		WHERE r.workspace_id = $3 AND r.lead_id = $4 ORDER BY r.received_at DESC, r.message_id`,
		delivery.PassingClassifications, delivery.PassingBounce, ws, lead)
	if err != nil {
		return nil, fmt.Errorf("read the replies of lead %d: %w", lead, err)
	}
	out, err := pgx.CollectRows(rows, scanLeadReply)
	if err != nil {
		return nil, fmt.Errorf("read the replies of lead %d: %w", lead, err)
	}
	return out, nil
}

// CompanyStop returns the first reply in campaign that stops everyone at
// the company of lead (whose address is email) when the campaign says
// so: one answering an email to another lead at the same company domain,
// the engine's own rule. Nil when there is none, or the address is at a
// domain many unrelated people share.
func (h *LeadHistory) CompanyStop(ctx context.Context, ws uuid.UUID, campaign string, lead int64, email string) (*campaigns.LeadReply, error) {
	domain := mail.CompanyDomain(email)
	if domain == "" {
		return nil, nil
	}
	rows, err := h.db.Query(ctx, `SELECT `+leadReplyColumns+` FROM mail_replies r
		JOIN mail_sends s ON s.workspace_id = r.workspace_id AND s.campaign_id = r.campaign_id AND s.lead_id = r.lead_id AND s.step = r.step
		WHERE r.workspace_id = $3 AND r.campaign_id = $4 AND r.lead_id <> $5 AND `+stopping(1)+`
		  AND lower(split_part(s.recipient, '@', 2)) = $6
		ORDER BY r.received_at LIMIT 1`, delivery.PassingClassifications, delivery.PassingBounce, ws, campaign, lead, domain)
	if err != nil {
		return nil, fmt.Errorf("read the company's replies of lead %d: %w", lead, err)
	}
	r, err := pgx.CollectExactlyOneRow(rows, scanLeadReply)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the company's replies of lead %d: %w", lead, err)
	}
	return &r, nil
}
