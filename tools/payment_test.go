package tools

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vibesell"
	"vibesell/billing/billingtest"
)

// billingCallsAllowed are the billing methods a tool may call, none of
// which moves money: a Checkout page or a portal link that only the
// person opens (and pays on, at Stripe), the plans read, and a plan
// change asked through an approval only a signed-in person approves in
// the web app.
var billingCallsAllowed = []string{"StartCheckout", "OpenPortal", "Overview", "RequestChange", "ContextPart"}

// No tool can complete a payment: the directories' policy is that money
// moves only in the web app and at Stripe. The catalog calls billing only
// through methods that make a link or ask for an approval (read from the
// source, so a tool that starts charging fails here), and, run against a
// Stripe that records everything, every paid tool leaves no subscription,
// no change and no charge behind: the conversation's approval of a paid
// change is refused with the web app's link.
func TestNoToolCompletesAPayment(t *testing.T) {
	t.Run("the catalog calls only billing methods that move no money", func(t *testing.T) {
		files, err := filepath.Glob("*.go")
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		seen := 0
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(fset, name, src, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if inner, ok := sel.X.(*ast.SelectorExpr); ok && inner.Sel.Name == "Billing" {
					seen++
					if !slices.Contains(billingCallsAllowed, sel.Sel.Name) {
						t.Errorf("%s: a tool calls Billing.%s, which is not one of the methods that move no money (%s)",
							fset.Position(sel.Pos()), sel.Sel.Name, strings.Join(billingCallsAllowed, ", "))
					}
				}
				return true
			})
		}
		if seen == 0 {
			t.Fatal("no call to Billing found: the check reads nothing")
		}
	})

	t.Run("every paid tool leaves Stripe untouched but for a page", func(t *testing.T) {
		f := newBillingFixture(t, true)
		var checkout checkoutOutput
		md := f.c.Result(vibesell.ToolStartCheckout, map[string]any{"plan": "starter"}, &checkout)
		if !strings.HasPrefix(checkout.URL, "https://") || !strings.Contains(md, "only they open it and pay there") {
			t.Errorf("checkout gives no page for the person to pay on:\n%s", md)
		}
		var portal portalOutput
		f.c.Result(vibesell.ToolOpenBillingPortal, nil, &portal)

		// Subscribed (as Stripe would say after the person paid on its
		// page), a change of plan is only asked, and the conversation
		// cannot approve it.
		params, _ := f.stripe.Session(*checkout.Session)
		sub := f.stripe.Subscribe(f.ws.Acme.ID, params.Customer, params.Price, "active")
		body, _ := billingtest.Signed(t, billingtest.Event{ID: "evt_1", Type: "customer.subscription.created", Created: f.clock.Now(),
			Object: billingtest.SubscriptionObject(sub)}, "whsec_x", f.clock.Now())
		if _, err := f.billing.ApplyEvent(t.Context(), parseEvent(t, body)); err != nil {
			t.Fatal(err)
		}
		var ap approvalOutput
		f.c.Result(vibesell.ToolUpgradePlan, map[string]any{"plan": "growth"}, &ap)
		if ap.DecideHere || ap.AppURL == "" {
			t.Fatalf("a paid change may be decided in the conversation (decideHere %v, appUrl %q)", ap.DecideHere, ap.AppURL)
		}
		refusal := f.c.Refusal(vibesell.ToolDecideApproval, map[string]any{"approval": ap.Approval, "decision": "approve"})
		if !strings.Contains(refusal, ap.AppURL) {
			t.Errorf("approving a paid change in the conversation: %s", refusal)
		}
		for _, call := range []string{"ChangeNow", "ChangeAtPeriodEnd", "CancelAtPeriodEnd"} {
			if n := f.stripe.Calls(call); n != 0 {
				t.Errorf("Stripe was asked to %s %d times by the tools", call, n)
			}
		}
		if _, charged := f.stripe.Charged("approval:" + ap.Approval); charged {
			t.Error("Stripe charged for the plan change the conversation asked")
		}
		if got := f.stripe.Scheduled(sub.ID); got != "" {
			t.Errorf("a change is scheduled at Stripe: %s", got)
		}
	})
}
