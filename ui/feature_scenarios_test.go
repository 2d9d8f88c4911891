package ui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stripe/stripe-go/v85"

	"vibesell"
	"vibesell/approvals"
	"vibesell/audience"
	"vibesell/auth"
	"vibesell/billing"
	"vibesell/billing/billingtest"
	"vibesell/campaigns"
	"vibesell/featuretest"
	"vibesell/store"
	"vibesell/store/storetest"
	"vibesell/toolkit"
	"vibesell/toolkit/toolkittest"
	"vibesell/tools"
	"vibesell/ui"
)

// features is the VibeSell server with who to write to (audience), what to
// say (campaigns) and plans and money (billing), on a database of its own
// with the sample lead directory loaded and Stripe faked at its seam.
type features struct {
	*server
	env     *featuretest.Env
	billing *billing.Service
	stripe  *billingtest.FakeStripe
}

func newFeatures(t *testing.T) *features {
	t.Helper()
	ctx := context.Background()
	pool := storetest.New(t)
	if _, err := audience.LoadSampleDirectory(ctx, pool); err != nil {
		t.Fatal(err)
	}
	// Tue 1 Dec 2026, 07:00 UTC: 08:00 in Berlin.
	e := featuretest.New(t, pool, time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC), campaigns.Config{})
	e.Approvals.Register(vibesell.ToolImportLeads, audience.ImportAction(e.Audience))
	cfg := billing.DefaultConfig()
	fake := billingtest.NewFakeStripe(e.Clock, cfg.Plans)
	bill := billing.New(billing.Deps{DB: pool, Config: cfg, Approvals: e.Approvals, PublicURL: publicURL, Clock: e.Clock,
		Logger: slog.New(slog.DiscardHandler), Stripe: fake, Meters: map[billing.Metric]billing.Meter{billing.Leads: billing.Counted}})
	ws, err := e.Workspaces.Create(ctx, "Acme Analytics")
	if err != nil {
		t.Fatal(err)
	}
	deps := tools.Deps{Workspaces: e.Workspaces, Sending: e.Sending, Approvals: e.Approvals,
		Audience: e.Audience, Campaigns: e.Campaigns, Billing: bill, PublicURL: publicURL}
	c := toolkittest.Connect(t, tools.NewServer(deps, &toolkit.Options{CardHTML: ui.CardHTML}), auth.Principal{WorkspaceID: ws.ID, WorkspaceSlug: ws.Slug})
	return &features{server: newServer(t, &env{c: c, ws: ws, approvals: e.Approvals}), env: e, billing: bill, stripe: fake}
}

// personOnly is what no card of these kinds may show: a tool's name (the
// assistant's business), or a value that was not turned into words.
func (f *features) personOnly() []string {
	out := []string{"null", "undefined", "NaN", "[object Object]", "{{…}}"}
	for name := range f.listed {
		out = append(out, name)
	}
	return out
}

func featureScenarios(t *testing.T) []*scenario {
	t.Helper()
	f := newFeatures(t)
	var out []*scenario
	out = append(out, audienceScenarios(t, f)...)
	out = append(out, campaignScenarios(t, f)...)
	out = append(out, billingScenarios(t, f)...)
	out = append(out, handFeatureScenarios()...)
	for _, sc := range out {
		sc.Expect.Absent = append(sc.Expect.Absent, f.personOnly()...)
	}
	return out
}

const sampleSaid = "Sample directory: made-up contacts that can never be emailed."

