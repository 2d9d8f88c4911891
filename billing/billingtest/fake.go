// Package billingtest gives tests an in-memory Stripe that keeps state
// (customers, checkout sessions, subscriptions) and honours idempotency
// keys, for the business rules that stripe-mock, being stateless, cannot
// show; and signed webhook payloads.
package billingtest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stripe/stripe-go/v85/webhook"

	"vibesell"
	"vibesell/billing"
)

// FakeStripe is an in-memory [billing.Stripe]. Calls with an idempotency
// key already used return the first answer, as Stripe does.
type FakeStripe struct {
	Clock vibesell.Clock
	// Prices are the monthly amounts of the Stripe prices, for previews.
	Prices map[string]vibesell.Money

	mu        sync.Mutex
	seq       int
	calls     map[string]int
	keys      map[string]any
	customers map[string]uuid.UUID
	sessions  map[string]billing.CheckoutParams
	subs      map[string]billing.Subscription
	scheduled map[string]string // subscription → price from its period's end
	expired   map[string]bool   // checkout sessions expired
}

// NewFakeStripe returns a fake that knows the prices of cfg's plans.
func NewFakeStripe(clock vibesell.Clock, plans []billing.Plan) *FakeStripe {
	f := &FakeStripe{Clock: clock, Prices: map[string]vibesell.Money{}}
	for _, p := range plans {
		if p.StripePrice != "" {
			f.Prices[p.StripePrice] = p.Price
		}
	}
	return f
}

func (f *FakeStripe) init() {
	if f.calls == nil {
		f.calls = map[string]int{}
		f.keys = map[string]any{}
		f.customers = map[string]uuid.UUID{}
		f.sessions = map[string]billing.CheckoutParams{}
		f.subs = map[string]billing.Subscription{}
		f.scheduled = map[string]string{}
		f.expired = map[string]bool{}
	}
}

func (f *FakeStripe) id(prefix string) string {
	f.seq++
	return fmt.Sprintf("%s_fake%06d", prefix, f.seq)
}

// replay returns the first answer given under key, if any.
func replay[T any](f *FakeStripe, method, key string) (T, bool) {
	f.init()
	f.calls[method]++
	var zero T
	if key == "" {
		return zero, false
	}
	v, ok := f.keys[method+"\x00"+key]
	if !ok {
		return zero, false
	}
	return v.(T), true
}

func (f *FakeStripe) remember(method, key string, v any) {
	if key != "" {
		f.keys[method+"\x00"+key] = v
	}
}

// Calls returns how many times a method was called (replays included).
func (f *FakeStripe) Calls(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.init()
	return f.calls[method]
}

// Customers returns how many customers exist.
func (f *FakeStripe) Customers() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.init()
	return len(f.customers)
}

// Sessions returns how many checkout sessions exist.
func (f *FakeStripe) Sessions() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.init()
	return len(f.sessions)
}

// Session returns what a checkout session was created with.
func (f *FakeStripe) Session(id string) (billing.CheckoutParams, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.init()
	p, ok := f.sessions[id]
	return p, ok
}

func (f *FakeStripe) CreateCustomer(_ context.Context, ws uuid.UUID, _ string, key string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id, ok := replay[string](f, "CreateCustomer", key); ok {
		return id, nil
	}
	id := f.id("cus")
	f.customers[id] = ws
	f.remember("CreateCustomer", key, id)
	return id, nil
}

func (f *FakeStripe) CreateCheckout(_ context.Context, p billing.CheckoutParams, key string) (billing.CheckoutSession, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if cs, ok := replay[billing.CheckoutSession](f, "CreateCheckout", key); ok {
		return cs, nil
	}
	if _, ok := f.customers[p.Customer]; !ok {
		return billing.CheckoutSession{}, fmt.Errorf("fake stripe: no such customer %q", p.Customer)
	}
	id := f.id("cs")
	f.sessions[id] = p
	cs := billing.CheckoutSession{ID: id, URL: "https://checkout.stripe.com/c/pay/" + id, ExpiresAt: p.ExpiresAt.UTC().Truncate(time.Second)}
	f.remember("CreateCheckout", key, cs)
	return cs, nil
}

