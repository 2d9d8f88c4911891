package billing

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"vibesell"
)

// Limits are what a plan allows. Every limit is a positive whole number.
type Limits struct {
	Mailboxes       int `json:"mailboxes"`       // sending mailboxes ordered, at any one time
	LeadsPerMonth   int `json:"leadsPerMonth"`   // leads imported per calendar month (UTC)
	ActiveCampaigns int `json:"activeCampaigns"` // campaigns running at any one time
	EmailsPerMonth  int `json:"emailsPerMonth"`  // emails sent per calendar month (UTC)
}

// Plan is one plan a workspace can be on.
type Plan struct {
	ID   string `json:"id"`   // stable, lowercase: "free", "starter"
	Name string `json:"name"` // for people: "Starter"
	// Price is per month; zero for the free plan.
	Price vibesell.Money `json:"price"`
	// StripePrice is the Stripe Price the plan is sold as (a recurring
	// monthly price in Price's currency); empty for the free plan.
	StripePrice string `json:"stripePrice"`
	Limits      Limits `json:"limits"`
}

// Free reports whether the plan costs nothing and is not sold through
// Stripe.
func (p Plan) Free() bool { return p.StripePrice == "" }

// FreePlanID is the plan a workspace is on until it subscribes, and after
// its subscription ends.
const FreePlanID = "free"

// Config configures billing. Start from [DefaultConfig]; [ConfigFromEnv]
// reads the STRIPE_* and BILLING_* variables over it.
type Config struct {
	// SecretKey is the Stripe secret key. Empty: billing is not configured
	// on this server; every workspace stays on the free plan and the
	// billing tools say so.
	SecretKey string
	// WebhookSecret verifies the signatures of Stripe's webhook calls
	// (whsec_…). Empty: /stripe/webhook refuses every call.
	WebhookSecret string
	// APIBase is Stripe's API address; empty means Stripe itself. Tests
	// and local runs point it at stripe-mock.
	APIBase string
	// Plans are the plans on sale, cheapest first; exactly one is free and
	// has the id "free".
	Plans []Plan
}

// DefaultConfig returns the documented defaults. The Stripe price ids are
// placeholders that stripe-mock accepts; a real Stripe account needs its
// own (BILLING_PLANS).
func DefaultConfig() Config {
	usd := func(minor int64) vibesell.Money { return vibesell.NewMoney(minor, "USD") }
	return Config{Plans: []Plan{
		{ID: FreePlanID, Name: "Free", Price: usd(0),
			Limits: Limits{Mailboxes: 3, LeadsPerMonth: 250, ActiveCampaigns: 1, EmailsPerMonth: 1_000}},
		{ID: "starter", Name: "Starter", Price: usd(4_900), StripePrice: "price_vibesell_starter_monthly",
			Limits: Limits{Mailboxes: 15, LeadsPerMonth: 2_500, ActiveCampaigns: 5, EmailsPerMonth: 15_000}},
		{ID: "growth", Name: "Growth", Price: usd(14_900), StripePrice: "price_vibesell_growth_monthly",
			Limits: Limits{Mailboxes: 45, LeadsPerMonth: 10_000, ActiveCampaigns: 20, EmailsPerMonth: 50_000}},
	}}
}

// ConfigError names the variable and what it expects, in one line.
type ConfigError struct{ Name, Value, Want string }

func (e *ConfigError) Error() string {
	return fmt.Sprintf("%s=%q is not valid: %s", e.Name, e.Value, e.Want)
}

var planID = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// ConfigFromEnv reads STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET,
// STRIPE_API_BASE, BILLING_PLANS and BILLING_FREE_LIMITS over
// [DefaultConfig].
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	cfg := DefaultConfig()
	cfg.SecretKey = strings.TrimSpace(getenv("STRIPE_SECRET_KEY"))
	if cfg.SecretKey != "" && !strings.HasPrefix(cfg.SecretKey, "sk_") && !strings.HasPrefix(cfg.SecretKey, "rk_") {
		return cfg, &ConfigError{"STRIPE_SECRET_KEY", "(hidden)", "expected a Stripe secret key starting with sk_ (or a restricted key, rk_)"}
	}
	cfg.WebhookSecret = strings.TrimSpace(getenv("STRIPE_WEBHOOK_SECRET"))
	if cfg.WebhookSecret != "" && !strings.HasPrefix(cfg.WebhookSecret, "whsec_") {
		return cfg, &ConfigError{"STRIPE_WEBHOOK_SECRET", "(hidden)", "expected the webhook endpoint's signing secret, starting with whsec_"}
	}
	if v := strings.TrimSpace(getenv("STRIPE_API_BASE")); v != "" {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return cfg, &ConfigError{"STRIPE_API_BASE", v, "expected the absolute http(s) address of the Stripe API, for example http://127.0.0.1:12111 for stripe-mock"}
		}
		cfg.APIBase = strings.TrimRight(v, "/")
	}
	if v := strings.TrimSpace(getenv("BILLING_PLANS")); v != "" {
		var plans []Plan
		if err := json.Unmarshal([]byte(v), &plans); err != nil {
			return cfg, &ConfigError{"BILLING_PLANS", v, "expected a JSON list of plans: " +
				`[{"id":"free","name":"Free","price":{"minor":0,"currency":"USD"},"limits":{"mailboxes":3,"leadsPerMonth":250,"activeCampaigns":1,"emailsPerMonth":1000}}, ` +
				`{"id":"starter","name":"Starter","price":{"minor":4900,"currency":"USD"},"stripePrice":"price_…","limits":{…}}]`}
		}
		if err := checkPlans(plans); err != nil {
			return cfg, &ConfigError{"BILLING_PLANS", v, err.Error()}
		}
		cfg.Plans = plans
	}
	free := slices.IndexFunc(cfg.Plans, func(p Plan) bool { return p.ID == FreePlanID })
	if cfg.SecretKey == "" && getenv("BILLING_PLANS") == "" {
		// Nothing can be bought here, so the free plan must not stop
		// anyone: every workspace gets UnbilledLimits unless they are set.
		cfg.Plans[free].Limits = UnbilledLimits
	}
	if v := strings.TrimSpace(getenv("BILLING_FREE_LIMITS")); v != "" {
		limits, err := parseLimits(v)
		if err != nil {
			return cfg, &ConfigError{"BILLING_FREE_LIMITS", v, err.Error()}
		}
		cfg.Plans[free].Limits = limits(cfg.Plans[free].Limits)
	}
	return cfg, nil
}

