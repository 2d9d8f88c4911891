package billing_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stripe/stripe-go/v85"

	"vibesell"
	"vibesell/approvals"
	"vibesell/billing"
	"vibesell/billing/billingtest"
	"vibesell/store"
	"vibesell/store/storetest"
	"vibesell/toolkit"
	"vibesell/workspace/workspacetest"
)

const (
	publicURL     = "https://vibesell.example.test"
	webhookSecret = "whsec_test_vibesell"
)

type bundle struct {
	pool      *pgxpool.Pool
	clock     *vibesell.ManualClock
	stripe    *billingtest.FakeStripe
	approvals *approvals.Service
	billing   *billing.Service
	ws        workspacetest.Pair
	// mailboxes is what the mailbox meter counts, per workspace.
	mu        sync.Mutex
	mailboxes map[uuid.UUID]int
}

func setup(t testing.TB) *bundle {
	t.Helper()
	pool, err := store.Connect(context.Background(), storetest.NewURL(t), 40)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	b := &bundle{pool: pool, clock: vibesell.NewManualClock(time.Date(2026, 12, 1, 15, 20, 0, 0, time.UTC)), mailboxes: map[uuid.UUID]int{}}
	cfg := billing.DefaultConfig()
	cfg.WebhookSecret = webhookSecret
	b.stripe = billingtest.NewFakeStripe(b.clock, cfg.Plans)
	b.approvals = approvals.New(approvals.Deps{DB: pool, Clock: b.clock, PublicURL: publicURL, Logger: slog.New(slog.DiscardHandler), RelayWait: -1})
	b.billing = billing.New(billing.Deps{
		DB:     pool,
		Config: cfg, Stripe: b.stripe, Approvals: b.approvals, PublicURL: publicURL, Clock: b.clock,
		Logger: slog.New(slog.DiscardHandler),
		Meters: map[billing.Metric]billing.Meter{
			billing.Mailboxes: billing.MeterFunc(func(ctx context.Context, db store.DBTX, ws uuid.UUID) (int, error) {
				b.mu.Lock()
				defer b.mu.Unlock()
				return b.mailboxes[ws], nil
			}),
			billing.Leads: billing.Counted,
		},
	})
	b.approvals.Register(vibesell.ToolUpgradePlan, b.billing.ChangeExecutor())
	b.ws = workspacetest.Two(t, pool)
	return b
}

// warmPool opens n connections, so that n concurrent calls start
// together instead of one after the other as connections are dialled.
func (b *bundle) warmPool(t *testing.T, n int) {
	t.Helper()
	var conns []*pgxpool.Conn
	for range n {
		c, err := b.pool.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		c.Release()
	}
}

// subscribe makes the workspace a paying subscriber of plan, as a
// completed checkout and its webhook do.
func (b *bundle) subscribe(t *testing.T, ws uuid.UUID, plan string) billing.Subscription {
	t.Helper()
	ctx := context.Background()
	co, err := b.billing.StartCheckout(ctx, ws, plan)
	if err != nil {
		t.Fatal(err)
	}
	params, _ := b.stripe.Session(co.SessionID)
	sub := b.stripe.Subscribe(ws, params.Customer, params.Price, "active")
	ev := stripeEvent(t, "evt_checkout_"+co.SessionID, "checkout.session.completed", b.clock.Now(),
		billingtest.CheckoutObject(co.SessionID, ws, params.Customer, sub.ID))
	if got, err := b.billing.ApplyEvent(ctx, ev); err != nil || got != billing.EventApplied {
		t.Fatalf("apply checkout.session.completed = %q, %v", got, err)
	}
	return sub
}