func (f *FakeStripe) ExpireCheckout(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	replay[string](f, "ExpireCheckout", "")
	if _, ok := f.sessions[id]; !ok {
		return fmt.Errorf("fake stripe: no such checkout session %q", id)
	}
	f.expired[id] = true
	return nil
}

// Expired reports whether a checkout session was expired.
func (f *FakeStripe) Expired(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.init()
	return f.expired[id]
}

func (f *FakeStripe) CreatePortal(_ context.Context, customer, _ string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	replay[string](f, "CreatePortal", "")
	if _, ok := f.customers[customer]; !ok {
		return "", fmt.Errorf("fake stripe: no such customer %q", customer)
	}
	return "https://billing.stripe.com/p/session/" + f.id("bps"), nil
}

// Subscribe makes the subscription a completed checkout makes: price, for
// workspace ws and its customer, in status, for a month from now.
func (f *FakeStripe) Subscribe(ws uuid.UUID, customer, price, status string) billing.Subscription {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.init()
	now := f.Clock.Now().UTC().Truncate(time.Second)
	sub := billing.Subscription{
		ID: f.id("sub"), Customer: customer, WorkspaceID: ws, Status: status, ItemID: f.id("si"), Price: price,
		PeriodStart: now, PeriodEnd: now.AddDate(0, 1, 0),
	}
	f.subs[sub.ID] = sub
	return sub
}

// Set replaces a subscription as Stripe holds it (a renewal, a failed
// payment, a cancellation made in the portal).
func (f *FakeStripe) Set(sub billing.Subscription) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.init()
	f.subs[sub.ID] = sub
}

// Scheduled returns the price a subscription moves to when its period
// ends, "" when none.
func (f *FakeStripe) Scheduled(sub string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.init()
	return f.scheduled[sub]
}

func (f *FakeStripe) Subscription(_ context.Context, id string) (billing.Subscription, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	replay[string](f, "Subscription", "")
	sub, ok := f.subs[id]
	if !ok {
		return billing.Subscription{}, fmt.Errorf("fake stripe: no such subscription %q", id)
	}
	return sub, nil
}

func (f *FakeStripe) NextInvoice(_ context.Context, s billing.Subscription) (billing.Invoice, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	replay[string](f, "NextInvoice", "")
	sub, ok := f.subs[s.ID]
	if !ok {
		return billing.Invoice{}, fmt.Errorf("fake stripe: no such subscription %q", s.ID)
	}
	price := sub.Price
	if p := f.scheduled[sub.ID]; p != "" {
		price = p
	}
	return billing.Invoice{AmountDue: f.Prices[price], Date: sub.PeriodEnd}, nil
}

// proration is what moving sub to price at at costs for the rest of the
// period, rounded to the minor unit.
func (f *FakeStripe) proration(sub billing.Subscription, price string, at time.Time) vibesell.Money {
	old, next := f.Prices[sub.Price], f.Prices[price]
	total := sub.PeriodEnd.Sub(sub.PeriodStart).Seconds()
	left := sub.PeriodEnd.Sub(at).Seconds()
	minor := int64(float64(next.Minor-old.Minor)*left/total + 0.5)
	return vibesell.NewMoney(minor, next.Currency)
}

func (f *FakeStripe) PreviewChange(_ context.Context, s billing.Subscription, price string, at time.Time) (billing.Invoice, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	replay[string](f, "PreviewChange", "")
	sub, ok := f.subs[s.ID]
	if !ok {
		return billing.Invoice{}, fmt.Errorf("fake stripe: no such subscription %q", s.ID)
	}
	return billing.Invoice{AmountDue: f.proration(sub, price, at), Date: at}, nil
}

// Charged is what the fake charged, per idempotency key of ChangeNow.
func (f *FakeStripe) Charged(key string) (vibesell.Money, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.init()
	m, ok := f.keys["charge\x00"+key].(vibesell.Money)
	return m, ok
}