func audienceScenarios(t *testing.T, f *features) []*scenario {
	t.Helper()
	var out []*scenario
	target := map[string]any{"who": "Heads of sales at software companies in Germany and France",
		"problem": "Their reps build prospect lists by hand", "exclusions": "Nobody at Globex"}
	sc, _ := f.scenario("target", "save_target", target)
	sc.Expect.Texts = []string{str(target["who"]), str(target["problem"]), str(target["exclusions"]), "No filters yet", "No filters saved yet."}
	out = append(out, sc)

	filters := map[string]any{"departments": []any{"Sales", "Marketing"}, "seniorities": []any{"VP", "Head", "Director", "Manager"},
		"industries": []any{"Software"}, "countries": []any{"Germany", "FR", "GB", "NL"}, "excludeCompanies": []any{"Globex"}, "notContactedDays": 90}
	_, saved := f.call("save_target_filters", filters)
	sc, data := f.scenario("target-confirmed", "confirm_target", map[string]any{"filtersVersion": obj(saved["target"])["filtersVersion"]})
	fl := obj(obj(data["target"])["filters"])
	sc.Expect.Texts = []string{"Confirmed", str(fl["description"]), "Department Sales, Marketing", "Seniority VP, Head, Director, Manager", "Industry Software",
		"Companies left out Globex", "Not contacted in the last 90 days", "confirmed"}
	var countries []string
	for _, c := range list(fl["countries"]) {
		countries = append(countries, str(obj(c)["name"]))
	}
	sc.Expect.Texts = append(sc.Expect.Texts, "Country "+strings.Join(countries, ", "))
	out = append(out, sc)

	// A change after the confirmation withdraws it, and the card says so.
	filters["seniorities"] = []any{"VP", "Head", "Director", "Manager", "Senior"}
	sc, data = f.scenario("target-withdrawn", "save_target_filters", filters)
	if obj(data["target"])["confirmationWithdrawn"] != true {
		t.Fatalf("changing confirmed filters did not withdraw the confirmation: %v", data)
	}
	sc.Expect.Texts = []string{"Not confirmed", "The filters changed, so your earlier confirmation no longer holds.", "not confirmed yet"}
	out = append(out, sc)
	f.call("confirm_target", map[string]any{"filtersVersion": obj(data["target"])["filtersVersion"]})

	sc, data = f.scenario("lead-count", "estimate_lead_pool", nil)
	sc.Expect.Texts = []string{fmt.Sprintf("%s available to import", people(data["available"])), sampleSaid,
		"Match the target " + num(data["matched"]), "Available to import " + num(data["available"]),
		"Suppressed: unsubscribed, bounced, complained or blocked", "Contacted in the last 90 days", "Already in this workspace", "Invalid addresses"}
	for _, s := range list(data["subtractions"]) {
		sc.Expect.Texts = append(sc.Expect.Texts, "− "+num(obj(s)["count"]))
	}
	out = append(out, sc)

	sc, data = f.scenario("lead-preview", "preview_lead_sample", nil)
	contacts := list(data["contacts"])
	if len(contacts) == 0 {
		t.Fatalf("the preview shows no one: %v", data)
	}
	sc.Expect.Texts = []string{sampleSaid, fmt.Sprintf("%s of %s available", people(len(contacts)), num(data["available"])), "Why they match:"}
	for _, c := range contacts {
		c := obj(c)
		sc.Expect.Texts = append(sc.Expect.Texts, str(c["name"]), str(c["maskedEmail"]), str(c["title"])+" at "+str(c["company"]))
		for _, w := range list(c["why"]) {
			sc.Expect.Texts = append(sc.Expect.Texts, str(w))
		}
	}
	out = append(out, sc)

	// An import, approved and carried out: the pool shows what it took.
	_, ap := f.call("import_leads", map[string]any{"count": 5})
	if a := f.env.Decide(t, f.ws.ID, str(ap["approval"]), true, approvals.ViaConversation); a.Status != approvals.Done {
		t.Fatalf("the import was not carried out: %s %v", a.Status, a.Outcome)
	}
	sc, data = f.scenario("lead-count-imported", "estimate_lead_pool", nil)
	im := obj(data["lastImport"])
	sc.Expect.Texts = []string{"Last import", fmt.Sprintf("%s of %s imported", num(im["imported"]), people(im["requested"]))}
	for _, s := range list(data["subtractions"]) {
		if s := obj(s); s["reason"] == "already_imported" {
			if whole(s["count"]) != whole(im["imported"]) {
				t.Fatalf("imported %v, but the pool leaves out %v as already imported", im["imported"], s["count"])
			}
			sc.Expect.Texts = append(sc.Expect.Texts, "Already in this workspace − "+num(s["count"]))
		}
	}
	out = append(out, sc)
	return out
}

