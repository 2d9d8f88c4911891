package billing

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/stripe/stripe-go/v85"

	"vibesell"
)

// Stripe is everything billing asks of Stripe: the seam between billing's
// rules and the outside world. [NewStripe] talks to Stripe (or stripe-mock);
// billingtest.FakeStripe keeps state in memory for the tests of the rules,
// which stripe-mock, being stateless, cannot play.
//
// Every call that creates or changes something takes an idempotency key:
// the same key twice acts once, at Stripe as in the fake.
type Stripe interface {
	// CreateCustomer creates the customer of workspace ws and returns its id.
	CreateCustomer(ctx context.Context, ws uuid.UUID, name, key string) (string, error)
	// CreateCheckout creates a Checkout Session in subscription mode.
	CreateCheckout(ctx context.Context, p CheckoutParams, key string) (CheckoutSession, error)
	// ExpireCheckout closes an open Checkout Session, so that nobody can
	// pay through it any more.
	ExpireCheckout(ctx context.Context, id string) error
	// CreatePortal creates a billing-portal session and returns its link.
	CreatePortal(ctx context.Context, customer, returnURL string) (string, error)
	// Subscription reads a subscription as it is now.
	Subscription(ctx context.Context, id string) (Subscription, error)
	// NextInvoice previews the subscription's next invoice.
	NextInvoice(ctx context.Context, sub Subscription) (Invoice, error)
	// PreviewChange previews what moving sub to price at the moment at
	// charges now (the proration invoice).
	PreviewChange(ctx context.Context, sub Subscription, price string, at time.Time) (Invoice, error)
	// ChangeNow moves sub to price at once, prorated as of prorationDate,
	// and invoices the difference now.
	ChangeNow(ctx context.Context, sub Subscription, price string, prorationDate time.Time, key string) (Subscription, error)
	// ChangeAtPeriodEnd moves sub to price when its period ends.
	ChangeAtPeriodEnd(ctx context.Context, sub Subscription, price string, key string) error
	// CancelAtPeriodEnd ends sub when its period ends.
	CancelAtPeriodEnd(ctx context.Context, sub Subscription, key string) (Subscription, error)
}

// CheckoutParams are what a Checkout Session is created with.
type CheckoutParams struct {
	WorkspaceID uuid.UUID
	Plan        string // our plan id, kept in the session's and the subscription's metadata
	Customer    string
	Price       string
	SuccessURL  string
	CancelURL   string
	ExpiresAt   time.Time
}

// CheckoutSession is a Checkout Session handed out.
type CheckoutSession struct {
	ID        string
	URL       string
	ExpiresAt time.Time
}

// Subscription is a Stripe subscription as billing reads it.
type Subscription struct {
	ID                string
	Customer          string
	WorkspaceID       uuid.UUID // from its metadata; uuid.Nil when absent
	Status            string    // Stripe's: active, trialing, past_due, canceled, unpaid, incomplete, incomplete_expired, paused
	ItemID            string
	Price             string
	CancelAtPeriodEnd bool
	PeriodStart       time.Time
	PeriodEnd         time.Time
}

// Invoice is an invoice preview: what is due, and when.
type Invoice struct {
	AmountDue vibesell.Money
	Date      time.Time
}

// metadataWorkspace and metadataPlan are the keys under which checkout
// sessions and subscriptions carry the workspace and the plan.
const (
	metadataWorkspace = "workspace_id"
	metadataPlan      = "plan"
)

// stripeAPI is [Stripe] over stripe-go.
type stripeAPI struct {
	sc *stripe.Client
}

// NewStripe returns the [Stripe] that talks to the Stripe API with key, at
// apiBase when set (stripe-mock), else at Stripe.
func NewStripe(key, apiBase string) Stripe {
	var opts []stripe.ClientOption
	if apiBase != "" {
		opts = append(opts, stripe.WithBackends(stripe.NewBackendsWithConfig(&stripe.BackendConfig{
			URL:        stripe.String(apiBase),
			HTTPClient: &http.Client{Timeout: 30 * time.Second},
		})))
	}
	return &stripeAPI{sc: stripe.NewClient(key, opts...)}
}

func (s *stripeAPI) CreateCustomer(ctx context.Context, ws uuid.UUID, name, key string) (string, error) {
	p := &stripe.CustomerCreateParams{Name: stripe.String(name)}
	p.AddMetadata(metadataWorkspace, ws.String())
	p.SetIdempotencyKey(key)
	c, err := s.sc.V1Customers.Create(ctx, p)
	if err != nil {
		return "", fmt.Errorf("stripe: create customer: %w", err)
	}
	return c.ID, nil
}

