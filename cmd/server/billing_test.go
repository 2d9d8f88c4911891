package main

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"vibesell/billing/billingtest"
	"vibesell/store/storetest"
)

// A bad Stripe key or secret is named in the start-up error, never shown.
func TestStripeSecretsAreNotEchoed(t *testing.T) {
	t.Parallel()
	for name, value := range map[string]string{"STRIPE_SECRET_KEY": "pk_live_123", "STRIPE_WEBHOOK_SECRET": "abc123def"} {
		if _, err := runCmd(t, env(name, value), "migrate"); err == nil || strings.Contains(err.Error(), value) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The served server sells plans through Stripe (stripe-mock here) and
// takes Stripe's calls at /stripe/webhook.
func TestBillingIsServed(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping stripe-mock in -short mode")
	}
	t.Parallel()
	base := billingtest.StripeMock(t)
	const secret = "whsec_served_test"
	s := startServer(t, "DATABASE_URL", storetest.NewURL(t), "LOG_LEVEL", "warn",
		"STRIPE_SECRET_KEY", "sk_test_vibesell", "STRIPE_API_BASE", base, "STRIPE_WEBHOOK_SECRET", secret)
	s.waitReady(t)
	m := tokenInGreeting.FindStringSubmatch(s.stdout.String())
	if m == nil {
		t.Fatalf("no token in the greeting:\n%s", s.stdout)
	}
	session := initialize(t, s.addr, m[1])
	call := func(id int, tool string, args map[string]any) map[string]any {
		_, out := rpc(t, s.addr, m[1], session, map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
			"params": map[string]any{"name": tool, "arguments": args}})
		res, _ := out["result"].(map[string]any)
		if res == nil || res["isError"] == true {
			t.Fatalf("%s: %v", tool, out)
		}
		return res["structuredContent"].(map[string]any)
	}
	first := call(2, "start_checkout", map[string]any{"plan": "starter"})
	again := call(3, "start_checkout", map[string]any{"plan": "starter"})
	if url, _ := first["url"].(string); !strings.HasPrefix(url, "https://") || first["reused"] != false || again["reused"] != true || again["url"] != url {
		t.Fatalf("checkout through stripe-mock: %v then %v", first, again)
	}
	portal := call(4, "open_billing_portal", nil)
	if portal["kind"] != "portal" {
		t.Fatalf("portal: %v", portal)
	}

	post := func(body []byte, header string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, "http://"+s.addr+"/stripe/webhook", bytes.NewReader(body))
		req.Header.Set("Stripe-Signature", header)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, strings.TrimSpace(string(b))
	}
	ev := billingtest.Event{ID: "evt_served", Type: "customer.tax_id.created", Created: time.Now(), Object: map[string]any{"id": "txi_1"}}
	body, header := billingtest.Signed(t, ev, "whsec_wrong", time.Now())
	if code, _ := post(body, header); code != http.StatusBadRequest {
		t.Errorf("a wrongly signed call: %d, want 400", code)
	}
	body, header = billingtest.Signed(t, ev, secret, time.Now())
	if code, text := post(body, header); code != http.StatusOK || text != "ignored" {
		t.Errorf("a signed call of a type billing does not act on: %d %q, want 200 ignored", code, text)
	}
}
