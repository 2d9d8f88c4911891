package sending

import (
	"context"

	"github.com/google/uuid"

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
