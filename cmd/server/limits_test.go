package main

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"vibesell/approvals"
	"vibesell/approvals/approvalstest"
	"vibesell/audience"
	"vibesell/web/webtest"
)

// The features are held to the plan as cmd/server wires them: ordering
// mailboxes, importing leads and the campaigns running are counted, and
// get_plans_and_billing shows the counts; an import above the plan is
// refused with the limit, the usage and the way up.
func TestLimitsAreCountedAndHeld(t *testing.T) {
	t.Parallel()
	f := setupBilledFlow(t, "mailboxes=3,leads=2,campaigns=1")
	ctx := context.Background()
	acme := f.two.Acme.ID

	f.planSetup() // three mailboxes
	var order approvalResult
	f.call("order_sending_setup", nil, &order)
	b := webtest.New(t, f.web.URL)
	b.SignIn("ada@acme.test", flowPassword, approvals.AppPath(order.Approval))
	page := b.Get(order.AppURL)
	if r := b.Post(order.AppURL+"/approve", url.Values{"csrf": {page.CSRF(t)}, "confirm": {"yes"}}); r.Status != http.StatusSeeOther {
		t.Fatalf("approve the order: %d\n%s", r.Status, r.Body)
	}
	if done := approvalstest.Execute(t, f.pool, f.svc.approvals, order.Approval); done.Status != approvals.Done {
		t.Fatalf("order: %s %v", done.Status, done.Outcome)
	}

	if _, err := audience.LoadSampleDirectory(ctx, f.pool); err != nil {
		t.Fatal(err)
	}
	saved, err := f.svc.audience.SaveFilters(ctx, acme, audience.Filters{Regions: []string{"Europe"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.audience.Confirm(ctx, acme, saved.Target.FiltersVersion); err != nil {
		t.Fatal(err)
	}
	t.Run("an import above the plan is refused with the limit, the usage and the way up", func(t *testing.T) {
		got := f.c.Refusal("import_leads", map[string]any{"count": 3})
		want := "The Free plan allows 2 leads this month; 0 in use, so 3 more would go over. The Starter plan allows 2,500 leads for USD 49.00 per month.\n\nNext:\n- Subscribe to the Starter plan. Call start_checkout with plan starter."
		if got != want {
			t.Errorf("refusal:\n got %q\nwant %q", got, want)
		}
	})
	var imp approvalResult
	f.call("import_leads", map[string]any{"count": 2}, &imp)
	if !imp.DecideHere {
		t.Errorf("an import within the plan costs nothing and may be decided here: approval %s is %s, decided only in the web app", imp.Approval, imp.Status)
	}
	if _, _, err := f.svc.approvals.Decide(ctx, acme, imp.Approval, approvals.Decision{Approve: true, By: "ada@acme.test", Via: approvals.ViaConversation}); err != nil {
		t.Fatal(err)
	}
	if done := approvalstest.Execute(t, f.pool, f.svc.approvals, imp.Approval); done.Status != approvals.Done {
		t.Fatalf("import: %s %v", done.Status, done.Outcome)
	}

	type usage struct {
		Limit   string `json:"limit"`
		Allowed int    `json:"allowed"`
		Used    *int   `json:"used"`
	}
	var plans struct {
		Usage []usage `json:"usage"`
	}
	f.call("get_plans_and_billing", nil, &plans)
	three, two, zero := 3, 2, 0
	want := []usage{
		{Limit: "mailboxes", Allowed: 3, Used: &three},
		{Limit: "leads", Allowed: 2, Used: &two},
		{Limit: "active_campaigns", Allowed: 1, Used: &zero},
		{Limit: "emails", Allowed: 1000, Used: &zero}, // counted by billing as the engine sends
	}
	if d := cmp.Diff(want, plans.Usage); d != "" {
		t.Errorf("usage mismatch (-want +got):\n%s", d)
	}
	t.Run("a second order above the plan's mailboxes is refused", func(t *testing.T) {
		f.answer("propose_domains", map[string]any{}, "")
		f.answer("propose_email", map[string]any{"senderNames": []string{"Ada Lovelace"}}, "first_name")
		got := f.c.Refusal("order_sending_setup", nil)
		want := "The Free plan allows 3 mailboxes; 3 in use, so 3 more would go over. The Starter plan allows 15 mailboxes for USD 49.00 per month.\n\nNext:\n- Subscribe to the Starter plan. Call start_checkout with plan starter."
		if got != want {
			t.Errorf("refusal:\n got %q\nwant %q", got, want)
		}
	})
}