func campaignScenarios(t *testing.T, f *features) []*scenario {
	t.Helper()
	var out []*scenario
	f.env.AddLeads(t, f.ws.ID,
		vibesell.Lead{Email: "ana@alpha.test", FirstName: "Ana", LastName: "Costa", Company: "Alpha", TimeZone: "Europe/Berlin"},
		vibesell.Lead{Email: "lee@delta.test", Company: "Delta", TimeZone: "America/New_York"})
	f.env.AddMailbox(t, f.ws.ID, "sam@getacme.test", "Sam Lee", featuretest.Warm)

	steps := []any{
		map[string]any{"subject": "Lists at {{company|your team}}", "body": "Hi {{first_name|there}},\n\nYour reps at {{company|your company}} build prospect lists by hand. We do it for them, checked and ready each Monday.\n\nWorth a short call next week?\n\nSam"},
		map[string]any{"body": "Hi {{first_name|there}}, a quick nudge on my note below.", "waitBusinessDays": 3, "sameThread": true},
	}
	sc, data := f.scenario("sequence", "save_sequence", map[string]any{"name": "Lists for heads of sales", "steps": steps})
	seq := obj(data["sequence"])
	sc.Expect.Texts = []string{"Lists for heads of sales", "Version 1", "Waiting for your approval", "Step 1", "Sent first", "Step 2",
		"3 business days after step 1, in the same thread", "Subject: Lists at {{company|your team}}", "Subject: Re: Lists at {{company|your team}}",
		"a quick nudge on my note below", "{{first_name}}", "would get"}
	out = append(out, sc)

	id := str(seq["sequence"])
	sc, _ = f.scenario("sequence-approved", "approve_sequence", map[string]any{"sequence": id, "version": 1})
	sc.Expect.Texts = []string{"Approved", "A campaign sends exactly this version."}
	sc.Expect.Absent = []string{"Waiting for your approval"}
	out = append(out, sc)

	// No postal address yet: the check fails, and the fix it gives the
	// assistant (naming a tool) is not shown to the person.
	sc, data = f.scenario("first-email", "check_first_email", map[string]any{"sequence": id, "lead": "ana@alpha.test"})
	if data["verdict"] != "fail" {
		t.Fatalf("first email without a postal address: verdict %v", data["verdict"])
	}
	sc.Expect.Texts = []string{"Blocks the launch", "From: " + str(data["from"]), str(data["subject"]), "ana@alpha.test", "Hi Ana,", "Why it matters:", "How to fix:", "Checked: ",
		campaigns.CheckLabels.Of("unsubscribe_and_address"), "Fail", "Pass"}
	for _, x := range list(data["findings"]) {
		x := obj(x)
		sc.Expect.Texts = append(sc.Expect.Texts, campaigns.CheckLabels.Of(str(x["check"])), str(x["why"]))
	}
	out = append(out, sc)

	stage := map[string]any{"name": "Heads of sales, December", "sequence": id, "windowStart": "09:00", "windowEnd": "17:00",
		"days": []any{"monday", "tuesday", "wednesday", "thursday", "friday"}, "dailyCap": 20, "stopForCompany": true}
	sc, data = f.scenario("campaign-staged", "stage_campaign", stage)
	cp := obj(data["campaign"])
	if len(list(cp["blockers"])) == 0 || obj(obj(cp["metrics"])["sent"])["value"] != float64(0) {
		t.Fatalf("staged without a postal address: %v", cp)
	}
	sc.Expect.Texts = []string{"Heads of sales, December", "Not launched yet", "Before it can launch", "The workspace has no postal address",
		"Monday to Friday", "09:00 to 17:00, in each person's own time zone", "At most 20 emails a day", "Nobody else at their company gets another email",
		"sam@getacme.test", "Sent 0", "Replied 0", "Opens Not available", str(obj(obj(cp["metrics"])["opens"])["why"])}
	// Staged, it has sent nothing, which is known: 0, not "not measured".
	sc.Expect.Absent = []string{"Not measured yet.", "Sent Not available", "Opens 0"}
	out = append(out, sc)

	stage["campaign"] = cp["campaign"]
	stage["postalAddress"] = "Acme GmbH, Torstraße 1, 10119 Berlin, Germany"
	stage["timeZone"] = "Europe/Berlin"
	f.call("stage_campaign", stage)
	_, launch := f.call("launch_campaign", map[string]any{"campaign": cp["campaign"]})
	if a := f.env.Decide(t, f.ws.ID, str(launch["approval"]), true, approvals.ViaWeb); a.Status != approvals.Done {
		t.Fatalf("the launch was not carried out: %s %v", a.Status, a.Outcome)
	}
	sc, _ = f.scenario("campaign-scheduled", "get_campaign", map[string]any{"campaign": cp["campaign"]})
	// Nothing is sent yet: the engine's counts are true zeros, and opens
	// are not tracked, so they say why instead of a number.
	sc.Expect.Texts = []string{campaigns.StatusLabels.Of(campaigns.Scheduled), "The first email goes out", "Sent 0", "Opens Not available"}
	sc.Expect.Absent = []string{"Before it can launch", "Sent Not available"}
	out = append(out, sc)

	sc, data = f.scenario("campaign-estimate", "estimate_campaign_plan", map[string]any{"campaign": cp["campaign"]})
	if data["days"] == nil {
		t.Fatalf("estimate without days: %v", data)
	}
	sc.Expect.Texts = []string{fmt.Sprintf("to reach all %s", people(data["leads"])), "Per mailbox " + num(data["perMailboxPerDay"]),
		fmt.Sprintf("Replies to expect %s to %s", num(data["repliesLow"]), num(data["repliesHigh"])), "First email " + date(str(data["firstSendOn"])),
		"Last person's first email " + date(str(data["lastFirstEmailOn"])), "Last follow-up " + date(str(data["lastSendOn"])),
		"Dates in " + str(data["timeZone"]), str(data["assumption"]), "not a promise"}
	out = append(out, sc)

	_, stop := f.call("stop_campaign", map[string]any{"campaign": cp["campaign"]})
	if a := f.env.Decide(t, f.ws.ID, str(stop["approval"]), true, approvals.ViaConversation); a.Status != approvals.Done {
		t.Fatalf("the stop was not carried out: %s %v", a.Status, a.Outcome)
	}
	sc, data = f.scenario("campaign-paused", "get_campaign", map[string]any{"campaign": cp["campaign"]})
	reason := str(obj(data["campaign"])["pausedReason"])
	if reason == "" {
		t.Fatalf("a stopped campaign without a reason: %v", data)
	}
	sc.Expect.Texts = []string{"Paused", "Paused: " + reason}
	out = append(out, sc)
	return out
}

