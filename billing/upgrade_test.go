package billing_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"

	"vibesell"
	"vibesell/approvals"
	"vibesell/billing/billingtest"
	"vibesell/toolkit"
)

// approveAndRun approves the approval in the web app and works its
// execution job once, as the job workers would.
func (b *bundle) approveAndRun(t *testing.T, a approvals.Approval) approvals.Approval {
	t.Helper()
	ctx := context.Background()
	if _, _, err := b.approvals.Decide(ctx, a.WorkspaceID, a.ID, approvals.Decision{Approve: true, By: "sam@acme.test", Via: approvals.ViaWeb}); err != nil {
		t.Fatal(err)
	}
	b.runExecution(t, a)
	got, err := b.approvals.Find(ctx, a.WorkspaceID, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func (b *bundle) runExecution(t *testing.T, a approvals.Approval) {
	t.Helper()
	ctx := context.Background()
	w := rivertest.NewWorker(t, riverpgxv5.New(b.pool), &river.Config{}, &approvals.ExecuteWorker{Service: b.approvals})
	err := pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		_, err := w.Work(ctx, t, tx, approvals.ExecuteArgs{WorkspaceID: a.WorkspaceID, ApprovalID: a.ID}, nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// outcome is what the approval says was done, or why not; "" until it
// ends.
func outcome(a approvals.Approval) string {
	if a.Outcome == nil {
		return ""
	}
	return *a.Outcome
}

// asked is what a test checks of a plan change as it is asked: the
// action, whether it is decided in the conversation, its status and what
// it costs.
type asked struct {
	Action                string
	DecideHere            bool
	Status                approvals.Status
	CostOnce, CostMonthly vibesell.Money
}

func askedOf(a approvals.Approval) asked {
	return asked{Action: a.Action, DecideHere: a.DecideHere, Status: a.Status, CostOnce: a.Impact.CostOnce, CostMonthly: a.Impact.CostMonthly}
}

func TestUpgrade(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("to a dearer plan: the preview is charged once, with the approval's key", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		sub := b.subscribe(t, b.ws.Acme.ID, "starter")
		b.clock.Advance(10 * 24 * time.Hour) // a third of the period used
		a, created, err := b.billing.RequestChange(ctx, b.ws.Acme.ID, "growth", "the assistant")
		if err != nil || !created {
			t.Fatalf("RequestChange = %v, %v", created, err)
		}
		// USD 100.00 more per month, for 20 of 30 days, as of the start of
		// the hour.
		prorated := b.clock.Now().Truncate(time.Hour)
		wantCharge := vibesell.NewMoney(int64(10_000*sub.PeriodEnd.Sub(prorated).Seconds()/sub.PeriodEnd.Sub(sub.PeriodStart).Seconds()+0.5), "USD")
		// Decided in the web app.
		want := asked{Action: vibesell.ToolUpgradePlan, Status: approvals.Pending, CostOnce: wantCharge, CostMonthly: vibesell.NewMoney(14_900, "USD")}
		if diff := cmp.Diff(want, askedOf(a)); diff != "" {
			t.Fatalf("approval mismatch (-want +got):\n%s", diff)
		}
		if !strings.Contains(a.Impact.What, "Stripe charges "+wantCharge.String()+" now") || !strings.Contains(a.Impact.When, vibesell.FormatDate(sub.PeriodEnd)) {
			t.Errorf("impact does not state the charge and the date: what %q, when %q", a.Impact.What, a.Impact.When)
		}
		// The plan can be changed back; only the money charged now stays
		// charged.
		wantUndo := "The plan can be changed again at any time, back to Starter as well (a cheaper plan takes effect when a period ends). The " + wantCharge.String() + " charged now is not refunded."
		if a.Irreversible || a.Impact.Undo != wantUndo {
			t.Errorf("irreversible %v, undo %q; want false, %q", a.Irreversible, a.Impact.Undo, wantUndo)
		}
		// Asking again within the hour is the same approval.
		b.clock.Advance(10 * time.Minute)
		again, created, err := b.billing.RequestChange(ctx, b.ws.Acme.ID, "growth", "the assistant")
		if err != nil || created || again.ID != a.ID {
			t.Fatalf("asking again: %s (created %v), %v; want %s", again.ID, created, err, a.ID)
		}

		done := b.approveAndRun(t, a)
		if done.Status != approvals.Done || !strings.Contains(outcome(done), "on the Growth plan now") {
			t.Fatalf("after approval: %s, %q; want done, on the Growth plan now", done.Status, outcome(done))
		}
		charged, ok := b.stripe.Charged("approval:" + a.ID)
		if !ok || charged != wantCharge {
			t.Fatalf("charged %v (%v) under the approval's key, want %s", charged, ok, wantCharge)
		}
		// A second run of the job changes nothing more.
		b.runExecution(t, a)
		if n := b.stripe.Calls("ChangeNow"); n != 1 {
			t.Fatalf("the subscription was changed %d times, want once", n)
		}
		o, _ := b.billing.Overview(ctx, b.ws.Acme.ID)
		if o.Current.ID != "growth" {
			t.Fatalf("plan after the upgrade: %s", o.Current.ID)
		}
	})

	t.Run("to a cheaper plan: at the period's end, saying what stops working", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		sub := b.subscribe(t, b.ws.Acme.ID, "growth")
		b.mailboxes[b.ws.Acme.ID] = 20
		a, _, err := b.billing.RequestChange(ctx, b.ws.Acme.ID, "starter", "the assistant")
		if err != nil {
			t.Fatal(err)
		}
		want := approvals.Impact{
			What: "Moves the workspace from the Growth plan (USD 149.00 per month) to the Starter plan (USD 49.00 per month) when the current period ends; until then nothing changes. The limits become:",
			Items: []string{
				"15 mailboxes, instead of 45",
				"2,500 leads per month, instead of 10,000",
				"5 active campaigns, instead of 20",
				"15,000 emails per month, instead of 50,000",
				"Over the Starter plan's limit: the workspace has 20 mailboxes and Starter allows 15, so no more can be added until it is under the limit.",
			},
			Who:         "No one is contacted. Nothing is charged now.",
			When:        "On " + vibesell.FormatDate(sub.PeriodEnd) + ", when the current period ends.",
			CostOnce:    vibesell.NewMoney(0, "USD"),
			CostMonthly: vibesell.NewMoney(4_900, "USD"),
			Renewal:     "From " + vibesell.FormatDate(sub.PeriodEnd) + " it renews every month at USD 49.00 until cancelled in the billing portal.",
			Undo:        "Until " + vibesell.FormatDate(sub.PeriodEnd) + " the change can be called off in the billing portal; after it, the plan can be changed again at any time. Nothing already paid is refunded.",
		}
		if diff := cmp.Diff(want, a.Impact); diff != "" {
			t.Fatalf("downgrade impact mismatch (-want +got):\n%s", diff)
		}
		done := b.approveAndRun(t, a)
		if done.Status != approvals.Done {
			t.Fatalf("after approval: %s, %q; want done", done.Status, outcome(done))
		}
		if got := b.stripe.Scheduled(sub.ID); got != "price_vibesell_starter_monthly" {
			t.Fatalf("scheduled price %q", got)
		}
		o, err := b.billing.Overview(ctx, b.ws.Acme.ID)
		if err != nil {
			t.Fatal(err)
		}
		if tm := termsOf(o); tm.Plan != "growth" || tm.PendingPlan != "starter" {
			t.Fatalf("after scheduling: on %s, then %q; want growth, then starter", tm.Plan, tm.PendingPlan)
		}
		if _, _, err := b.billing.RequestChange(ctx, b.ws.Acme.ID, "starter", "the assistant"); vibesell.ErrorCode(err) != vibesell.ECONFLICT {
			t.Fatalf("asking for the scheduled change again: %v", err)
		}

		// The period ends: Stripe's schedule moves the subscription to
		// Starter and says so.
		b.clock.Set(sub.PeriodEnd)
		sub.Price, sub.PeriodStart, sub.PeriodEnd = "price_vibesell_starter_monthly", sub.PeriodEnd, sub.PeriodEnd.AddDate(0, 1, 0)
		b.stripe.Set(sub)
		if _, err := b.billing.ApplyEvent(ctx, stripeEvent(t, "evt_renewed", "customer.subscription.updated", b.clock.Now(), billingtest.SubscriptionObject(sub))); err != nil {
			t.Fatal(err)
		}
		if o, err = b.billing.Overview(ctx, b.ws.Acme.ID); err != nil {
			t.Fatal(err)
		}
		if tm := termsOf(o); tm.Plan != "starter" || tm.PendingPlan != "" || o.Usage[0].Limit != 15 {
			t.Fatalf("after the period's end: on %s, then %q, mailbox limit %d; want starter, no change pending, 15", tm.Plan, tm.PendingPlan, o.Usage[0].Limit)
		}
	})

	t.Run("to the free plan: the subscription ends with the period", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		sub := b.subscribe(t, b.ws.Acme.ID, "starter")
		a, _, err := b.billing.RequestChange(ctx, b.ws.Acme.ID, "free", "the assistant")
		if err != nil {
			t.Fatal(err)
		}
		want := approvals.Impact{CostMonthly: vibesell.NewMoney(0, "USD"), Renewal: "Nothing renews: no more invoices after the current period."}
		if diff := cmp.Diff(want, approvals.Impact{CostMonthly: a.Impact.CostMonthly, Renewal: a.Impact.Renewal}); diff != "" {
			t.Fatalf("impact of ending the subscription mismatch (-want +got):\n%s", diff)
		}
		done := b.approveAndRun(t, a)
		wantOutcome := "The Starter subscription ends on " + vibesell.FormatDate(sub.PeriodEnd) + "; the workspace is then on the Free plan and no more invoices come."
		if done.Status != approvals.Done || outcome(done) != wantOutcome {
			t.Fatalf("after approval: %s %q\nwant %q", done.Status, outcome(done), wantOutcome)
		}
		o, err := b.billing.Overview(ctx, b.ws.Acme.ID)
		if err != nil {
			t.Fatal(err)
		}
		// On Starter until the period ends, then Free, with nothing more to pay.
		wantTerms := terms{Plan: "starter", Status: "active", Subscribed: true, PeriodEnd: &sub.PeriodEnd, CancelAtPeriodEnd: true, PendingPlan: "free"}
		if diff := cmp.Diff(wantTerms, termsOf(o)); diff != "" {
			t.Fatalf("after cancelling mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("a subscription changed since the approval is not touched", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		sub := b.subscribe(t, b.ws.Acme.ID, "starter")
		a, _, err := b.billing.RequestChange(ctx, b.ws.Acme.ID, "growth", "the assistant")
		if err != nil {
			t.Fatal(err)
		}
		// The period renews before the person approves.
		sub.PeriodStart, sub.PeriodEnd = sub.PeriodEnd, sub.PeriodEnd.AddDate(0, 1, 0)
		b.stripe.Set(sub)
		ev := stripeEvent(t, "evt_renewed", "customer.subscription.updated", b.clock.Now(), billingtest.SubscriptionObject(sub))
		if _, err := b.billing.ApplyEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
		done := b.approveAndRun(t, a)
		if done.Status != approvals.NotDone || b.stripe.Calls("ChangeNow") != 0 {
			t.Fatalf("after approval: %s %q, %d changes; want not done, none", done.Status, outcome(done), b.stripe.Calls("ChangeNow"))
		}
	})

	t.Run("refusals", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		cases := []struct{ plan, code, says string }{
			{"growth", vibesell.EINVALID, "no paid subscription to change yet.\n\nNext:\n- Subscribe to the Growth plan. Call start_checkout with plan growth."},
			{"free", vibesell.ECONFLICT, "already on the Free plan"},
			{"gold", vibesell.EINVALID, `There is no plan "gold"`},
		}
		for _, c := range cases {
			t.Run(c.plan, func(t *testing.T) {
				_, _, err := b.billing.RequestChange(ctx, b.ws.Acme.ID, c.plan, "the assistant")
				if vibesell.ErrorCode(err) != c.code || !strings.Contains(toolkit.ForAssistant(err), c.says) {
					t.Errorf("%v, want %s saying %q", err, c.code, c.says)
				}
			})
		}
		b.subscribe(t, b.ws.Acme.ID, "starter")
		_, _, err := b.billing.RequestChange(ctx, b.ws.Acme.ID, "starter", "the assistant")
		if vibesell.ErrorCode(err) != vibesell.ECONFLICT {
			t.Errorf("to the same plan: %v", err)
		}
	})
}