func (s *stripeAPI) CreateCheckout(ctx context.Context, cp CheckoutParams, key string) (CheckoutSession, error) {
	p := &stripe.CheckoutSessionCreateParams{
		Mode:              stripe.String(string(stripe.CheckoutSessionModeSubscription)),
		Customer:          stripe.String(cp.Customer),
		ClientReferenceID: stripe.String(cp.WorkspaceID.String()),
		LineItems:         []*stripe.CheckoutSessionCreateLineItemParams{{Price: stripe.String(cp.Price), Quantity: stripe.Int64(1)}},
		SuccessURL:        stripe.String(cp.SuccessURL),
		CancelURL:         stripe.String(cp.CancelURL),
		ExpiresAt:         stripe.Int64(cp.ExpiresAt.Unix()),
		SubscriptionData:  &stripe.CheckoutSessionCreateSubscriptionDataParams{},
	}
	p.AddMetadata(metadataWorkspace, cp.WorkspaceID.String())
	p.AddMetadata(metadataPlan, cp.Plan)
	p.SubscriptionData.AddMetadata(metadataWorkspace, cp.WorkspaceID.String())
	p.SubscriptionData.AddMetadata(metadataPlan, cp.Plan)
	p.SetIdempotencyKey(key)
	cs, err := s.sc.V1CheckoutSessions.Create(ctx, p)
	if err != nil {
		return CheckoutSession{}, fmt.Errorf("stripe: create checkout session: %w", err)
	}
	return CheckoutSession{ID: cs.ID, URL: cs.URL, ExpiresAt: time.Unix(cs.ExpiresAt, 0).UTC()}, nil
}

func (s *stripeAPI) ExpireCheckout(ctx context.Context, id string) error {
	if _, err := s.sc.V1CheckoutSessions.Expire(ctx, id, nil); err != nil {
		var se *stripe.Error
		if errors.As(err, &se) && se.HTTPStatusCode == http.StatusBadRequest {
			return nil // already complete or expired: nobody can pay through it either way
		}
		return fmt.Errorf("stripe: expire checkout session %s: %w", id, err)
	}
	return nil
}

func (s *stripeAPI) CreatePortal(ctx context.Context, customer, returnURL string) (string, error) {
	ps, err := s.sc.V1BillingPortalSessions.Create(ctx, &stripe.BillingPortalSessionCreateParams{
		Customer:  stripe.String(customer),
		ReturnURL: stripe.String(returnURL),
	})
	if err != nil {
		return "", fmt.Errorf("stripe: create billing portal session: %w", err)
	}
	return ps.URL, nil
}

func (s *stripeAPI) Subscription(ctx context.Context, id string) (Subscription, error) {
	sub, err := s.sc.V1Subscriptions.Retrieve(ctx, id, nil)
	if err != nil {
		return Subscription{}, fmt.Errorf("stripe: read subscription %s: %w", id, err)
	}
	return fromStripeSubscription(sub), nil
}

func fromStripeSubscription(sub *stripe.Subscription) Subscription {
	out := Subscription{ID: sub.ID, Status: string(sub.Status), CancelAtPeriodEnd: sub.CancelAtPeriodEnd}
	if sub.Customer != nil {
		out.Customer = sub.Customer.ID
	}
	if ws, err := uuid.Parse(sub.Metadata[metadataWorkspace]); err == nil {
		out.WorkspaceID = ws
	}
	// Since API version basil the period is the item's: one item per
	// subscription here.
	if sub.Items != nil && len(sub.Items.Data) > 0 {
		it := sub.Items.Data[0]
		out.ItemID = it.ID
		if it.Price != nil {
			out.Price = it.Price.ID
		}
		out.PeriodStart = time.Unix(it.CurrentPeriodStart, 0).UTC()
		out.PeriodEnd = time.Unix(it.CurrentPeriodEnd, 0).UTC()
	}
	return out
}

func fromStripeInvoice(inv *stripe.Invoice) Invoice {
	at := inv.NextPaymentAttempt
	if at == 0 {
		at = inv.PeriodEnd
	}
	return Invoice{AmountDue: vibesell.NewMoney(inv.AmountDue, string(inv.Currency)), Date: time.Unix(at, 0).UTC()}
}

func (s *stripeAPI) NextInvoice(ctx context.Context, sub Subscription) (Invoice, error) {
	inv, err := s.sc.V1Invoices.CreatePreview(ctx, &stripe.InvoiceCreatePreviewParams{
		Customer:     stripe.String(sub.Customer),
		Subscription: stripe.String(sub.ID),
	})
	if err != nil {
		return Invoice{}, fmt.Errorf("stripe: preview next invoice of %s: %w", sub.ID, err)
	}
	return fromStripeInvoice(inv), nil
}