func (f *FakeStripe) ChangeNow(_ context.Context, s billing.Subscription, price string, at time.Time, key string) (billing.Subscription, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if sub, ok := replay[billing.Subscription](f, "ChangeNow", key); ok {
		return sub, nil
	}
	sub, ok := f.subs[s.ID]
	if !ok || sub.ItemID != s.ItemID {
		return billing.Subscription{}, fmt.Errorf("fake stripe: no such subscription item %q", s.ItemID)
	}
	f.remember("charge", key, f.proration(sub, price, at))
	sub.Price = price
	f.subs[sub.ID] = sub
	f.remember("ChangeNow", key, sub)
	return sub, nil
}

func (f *FakeStripe) ChangeAtPeriodEnd(_ context.Context, s billing.Subscription, price string, key string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := replay[bool](f, "ChangeAtPeriodEnd", key); ok {
		return nil
	}
	if _, ok := f.subs[s.ID]; !ok {
		return fmt.Errorf("fake stripe: no such subscription %q", s.ID)
	}
	f.scheduled[s.ID] = price
	f.remember("ChangeAtPeriodEnd", key, true)
	return nil
}

func (f *FakeStripe) CancelAtPeriodEnd(_ context.Context, s billing.Subscription, key string) (billing.Subscription, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if sub, ok := replay[billing.Subscription](f, "CancelAtPeriodEnd", key); ok {
		return sub, nil
	}
	sub, ok := f.subs[s.ID]
	if !ok {
		return billing.Subscription{}, fmt.Errorf("fake stripe: no such subscription %q", s.ID)
	}
	sub.CancelAtPeriodEnd = true
	f.subs[sub.ID] = sub
	f.remember("CancelAtPeriodEnd", key, sub)
	return sub, nil
}

// Event is a Stripe event for a test to sign and deliver.
type Event struct {
	ID      string
	Type    string
	Created time.Time
	Object  any // marshalled as data.object
}

// Signed returns the body of ev and its Stripe-Signature header, signed
// with secret at signedAt.
func Signed(t testing.TB, ev Event, secret string, signedAt time.Time) (body []byte, header string) {
	t.Helper()
	obj, err := json.Marshal(ev.Object)
	if err != nil {
		t.Fatal(err)
	}
	body, err = json.Marshal(map[string]any{
		"id": ev.ID, "object": "event", "type": ev.Type, "created": ev.Created.Unix(),
		"api_version": "2026-03-25.dahlia", "livemode": false, "pending_webhooks": 1,
		"data": map[string]json.RawMessage{"object": obj},
	})
	if err != nil {
		t.Fatal(err)
	}
	signed := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: body, Secret: secret, Timestamp: signedAt})
	return body, signed.Header
}

// SubscriptionObject is how a subscription appears in an event's
// data.object (only what billing reads).
func SubscriptionObject(sub billing.Subscription) map[string]any {
	return map[string]any{
		"id": sub.ID, "object": "subscription", "customer": sub.Customer, "status": sub.Status,
		"metadata": map[string]string{"workspace_id": sub.WorkspaceID.String()},
	}
}

// CheckoutObject is a completed checkout session in an event.
func CheckoutObject(session string, ws uuid.UUID, customer, subscription string) map[string]any {
	return map[string]any{
		"id": session, "object": "checkout.session", "client_reference_id": ws.String(), "customer": customer,
		"subscription": subscription, "mode": "subscription", "status": "complete", "payment_status": "paid",
		"metadata": map[string]string{"workspace_id": ws.String()},
	}
}

// InvoiceObject is an invoice of a subscription in an event.
func InvoiceObject(id, customer, subscription string, ws uuid.UUID) map[string]any {
	return map[string]any{
		"id": id, "object": "invoice", "customer": customer,
		"parent": map[string]any{"type": "subscription_details", "subscription_details": map[string]any{
			"subscription": subscription, "metadata": map[string]string{"workspace_id": ws.String()},
		}},
	}
}
