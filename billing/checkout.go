package billing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/store"
)

// checkoutLifetime is how long a Checkout Session stays open. Stripe
// allows 30 minutes to 24 hours; a little under 24 hours leaves room for
// our clock and Stripe's to differ.
const checkoutLifetime = 23 * time.Hour

// Checkout is where the person goes to pay for a plan.
type Checkout struct {
	Plan Plan
	// URL is the Checkout Session's page, or with Portal the billing
	// portal's. Only the person opens it.
	URL       string
	SessionID string    // "" with Portal
	ExpiresAt time.Time // zero with Portal
	// Reused: this workspace already had an open session for this plan,
	// handed out again instead of a second one.
	Reused bool
	// Portal: the workspace is already subscribed, so URL is the billing
	// portal, where the plan is managed, instead of a second subscription.
	Portal bool
	// Current is the plan the workspace is on.
	Current Plan
}

// StartCheckout returns the Checkout Session where the person pays for
// plan planID: one per workspace and plan while it is open (a double
// click, concurrent calls or two replicas get the same one), for the
// workspace's one Stripe customer, in subscription mode, bound to the
// workspace by client_reference_id and metadata. A workspace already
// subscribed gets its billing portal instead.
//
// Refusals: billing not configured; an unknown plan; the free plan.
func (s *Service) StartCheckout(ctx context.Context, ws uuid.UUID, planID string) (Checkout, error) {
	if !s.Configured() {
		return Checkout{}, s.errNotConfigured()
	}
	plan, ok := s.plan(planID)
	if !ok {
		return Checkout{}, s.unknownPlan(planID)
	}
	if plan.Free() {
		return Checkout{}, vibesell.Errorf(vibesell.EINVALID,
			"The %s plan needs no checkout: a workspace is on it whenever it has no paid subscription.", plan.Name).Then(
			vibesell.Call(fmt.Sprintf("To leave a paid plan, change to the %s plan.", plan.Name), vibesell.ToolUpgradePlan, "plan", plan.ID))
	}
	var out Checkout
	var account Account
	err := store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		var err error
		if account, err = s.lockAccount(ctx, tx, ws); err != nil {
			return err
		}
		if account.Subscribed() {
			return nil
		}
		now := s.clock.Now()
		open, found, err := s.openCheckout(ctx, tx, ws, plan.ID, now)
		if err != nil {
			return err
		}
		if found {
			open.Reused = true
			out = open
			return nil
		}
		if err := s.ensureCustomer(ctx, tx, &account); err != nil {
			return err
		}
		// The key names this attempt: a retry after a crash between
		// Stripe's answer and the commit, within the minute, gets the same
		// session back. Stripe refuses a key reused with other parameters,
		// so everything sent is fixed by the key (the expiry to the minute).
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM billing_checkouts WHERE workspace_id = $1 AND plan = $2`, ws, plan.ID).Scan(&n); err != nil {
			return fmt.Errorf("count checkouts: %w", err)
		}
		expires := now.Add(checkoutLifetime).UTC().Truncate(time.Minute)
		cs, err := s.stripe.CreateCheckout(ctx, CheckoutParams{
			WorkspaceID: ws, Plan: plan.ID, Customer: account.Customer, Price: plan.StripePrice,
			SuccessURL: s.link(BillingPath + "?checkout=done"), CancelURL: s.link(BillingPath),
			ExpiresAt: expires,
		}, fmt.Sprintf("checkout:%s:%s:%d:%d", ws, plan.ID, n+1, expires.Unix()))
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO billing_checkouts (workspace_id, plan, session_id, url, status, expires_at, created_at)
			VALUES ($1, $2, $3, $4, 'open', $5, $6)`, ws, plan.ID, cs.ID, cs.URL, cs.ExpiresAt, now); err != nil {
			return fmt.Errorf("record checkout session: %w", err)
		}
		out = Checkout{URL: cs.URL, SessionID: cs.ID, ExpiresAt: cs.ExpiresAt}
		return nil
	})
	if err != nil {
		return Checkout{}, err
	}
	out.Plan = plan
	out.Current = s.planOf(account)
	if account.Subscribed() {
		url, err := s.stripe.CreatePortal(ctx, account.Customer, s.link(BillingPath))
		if err != nil {
			return Checkout{}, err
		}
		out.URL, out.Portal = url, true
	}
	return out, nil
}

// openCheckout returns the workspace's open session for the plan, and
// marks one whose time is up as expired.
func (s *Service) openCheckout(ctx context.Context, tx pgx.Tx, ws uuid.UUID, plan string, now time.Time) (Checkout, bool, error) {
	var c Checkout
	err := tx.QueryRow(ctx, `SELECT session_id, url, expires_at FROM billing_checkouts
		WHERE workspace_id = $1 AND plan = $2 AND status = 'open'`, ws, plan).Scan(&c.SessionID, &c.URL, &c.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Checkout{}, false, nil
	}
	if err != nil {
		return Checkout{}, false, fmt.Errorf("read open checkout: %w", err)
	}
	// A session about to close is not handed out: the person would find
	// it expired by the time they pay.
	if c.ExpiresAt.After(now.Add(10 * time.Minute)) {
		return c, true, nil
	}
	if _, err := tx.Exec(ctx, `UPDATE billing_checkouts SET status = 'expired' WHERE session_id = $1`, c.SessionID); err != nil {
		return Checkout{}, false, fmt.Errorf("expire checkout: %w", err)
	}
	return Checkout{}, false, nil
}

// planOf is the plan an account is on, the free plan when its plan is no
// longer configured.
func (s *Service) planOf(a Account) Plan {
	if p, ok := s.plan(a.PlanID); ok {
		return p
	}
	return s.freePlan()
}

// Portal is a billing-portal session: where the person changes the card,
// sees invoices or cancels.
type Portal struct {
	URL     string
	Current Plan
}

// OpenPortal returns a billing-portal link for the workspace's Stripe
// customer (created the first time). Refusals: billing not configured.
func (s *Service) OpenPortal(ctx context.Context, ws uuid.UUID) (Portal, error) {
	if !s.Configured() {
		return Portal{}, s.errNotConfigured()
	}
	var account Account
	err := store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		var err error
		if account, err = s.lockAccount(ctx, tx, ws); err != nil {
			return err
		}
		return s.ensureCustomer(ctx, tx, &account)
	})
	if err != nil {
		return Portal{}, err
	}
	url, err := s.stripe.CreatePortal(ctx, account.Customer, s.link(BillingPath))
	if err != nil {
		return Portal{}, err
	}
	return Portal{URL: url, Current: s.planOf(account)}, nil
}
