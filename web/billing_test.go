package web_test

import (
	"context"
	"encoding/json"
	"html"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"

	"vibesell"
	"vibesell/billing"
	"vibesell/billing/billingtest"
	"vibesell/web"
)

// billingApp is the web app with billing on an in-memory Stripe.
func billingApp(t *testing.T) (*app, *billing.Service, *billingtest.FakeStripe) {
	t.Helper()
	var svc *billing.Service
	var fake *billingtest.FakeStripe
	a := setup(t, func(a *app, cfg *web.Deps) {
		clock := vibesell.NewManualClock(time.Date(2026, 12, 1, 15, 20, 0, 0, time.UTC))
		plans := billing.DefaultConfig()
		fake = billingtest.NewFakeStripe(clock, plans.Plans)
		svc = billing.New(billing.Deps{DB: a.pool, Config: plans, Stripe: fake, Approvals: a.approvals, PublicURL: cfg.PublicURL,
			Clock: clock, Logger: slog.New(slog.DiscardHandler)})
		cfg.Billing = svc
	})
	return a, svc, fake
}

func TestBillingPage(t *testing.T) {
	t.Parallel()
	a, svc, fake := billingApp(t)
	ctx := context.Background()
	b := a.browser(t)
	b.signIn("ada@acme.test")

	if !strings.Contains(b.Get("/app/approvals").Body, `<a href="/app/billing">Billing</a>`) {
		t.Error("the approvals page does not link to the billing page")
	}
	p := b.Get("/app/billing")
	if p.Status != 200 {
		t.Fatalf("billing page: %d\n%s", p.Status, p.Body)
	}
	for _, want := range []string{"Your plan: Free", "USD 0.00 a month", "None: the workspace is on the Free plan, which costs nothing.",
		"Running campaigns are not counted against the plan yet.", "Stripe billing portal"} {
		if !strings.Contains(html.UnescapeString(p.Body), want) {
			t.Errorf("the free plan's page does not say %q", want)
		}
	}

	// Subscribed to Starter; then a renewal fails.
	co, err := svc.StartCheckout(ctx, a.acme.ID, "starter")
	if err != nil {
		t.Fatal(err)
	}
	params, _ := fake.Session(co.SessionID)
	sub := fake.Subscribe(a.acme.ID, params.Customer, params.Price, "past_due")
	for i, typ := range []string{"customer.subscription.created", "invoice.payment_failed"} {
		var object any = billingtest.SubscriptionObject(sub)
		if typ == "invoice.payment_failed" {
			object = billingtest.InvoiceObject("in_1", params.Customer, sub.ID, a.acme.ID)
		}
		body, _ := billingtest.Signed(t, billingtest.Event{ID: "evt_" + typ, Type: typ, Created: time.Date(2026, 12, 1, 15, 20, i, 0, time.UTC), Object: object}, "whsec_x", time.Now())
		var ev stripe.Event
		if err := json.Unmarshal(body, &ev); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.ApplyEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	p = b.Get("/app/billing")
	text := html.UnescapeString(p.Body)
	for _, want := range []string{"A payment failed on Tue 1 Dec 2026, 16:20 Europe/Paris.", "Update the card", "Your plan: Starter", "Payment overdue"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page of a failed payment does not say %q", want)
		}
	}
	portal := b.Post("/app/billing/portal", url.Values{"csrf": {p.CSRF(t)}})
	if portal.Status != 303 || !strings.HasPrefix(portal.Location, "https://billing.stripe.com/") {
		t.Fatalf("portal button: %d to %q", portal.Status, portal.Location)
	}
	// Without the page's token the portal is not opened.
	if refused := b.Post("/app/billing/portal", url.Values{}); refused.Status != 403 {
		t.Fatalf("portal without the CSRF token: %d", refused.Status)
	}

	// Globex's person sees Globex's billing.
	g := a.browser(t)
	g.signIn("bob@globex.test")
	if text := html.UnescapeString(g.Get("/app/billing").Body); !strings.Contains(text, "Your plan: Free") || strings.Contains(text, "payment failed") {
		t.Errorf("Globex's billing page shows Acme's billing")
	}
}

func TestBillingPageWithoutBilling(t *testing.T) {
	t.Parallel()
	a := setup(t)
	b := a.browser(t)
	b.signIn("ada@acme.test")
	p := b.Get("/app/billing")
	if p.Status != 200 || !strings.Contains(p.Body, "Billing is not set up on this server") {
		t.Fatalf("billing page without billing: %d\n%s", p.Status, p.Body)
	}
}