func billingScenarios(t *testing.T, f *features) []*scenario {
	t.Helper()
	ctx := context.Background()
	var out []*scenario
	// 120 leads used this month, through billing's own limit check.
	if err := store.InTx(ctx, f.env.Pool, func(tx pgx.Tx) error { return f.billing.Use(ctx, tx, f.ws.ID, billing.Leads, 120) }); err != nil {
		t.Fatal(err)
	}
	sc, data := f.scenario("plans", "get_plans_and_billing", nil)
	sc.Expect.Texts = []string{"You are on the Free plan", billing.StatusLabels.Of("active"), "Your plan", billing.MetricLabels.Of("leads"),
		"Mailboxes are not counted on this server."}
	for _, p := range list(data["plans"]) {
		p := obj(p)
		l := obj(p["limits"])
		sc.Expect.Texts = append(sc.Expect.Texts, str(p["name"]), money(obj(p["price"])),
			fmt.Sprintf("%s a month", vibesell.Plural(whole(l["leadsPerMonth"]), "lead", "leads")), fmt.Sprintf("%s a month", vibesell.Plural(whole(l["emailsPerMonth"]), "email", "emails")))
	}
	for _, u := range list(data["usage"]) {
		if u := obj(u); u["used"] != nil {
			sc.Expect.Texts = append(sc.Expect.Texts, fmt.Sprintf("%s of %s", num(u["used"]), num(u["allowed"])))
		}
	}
	out = append(out, sc)

	sc, data = f.scenario("checkout", "start_checkout", map[string]any{"plan": "starter"})
	url := str(data["url"])
	sc.Expect.Texts = []string{"Subscribe to " + str(data["planName"]), money(obj(data["price"])) + " per month", url,
		"What happens after payment", "nothing is charged until you do", "moves to the " + str(data["planName"]) + " plan"}
	sc.Expect.Buttons = []string{"Open the payment page"}
	sc.Expect.Action = &action{Click: "Open the payment page", Link: &url, Message: no()}
	out = append(out, sc)

	sc, data = f.scenario("portal", "open_billing_portal", nil)
	portalURL := str(data["url"])
	sc.Expect.Texts = []string{"Your billing portal", "Change the card, download invoices or cancel", portalURL}
	sc.Expect.Action = &action{Click: "Open the billing portal", Link: &portalURL, Message: no()}
	out = append(out, sc)

	// Paid: Stripe tells VibeSell, and the workspace is on Starter.
	params, _ := f.stripe.Session(str(obj(mustCall(f, "start_checkout", map[string]any{"plan": "starter"}))["session"]))
	sub := f.stripe.Subscribe(f.ws.ID, params.Customer, params.Price, "active")
	f.stripeSays(t, "evt_1", "customer.subscription.created", billingtest.SubscriptionObject(sub))
	sc, data = f.scenario("plans-subscribed", "get_plans_and_billing", nil)
	inv := obj(data["nextInvoice"])
	if inv == nil {
		t.Fatalf("subscribed, no next invoice: %v", data)
	}
	sc.Expect.Texts = []string{"You are on the Starter plan", "Next invoice " + money(obj(inv["amountDue"])) + " on " + date(str(inv["date"]))}
	out = append(out, sc)

	sc, data = f.scenario("checkout-portal", "start_checkout", map[string]any{"plan": "growth"})
	if data["page"] != "portal" {
		t.Fatalf("a subscribed workspace got a second checkout: %v", data)
	}
	portal := str(data["url"])
	sc.Expect.Texts = []string{"You already have a subscription", "would charge you twice", "To move to " + str(data["planName"])}
	sc.Expect.Absent = []string{"What happens after payment"}
	sc.Expect.Action = &action{Click: "Open the billing portal", Link: &portal, Message: no()}
	out = append(out, sc)

	// The next payment fails: the plan says so first.
	sub.Status = "past_due"
	f.stripe.Set(sub)
	f.stripeSays(t, "evt_2", "invoice.payment_failed", billingtest.InvoiceObject("in_1", sub.Customer, sub.ID, f.ws.ID))
	sc, data = f.scenario("plans-payment-failed", "get_plans_and_billing", nil)
	if data["paymentFailedAt"] == nil {
		t.Fatalf("a failed payment not shown: %v", data)
	}
	sc.Expect.Texts = []string{billing.StatusLabels.Of("past_due"), "A payment failed on", "Update the card in the billing portal"}
	out = append(out, sc)
	return out
}

