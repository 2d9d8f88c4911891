package billing_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"vibesell/billing"
	"vibesell/billing/billingtest"
)

// delivery is the webhook's answer to one call: its status and body.
type delivery struct {
	status int
	body   string
}

// answered is the 200 Stripe takes as delivered, saying what the webhook
// did (billing.EventApplied, EventDuplicate or EventIgnored).
func answered(body string) delivery { return delivery{status: http.StatusOK, body: body} }

// deliveries lets cmp compare deliveries.
var deliveries = cmp.AllowUnexported(delivery{})

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

// standing is what the webhook tests check of a workspace's billing: its
// plan, its subscription's status, and whether a payment failed unpaid.
type standing struct {
	Plan, Status  string
	Subscribed    bool
	PaymentFailed bool
}

func (b *bundle) standing(t *testing.T, ws uuid.UUID) standing {
	t.Helper()
	o, err := b.billing.Overview(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	return standing{Plan: o.Current.ID, Status: o.Status, Subscribed: o.Subscribed, PaymentFailed: o.PaymentFailedAt != nil}
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
			t.Errorf("wrong secret: %d %q, want 400", got.status, got.body)
		}
		// A body changed after signing.
		body, header := billingtest.Signed(t, ev, webhookSecret, b.clock.Now())
		tampered := bytes.Replace(body, []byte(b.ws.Acme.ID.String()), []byte(b.ws.Globex.ID.String()), -1)
		if got := post(t, url, tampered, header); got.status != http.StatusBadRequest {
			t.Errorf("tampered body: %d %q, want 400", got.status, got.body)
		}
		if got := post(t, url, body, ""); got.status != http.StatusBadRequest {
			t.Errorf("no signature: %d %q, want 400", got.status, got.body)
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
			t.Errorf("signed 5 minutes 1 second ago: %d %q, want 400 saying the tolerance", got.status, got.body)
		}
		if b.events(t) != 0 {
			t.Fatal("a stale call was recorded")
		}
		b.clock.Advance(-2 * time.Second)
		if got := deliver(t, url, ev, webhookSecret, signed); got.status != http.StatusOK {
			t.Errorf("signed 4 minutes 59 seconds ago: %d %q, want 200", got.status, got.body)
		}
	})

	t.Run("a stale signature with a fresh second timestamp is refused", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		url := webhookServer(t, b)
		_, _, ev := paid(t, b)
		old := b.clock.Now()
		body, header := billingtest.Signed(t, ev, webhookSecret, old)
		b.clock.Advance(time.Hour)
		// stripe-go checks the signature against the last t=; the fresh
		// one goes first, where the age was read.
		twice := fmt.Sprintf("t=%d,%s", b.clock.Now().Unix(), header)
		if got := post(t, url, body, twice); got.status != http.StatusBadRequest || !strings.Contains(got.body, "2 timestamps") {
			t.Errorf("fresh t= before the stale signature: %d %q, want 400 saying it has 2 timestamps", got.status, got.body)
		}
		fresh, freshHeader := billingtest.Signed(t, ev, webhookSecret, b.clock.Now())
		if got := post(t, url, fresh, freshHeader+",t="+strconv.FormatInt(b.clock.Now().Unix(), 10)); got.status != http.StatusBadRequest {
			t.Errorf("a fresh signature with its timestamp twice: %d %q, want 400", got.status, got.body)
		}
		if b.events(t) != 0 {
			t.Fatal("a call with two timestamps was recorded")
		}
	})

	t.Run("a signed event holding a NUL is refused, not failed", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		url := webhookServer(t, b)
		_, sub, _ := paid(t, b)
		for name, ev := range map[string]billingtest.Event{
			"in its id": {ID: "evt_\x00nul", Type: "customer.subscription.updated", Created: b.clock.Now(), Object: billingtest.SubscriptionObject(sub)},
			"in its customer": {ID: "evt_nul_customer", Type: "customer.subscription.updated", Created: b.clock.Now(),
				Object: map[string]any{"id": sub.ID, "object": "subscription", "customer": "cus_\x00", "status": "active"}},
		} {
			if got := deliver(t, url, ev, webhookSecret, b.clock.Now()); got.status != http.StatusBadRequest || !strings.Contains(got.body, "NUL") {
				t.Errorf("a NUL %s: %d %q, want 400 naming the NUL", name, got.status, got.body)
			}
		}
		if b.events(t) != 0 {
			t.Fatal("an event holding a NUL was recorded")
		}
	})

	t.Run("checkout completed, a duplicate, payment failed and paid, cancelled", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		url := webhookServer(t, b)
		customer, sub, completed := paid(t, b)
		if diff := cmp.Diff(answered(billing.EventApplied), deliver(t, url, completed, webhookSecret, b.clock.Now()), deliveries); diff != "" {
			t.Fatalf("checkout completed mismatch (-want +got):\n%s", diff)
		}
		reads := b.stripe.Calls("Subscription")
		if diff := cmp.Diff(answered(billing.EventDuplicate), deliver(t, url, completed, webhookSecret, b.clock.Now()), deliveries); diff != "" {
			t.Fatalf("the same event again mismatch (-want +got):\n%s", diff)
		}
		if b.stripe.Calls("Subscription") != reads || b.events(t) != 1 {
			t.Fatalf("a duplicate was applied again: %d subscription reads (was %d), %d events", b.stripe.Calls("Subscription"), reads, b.events(t))
		}
		if diff := cmp.Diff(standing{Plan: "starter", Status: "active", Subscribed: true}, b.standing(t, b.ws.Acme.ID)); diff != "" {
			t.Fatalf("after checkout mismatch (-want +got):\n%s", diff)
		}
		// The checkout is complete: a new one for the same plan is not
		// that one (the workspace is subscribed: it gets the portal).
		co, err := b.billing.StartCheckout(ctx, b.ws.Acme.ID, "starter")
		if err != nil {
			t.Fatal(err)
		}
		if !co.Portal {
			t.Fatalf("checkout after subscribing: session %q, want the portal", co.SessionID)
		}

		// A renewal fails: Stripe marks the subscription past due.
		sub.Status = "past_due"
		b.stripe.Set(sub)
		b.clock.Advance(time.Minute)
		failed := billingtest.Event{ID: "evt_failed", Type: "invoice.payment_failed", Created: b.clock.Now(),
			Object: billingtest.InvoiceObject("in_1", customer, sub.ID, b.ws.Acme.ID)}
		if diff := cmp.Diff(answered(billing.EventApplied), deliver(t, url, failed, webhookSecret, b.clock.Now()), deliveries); diff != "" {
			t.Fatalf("payment failed mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(standing{Plan: "starter", Status: "past_due", Subscribed: true, PaymentFailed: true}, b.standing(t, b.ws.Acme.ID)); diff != "" {
			t.Fatalf("after a failed payment mismatch (-want +got):\n%s", diff)
		}
		sum, err := b.billing.Summary(ctx, b.ws.Acme.ID)
		if err != nil {
			t.Fatal(err)
		}
		if sum.PaymentFailedAt == nil {
			t.Fatal("the context's summary misses the failed payment")
		}

		// The card is updated and the invoice paid.
		sub.Status = "active"
		b.stripe.Set(sub)
		paid := billingtest.Event{ID: "evt_paid", Type: "invoice.paid", Created: b.clock.Now(),
			Object: billingtest.InvoiceObject("in_1", customer, sub.ID, b.ws.Acme.ID)}
		if diff := cmp.Diff(answered(billing.EventApplied), deliver(t, url, paid, webhookSecret, b.clock.Now()), deliveries); diff != "" {
			t.Fatalf("invoice paid mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(standing{Plan: "starter", Status: "active", Subscribed: true}, b.standing(t, b.ws.Acme.ID)); diff != "" {
			t.Fatalf("after paying mismatch (-want +got):\n%s", diff)
		}

		// Cancelled in the portal, then ended.
		sub.Status = "canceled"
		b.stripe.Set(sub)
		deleted := billingtest.Event{ID: "evt_deleted", Type: "customer.subscription.deleted", Created: b.clock.Now(),
			Object: billingtest.SubscriptionObject(sub)}
		if diff := cmp.Diff(answered(billing.EventApplied), deliver(t, url, deleted, webhookSecret, b.clock.Now()), deliveries); diff != "" {
			t.Fatalf("subscription deleted mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(standing{Plan: "free", Status: "active"}, b.standing(t, b.ws.Acme.ID)); diff != "" {
			t.Fatalf("after the subscription ended mismatch (-want +got):\n%s", diff)
		}
		// Globex saw none of it.
		if diff := cmp.Diff(standing{Plan: "free", Status: "active"}, b.standing(t, b.ws.Globex.ID)); diff != "" {
			t.Fatalf("Globex mismatch (-want +got):\n%s", diff)
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
			if diff := cmp.Diff(answered(billing.EventApplied), deliver(t, url, ev, webhookSecret, b.clock.Now()), deliveries); diff != "" {
				t.Fatalf("%s mismatch (-want +got):\n%s", ev.Type, diff)
			}
		}
		if diff := cmp.Diff(standing{Plan: "growth", Status: "active", Subscribed: true}, b.standing(t, b.ws.Acme.ID)); diff != "" {
			t.Fatalf("after reversed events mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("an unknown event type is acknowledged and recorded, and changes nothing", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		url := webhookServer(t, b)
		ev := billingtest.Event{ID: "evt_unknown", Type: "customer.tax_id.created", Created: b.clock.Now(),
			Object: map[string]any{"id": "txi_1", "object": "tax_id"}}
		if diff := cmp.Diff(answered(billing.EventIgnored), deliver(t, url, ev, webhookSecret, b.clock.Now()), deliveries); diff != "" {
			t.Fatalf("unknown type mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(answered(billing.EventDuplicate), deliver(t, url, ev, webhookSecret, b.clock.Now()), deliveries); diff != "" {
			t.Fatalf("unknown type again mismatch (-want +got):\n%s", diff)
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
			t.Fatalf("unreadable subscription: %d %q, want 500 with a ref", got.status, got.body)
		}
		if b.events(t) != 0 {
			t.Fatal("an event whose effect failed was recorded: its redelivery would be skipped")
		}
	})
}