func TestCheckout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("32 concurrent calls give one customer and one session", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		// The workspace has its billing row and customer already (it
		// opened the portal once), so nothing but the row's lock orders
		// the calls.
		if _, err := b.billing.OpenPortal(ctx, b.ws.Acme.ID); err != nil {
			t.Fatal(err)
		}
		b.warmPool(t, 32)
		var wg sync.WaitGroup
		got := make([]billing.Checkout, 32)
		errs := make([]error, 32)
		start := make(chan struct{})
		for i := range got {
			wg.Go(func() {
				<-start
				got[i], errs[i] = b.billing.StartCheckout(ctx, b.ws.Acme.ID, "starter")
			})
		}
		close(start)
		wg.Wait()
		fresh := 0
		for i, c := range got {
			if errs[i] != nil {
				t.Fatalf("call %d: %v", i, errs[i])
			}
			if c.SessionID != got[0].SessionID || c.URL != got[0].URL {
				t.Fatalf("call %d got session %s, call 0 got %s", i, c.SessionID, got[0].SessionID)
			}
			if !c.Reused {
				fresh++
			}
		}
		if fresh != 1 || b.stripe.Sessions() != 1 || b.stripe.Customers() != 1 {
			t.Fatalf("%d calls made a session, Stripe has %d sessions and %d customers; want 1, 1, 1", fresh, b.stripe.Sessions(), b.stripe.Customers())
		}
		params, _ := b.stripe.Session(got[0].SessionID)
		want := billing.CheckoutParams{
			WorkspaceID: b.ws.Acme.ID, Plan: "starter", Customer: params.Customer, Price: "price_vibesell_starter_monthly",
			SuccessURL: publicURL + "/app/billing?checkout=done", CancelURL: publicURL + "/app/billing",
			ExpiresAt: b.clock.Now().Add(23 * time.Hour),
		}
		if diff := cmp.Diff(want, params); diff != "" {
			t.Errorf("checkout session mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("another plan is another session for the same customer; another workspace its own customer", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		starter, err := b.billing.StartCheckout(ctx, b.ws.Acme.ID, "starter")
		if err != nil {
			t.Fatal(err)
		}
		growth, err := b.billing.StartCheckout(ctx, b.ws.Acme.ID, "growth")
		if err != nil {
			t.Fatal(err)
		}
		globex, err := b.billing.StartCheckout(ctx, b.ws.Globex.ID, "starter")
		if err != nil {
			t.Fatal(err)
		}
		// Paying one closes the other: a second payment would be a
		// second subscription.
		params, _ := b.stripe.Session(starter.SessionID)
		sub := b.stripe.Subscribe(b.ws.Acme.ID, params.Customer, params.Price, "active")
		if _, err := b.billing.ApplyEvent(ctx, stripeEvent(t, "evt_paid", "checkout.session.completed", b.clock.Now(),
			billingtest.CheckoutObject(starter.SessionID, b.ws.Acme.ID, params.Customer, sub.ID))); err != nil {
			t.Fatal(err)
		}
		if !b.stripe.Expired(growth.SessionID) || b.stripe.Expired(globex.SessionID) || b.stripe.Expired(starter.SessionID) {
			t.Errorf("after paying Starter: Growth's session expired %v, Globex's %v, Starter's %v; want true, false, false",
				b.stripe.Expired(growth.SessionID), b.stripe.Expired(globex.SessionID), b.stripe.Expired(starter.SessionID))
		}
		s1, _ := b.stripe.Session(starter.SessionID)
		s2, _ := b.stripe.Session(growth.SessionID)
		s3, _ := b.stripe.Session(globex.SessionID)
		if starter.SessionID == growth.SessionID || s1.Customer != s2.Customer || s3.Customer == s1.Customer || s3.WorkspaceID != b.ws.Globex.ID {
			t.Fatalf("sessions %s %s %s for customers %s %s %s", starter.SessionID, growth.SessionID, globex.SessionID, s1.Customer, s2.Customer, s3.Customer)
		}
	})

	t.Run("a session about to expire is replaced", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		first, err := b.billing.StartCheckout(ctx, b.ws.Acme.ID, "starter")
		if err != nil {
			t.Fatal(err)
		}
		b.clock.Advance(23*time.Hour - 5*time.Minute)
		second, err := b.billing.StartCheckout(ctx, b.ws.Acme.ID, "starter")
		if err != nil {
			t.Fatal(err)
		}
		if second.SessionID == first.SessionID || second.Reused || b.stripe.Customers() != 1 {
			t.Fatalf("after 23 hours: session %s (reused %v) after %s, %d customers", second.SessionID, second.Reused, first.SessionID, b.stripe.Customers())
		}
	})

	t.Run("a subscribed workspace gets the portal instead", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.subscribe(t, b.ws.Acme.ID, "starter")
		sessions := b.stripe.Sessions()
		got, err := b.billing.StartCheckout(ctx, b.ws.Acme.ID, "growth")
		if err != nil {
			t.Fatal(err)
		}
		if !got.Portal || !strings.HasPrefix(got.URL, "https://billing.stripe.com/") || got.Current.ID != "starter" || b.stripe.Sessions() != sessions {
			t.Fatalf("subscribed workspace got portal %v at %q on plan %s, %d sessions (was %d); want the billing portal on starter, no new session",
				got.Portal, got.URL, got.Current.ID, b.stripe.Sessions(), sessions)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		for plan, want := range map[string]string{
			"platinum": `There is no plan "platinum". The plans are free, starter and growth`,
			"free":     "The Free plan needs no checkout",
		} {
			t.Run(plan, func(t *testing.T) {
				_, err := b.billing.StartCheckout(ctx, b.ws.Acme.ID, plan)
				if vibesell.ErrorCode(err) != vibesell.EINVALID || !strings.Contains(vibesell.ErrorMessage(err), want) {
					t.Errorf("%v, want a refusal saying %q", err, want)
				}
			})
		}
	})
}

