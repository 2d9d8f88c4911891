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