func (s *stripeAPI) PreviewChange(ctx context.Context, sub Subscription, price string, at time.Time) (Invoice, error) {
	inv, err := s.sc.V1Invoices.CreatePreview(ctx, &stripe.InvoiceCreatePreviewParams{
		Customer:     stripe.String(sub.Customer),
		Subscription: stripe.String(sub.ID),
		SubscriptionDetails: &stripe.InvoiceCreatePreviewSubscriptionDetailsParams{
			Items:             []*stripe.InvoiceCreatePreviewSubscriptionDetailsItemParams{{ID: stripe.String(sub.ItemID), Price: stripe.String(price)}},
			ProrationBehavior: stripe.String("always_invoice"),
			ProrationDate:     stripe.Int64(at.Unix()),
		},
	})
	if err != nil {
		return Invoice{}, fmt.Errorf("stripe: preview change of %s: %w", sub.ID, err)
	}
	out := fromStripeInvoice(inv)
	out.Date = at
	return out, nil
}

func (s *stripeAPI) ChangeNow(ctx context.Context, sub Subscription, price string, prorationDate time.Time, key string) (Subscription, error) {
	p := &stripe.SubscriptionUpdateParams{
		Items:             []*stripe.SubscriptionUpdateItemParams{{ID: stripe.String(sub.ItemID), Price: stripe.String(price)}},
		ProrationBehavior: stripe.String("always_invoice"),
		ProrationDate:     stripe.Int64(prorationDate.Unix()),
		// A declined card leaves the subscription as it was instead of
		// moving it to a plan not paid for.
		PaymentBehavior: stripe.String("error_if_incomplete"),
	}
	p.SetIdempotencyKey(key)
	updated, err := s.sc.V1Subscriptions.Update(ctx, sub.ID, p)
	if err != nil {
		var se *stripe.Error
		if errors.As(err, &se) && se.Type == stripe.ErrorTypeCard {
			return Subscription{}, vibesell.Errorf(vibesell.EPAYMENTREQUIRED,
				"the card on file was declined (%s), so the plan was not changed.", se.Msg).Then(
				vibesell.Next{Do: "Update the card in the billing portal, then ask for the change again.", Tool: vibesell.ToolOpenBillingPortal})
		}
		return Subscription{}, fmt.Errorf("stripe: change subscription %s: %w", sub.ID, err)
	}
	return fromStripeSubscription(updated), nil
}

func (s *stripeAPI) ChangeAtPeriodEnd(ctx context.Context, sub Subscription, price string, key string) error {
	// A subscription schedule: the current price until the period ends,
	// then the new one; the schedule then lets go of the subscription.
	cp := &stripe.SubscriptionScheduleCreateParams{FromSubscription: stripe.String(sub.ID)}
	cp.SetIdempotencyKey(key + ":schedule")
	sched, err := s.sc.V1SubscriptionSchedules.Create(ctx, cp)
	if err != nil {
		return fmt.Errorf("stripe: schedule change of %s: %w", sub.ID, err)
	}
	start := sub.PeriodStart.Unix()
	if len(sched.Phases) > 0 {
		start = sched.Phases[0].StartDate
	}
	up := &stripe.SubscriptionScheduleUpdateParams{
		EndBehavior: stripe.String("release"),
		Phases: []*stripe.SubscriptionScheduleUpdatePhaseParams{
			{
				Items:     []*stripe.SubscriptionScheduleUpdatePhaseItemParams{{Price: stripe.String(sub.Price), Quantity: stripe.Int64(1)}},
				StartDate: stripe.Int64(start),
				EndDate:   stripe.Int64(sub.PeriodEnd.Unix()),
			},
			{
				Items:             []*stripe.SubscriptionScheduleUpdatePhaseItemParams{{Price: stripe.String(price), Quantity: stripe.Int64(1)}},
				ProrationBehavior: stripe.String("none"),
			},
		},
	}
	up.SetIdempotencyKey(key + ":phases")
	if _, err := s.sc.V1SubscriptionSchedules.Update(ctx, sched.ID, up); err != nil {
		return fmt.Errorf("stripe: schedule change of %s: %w", sub.ID, err)
	}
	return nil
}

func (s *stripeAPI) CancelAtPeriodEnd(ctx context.Context, sub Subscription, key string) (Subscription, error) {
	p := &stripe.SubscriptionUpdateParams{CancelAtPeriodEnd: stripe.Bool(true)}
	p.SetIdempotencyKey(key)
	updated, err := s.sc.V1Subscriptions.Update(ctx, sub.ID, p)
	if err != nil {
		return Subscription{}, fmt.Errorf("stripe: cancel subscription %s at period end: %w", sub.ID, err)
	}
	return fromStripeSubscription(updated), nil
}
