package billing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// Summary is a workspace's billing in short, as get_workspace_context and
// the web app show it. It needs no Stripe: it is what billing has on
// record, kept current by Stripe's webhooks.
type Summary struct {
	Plan              Plan
	Status            string // Stripe's subscription status; "active" on the free plan
	Subscribed        bool
	CancelAtPeriodEnd bool
	PeriodEnd         *time.Time
	// PaymentFailedAt is when the last payment failed, while it is still
	// unpaid: the person must update the card in the billing portal.
	PaymentFailedAt *time.Time
	// Configured: this server sells plans. Without it every workspace
	// stays on the free plan.
	Configured bool
}

// QueueSummary queues on b the read of workspace ws's [Summary], for a
// caller that reads other things in the same round trip (the workspace
// context). Once b has been sent and closed without error, done returns it.
func (s *Service) QueueSummary(b *pgx.Batch, ws uuid.UUID) (done func() (Summary, error)) {
	var (
		a    Account
		read bool
	)
	b.Queue(`SELECT `+accountColumns+` FROM billing_accounts WHERE workspace_id = $1`, ws).QueryRow(func(row pgx.Row) error {
		var err error
		a, err = scanAccount(row)
		if errors.Is(err, pgx.ErrNoRows) {
			a, err = Account{WorkspaceID: ws, PlanID: FreePlanID, Status: "active"}, nil
		}
		if err != nil {
			return fmt.Errorf("read billing of workspace %s: %w", ws, err)
		}
		read = true
		return nil
	})
	return func() (Summary, error) {
		if !read {
			return Summary{}, errors.New("billing summary: read before its batch was sent, or after the batch failed")
		}
		return s.summaryOf(a), nil
	}
}

func (s *Service) summaryOf(a Account) Summary {
	return Summary{
		Plan: s.planOf(a), Status: a.Status, Subscribed: a.Subscribed(), CancelAtPeriodEnd: a.CancelAtPeriodEnd,
		PeriodEnd: a.PeriodEnd, PaymentFailedAt: a.PaymentFailedAt, Configured: s.Configured(),
	}
}

// Summary reads the workspace's [Summary].
func (s *Service) Summary(ctx context.Context, ws uuid.UUID) (Summary, error) {
	a, err := s.readAccount(ctx, s.db, ws)
	if err != nil {
		return Summary{}, err
	}
	return s.summaryOf(a), nil
}
