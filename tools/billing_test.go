package tools

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stripe/stripe-go/v85"

	"vibesell"
	"vibesell/approvals"
	"vibesell/billing"
	"vibesell/billing/billingtest"
	"vibesell/store/storetest"
	"vibesell/toolkit/toolkittest"
	"vibesell/workspace"
	"vibesell/workspace/workspacetest"
)

type billingFixture struct {
	workspaces *workspace.Service
	clock      *vibesell.ManualClock
	stripe     *billingtest.FakeStripe
	billing    *billing.Service
	ws         workspacetest.Pair
	c          *toolkittest.Client // acts for Acme
}

func newBillingFixture(t *testing.T, configured bool) *billingFixture {
	t.Helper()
	pool := storetest.New(t)
	f := &billingFixture{clock: vibesell.NewManualClock(time.Date(2026, 12, 1, 15, 20, 0, 0, time.UTC))}
	cfg := billing.DefaultConfig()
	appr, err := approvals.NewService(pool, f.clock, approvals.Config{PublicURL: "https://vibesell.example.test", Logger: slog.New(slog.DiscardHandler), RelayWait: -1})
	if err != nil {
		t.Fatal(err)
	}
	opts := billing.Options{Config: cfg, Approvals: appr, PublicURL: "https://vibesell.example.test", Clock: f.clock, Logger: slog.New(slog.DiscardHandler)}
	if configured {
		f.stripe = billingtest.NewFakeStripe(f.clock, cfg.Plans)
		opts.Stripe = f.stripe
	}
	f.billing = billing.New(pool, opts)
	appr.Register(vibesell.ToolUpgradePlan, f.billing.ChangeExecutor())
	f.ws = workspacetest.Two(t, pool)
	f.workspaces = workspace.NewService(pool, f.clock)
	d := Deps{Clock: f.clock, Workspaces: f.workspaces, Approvals: appr, Billing: f.billing}
	f.c = toolkittest.Connect(t, NewServer(d, nil), workspacetest.Principal(f.ws.Acme))
	return f
}

