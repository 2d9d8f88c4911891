// Package billing holds plans and money: which plan a workspace is on, its
// Stripe customer and subscription, Checkout and the billing portal,
// changing plans through an approval, Stripe's webhooks, and the limits
// other features check before they use something the plan counts.
//
// A workspace with no billing row is on the free plan. The billing row is
// also the lock: every change of a workspace's billing and every limit
// check takes it, so they apply one after the other on any replica.
package billing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/approvals"
	"vibesell/store"
)

// Deps is what [New] needs.
type Deps struct {
	DB     *pgxpool.Pool
	Config Config
	// Stripe overrides the Stripe client built from Config (tests pass
	// billingtest.FakeStripe). Without either a key or this, billing is
	// not configured.
	Stripe Stripe
	// Approvals opens the approvals of plan changes (upgrade_plan).
	Approvals *approvals.Service
	// PublicURL is where people reach the web app; Stripe sends them back
	// to its billing page.
	PublicURL string
	Clock     vibesell.Clock
	Logger    *slog.Logger
	// Meters count what each limit counts; a limit without a meter shows
	// its usage as unknown. Pass [Counted] for a monthly limit its feature
	// counts by calling [Service.Use].
	Meters map[Metric]Meter
}

// Service is billing.
type Service struct {
	db        *pgxpool.Pool
	cfg       Config
	stripe    Stripe // nil: billing is not configured on this server
	approvals *approvals.Service
	publicURL string
	clock     vibesell.Clock
	logger    *slog.Logger
	meters    map[Metric]Meter
}

