package billing

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Usage is how much of one limit a workspace uses.
type Usage struct {
	Metric Metric
	Limit  int
	Period string // "month" for a monthly limit, "" for what exists now
	// Used is nil when nothing counts it on this server; Why says why.
	Used *int
	Why  string
}

// Overview is a workspace's billing as get_plans_and_billing shows it,
// read fresh.
type Overview struct {
	Plans   []Plan
	Current Plan
	// Status is Stripe's subscription status (active, trialing, past_due,
	// unpaid, canceled…); "active" on the free plan.
	Status            string
	Subscribed        bool
	CancelAtPeriodEnd bool
	PeriodEnd         *time.Time
	PendingPlan       *Plan      // the lower plan it moves to at PeriodEnd
	PaymentFailedAt   *time.Time // the last payment that failed and is still unpaid
	Usage             []Usage
	// NextInvoice is Stripe's preview of the next invoice; nil with
	// NextInvoiceWhy ("none: …" or "not known: …") when there is none or
	// it cannot be known.
	NextInvoice    *Invoice
	NextInvoiceWhy string
	// Configured is false on a server without a Stripe key: the plans,
	// limits and usage are as true, but no plan can be bought, changed or
	// managed here.
	Configured bool
}

// unmetered says why a limit's usage is unknown.
var unmetered = map[Metric]string{
	Mailboxes:       "mailboxes are not counted on this server",
	Leads:           "imported leads are not counted on this server",
	ActiveCampaigns: "running campaigns are not counted against the plan yet",
	Emails:          "emails sent are not counted against the plan yet (campaigns keep their own daily cap)",
}

// Overview reads the workspace's plan, status, usage against each limit
// and, from Stripe, the next invoice. Without a Stripe key the plans,
// limits and usage are known all the same: it answers them, with
// Configured false (only buying and managing a plan needs Stripe).
func (s *Service) Overview(ctx context.Context, ws uuid.UUID) (Overview, error) {
	a, err := s.readAccount(ctx, s.db, ws)
	if err != nil {
		return Overview{}, err
	}
	o := Overview{
		Plans: s.Plans(), Current: s.planOf(a), Status: a.Status, Subscribed: a.Subscribed(),
		CancelAtPeriodEnd: a.CancelAtPeriodEnd, PeriodEnd: a.PeriodEnd, PaymentFailedAt: a.PaymentFailedAt, Configured: s.Configured(),
	}
	if p, ok := s.plan(a.PendingPlanID); ok {
		o.PendingPlan = &p
	}
	for _, m := range Metrics {
		u := Usage{Metric: m, Limit: o.Current.Limits.of(m)}
		if m.monthly() {
			u.Period = "month"
		}
		n, ok, err := s.used(ctx, s.db, ws, m)
		if err != nil {
			return Overview{}, err
		}
		if ok {
			u.Used = &n
		} else {
			u.Why = unmetered[m]
		}
		o.Usage = append(o.Usage, u)
	}
	switch {
	case !a.Subscribed():
		o.NextInvoiceWhy = fmt.Sprintf("none: the workspace is on the %s plan, which costs nothing", o.Current.Name)
	case a.CancelAtPeriodEnd:
		o.NextInvoiceWhy = "none: the subscription ends when the current period ends"
	case !s.Configured():
		o.NextInvoiceWhy = "not known: billing is not configured on this server, so Stripe is not asked"
	default:
		sub := Subscription{ID: a.SubscriptionID, Customer: a.Customer, ItemID: a.SubscriptionItem, Price: a.SubscriptionPrice}
		inv, err := s.stripe.NextInvoice(ctx, sub)
		if err != nil {
			// The rest is true without it; say why it is missing.
			s.logger.WarnContext(ctx, "next invoice preview failed", "workspace", ws.String(), "err", err)
			o.NextInvoiceWhy = "not known: Stripe did not answer just now; ask again in a minute"
		} else {
			o.NextInvoice = &inv
		}
	}
	return o, nil
}
