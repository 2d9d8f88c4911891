package billing_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"vibesell/billing"
	"vibesell/billing/billingtest"
)

type delivery struct {
	status int
	body   string
}

// deliver posts ev to the webhook as Stripe does, signed with secret at
// signedAt.
func deliver(t *testing.T, url string, ev billingtest.Event, secret string, signedAt time.Time) delivery {
	t.Helper()
	body, header := billingtest.Signed(t, ev, secret, signedAt)
	return post(t, url, body, header)
}

func post(t *testing.T, url string, body []byte, header string) delivery {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Stripe-Signature", header)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return delivery{status: res.StatusCode, body: strings.TrimSpace(string(b))}
}

func (b *bundle) events(t *testing.T) int {
	t.Helper()
	var n int
	if err := b.pool.QueryRow(context.Background(), `SELECT count(*) FROM stripe_events`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestWebhook(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	webhookServer := func(t *testing.T, b *bundle) string {
		srv := httptest.NewServer(b.billing.WebhookHandler())
		t.Cleanup(srv.Close)
		return srv.URL + billing.WebhookPath
	}
	// A workspace that opened a checkout: Stripe knows its customer.
	checkedOut := func(t *testing.T, b *bundle) (session, customer string) {
		co, err := b.billing.StartCheckout(ctx, b.ws.Acme.ID, "starter")
		if err != nil {
			t.Fatal(err)
		}
		p, _ := b.stripe.Session(co.SessionID)
		return co.SessionID, p.Customer
	}
	// A checkout paid at Stripe, and the event that says so.
	paid := func(t *testing.T, b *bundle) (customer string, sub billing.Subscription, completed billingtest.Event) {
		session, customer := checkedOut(t, b)
		sub = b.stripe.Subscribe(b.ws.Acme.ID, customer, "price_vibesell_starter_monthly", "active")
		return customer, sub, billingtest.Event{ID: "evt_completed", Type: "checkout.session.completed", Created: b.clock.Now(),
			Object: billingtest.CheckoutObject(session, b.ws.Acme.ID, customer, sub.ID)}
	}

	t.Run("a bad signature is refused and changes nothing", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		url := webhookServer(t, b)
		_, _, ev := paid(t, b)
		if got := deliver(t, url, ev, "whsec_someone_else", b.clock.Now()); got.status != http.StatusBadRequest {
			t.Errorf("wrong secret: %+v, want 400", got)
		}
		// A body changed after signing.
		body, header := billingtest.Signed(t, ev, webhookSecret, b.clock.Now())
		tampered := bytes.Replace(body, []byte(b.ws.Acme.ID.String()), []byte(b.ws.Globex.ID.String()), -1)
		if got := post(t, url, tampered, header); got.status != http.StatusBadRequest {
			t.Errorf("tampered body: %+v, want 400", got)
		}
		if got := post(t, url, body, ""); got.status != http.StatusBadRequest {
			t.Errorf("no signature: %+v, want 400", got)
		}
		o, err := b.billing.Overview(ctx, b.ws.Acme.ID)
		if err != nil {
			t.Fatal(err)
		}
		if o.Current.ID != "free" || b.events(t) != 0 {
			t.Fatalf("after refused calls: plan %s, %d events recorded", o.Current.ID, b.events(t))
		}
	})

	t.Run("a signature older than five minutes is refused; one within them is applied", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		url := webhookServer(t, b)
		_, _, ev := paid(t, b)
		signed := b.clock.Now()
		b.clock.Advance(5*time.Minute + time.Second)
		if got := deliver(t, url, ev, webhookSecret, signed); got.status != http.StatusBadRequest || !strings.Contains(got.body, "tolerance") {
			t.Errorf("signed 5 minutes 1 second ago: %+v, want 400", got)
		}
		if b.events(t) != 0 {
			t.Fatal("a stale call was recorded")
		}
		b.clock.Advance(-2 * time.Second)
		if got := deliver(t, url, ev, webhookSecret, signed); got.status != http.StatusOK {
			t.Errorf("signed 4 minutes 59 seconds ago: %+v, want 200", got)
		}
	})

	t.Run("checkout completed, a duplicate, payment failed and paid, cancelled", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		url := webhookServer(t, b)
		customer, sub, completed := paid(t, b)
		if got := deliver(t, url, completed, webhookSecret, b.clock.Now()); got != (delivery{200, billing.EventApplied}) {
			t.Fatalf("checkout completed: %+v", got)
		}
		reads := b.stripe.Calls("Subscription")
		if got := deliver(t, url, completed, webhookSecret, b.clock.Now()); got != (delivery{200, billing.EventDuplicate}) {
			t.Fatalf("the same event again: %+v, want 200 %q", got, billing.EventDuplicate)
		}
		if b.stripe.Calls("Subscription") != reads || b.events(t) != 1 {
			t.Fatalf("a duplicate was applied again: %d subscription reads (was %d), %d events", b.stripe.Calls("Subscription"), reads, b.events(t))
		}
		o, _ := b.billing.Overview(ctx, b.ws.Acme.ID)
		if o.Current.ID != "starter" || o.Status != "active" {
			t.Fatalf("after checkout: %s %s", o.Current.ID, o.Status)
		}
		// The checkout is complete: a new one for the same plan is not
		// that one (the workspace is subscribed: it gets the portal).
		if co, err := b.billing.StartCheckout(ctx, b.ws.Acme.ID, "starter"); err != nil || !co.Portal {
			t.Fatalf("checkout after subscribing: %+v, %v", co, err)
		}

		// A renewal fails: Stripe marks the subscription past due.
		sub.Status = "past_due"
		b.stripe.Set(sub)
		b.clock.Advance(time.Minute)
		failed := billingtest.Event{ID: "evt_failed", Type: "invoice.payment_failed", Created: b.clock.Now(),
			Object: billingtest.InvoiceObject("in_1", customer, sub.ID, b.ws.Acme.ID)}
		if got := deliver(t, url, failed, webhookSecret, b.clock.Now()); got != (delivery{200, billing.EventApplied}) {
			t.Fatalf("payment failed: %+v", got)
		}
		o, _ = b.billing.Overview(ctx, b.ws.Acme.ID)
		if o.Status != "past_due" || o.PaymentFailedAt == nil || o.Current.ID != "starter" {
			t.Fatalf("after a failed payment: status %s, failed at %v, plan %s", o.Status, o.PaymentFailedAt, o.Current.ID)
		}
		sum, err := b.billing.Summary(ctx, b.ws.Acme.ID)
		if err != nil || sum.PaymentFailedAt == nil {
			t.Fatalf("the context's summary misses the failed payment: %+v, %v", sum, err)
		}

		// The card is updated and the invoice paid.
		sub.Status = "active"
		b.stripe.Set(sub)
		paid := billingtest.Event{ID: "evt_paid", Type: "invoice.paid", Created: b.clock.Now(),
			Object: billingtest.InvoiceObject("in_1", customer, sub.ID, b.ws.Acme.ID)}
		if got := deliver(t, url, paid, webhookSecret, b.clock.Now()); got != (delivery{200, billing.EventApplied}) {
			t.Fatalf("invoice paid: %+v", got)
		}
		o, _ = b.billing.Overview(ctx, b.ws.Acme.ID)
		if o.Status != "active" || o.PaymentFailedAt != nil {
			t.Fatalf("after paying: status %s, failed at %v", o.Status, o.PaymentFailedAt)
		}

		// Cancelled in the portal, then ended.
		sub.Status = "canceled"
		b.stripe.Set(sub)
		deleted := billingtest.Event{ID: "evt_deleted", Type: "customer.subscription.deleted", Created: b.clock.Now(),
			Object: billingtest.SubscriptionObject(sub)}
		if got := deliver(t, url, deleted, webhookSecret, b.clock.Now()); got != (delivery{200, billing.EventApplied}) {
			t.Fatalf("subscription deleted: %+v", got)
		}
		o, _ = b.billing.Overview(ctx, b.ws.Acme.ID)
		if o.Current.ID != "free" || o.Subscribed {
			t.Fatalf("after the subscription ended: plan %s, subscribed %v", o.Current.ID, o.Subscribed)
		}
		// Globex saw none of it.
		if g, _ := b.billing.Overview(ctx, b.ws.Globex.ID); g.Current.ID != "free" || g.PaymentFailedAt != nil {
			t.Fatalf("Globex: %+v", g)
		}
	})

	t.Run("events in reverse order leave the subscription as Stripe has it now", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		url := webhookServer(t, b)
		_, customer := checkedOut(t, b)
		// Created incomplete on Starter, then paid and moved to Growth:
		// Stripe has it active on Growth now. The updated event arrives
		// first, the created one last.
		sub := b.stripe.Subscribe(b.ws.Acme.ID, customer, "price_vibesell_starter_monthly", "incomplete")
		older := billingtest.SubscriptionObject(sub)
		sub.Status, sub.Price = "active", "price_vibesell_growth_monthly"
		b.stripe.Set(sub)
		newer := billingtest.SubscriptionObject(sub)
		updated := billingtest.Event{ID: "evt_updated", Type: "customer.subscription.updated", Created: b.clock.Now().Add(time.Second), Object: newer}
		created := billingtest.Event{ID: "evt_created", Type: "customer.subscription.created", Created: b.clock.Now(), Object: older}
		for _, ev := range []billingtest.Event{updated, created} {
			if got := deliver(t, url, ev, webhookSecret, b.clock.Now()); got != (delivery{200, billing.EventApplied}) {
				t.Fatalf("%s: %+v", ev.Type, got)
			}
		}
		o, err := b.billing.Overview(ctx, b.ws.Acme.ID)
		if err != nil {
			t.Fatal(err)
		}
		got := []string{o.Current.ID, o.Status}
		if diff := cmp.Diff([]string{"growth", "active"}, got); diff != "" {
			t.Fatalf("plan and status after reversed events (-want +got):\n%s", diff)
		}
	})

	t.Run("an unknown event type is acknowledged and recorded, and changes nothing", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		url := webhookServer(t, b)
		ev := billingtest.Event{ID: "evt_unknown", Type: "customer.tax_id.created", Created: b.clock.Now(),
			Object: map[string]any{"id": "txi_1", "object": "tax_id"}}
		if got := deliver(t, url, ev, webhookSecret, b.clock.Now()); got != (delivery{200, billing.EventIgnored}) {
			t.Fatalf("unknown type: %+v, want 200 %q", got, billing.EventIgnored)
		}
		if got := deliver(t, url, ev, webhookSecret, b.clock.Now()); got != (delivery{200, billing.EventDuplicate}) {
			t.Fatalf("unknown type again: %+v, want 200 %q", got, billing.EventDuplicate)
		}
		var accounts int
		if err := b.pool.QueryRow(ctx, `SELECT count(*) FROM billing_accounts`).Scan(&accounts); err != nil {
			t.Fatal(err)
		}
		if accounts != 0 || b.events(t) != 1 {
			t.Fatalf("%d billing accounts, %d events", accounts, b.events(t))
		}
	})

	t.Run("a failure to read Stripe answers 500 so that Stripe delivers again", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		url := webhookServer(t, b)
		_, customer := checkedOut(t, b)
		ev := billingtest.Event{ID: "evt_missing", Type: "customer.subscription.updated", Created: b.clock.Now(),
			Object: map[string]any{"id": "sub_nowhere", "object": "subscription", "customer": customer, "status": "active"}}
		if got := deliver(t, url, ev, webhookSecret, b.clock.Now()); got.status != http.StatusInternalServerError || !strings.Contains(got.body, "ref") {
			t.Fatalf("unreadable subscription: %+v, want 500 with a ref", got)
		}
		if b.events(t) != 0 {
			t.Fatal("an event whose effect failed was recorded: its redelivery would be skipped")
		}
	})
}