// New returns the billing service on d.DB.
func New(d Deps) *Service {
	o := d
	if len(o.Config.Plans) == 0 {
		o.Config.Plans = DefaultConfig().Plans
	}
	if o.Stripe == nil && o.Config.SecretKey != "" {
		o.Stripe = NewStripe(o.Config.SecretKey, o.Config.APIBase)
	}
	if o.Clock == nil {
		o.Clock = vibesell.SystemClock{}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Service{
		db: o.DB, cfg: o.Config, stripe: o.Stripe, approvals: o.Approvals,
		publicURL: strings.TrimRight(o.PublicURL, "/"), clock: o.Clock, logger: o.Logger, meters: o.Meters,
	}
}

// Configured reports whether this server sells plans (a Stripe key is set).
func (s *Service) Configured() bool { return s.stripe != nil }

// Plans returns the plans on sale, cheapest first.
func (s *Service) Plans() []Plan { return slices.Clone(s.cfg.Plans) }

// errNotConfigured is what every billing tool says on a server without a
// Stripe key.
func (s *Service) errNotConfigured() error {
	return vibesell.Errorf(vibesell.EINVALID,
		"Billing is not configured on this server, so plans cannot be bought, changed or managed here; every workspace uses the %s plan's limits. Whoever runs this server can set it up with a Stripe key.",
		s.freePlan().Name)
}

// BillingPath is the web app's billing page, where Stripe sends people
// back after Checkout and the portal.
const BillingPath = "/app/billing"

func (s *Service) plan(id string) (Plan, bool) {
	i := slices.IndexFunc(s.cfg.Plans, func(p Plan) bool { return p.ID == id })
	if i < 0 {
		return Plan{}, false
	}
	return s.cfg.Plans[i], true
}

// freePlan is the plan of a workspace that pays nothing.
func (s *Service) freePlan() Plan {
	p, _ := s.plan(FreePlanID)
	return p
}

func (s *Service) planByPrice(price string) (Plan, bool) {
	i := slices.IndexFunc(s.cfg.Plans, func(p Plan) bool { return p.StripePrice != "" && p.StripePrice == price })
	if i < 0 {
		return Plan{}, false
	}
	return s.cfg.Plans[i], true
}

func (s *Service) unknownPlan(id string) error {
	var ids []string
	for _, p := range s.cfg.Plans {
		ids = append(ids, p.ID)
	}
	return vibesell.Errorf(vibesell.EINVALID, "There is no plan %q. The plans are %s.", id, vibesell.JoinAnd(ids)).Then(
		vibesell.Next{Do: "See the plans with their prices and limits.", Tool: vibesell.ToolGetPlansAndBilling})
}

// Account is a workspace's billing as recorded.
type Account struct {
	WorkspaceID       uuid.UUID
	Customer          string // "" until the first checkout or portal visit
	PlanID            string
	Status            string
	SubscriptionID    string // "" when not subscribed
	SubscriptionItem  string
	SubscriptionPrice string
	CancelAtPeriodEnd bool
	PeriodEnd         *time.Time
	PendingPlanID     string // a change to a lower plan at PeriodEnd; "" when none
	PaymentFailedAt   *time.Time
}

// Subscribed reports whether the workspace pays for a subscription that
// has not ended.
func (a Account) Subscribed() bool {
	return a.SubscriptionID != "" && a.Status != "canceled" && a.Status != "incomplete_expired"
}

const accountColumns = `workspace_id, coalesce(stripe_customer, ''), plan, status, coalesce(subscription_id, ''),
	coalesce(subscription_item, ''), coalesce(subscription_price, ''), cancel_at_period_end, period_end,
	coalesce(pending_plan, ''), payment_failed_at`

func scanAccount(row pgx.Row) (Account, error) {
	var a Account
	err := row.Scan(&a.WorkspaceID, &a.Customer, &a.PlanID, &a.Status, &a.SubscriptionID, &a.SubscriptionItem,
		&a.SubscriptionPrice, &a.CancelAtPeriodEnd, &a.PeriodEnd, &a.PendingPlanID, &a.PaymentFailedAt)
	return a, err
}

// readAccount reads the workspace's billing without locking it; a
// workspace without a row is on the free plan.
func (s *Service) readAccount(ctx context.Context, db store.DBTX, ws uuid.UUID) (Account, error) {
	a, err := scanAccount(db.QueryRow(ctx, `SELECT `+accountColumns+` FROM billing_accounts WHERE workspace_id = $1`, ws))
	if errors.Is(err, pgx.ErrNoRows) {
		return Account{WorkspaceID: ws, PlanID: FreePlanID, Status: "active"}, nil
	}
	if err != nil {
		return Account{}, fmt.Errorf("read billing of workspace %s: %w", ws, err)
	}
	return a, nil
}

// lockAccount reads the workspace's billing and locks it until tx ends,
// creating its row if there is none. The row exists after the first time,
// so the usual case is one round trip.
func (s *Service) lockAccount(ctx context.Context, tx pgx.Tx, ws uuid.UUID) (Account, error) {
	const lockSQL = `SELECT ` + accountColumns + ` FROM billing_accounts WHERE workspace_id = $1 FOR UPDATE`
	a, err := scanAccount(tx.QueryRow(ctx, lockSQL, ws))
	if err == nil {
		return a, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return Account{}, fmt.Errorf("lock billing of workspace %s: %w", ws, err)
	}
	// Concurrent first calls wait here on each other's insert.
	if _, err := tx.Exec(ctx, `INSERT INTO billing_accounts (workspace_id, updated_at) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
		ws, s.clock.Now()); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "23503" {
			return Account{}, vibesell.Errorf(vibesell.ENOTFOUND, "This workspace no longer exists.")
		}
		return Account{}, fmt.Errorf("create billing of workspace %s: %w", ws, err)
	}
	if a, err = scanAccount(tx.QueryRow(ctx, lockSQL, ws)); err != nil {
		return Account{}, fmt.Errorf("lock billing of workspace %s: %w", ws, err)
	}
	return a, nil
}

// ensureCustomer returns the workspace's Stripe customer, creating it the
// first time. The caller holds the account's lock, and the idempotency key
// is the workspace's: one customer per workspace even when a crash comes
// between Stripe's answer and the commit.
func (s *Service) ensureCustomer(ctx context.Context, tx pgx.Tx, a *Account) error {
	if a.Customer != "" {
		return nil
	}
	var name string
	if err := tx.QueryRow(ctx, `SELECT name FROM workspaces WHERE id = $1`, a.WorkspaceID).Scan(&name); err != nil {
		return fmt.Errorf("read name of workspace %s: %w", a.WorkspaceID, err)
	}
	id, err := s.stripe.CreateCustomer(ctx, a.WorkspaceID, name, "customer:"+a.WorkspaceID.String())
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE billing_accounts SET stripe_customer = $2, updated_at = $3 WHERE workspace_id = $1`,
		a.WorkspaceID, id, s.clock.Now()); err != nil {
		return fmt.Errorf("record customer of workspace %s: %w", a.WorkspaceID, err)
	}
	a.Customer = id
	return nil
}

func (s *Service) link(path string) string { return s.publicURL + path }