func TestPortal(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	// A fresh workspace opening the portal from many places at once gets
	// one Stripe customer, asked for once.
	b.warmPool(t, 16)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 16 {
		wg.Go(func() {
			<-start
			if _, err := b.billing.OpenPortal(ctx, b.ws.Globex.ID); err != nil {
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	if b.stripe.Customers() != 1 || b.stripe.Calls("CreateCustomer") != 1 {
		t.Fatalf("16 concurrent portal visits: %d customers, %d creations; want 1 and 1", b.stripe.Customers(), b.stripe.Calls("CreateCustomer"))
	}
	p1, err := b.billing.OpenPortal(ctx, b.ws.Acme.ID)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := b.billing.OpenPortal(ctx, b.ws.Acme.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p1.URL == "" || p2.URL == "" || b.stripe.Customers() != 2 || p1.Current.ID != "free" {
		t.Fatalf("portal at %q on plan %s, then at %q, with %d customers; want two links on free, 2 customers", p1.URL, p1.Current.ID, p2.URL, b.stripe.Customers())
	}
}

func TestNotConfigured(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	cfg := billing.DefaultConfig()
	cfg.WebhookSecret = webhookSecret // set, but no Stripe key
	svc := billing.New(billing.Deps{DB: b.pool, Config: cfg, Approvals: b.approvals, PublicURL: publicURL, Clock: b.clock,
		Meters: map[billing.Metric]billing.Meter{billing.Leads: billing.Counted}})
	if svc.Configured() {
		t.Fatal("a service without a key or a Stripe says it is configured")
	}
	const want = "Billing is not configured on this server"
	// The plans, limits and usage need no Stripe: they are answered.
	o, err := svc.Overview(ctx, b.ws.Acme.ID)
	if err != nil || o.Configured || o.Current.ID != billing.FreePlanID || len(o.Usage) != len(billing.Metrics) {
		t.Errorf("overview without Stripe: configured %v, plan %q, %d usage rows, %v", o.Configured, o.Current.ID, len(o.Usage), err)
	}
	_, err2 := svc.StartCheckout(ctx, b.ws.Acme.ID, "starter")
	_, err3 := svc.OpenPortal(ctx, b.ws.Acme.ID)
	_, _, err4 := svc.RequestChange(ctx, b.ws.Acme.ID, "growth", "test")
	for _, call := range []struct {
		name string
		err  error
	}{{"StartCheckout", err2}, {"OpenPortal", err3}, {"RequestChange", err4}} {
		t.Run(call.name, func(t *testing.T) {
			if vibesell.ErrorCode(call.err) != vibesell.EINVALID || !strings.HasPrefix(vibesell.ErrorMessage(call.err), want) {
				t.Errorf("%v, want a refusal starting %q", call.err, want)
			}
		})
	}
	// Stripe's calls are refused: there is no Stripe to read back from.
	srv := httptest.NewServer(svc.WebhookHandler())
	defer srv.Close()
	body, header := billingtest.Signed(t, billingtest.Event{ID: "evt_1", Type: "invoice.paid", Created: b.clock.Now(), Object: map[string]any{}}, webhookSecret, b.clock.Now())
	if got := post(t, srv.URL, body, header); got.status != http.StatusServiceUnavailable {
		t.Errorf("webhook without billing: %d %q, want 503", got.status, got.body)
	}
	// Limits still hold: the free plan's.
	err = pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error { return svc.Use(ctx, tx, b.ws.Acme.ID, billing.Leads, 251) })
	if vibesell.ErrorCode(err) != vibesell.EPAYMENTREQUIRED || !strings.Contains(err.Error(), "whoever runs it can raise the limits") {
		t.Errorf("251 leads on the free plan without billing: %v", err)
	}
}

func TestLimits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("concurrent uses never pass the limit together", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		// The free plan allows 250 leads a month: 40 imports of 10 at once,
		// exactly 25 may pass.
		b.warmPool(t, 40)
		var wg sync.WaitGroup
		var mu sync.Mutex
		passed, refused := 0, 0
		start := make(chan struct{})
		for range 40 {
			wg.Go(func() {
				<-start
				err := pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error { return b.billing.Use(ctx, tx, b.ws.Acme.ID, billing.Leads, 10) })
				mu.Lock()
				defer mu.Unlock()
				switch vibesell.ErrorCode(err) {
				case "":
					passed++
				case vibesell.EPAYMENTREQUIRED:
					refused++
				default:
					t.Error(err)
				}
			})
		}
		close(start)
		wg.Wait()
		if passed != 25 || refused != 15 {
			t.Fatalf("%d passed and %d were refused, want 25 and 15", passed, refused)
		}
		o, err := b.billing.Overview(ctx, b.ws.Acme.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(new(250), o.Usage[1].Used); diff != "" {
			t.Fatalf("leads used mismatch (-want +got):\n%s", diff)
		}
		// Globex counts its own.
		if err := pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error { return b.billing.Use(ctx, tx, b.ws.Globex.ID, billing.Leads, 250) }); err != nil {
			t.Fatalf("Globex's first 250 leads: %v", err)
		}
	})

	t.Run("Check forecasts Use's refusal and records nothing", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		if err := b.billing.Check(ctx, b.ws.Acme.ID, billing.Leads, 250); err != nil {
			t.Fatalf("250 leads on the free plan: %v", err)
		}
		err := b.billing.Check(ctx, b.ws.Acme.ID, billing.Leads, 251)
		if vibesell.ErrorCode(err) != vibesell.EPAYMENTREQUIRED || !strings.HasPrefix(vibesell.ErrorMessage(err), "The Free plan allows 250 leads this month; 0 in use") {
			t.Fatalf("251 leads: %v", err)
		}
		if err := pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error { return b.billing.Use(ctx, tx, b.ws.Acme.ID, billing.Leads, 250) }); err != nil {
			t.Fatalf("checking recorded a use: %v", err)
		}
	})

	t.Run("a use that is rolled back is not counted", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		tx, err := b.pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.billing.Use(ctx, tx, b.ws.Acme.ID, billing.Leads, 200); err != nil {
			t.Fatal(err)
		}
		tx.Rollback(ctx)
		if err := pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error { return b.billing.Use(ctx, tx, b.ws.Acme.ID, billing.Leads, 250) }); err != nil {
			t.Fatalf("250 leads after a rolled-back 200: %v", err)
		}
	})

	t.Run("the refusal gives the limit, the usage and the way up", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.mailboxes[b.ws.Acme.ID] = 2
		err := pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error { return b.billing.Use(ctx, tx, b.ws.Acme.ID, billing.Mailboxes, 3) })
		want := "The Free plan allows 3 mailboxes; 2 in use, so 3 more would go over. The Starter plan allows 15 mailboxes for USD 49.00 per month.\n\nNext:\n- Subscribe to the Starter plan. Call start_checkout with plan starter."
		if vibesell.ErrorCode(err) != vibesell.EPAYMENTREQUIRED || toolkit.ForAssistant(err) != want {
			t.Fatalf("got %v\nwant %s", err, want)
		}
		b.subscribe(t, b.ws.Acme.ID, "starter")
		b.mailboxes[b.ws.Acme.ID] = 14
		err = pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error { return b.billing.Use(ctx, tx, b.ws.Acme.ID, billing.Mailboxes, 2) })
		want = "The Starter plan allows 15 mailboxes; 14 in use, so 2 more would go over. The Growth plan allows 45 mailboxes for USD 149.00 per month.\n\nNext:\n- Change to the Growth plan. Call upgrade_plan with plan growth."
		if toolkit.ForAssistant(err) != want {
			t.Fatalf("got %v\nwant %s", err, want)
		}
	})
}

