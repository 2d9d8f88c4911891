package billing_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"vibesell/billing"
	"vibesell/billing/billingtest"
)

// Every request billing makes of Stripe fits Stripe's API as stripe-mock
// knows it (it refuses a parameter that is not in the spec, or of the wrong
// form, with a 400).
func TestStripeRequestShapes(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping stripe-mock in -short mode")
	}
	base := billingtest.StripeMock(t)
	api := billing.NewStripe("sk_test_vibesell", base)
	ctx := context.Background()
	ws := uuid.New()
	plans := billing.DefaultConfig().Plans
	starter, growth := plans[1], plans[2]

	customer, err := api.CreateCustomer(ctx, ws, "Acme", "customer:"+ws.String())
	if err != nil || !strings.HasPrefix(customer, "cus_") {
		t.Fatalf("CreateCustomer = %q, %v", customer, err)
	}
	cs, err := api.CreateCheckout(ctx, billing.CheckoutParams{
		WorkspaceID: ws, Plan: starter.ID, Customer: customer, Price: starter.StripePrice,
		SuccessURL: "http://127.0.0.1:8080/app/billing?checkout=done", CancelURL: "http://127.0.0.1:8080/app/billing",
		ExpiresAt: time.Now().Add(23 * time.Hour),
	}, "checkout:"+ws.String()+":starter:1")
	if err != nil {
		t.Fatalf("CreateCheckout: %v", err)
	}
	if cs.ID == "" || !strings.HasPrefix(cs.URL, "https://") {
		t.Fatalf("CreateCheckout: session %q at %q, want an id and an https URL", cs.ID, cs.URL)
	}
	if err := api.ExpireCheckout(ctx, cs.ID); err != nil {
		t.Errorf("ExpireCheckout: %v", err)
	}
	portal, err := api.CreatePortal(ctx, customer, "http://127.0.0.1:8080/app/billing")
	if err != nil || portal == "" {
		t.Fatalf("CreatePortal = %q, %v", portal, err)
	}
	sub, err := api.Subscription(ctx, "sub_vibesell")
	if err != nil {
		t.Fatalf("Subscription: %v", err)
	}
	if sub.ID != "sub_vibesell" {
		t.Fatalf("Subscription: %q, want sub_vibesell", sub.ID)
	}
	// stripe-mock's fixture has no item id of ours; give the calls one.
	sub.ItemID, sub.Price = "si_vibesell", starter.StripePrice
	sub.PeriodStart, sub.PeriodEnd = time.Now().Add(-24*time.Hour), time.Now().AddDate(0, 1, 0)
	if _, err := api.NextInvoice(ctx, sub); err != nil {
		t.Errorf("NextInvoice: %v", err)
	}
	if _, err := api.PreviewChange(ctx, sub, growth.StripePrice, time.Now().Truncate(time.Hour)); err != nil {
		t.Errorf("PreviewChange: %v", err)
	}
	if _, err := api.ChangeNow(ctx, sub, growth.StripePrice, time.Now().Truncate(time.Hour), "approval:ap_0123456789abcdef"); err != nil {
		t.Errorf("ChangeNow: %v", err)
	}
	if err := api.ChangeAtPeriodEnd(ctx, sub, starter.StripePrice, "approval:ap_0123456789abcdee"); err != nil {
		t.Errorf("ChangeAtPeriodEnd: %v", err)
	}
	if _, err := api.CancelAtPeriodEnd(ctx, sub, "approval:ap_0123456789abcded"); err != nil {
		t.Errorf("CancelAtPeriodEnd: %v", err)
	}

	// And a request that does not fit is refused: the mock does check, so
	// the calls above would fail with a parameter Stripe does not know.
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/checkout/sessions",
		strings.NewReader("mode=subscription&customer="+customer+"&subscription_metadata[workspace_id]=x"))
	req.Header.Set("Authorization", "Bearer sk_test_vibesell")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("stripe-mock answered %d to an unknown parameter, want 400: it is not checking shapes", res.StatusCode)
	}
}
