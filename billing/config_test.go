package billing_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"vibesell/billing"
)

func TestConfigFromEnv(t *testing.T) {
	t.Parallel()
	env := func(pairs map[string]string) func(string) string { return func(k string) string { return pairs[k] } }

	t.Run("without a Stripe key the free plan stops no one, unless its limits are set", func(t *testing.T) {
		cfg, err := billing.ConfigFromEnv(env(nil))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(billing.UnbilledLimits, cfg.Plans[0].Limits); diff != "" || cfg.Plans[0].ID != billing.FreePlanID {
			t.Fatalf("free plan limits without a key (-want +got):\n%s", diff)
		}
		cfg, err = billing.ConfigFromEnv(env(map[string]string{"BILLING_FREE_LIMITS": "mailboxes=30, emails=20000"}))
		if err != nil {
			t.Fatal(err)
		}
		want := billing.UnbilledLimits
		want.Mailboxes, want.EmailsPerMonth = 30, 20_000
		if diff := cmp.Diff(want, cfg.Plans[0].Limits); diff != "" {
			t.Fatalf("free plan limits set without a key (-want +got):\n%s", diff)
		}
	})

	t.Run("with a Stripe key the free plan has its own limits, raised by BILLING_FREE_LIMITS", func(t *testing.T) {
		cfg, err := billing.ConfigFromEnv(env(map[string]string{"STRIPE_SECRET_KEY": "sk_test_x", "BILLING_FREE_LIMITS": "mailboxes=30, emails=20000"}))
		if err != nil {
			t.Fatal(err)
		}
		want := billing.Limits{Mailboxes: 30, LeadsPerMonth: 250, ActiveCampaigns: 1, EmailsPerMonth: 20_000}
		if diff := cmp.Diff(want, cfg.Plans[0].Limits); diff != "" {
			t.Fatalf("free plan limits (-want +got):\n%s", diff)
		}
	})

	t.Run("plans from BILLING_PLANS, cheapest first", func(t *testing.T) {
		cfg, err := billing.ConfigFromEnv(env(map[string]string{"BILLING_PLANS": `[
			{"id":"pro","name":"Pro","price":{"minor":9900,"currency":"eur"},"stripePrice":"price_pro","limits":{"mailboxes":10,"leadsPerMonth":1000,"activeCampaigns":3,"emailsPerMonth":9000}},
			{"id":"free","name":"Free","price":{"minor":0,"currency":"EUR"},"limits":{"mailboxes":1,"leadsPerMonth":10,"activeCampaigns":1,"emailsPerMonth":100}}]`}))
		if err != nil {
			t.Fatal(err)
		}
		got := []string{cfg.Plans[0].ID, cfg.Plans[1].ID, cfg.Plans[1].Price.String()}
		if diff := cmp.Diff([]string{"free", "pro", "EUR 99.00"}, got); diff != "" {
			t.Fatalf("plans (-want +got):\n%s", diff)
		}
	})

	t.Run("refusals name the variable", func(t *testing.T) {
		for name, value := range map[string]string{
			"BILLING_FREE_LIMITS": "mailboxes=lots",
			"BILLING_PLANS":       `[{"id":"free","name":"Free","price":{"minor":100,"currency":"USD"},"limits":{"mailboxes":1,"leadsPerMonth":1,"activeCampaigns":1,"emailsPerMonth":1}}]`,
		} {
			_, err := billing.ConfigFromEnv(env(map[string]string{name: value}))
			if ce, ok := err.(*billing.ConfigError); !ok || ce.Name != name {
				t.Errorf("%s=%s: %v", name, value, err)
			}
		}
	})
}