func TestOverview(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.mailboxes[b.ws.Acme.ID] = 2
	o, err := b.billing.Overview(ctx, b.ws.Acme.ID)
	if err != nil {
		t.Fatal(err)
	}
	two, zero := 2, 0
	wantUsage := []billing.Usage{
		{Metric: billing.Mailboxes, Limit: 3, Used: &two},
		{Metric: billing.Leads, Limit: 250, Period: "month", Used: &zero},
		{Metric: billing.ActiveCampaigns, Limit: 1, Why: "running campaigns are not counted against the plan yet"},
		{Metric: billing.Emails, Limit: 1000, Period: "month", Why: "emails sent are not counted against the plan yet (campaigns keep their own daily cap)"},
	}
	if diff := cmp.Diff(wantUsage, o.Usage); diff != "" {
		t.Errorf("usage on the free plan mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(terms{Plan: "free", Status: "active"}, termsOf(o)); diff != "" {
		t.Errorf("free workspace mismatch (-want +got):\n%s", diff)
	}
	if !strings.Contains(o.NextInvoiceWhy, "Free plan, which costs nothing") {
		t.Errorf("free workspace: no next invoice because %q, want the Free plan costing nothing", o.NextInvoiceWhy)
	}

	sub := b.subscribe(t, b.ws.Acme.ID, "growth")
	o, err = b.billing.Overview(ctx, b.ws.Acme.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := terms{Plan: "growth", Status: "active", Subscribed: true, PeriodEnd: &sub.PeriodEnd,
		NextInvoice: &billing.Invoice{AmountDue: vibesell.NewMoney(14_900, "USD"), Date: sub.PeriodEnd}}
	if diff := cmp.Diff(want, termsOf(o)); diff != "" {
		t.Errorf("subscribed workspace mismatch (-want +got):\n%s", diff)
	}
	// Globex is untouched.
	g, err := b.billing.Overview(ctx, b.ws.Globex.ID)
	if err != nil {
		t.Fatal(err)
	}
	if g.Current.ID != "free" {
		t.Errorf("Globex on plan %s, want free", g.Current.ID)
	}
}

// terms is what the tests check of a workspace's billing overview besides
// its usage: the plan, the subscription, and what is charged or changes
// next.
type terms struct {
	Plan, Status      string
	Subscribed        bool
	PeriodEnd         *time.Time
	CancelAtPeriodEnd bool
	PendingPlan       string // "" when no change is scheduled
	NextInvoice       *billing.Invoice
}

func termsOf(o billing.Overview) terms {
	tm := terms{Plan: o.Current.ID, Status: o.Status, Subscribed: o.Subscribed, PeriodEnd: o.PeriodEnd,
		CancelAtPeriodEnd: o.CancelAtPeriodEnd, NextInvoice: o.NextInvoice}
	if o.PendingPlan != nil {
		tm.PendingPlan = o.PendingPlan.ID
	}
	return tm
}

// stripeEvent is an event as Stripe sends it, already verified.
func stripeEvent(t *testing.T, id, typ string, created time.Time, object any) stripe.Event {
	t.Helper()
	body, _ := billingtest.Signed(t, billingtest.Event{ID: id, Type: typ, Created: created, Object: object}, webhookSecret, created)
	var ev stripe.Event
	if err := json.Unmarshal(body, &ev); err != nil {
		t.Fatal(err)
	}
	return ev
}