// Subscribe opens the Checkout session the assistant would hand out, and
// Change plan asks for the plan change's approval and opens it.
func TestBillingButtons(t *testing.T) {
	t.Parallel()
	a, svc, fake := billingApp(t)
	ctx := context.Background()
	b := a.browser(t)
	b.signIn("ada@acme.test")

	p := b.Get("/app/billing")
	for _, want := range []string{"Subscribe to Starter", "Subscribe to Growth", "Manage billing"} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("the free plan's page has no %q", want)
		}
	}
	if strings.Contains(p.Body, "Subscribe to Free") || strings.Contains(p.Body, "Change plan to") {
		t.Error("the free plan's page offers to subscribe to the free plan or to change a plan it has not got")
	}
	mustNotNameTools(t, p.Body)
	sub := b.Post("/app/billing/checkout", url.Values{"csrf": {p.CSRF(t)}, "plan": {"starter"}})
	if sub.Status != 303 || !strings.HasPrefix(sub.Location, "https://checkout.stripe.com/") {
		t.Fatalf("Subscribe: %d to %q\n%s", sub.Status, sub.Location, sub.Body)
	}
	// The same session as the assistant's.
	co, err := svc.StartCheckout(ctx, a.acme.ID, "starter")
	if err != nil || !co.Reused || co.URL != sub.Location {
		t.Fatalf("the assistant's checkout after the button's: %+v, %v", co, err)
	}
	if refused := b.Post("/app/billing/checkout", url.Values{"plan": {"starter"}}); refused.Status != 403 {
		t.Fatalf("Subscribe without the CSRF token: %d", refused.Status)
	}

	params, _ := fake.Session(co.SessionID)
	s := fake.Subscribe(a.acme.ID, params.Customer, params.Price, "active")
	body, _ := billingtest.Signed(t, billingtest.Event{ID: "evt_created", Type: "customer.subscription.created", Created: time.Date(2026, 12, 1, 15, 20, 0, 0, time.UTC),
		Object: billingtest.SubscriptionObject(s)}, "whsec_x", time.Now())
	var ev stripe.Event
	if err := json.Unmarshal(body, &ev); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ApplyEvent(ctx, ev); err != nil {
		t.Fatal(err)
	}
	a.approvals.Register(vibesell.ToolUpgradePlan, svc.ChangeExecutor())
	p = b.Get("/app/billing")
	if !strings.Contains(p.Body, "Change plan to Growth") || !strings.Contains(p.Body, "Change plan to Free") || strings.Contains(p.Body, "Subscribe to") {
		t.Fatalf("the subscribed page's buttons:\n%s", p.Body)
	}
	change := b.Post("/app/billing/change", url.Values{"csrf": {p.CSRF(t)}, "plan": {"growth"}})
	if change.Status != 303 || !strings.HasPrefix(change.Location, "/app/approvals/ap_") {
		t.Fatalf("Change plan: %d to %q\n%s", change.Status, change.Location, change.Body)
	}
	ap := b.Get(change.Location)
	if text := html.UnescapeString(ap.Body); !strings.Contains(text, "Change the plan from Starter to Growth") || !strings.Contains(text, "ada@acme.test") {
		t.Errorf("the plan change's approval page:\n%s", ap.Body)
	}
	// Asked again, the same approval.
	if again := b.Post("/app/billing/change", url.Values{"csrf": {p.CSRF(t)}, "plan": {"growth"}}); again.Location != change.Location {
		t.Errorf("Change plan twice: %q then %q", change.Location, again.Location)
	}
}

// Without Stripe the page still shows the plans, their limits and the
// workspace's usage, and offers nothing to buy.
func TestBillingPageWithoutStripe(t *testing.T) {
	t.Parallel()
	a := setup(t, func(a *app, cfg *web.Deps) {
		cfg.Billing = billing.New(billing.Deps{DB: a.pool, Config: billing.DefaultConfig(), Approvals: a.approvals, PublicURL: cfg.PublicURL,
			Logger: slog.New(slog.DiscardHandler)})
	})
	b := a.browser(t)
	b.signIn("ada@acme.test")
	p := b.Get("/app/billing")
	text := html.UnescapeString(p.Body)
	for _, want := range []string{"Billing is not set up on this server", "Your plan: Free", "Usage", "Starter", "Growth", "Leads a month"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page without Stripe does not say %q", want)
		}
	}
	for _, not := range []string{"Subscribe to", "Change plan to", "Manage billing"} {
		if strings.Contains(text, not) {
			t.Errorf("the page without Stripe offers %q", not)
		}
	}
}

// Subscribing from the page reaches Stripe (stripe-mock here): the button
// sends the person to the Checkout session's page.
func TestBillingSubscribeThroughStripeMock(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping stripe-mock in -short mode")
	}
	t.Parallel()
	base := billingtest.StripeMock(t)
	a := setup(t, func(a *app, cfg *web.Deps) {
		cfg.Billing = billing.New(billing.Deps{DB: a.pool, Config: billing.DefaultConfig(), Stripe: billing.NewStripe("sk_test_vibesell", base),
			Approvals: a.approvals, PublicURL: cfg.PublicURL, Logger: slog.New(slog.DiscardHandler)})
	})
	b := a.browser(t)
	b.signIn("ada@acme.test")
	p := b.Get("/app/billing")
	sub := b.Post("/app/billing/checkout", url.Values{"csrf": {p.CSRF(t)}, "plan": {"starter"}})
	if sub.Status != 303 || !strings.HasPrefix(sub.Location, "https://") {
		t.Fatalf("Subscribe through stripe-mock: %d to %q\n%s", sub.Status, sub.Location, sub.Body)
	}
	portal := b.Post("/app/billing/portal", url.Values{"csrf": {p.CSRF(t)}})
	if portal.Status != 303 || !strings.HasPrefix(portal.Location, "https://") {
		t.Fatalf("Manage billing through stripe-mock: %d to %q", portal.Status, portal.Location)
	}
}