// stripeSays applies an event as Stripe's signed webhook delivers it.
func (f *features) stripeSays(t *testing.T, id, typ string, object map[string]any) {
	t.Helper()
	now := f.env.Clock.Now()
	body, _ := billingtest.Signed(t, billingtest.Event{ID: id, Type: typ, Created: now, Object: object}, "whsec_x", now)
	var ev stripe.Event
	if err := json.Unmarshal(body, &ev); err != nil {
		t.Fatal(err)
	}
	if _, err := f.billing.ApplyEvent(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
}

func mustCall(f *features, tool string, args map[string]any) map[string]any {
	_, data := f.call(tool, args)
	return data
}

// num writes a JSON number as the card does: with thousands separators.
func num(v any) string { return vibesell.Count(whole(v)) }

func whole(v any) int {
	if i, ok := v.(int); ok {
		return i
	}
	n, _ := v.(float64)
	return int(n)
}

func people(v any) string { return vibesell.Plural(whole(v), "person", "people") }

// date writes a YYYY-MM-DD day as the card does, in the server's own style
// whatever the host's locale: "Fri 1 Jan 2027" (vibesell.FormatDate).
func date(day string) string {
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return day
	}
	return vibesell.FormatDate(d)
}

// handFeatureScenarios are results of states the server here cannot reach
// (nothing sends yet, so no campaign has counts; an import finishes at
// once), written from the Go output types.
func handFeatureScenarios() []*scenario {
	counted := func(v int) map[string]any { return map[string]any{"value": v, "why": ""} }
	unknown := map[string]any{"value": nil, "why": "Open tracking is off, so opens are not measured."}
	step := func(n, sent, replied int) map[string]any {
		return map[string]any{"step": n, "sent": counted(sent), "delivered": counted(sent - 12), "replied": counted(replied),
			"positiveReplies": counted(replied / 2), "bounced": counted(12), "unsubscribed": counted(3), "notSentUnknown": counted(0)}
	}
	sc := hand("campaign-paused-automatically", "get_campaign", map[string]any{"campaign": "cp_8e1f2a3b4c5d6e7f"}, "Campaign paused.", map[string]any{
		"kind": "campaign",
		"campaign": map[string]any{
			"campaign": "cp_8e1f2a3b4c5d6e7f", "name": "Heads of sales, December", "status": "paused",
			"pausedReason": "Bounces reached 4% on sam@getacme.test; sending stopped to protect the domain.", "pausedAutomatically": true,
			"sequence": "sq_3f2a9c0d4b5e6f70", "sequenceVersion": 2, "sequenceApproved": true, "steps": 2, "leads": 2400,
			"mailboxes": []any{"sam@getacme.test"},
			"schedule":  map[string]any{"windowStart": "00:00", "windowEnd": "24:00", "days": []any{"monday", "wednesday", "friday"}, "dailyCap": 30, "stopForCompany": false},
			"blockers":  []any{}, "createdAt": "2026-11-02T09:00:00Z", "launchedAt": "2026-11-03T09:00:00Z", "firstSendAt": "2026-11-03T09:00:00Z",
			"metrics": map[string]any{"sent": counted(1540), "delivered": counted(1516), "replied": counted(31), "positiveReplies": counted(12),
				"bounced": counted(24), "unsubscribed": counted(6), "notSentUnknown": counted(2), "opens": unknown, "steps": []any{step(1, 1200, 25), step(2, 340, 6)}},
		},
	})
	sc.Expect.Texts = []string{"Paused: Bounces reached 4%", "Only a signed-in person in the web app can resume it", "Sent 1,540", "Delivered 1,516",
		"Opens Not available", "Open tracking is off", "Monday, Wednesday and Friday", "All day, in each person's own time zone",
		"Only that person stops getting emails", "1 1,200", "2 340", "Not sent (unknown) 2", "whether they left is not known"}
	sc.Expect.Absent = []string{"Opens 0", "Not measured yet"}

	running := hand("lead-count-importing", "estimate_lead_pool", nil, "An import is running.", map[string]any{
		"kind": "lead_count", "directory": "loaded",
		"filters": map[string]any{"titles": []any{}, "seniorities": []any{"VP"}, "departments": []any{}, "industries": []any{"Software"}, "companySizes": []any{},
			"countries": []any{}, "regions": []any{"Europe"}, "excludeCompanyDomains": []any{}, "excludeCompanies": []any{}, "notContactedDays": 0,
			"description": "VP; in the Software industry; in Europe"},
		"filtersVersion": 3, "matched": 48210,
		"subtractions": []any{map[string]any{"reason": "suppressed", "count": 1203}, map[string]any{"reason": "contacted_in_window", "count": 0},
			map[string]any{"reason": "already_imported", "count": 2000}, map[string]any{"reason": "invalid_or_role", "count": 4007}},
		"available": 41000,
		"lastImport": map[string]any{"approval": "ap_7k2m9q4x8w3n5r6t", "requested": 5000, "imported": 2000, "skippedExisting": 0, "skippedSuppressed": 0,
			"skippedInvalid": 0, "running": true, "startedAt": "2026-12-01T06:58:00Z", "finishedAt": nil},
	})
	running.Expect.Texts = []string{"41,000 people available to import", "Match the target 48,210", "− 1,203", "− 2,000", "− 4,007",
		"Running: 2,000 of 5,000 imported so far"}
	running.Expect.Absent = []string{"Sample directory", "Contacted in the last"}
	return []*scenario{sc, running}
}