// UnbilledLimits are the free plan's limits on a server without a Stripe
// key (the embedded default), where no plan can be bought: high enough
// that they never stand in the way of one team's outbound.
var UnbilledLimits = Limits{Mailboxes: 1_000, LeadsPerMonth: 1_000_000, ActiveCampaigns: 1_000, EmailsPerMonth: 10_000_000}

// parseLimits reads "mailboxes=30,leads=5000,campaigns=5,emails=20000"
// (any of the four) into a change of limits.
func parseLimits(v string) (func(Limits) Limits, error) {
	set := map[string]int{}
	for _, part := range strings.Split(v, ",") {
		name, num, ok := strings.Cut(strings.TrimSpace(part), "=")
		n, err := strconv.Atoi(strings.TrimSpace(num))
		if !ok || err != nil || n <= 0 || !slices.Contains([]string{"mailboxes", "leads", "campaigns", "emails"}, strings.TrimSpace(name)) {
			return nil, fmt.Errorf("expected limits such as mailboxes=30,leads=5000,campaigns=5,emails=20000 (positive numbers; leads and emails per month)")
		}
		set[strings.TrimSpace(name)] = n
	}
	return func(l Limits) Limits {
		for name, n := range set {
			switch name {
			case "mailboxes":
				l.Mailboxes = n
			case "leads":
				l.LeadsPerMonth = n
			case "campaigns":
				l.ActiveCampaigns = n
			case "emails":
				l.EmailsPerMonth = n
			}
		}
		return l
	}, nil
}

func checkPlans(plans []Plan) error {
	var ids []string
	free := 0
	for i := range plans {
		p := &plans[i]
		p.Price.Currency = strings.ToUpper(p.Price.Currency)
		switch {
		case !planID.MatchString(p.ID):
			return fmt.Errorf("plan id %q must be lowercase letters, digits, - or _", p.ID)
		case slices.Contains(ids, p.ID):
			return fmt.Errorf("plan id %q is listed twice", p.ID)
		case strings.TrimSpace(p.Name) == "":
			return fmt.Errorf("plan %s has no name", p.ID)
		case !regexp.MustCompile(`^[A-Z]{3}$`).MatchString(p.Price.Currency):
			return fmt.Errorf("plan %s: the price needs an ISO 4217 currency such as USD", p.ID)
		case p.Price.Minor < 0:
			return fmt.Errorf("plan %s: the price cannot be negative", p.ID)
		case p.Limits.Mailboxes <= 0 || p.Limits.LeadsPerMonth <= 0 || p.Limits.ActiveCampaigns <= 0 || p.Limits.EmailsPerMonth <= 0:
			return fmt.Errorf("plan %s: every limit (mailboxes, leadsPerMonth, activeCampaigns, emailsPerMonth) must be a positive number", p.ID)
		case p.ID == FreePlanID && (p.StripePrice != "" || p.Price.Minor != 0):
			return fmt.Errorf("the free plan costs nothing and has no stripePrice")
		case p.ID != FreePlanID && (p.StripePrice == "" || p.Price.Minor == 0):
			return fmt.Errorf("plan %s: a paid plan needs a price and its stripePrice", p.ID)
		}
		if p.ID == FreePlanID {
			free++
		}
		if i > 0 && p.Price.Currency != plans[0].Price.Currency {
			return fmt.Errorf("every plan must be priced in one currency")
		}
		ids = append(ids, p.ID)
	}
	if free != 1 {
		return fmt.Errorf(`exactly one plan must have the id "free"`)
	}
	slices.SortStableFunc(plans, func(a, b Plan) int { return int(a.Price.Minor - b.Price.Minor) })
	return nil
}
