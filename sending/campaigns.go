package sending

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell/campaigns"
)

// CampaignMailboxes returns what campaigns read of the sending setup: each
// mailbox with its state and what it may send a day at its warmup stage.
func CampaignMailboxes(s *Service) campaigns.Mailboxes { return campaignMailboxes{s} }

type campaignMailboxes struct{ s *Service }

func (c campaignMailboxes) Mailboxes(ctx context.Context, ws uuid.UUID) ([]campaigns.Mailbox, error) {
	st, err := c.s.Summary(ctx, ws)
	if err != nil {
		return nil, err
	}
	full := c.s.cfg.EmailsPerMailbox
	out := make([]campaigns.Mailbox, 0, len(st.Mailboxes))
	for _, m := range st.Mailboxes {
		limit := 0
		switch {
		case m.State == MailboxWarm:
			limit = full
		case m.State == MailboxWarming && m.TodayVolume != nil:
			limit = *m.TodayVolume
		}
		out = append(out, campaigns.Mailbox{Address: m.Address, SenderName: m.SenderName, State: string(m.State), DailyLimit: limit, FullVolume: full})
	}
	return out, nil
}

// ReadyMailbox is an ordered mailbox its provider has made ready.
type ReadyMailbox struct {
	WorkspaceID uuid.UUID
	Address     string
	SenderName  string // "" when it has none of its own
	Provider    string
}

// ReadyMailboxes lists the ordered mailboxes that are ready now, of
// workspace ws, or of every workspace when ws is uuid.Nil: the sending
// engine sends from them and reads their replies.
func (s *Service) ReadyMailboxes(ctx context.Context, ws uuid.UUID) ([]ReadyMailbox, error) {
	rows, err := s.db.Query(ctx, `SELECT workspace_id, address, coalesce(sender_name, ''), provider FROM sending_mailboxes
		WHERE status <> 'planned' AND ready_at <= $2 AND ($1 = '00000000-0000-0000-0000-000000000000'::uuid OR workspace_id = $1)
		ORDER BY workspace_id, position, address`, ws, s.clock.Now())
	if err != nil {
		return nil, fmt.Errorf("read ready mailboxes: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ReadyMailbox, error) {
		var m ReadyMailbox
		return m, r.Scan(&m.WorkspaceID, &m.Address, &m.SenderName, &m.Provider)
	})
	if err != nil {
		return nil, fmt.Errorf("read ready mailboxes: %w", err)
	}
	return out, nil
}
