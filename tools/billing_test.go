package tools

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
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
	appr := approvals.New(approvals.Deps{DB: pool, Clock: f.clock, PublicURL: "https://vibesell.example.test", Logger: slog.New(slog.DiscardHandler), RelayWait: -1})
	opts := billing.Deps{DB: pool, Config: cfg, Approvals: appr, PublicURL: "https://vibesell.example.test", Clock: f.clock, Logger: slog.New(slog.DiscardHandler)}
	if configured {
		f.stripe = billingtest.NewFakeStripe(f.clock, cfg.Plans)
		opts.Stripe = f.stripe
	}
	f.billing = billing.New(opts)
	appr.Register(vibesell.ToolUpgradePlan, f.billing.ChangeExecutor())
	f.ws = workspacetest.Two(t, pool)
	f.workspaces = workspace.New(workspace.Deps{DB: pool, Clock: f.clock})
	d := Deps{Workspaces: f.workspaces, Approvals: appr, Billing: f.billing}
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
		// The plans, the usage and why there is no invoice are read below.
		want := plansOutput{Kind: "plans", Current: "free", Status: "active"}
		if d := cmp.Diff(want, out, cmpopts.IgnoreFields(plansOutput{}, "Plans", "Usage", "NextInvoiceWhy")); d != "" {
			t.Fatalf("plans mismatch (-want +got):\n%s", d)
		}
		type offered struct {
			ID      string
			Current bool
		}
		var plans []offered
		for _, p := range out.Plans {
			plans = append(plans, offered{p.ID, p.Current})
		}
		if d := cmp.Diff([]offered{{"free", true}, {"starter", false}, {"growth", false}}, plans); d != "" {
			t.Fatalf("plans offered mismatch (-want +got):\n%s", d)
		}
		if out.NextInvoiceWhy == nil {
			t.Fatal("no next invoice, and no why")
		}
		for _, u := range out.Usage {
			t.Run(u.Limit, func(t *testing.T) {
				if u.Used != nil || u.Why == nil {
					t.Errorf("counted %v, why %q; want not counted, saying why (no meter is wired here)", u.Used != nil, textOf(u.Why))
				}
			})
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
		if first.Page != "checkout" || first.Reused {
			t.Fatalf("first: %s page, reused %v; want a new checkout", first.Page, first.Reused)
		}
		// The second is the first page again.
		wantSecond := first
		wantSecond.Reused = true
		if d := cmp.Diff(wantSecond, second); d != "" {
			t.Fatalf("second checkout mismatch (-want +got):\n%s", d)
		}
		if n := f.stripe.Sessions(); n != 1 {
			t.Fatalf("Stripe has %d sessions, want 1", n)
		}
		if !strings.Contains(md, "only they open it and pay there") || !strings.Contains(md, first.URL) {
			t.Errorf("checkout text:\n%s", md)
		}

		var portal portalOutput
		f.c.Result(vibesell.ToolOpenBillingPortal, nil, &portal)
		if !strings.HasPrefix(portal.URL, "https://billing.stripe.com/") || portal.CurrentPlan != "free" {
			t.Fatalf("portal at %q on plan %s, want Stripe's billing portal on free", portal.URL, portal.CurrentPlan)
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
			t.Fatalf("checkout when subscribed: %s page, session %q; want the portal, saying the workspace already pays:\n%s", again.Page, textOf(again.Session), md)
		}

		var ap approvalOutput
		md = f.c.Result(vibesell.ToolUpgradePlan, map[string]any{"plan": "growth"}, &ap)
		if d := cmp.Diff(asked{Action: vibesell.ToolUpgradePlan, Status: "pending"}, askedOf(ap.approvalData)); d != "" {
			t.Fatalf("upgrade approval mismatch (-want +got):\n%s", d)
		}
		if d := cmp.Diff(moneyData{"149.00", "USD"}, ap.Impact.CostMonthly); d != "" {
			t.Fatalf("upgrade's monthly cost mismatch (-want +got):\n%s", d)
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
		if plans.Current != "starter" {
			t.Errorf("on %s, want starter", plans.Current)
		}
		if diff := cmp.Diff(want, plans.NextInvoice); diff != "" {
			t.Errorf("next invoice mismatch (-want +got):\n%s", diff)
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
		if d := cmp.Diff(&planData{ID: "free", Name: "Free", Status: "active"}, ctxOut.Plan); d != "" {
			t.Fatalf("a new workspace's plan in the context mismatch (-want +got):\n%s", d)
		}
		mustContain(t, md, "Plan: Free, active (get_plans_and_billing has prices, limits and usage).")
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
		if d := cmp.Diff(&planData{ID: "starter", Name: "Starter", Status: "past_due", PaymentFailedAt: new(f.clock.Now())}, ctxOut.Plan); d != "" {
			t.Fatalf("plan after a failed payment mismatch (-want +got):\n%s", d)
		}
		if textOf(ctxOut.NextStep.Tool) != vibesell.ToolOpenBillingPortal || !strings.Contains(md, "A payment failed on Tue 1 Dec 2026, 15:20 UTC and is still unpaid") {
			t.Fatalf("next step %q (%s), want %s, saying the payment failed:\n%s", textOf(ctxOut.NextStep.Tool), ctxOut.NextStep.Why, vibesell.ToolOpenBillingPortal, md)
		}
		// Globex's context shows none of it.
		g := toolkittest.Connect(t, NewServer(Deps{Workspaces: f.workspaces, Billing: f.billing}, nil), workspacetest.Principal(f.ws.Globex))
		var other workspaceOutput
		g.Result(vibesell.ToolGetWorkspaceContext, nil, &other)
		if d := cmp.Diff(&planData{ID: "free", Name: "Free", Status: "active"}, other.Plan); d != "" {
			t.Fatalf("Globex's plan mismatch (-want +got):\n%s", d)
		}
	})

	t.Run("without a Stripe key the plans are shown and buying is refused", func(t *testing.T) {
		t.Parallel()
		f := newBillingFixture(t, false)
		// get_workspace_context sends the assistant to get_plans_and_billing
		// for prices, limits and usage: those are known without Stripe.
		ctxText := f.c.Result(vibesell.ToolGetWorkspaceContext, nil, nil)
		mustContain(t, ctxText, "get_plans_and_billing has prices, limits and usage")
		var plans plansOutput
		md := f.c.Result(vibesell.ToolGetPlansAndBilling, nil, &plans)
		if plans.Current != "free" || len(plans.Plans) < 2 || len(plans.Usage) != 4 || plans.NextInvoice != nil {
			t.Errorf("plans without Stripe: current %q, %d plans, %d usage rows, next invoice %v", plans.Current, len(plans.Plans), len(plans.Usage), plans.NextInvoice)
		}
		mustContain(t, md, "## Plan: Free", "### Usage", "### Plans",
			"Billing is not configured on this server, so no plan can be bought, changed or managed here (start_checkout, upgrade_plan and open_billing_portal refuse)")
		mustNotContain(t, md, "To subscribe, call")
		calls := map[string]any{
			vibesell.ToolStartCheckout:     map[string]any{"plan": "starter"},
			vibesell.ToolOpenBillingPortal: nil,
			vibesell.ToolUpgradePlan:       map[string]any{"plan": "growth"},
		}
		for name, args := range calls {
			t.Run(name, func(t *testing.T) {
				if got := f.c.Refusal(name, args); !strings.HasPrefix(got, "Billing is not configured on this server") {
					t.Errorf("refused with %q, want billing not configured", got)
				}
			})
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