func TestBillingTools(t *testing.T) {
	t.Parallel()

	t.Run("plans on the free plan say what is not counted, never a made-up zero", func(t *testing.T) {
		t.Parallel()
		f := newBillingFixture(t, true)
		var out plansOutput
		md := f.c.Result(vibesell.ToolGetPlansAndBilling, nil, &out)
		if out.Current != "free" || out.Status != "active" || len(out.Plans) != 3 || !out.Plans[0].Current || out.NextInvoice != nil || out.NextInvoiceWhy == nil {
			t.Fatalf("plans: %+v", out)
		}
		for _, u := range out.Usage {
			if u.Used != nil || u.Why == nil {
				t.Errorf("%s: used %v, why %v; want null with why (no meter is wired here)", u.Limit, u.Used, u.Why)
			}
		}
		for _, want := range []string{"## Plan: Free (USD 0.00 per month), active", "- Sending mailboxes: not counted (mailboxes are not counted on this server); the plan allows 3",
			"- Starter, id starter: USD 49.00 per month; 15 mailboxes, 2,500 leads per month, 5 active campaigns, 15,000 emails per month", "call start_checkout with the plan id"} {
			if !strings.Contains(md, want) {
				t.Errorf("markdown lacks %q:\n%s", want, md)
			}
		}
	})

	t.Run("checkout twice gives one page; the portal; an upgrade waits for the web app", func(t *testing.T) {
		t.Parallel()
		f := newBillingFixture(t, true)
		var first, second checkoutOutput
		md := f.c.Result(vibesell.ToolStartCheckout, map[string]any{"plan": "starter"}, &first)
		f.c.Result(vibesell.ToolStartCheckout, map[string]any{"plan": "starter"}, &second)
		if first.Page != "checkout" || first.Reused || !second.Reused || second.URL != first.URL || f.stripe.Sessions() != 1 {
			t.Fatalf("first %+v\nsecond %+v\n%d sessions", first, second, f.stripe.Sessions())
		}
		if !strings.Contains(md, "only they open it and pay there") || !strings.Contains(md, first.URL) {
			t.Errorf("checkout text:\n%s", md)
		}

		var portal portalOutput
		f.c.Result(vibesell.ToolOpenBillingPortal, nil, &portal)
		if !strings.HasPrefix(portal.URL, "https://billing.stripe.com/") || portal.CurrentPlan != "free" {
			t.Fatalf("portal: %+v", portal)
		}

		// Paid: Stripe calls back.
		params, _ := f.stripe.Session(*first.Session)
		sub := f.stripe.Subscribe(f.ws.Acme.ID, params.Customer, params.Price, "active")
		body, _ := billingtest.Signed(t, billingtest.Event{ID: "evt_1", Type: "customer.subscription.created", Created: f.clock.Now(),
			Object: billingtest.SubscriptionObject(sub)}, "whsec_x", f.clock.Now())
		if _, err := f.billing.ApplyEvent(context.Background(), parseEvent(t, body)); err != nil {
			t.Fatal(err)
		}
		var again checkoutOutput
		md = f.c.Result(vibesell.ToolStartCheckout, map[string]any{"plan": "growth"}, &again)
		if again.Page != "portal" || again.Session != nil || !strings.Contains(md, "already pays for the Starter plan") {
			t.Fatalf("checkout when subscribed: %+v\n%s", again, md)
		}

		var ap approvalOutput
		md = f.c.Result(vibesell.ToolUpgradePlan, map[string]any{"plan": "growth"}, &ap)
		if ap.Action != vibesell.ToolUpgradePlan || ap.Status != "pending" || ap.DecideHere || ap.Impact.CostMonthly != (moneyData{"149.00", "USD"}) {
			t.Fatalf("upgrade approval: %+v", ap)
		}
		// A plan can be changed back: the text says it costs money, never
		// that it cannot be undone.
		if !strings.Contains(md, "Only a signed-in person can approve this, in the VibeSell web app, because it costs money. ") || !strings.Contains(md, ap.AppURL) ||
			strings.Contains(md, "cannot be undone") {
			t.Errorf("upgrade text:\n%s", md)
		}
		refusal := f.c.Refusal(vibesell.ToolDecideApproval, map[string]any{"approval": ap.Approval, "decision": "approve"})
		if !strings.Contains(refusal, ap.AppURL) {
			t.Errorf("approving a paid change in the conversation: %s", refusal)
		}

		var plans plansOutput
		md = f.c.Result(vibesell.ToolGetPlansAndBilling, nil, &plans)
		want := &invoiceData{AmountDue: moneyData{"49.00", "USD"}, Date: vibesell.FormatDay(sub.PeriodEnd)}
		if diff := cmp.Diff(want, plans.NextInvoice); diff != "" || plans.Current != "starter" {
			t.Errorf("on %s, next invoice (-want +got):\n%s", plans.Current, diff)
		}
		if !strings.Contains(md, "To change plan, call upgrade_plan") {
			t.Errorf("subscribed plans text:\n%s", md)
		}
	})

	t.Run("a failed payment shows in the workspace context with the way to fix it", func(t *testing.T) {
		t.Parallel()
		f := newBillingFixture(t, true)
		var ctxOut workspaceOutput
		md := f.c.Result(vibesell.ToolGetWorkspaceContext, nil, &ctxOut)
		if ctxOut.Plan == nil || ctxOut.Plan.ID != "free" || !strings.Contains(md, "Plan: Free, active (get_plans_and_billing has prices, limits and usage).") {
			t.Fatalf("a new workspace's plan in the context: %+v\n%s", ctxOut.Plan, md)
		}
		co, err := f.billing.StartCheckout(context.Background(), f.ws.Acme.ID, "starter")
		if err != nil {
			t.Fatal(err)
		}
		params, _ := f.stripe.Session(co.SessionID)
		sub := f.stripe.Subscribe(f.ws.Acme.ID, params.Customer, params.Price, "past_due")
		body, _ := billingtest.Signed(t, billingtest.Event{ID: "evt_failed", Type: "invoice.payment_failed", Created: f.clock.Now(),
			Object: billingtest.InvoiceObject("in_1", params.Customer, sub.ID, f.ws.Acme.ID)}, "whsec_x", f.clock.Now())
		if _, err := f.billing.ApplyEvent(context.Background(), parseEvent(t, body)); err != nil {
			t.Fatal(err)
		}
		md = f.c.Result(vibesell.ToolGetWorkspaceContext, nil, &ctxOut)
		if ctxOut.Plan == nil || ctxOut.Plan.ID != "starter" || ctxOut.Plan.Status != "past_due" || ctxOut.Plan.PaymentFailedAt == nil {
			t.Fatalf("plan after a failed payment: %+v", ctxOut.Plan)
		}
		if textOf(ctxOut.NextStep.Tool) != vibesell.ToolOpenBillingPortal || !strings.Contains(md, "A payment failed on Tue 1 Dec 2026, 15:20 UTC and is still unpaid") {
			t.Fatalf("next step %+v\n%s", ctxOut.NextStep, md)
		}
		// Globex's context shows none of it.
		g := toolkittest.Connect(t, NewServer(Deps{Clock: f.clock, Workspaces: f.workspaces, Billing: f.billing}, nil), workspacetest.Principal(f.ws.Globex))
		var other workspaceOutput
		g.Result(vibesell.ToolGetWorkspaceContext, nil, &other)
		if other.Plan == nil || other.Plan.ID != "free" || other.Plan.PaymentFailedAt != nil {
			t.Fatalf("Globex's plan: %+v", other.Plan)
		}
	})

	t.Run("without a Stripe key every billing tool says billing is not configured", func(t *testing.T) {
		t.Parallel()
		f := newBillingFixture(t, false)
		calls := map[string]any{
			vibesell.ToolGetPlansAndBilling: nil,
			vibesell.ToolStartCheckout:      map[string]any{"plan": "starter"},
			vibesell.ToolOpenBillingPortal:  nil,
			vibesell.ToolUpgradePlan:        map[string]any{"plan": "growth"},
		}
		for name, args := range calls {
			if got := f.c.Refusal(name, args); !strings.HasPrefix(got, "Billing is not configured on this server") {
				t.Errorf("%s: %s", name, got)
			}
		}
		// Everything else works.
		f.c.Result(vibesell.ToolGetWorkspaceContext, nil, nil)
	})
}

func parseEvent(t *testing.T, body []byte) stripe.Event {
	t.Helper()
	var ev stripe.Event
	if err := json.Unmarshal(body, &ev); err != nil {
		t.Fatal(err)
	}
	return ev
}
