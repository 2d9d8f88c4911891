package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"vibesell"
	"vibesell/approvals"
	"vibesell/approvals/approvalstest"
	"vibesell/audience"
	"vibesell/campaigns"
	"vibesell/delivery"
	"vibesell/mail"
	"vibesell/mailboxes"
	"vibesell/replies"
	"vibesell/toolkit/toolkittest"
	"vibesell/web/webtest"
	"vibesell/workspace"
)

// Every result stays within the bounds (vibesell.MaxResultText characters
// of text, vibesell.MaxResultStructured bytes of structuredContent)
// whatever the workspace holds: every list is filled to the most the
// product allows (facts of the longest length, the longest offer,
// playbook, target and sequence, a sending setup of the most domains and
// mailboxes one flow picks, leads, many campaigns, approvals and replies),
// and every tool is called, as cmd/server wires them. toolkittest fails
// the test on the first result over a bound (and the toolkit refuses to
// send one); the largest result of each tool is logged.
func TestEveryResultIsBounded(t *testing.T) {
	t.Parallel()
	// Billing is configured, with the unbilled limits, so that
	// get_plans_and_billing answers.
	f := setupBilledFlow(t, "mailboxes=1000,leads=1000000,campaigns=1000,emails=10000000")
	ctx := context.Background()
	acme := f.two.Acme.ID
	t.Cleanup(func() { logLargest(t, f.c) })

	// The workspace: the most facts, each of the longest length.
	for i := range workspace.MaxMemories - 1 {
		if _, err := f.svc.workspaces.Remember(ctx, acme, "company", longText(workspace.MaxFactLength, fmt.Sprint("fact ", i))); err != nil {
			t.Fatal(err)
		}
	}
	f.call("get_workspace_context", nil, nil)
	f.call("remember", map[string]any{"fact": longText(workspace.MaxFactLength, "the last fact"), "about": "preference"}, nil)
	f.c.Call("remember", map[string]any{"fact": "one too many"}) // refused: the workspace keeps the most
	var page struct {
		NextCursor *string `json:"nextCursor"`
	}
	f.call("remember", map[string]any{"limit": 20}, &page)
	for page.NextCursor != nil {
		f.call("remember", map[string]any{"limit": 20, "cursor": *page.NextCursor}, &page)
	}
	f.call("save_offer", map[string]any{
		"companyName": longText(200, "Acme"), "companyDomain": "acme.com", "product": longText(1000, "anvils"),
		"audience": longText(1000, "coyotes"), "value": longText(1000, "value"), "proofPoints": longTexts(10, 500, "proof"),
		"callToAction": longText(300, "book"), "price": map[string]any{"amount": 1450, "currency": "EUR", "period": longText(40, "month")},
		"postalAddress": longText(500, "Torstraße 1, Berlin"), "senderName": longText(100, "Ada"),
	}, nil)
	objections := make([]map[string]string, 10)
	for i := range objections {
		objections[i] = map[string]string{"objection": longText(500, fmt.Sprint("objection ", i)), "answer": longText(500, fmt.Sprint("answer ", i))}
	}
	f.call("save_playbook", map[string]any{"tone": longText(300, "tone"), "angles": longTexts(10, 500, "angle"), "objections": objections,
		"dos": longTexts(20, 300, "do"), "donts": longTexts(20, 300, "dont")}, nil)
	for i := range 3 {
		f.call("contact_support", map[string]any{"message": longText(5000, fmt.Sprint("ticket ", i)), "topic": "bug", "replyTo": "ada@acme.test"}, nil)
	}

	// The sending setup: the most domains one flow picks, each with the
	// most mailboxes, for the most sender names.
	f.settle("choose_sending_source", map[string]any{}, "own_names")
	f.call("size_sending_capacity", map[string]any{"dailyVolume": 10000, "emailsPerMailbox": 1, "mailboxesPerDomain": 5}, nil)
	f.call("confirm_sizing", map[string]any{"dailyVolume": 1500, "emailsPerMailbox": 30, "mailboxesPerDomain": 5}, nil)
	f.call("check_domains", map[string]any{"names": domains(20)}, nil)
	f.settle("propose_domains", map[string]any{"count": 10, "include": domains(5)}, "")
	f.settle("propose_email", map[string]any{"senderNames": longTexts(5, 100, "Ada Lovelace")}, "first_name")
	f.call("list_warmed_domains", map[string]any{"limit": 50}, nil)
	f.c.Call("propose_warmed_domains", map[string]any{"count": 10})
	var order approvalResult
	f.call("order_sending_setup", nil, &order)
	b := webtest.New(t, f.web.URL)
	b.SignIn("ada@acme.test", flowPassword, approvals.AppPath(order.Approval))
	p := b.Get(order.AppURL)
	if r := b.Post(order.AppURL+"/approve", url.Values{"csrf": {p.CSRF(t)}, "confirm": {"yes"}}); r.Status != http.StatusSeeOther {
		t.Fatalf("approve the order: %d\n%s", r.Status, r.Body)
	}
	if done := approvalstest.Execute(t, f.pool, f.svc.approvals, order.Approval); done.Status != approvals.Done {
		t.Fatalf("order: %s %v", done.Status, done.Outcome)
	}
	// More orders, placed at once: a setup of many domains, each page of
	// which must stay within the bounds.
	for round := range 6 {
		f.settle("propose_domains", map[string]any{"count": 5, "companyDomain": fmt.Sprintf("anvil%dworks.com", round)}, "")
		f.settle("propose_email", map[string]any{"senderNames": longTexts(5, 100, fmt.Sprint("Grace Hopper ", round))}, "first_name")
		if _, err := f.svc.sending.PlaceOrder(ctx, acme, nil); err != nil {
			t.Fatal(err)
		}
	}
	f.c.Call("start_warmup", nil)
	if _, err := f.svc.sending.SandboxReady(ctx, acme); err != nil {
		t.Fatal(err)
	}
	f.c.Call("start_warmup", nil)
	var setup struct {
		DomainsTotal int     `json:"domainsTotal"`
		NextCursor   *string `json:"nextCursor"`
	}
	f.call("get_sending_setup", nil, &setup)
	for pages := 1; setup.NextCursor != nil; pages++ {
		if pages > 20 {
			t.Fatalf("more than 20 pages of %d domains", setup.DomainsTotal)
		}
		f.call("get_sending_setup", map[string]any{"cursor": *setup.NextCursor}, &setup)
	}
	if setup.DomainsTotal < 40 {
		t.Errorf("the setup has %d domains, want 40", setup.DomainsTotal)
	}

	// Who to write to: the longest target and filters, and leads.
	if _, err := audience.LoadSampleDirectory(ctx, f.pool); err != nil {
		t.Fatal(err)
	}
	f.call("save_target", map[string]any{"who": longText(1000, "heads of sales"), "problem": longText(1000, "lists"), "exclusions": longText(1000, "no customers")}, nil)
	var filters struct {
		Target struct {
			FiltersVersion int `json:"filtersVersion"`
		} `json:"target"`
	}
	f.call("save_target_filters", map[string]any{
		"titles": longTexts(50, 80, "sales"), "seniorities": audience.Seniorities, "departments": audience.Departments,
		"industries": audience.Industries, "companySizes": audience.CompanySizes, "countries": countries[:50],
		"regions":               []string{"Africa", "Americas", "North America", "Latin America", "South America", "Central America", "Caribbean", "Asia", "Eastern Asia", "Southern Asia", "Southeast Asia", "Western Asia", "Europe", "Northern Europe", "Western Europe", "Southern Europe", "Eastern Europe", "Oceania"},
		"excludeCompanyDomains": longDomains(50, 253), "excludeCompanies": longTexts(50, 200, "Globex"),
		"suppress": suppressions(100), "notContactedDays": 3650,
	}, &filters)
	f.call("confirm_target", map[string]any{"filtersVersion": filters.Target.FiltersVersion}, nil)
	f.call("get_workspace_context", nil, nil)
	// Filters that match the sample directory, to import its people.
	f.call("save_target_filters", map[string]any{"regions": []string{"Europe", "Americas", "Asia", "Oceania", "Africa"}}, &filters)
	f.call("confirm_target", map[string]any{"filtersVersion": filters.Target.FiltersVersion}, nil)
	f.call("estimate_lead_pool", nil, nil)
	f.call("preview_lead_sample", nil, nil)
	var imp approvalResult
	f.call("import_leads", map[string]any{"count": 100000}, &imp)
	f.call("decide_approval", map[string]any{"approval": imp.Approval, "decision": "approve", "reason": longText(1000, "yes")}, nil)
	if done := approvalstest.Execute(t, f.pool, f.svc.approvals, imp.Approval); done.Status != approvals.Done {
		t.Fatalf("import: %s %v", done.Status, done.Outcome)
	}

	// The longest sequence, and many campaigns of the longest names.
	steps := []map[string]any{{"subject": longText(200, "Lists at {{company|your team}}"), "body": longText(campaigns.MaxBodyLength, "Hi {{first_name|there}}")}}
	for i := 1; i < 7; i++ {
		steps = append(steps, map[string]any{"subject": longText(200, "follow-up"), "body": longText(campaigns.MaxBodyLength, fmt.Sprint("Hi {{first_name|there}}, nudge ", i)), "waitBusinessDays": 30})
	}
	var seq struct {
		Sequence struct {
			Sequence string `json:"sequence"`
			Version  int    `json:"version"`
		} `json:"sequence"`
	}
	f.call("save_sequence", map[string]any{"name": longText(100, "sequence"), "steps": steps}, &seq)
	f.call("approve_sequence", map[string]any{"sequence": seq.Sequence.Sequence, "version": seq.Sequence.Version}, nil)
	f.c.Call("check_first_email", map[string]any{"sequence": seq.Sequence.Sequence})
	var cps []string
	for i := range 25 {
		var staged struct {
			Campaign struct {
				Campaign string `json:"campaign"`
			} `json:"campaign"`
		}
		f.call("stage_campaign", map[string]any{"name": longText(100, fmt.Sprint("campaign ", i)), "sequence": seq.Sequence.Sequence,
			"windowStart": "00:00", "windowEnd": "24:00", "days": []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"},
			"stopForCompany": true}, &staged)
		cps = append(cps, staged.Campaign.Campaign)
	}
	for _, id := range cps {
		f.call("get_campaign", map[string]any{"campaign": id}, nil)
		f.call("estimate_campaign_plan", map[string]any{"campaign": id}, nil)
		if res := f.c.Call("launch_campaign", map[string]any{"campaign": id}); res.IsError {
			t.Log(toolkittest.TextOf(res))
		}
	}
	// A campaign that can launch, from every mailbox: its approvals.
	f.call("save_sequence", map[string]any{"name": "Short", "steps": []map[string]any{
		{"subject": "Lists at {{company|your team}}", "body": "Hi {{first_name|there}}, would a list of heads of sales help? Reply yes and I will send it."}}}, &seq)
	f.call("approve_sequence", map[string]any{"sequence": seq.Sequence.Sequence, "version": seq.Sequence.Version}, nil)
	f.call("check_first_email", map[string]any{"sequence": seq.Sequence.Sequence}, nil)
	var launchable struct {
		Campaign struct {
			Campaign string `json:"campaign"`
		} `json:"campaign"`
	}
	f.call("stage_campaign", map[string]any{"name": longText(100, "launchable"), "sequence": seq.Sequence.Sequence,
		"windowStart": "00:00", "windowEnd": "24:00", "days": []string{"monday", "tuesday", "wednesday", "thursday", "friday"}, "dailyCap": 1}, &launchable)
	if res := f.c.Call("launch_campaign", map[string]any{"campaign": launchable.Campaign.Campaign}); res.IsError {
		t.Errorf("the short campaign cannot launch: %s", toolkittest.TextOf(res))
	}
	f.c.Call("stop_campaign", map[string]any{"campaign": cps[0]})
	f.c.Call("resume_campaign", map[string]any{"campaign": cps[0]})

	// Replies, the longest the engine keeps, to the first campaign.
	fillReplies(t, f, cps[0], 120)
	var repliesPage struct {
		Replies []struct {
			ID   string `json:"id"`
			Lead *struct {
				ID string `json:"id"`
			} `json:"lead"`
		} `json:"replies"`
		NextCursor *string `json:"nextCursor"`
	}
	f.call("list_replies", map[string]any{"limit": 10}, &repliesPage)
	// A lead with the longest story, and a reply corrected.
	if len(repliesPage.Replies) > 0 {
		first := repliesPage.Replies[0]
		if first.Lead != nil {
			f.call("get_lead", map[string]any{"lead": first.Lead.ID}, nil)
		}
		f.call("correct_reply", map[string]any{"reply": first.ID, "classification": "not_now"}, nil)
	}
	for repliesPage.NextCursor != nil {
		f.call("list_replies", map[string]any{"limit": 10, "cursor": *repliesPage.NextCursor}, &repliesPage)
	}

	// Answers to replies, each of the longest text, waiting for approval:
	// the approvals listed below carry them.
	f.svc.answerSending.parts.Store(&replies.SendingParts{Dispatcher: delivery.NewDispatcher(delivery.DispatcherDeps{DB: f.pool, Suppressor: f.svc.audience.MailSuppressions()}),
		Sources: acmeMailbox{ws: acme, address: "ada@getacme.test"}, Secret: f.mailSecret, PublicURL: "https://vibesell.example.test"})
	var waiting struct {
		Replies []struct {
			MessageID string `json:"messageId"`
		} `json:"replies"`
		NextCursor *string `json:"nextCursor"`
	}
	f.call("list_replies", map[string]any{"limit": 10}, &waiting)
	for page := 0; page < 3; page++ {
		for _, r := range waiting.Replies {
			f.call("answer_reply", map[string]any{"reply": r.MessageID, "text": longText(replies.MaxAnswerText, "Thursday works.")}, nil)
		}
		f.call("list_replies", map[string]any{"limit": 10, "cursor": *waiting.NextCursor}, &waiting)
	}

	// Approvals: many orders' worth, the most items each, some rejected
	// with the longest reason.
	ordered, err := f.svc.approvals.Current(ctx, acme, order.Approval)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 45 {
		a, _, err := f.svc.approvals.Open(ctx, approvals.Request{WorkspaceID: acme, Action: vibesell.ToolOrderSendingSetup,
			Arguments: map[string]any{"copy": i}, Summary: ordered.Summary, Impact: ordered.Impact})
		if err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			f.call("decide_approval", map[string]any{"approval": a.ID, "decision": "reject", "reason": longText(1000, "not now")}, nil)
		}
	}
	// Approvals, a page of the most, of every status.
	var list struct {
		NextCursor *string `json:"nextCursor"`
	}
	f.call("list_pending_approvals", map[string]any{"includeDecided": true, "limit": 20}, &list)
	for list.NextCursor != nil {
		f.call("list_pending_approvals", map[string]any{"includeDecided": true, "limit": 20, "cursor": *list.NextCursor}, &list)
	}
	f.call("list_pending_approvals", map[string]any{"approval": order.Approval}, nil)
	// Decided already: a refusal naming the decision on record, measured too.
	f.c.Call("decide_approval", map[string]any{"approval": order.Approval, "decision": "reject"})
	f.c.Call("decide_in_card", map[string]any{"token": strings.Repeat("a", 43), "approval": order.Approval, "decision": "approve"})

	// Billing, as far as this server has it.
	f.c.Call("get_plans_and_billing", nil)
	f.c.Call("start_checkout", map[string]any{"plan": "starter"})
	f.c.Call("open_billing_portal", nil)
	f.c.Call("upgrade_plan", map[string]any{"plan": "starter"})

	f.call("get_workspace_context", nil, nil)

	var missed []string
	largest := f.c.Largest()
	for _, tool := range append(slices.Clone(contractToolNames), "decide_in_card") {
		if _, ok := largest[tool]; !ok {
			missed = append(missed, tool)
		}
	}
	if len(missed) > 0 {
		t.Errorf("tools never called: %v", missed)
	}
}

// acmeMailbox is the sending mailbox the filled replies came to.
type acmeMailbox struct {
	ws      uuid.UUID
	address string
}

func (m acmeMailbox) Mailboxes(_ context.Context, ws uuid.UUID) ([]mailboxes.WorkspaceMailbox, error) {
	if ws != m.ws {
		return nil, nil
	}
	return []mailboxes.WorkspaceMailbox{{WorkspaceID: ws, Account: mail.Account{Address: mail.Address{Email: m.address}}}}, nil
}

// contractToolNames are the 41 tools of the product's public contract.
var contractToolNames = []string{
	vibesell.ToolGetWorkspaceContext, vibesell.ToolRemember, vibesell.ToolSaveOffer, vibesell.ToolSavePlaybook, vibesell.ToolContactSupport,
	vibesell.ToolChooseSendingSource, vibesell.ToolProposeDomains, vibesell.ToolProposeWarmedDomains, vibesell.ToolProposeEmail,
	vibesell.ToolCheckDomains, vibesell.ToolListWarmedDomains, vibesell.ToolSizeSendingCapacity, "confirm_sizing",
	vibesell.ToolGetSendingSetup, vibesell.ToolStartWarmup, vibesell.ToolOrderSendingSetup, vibesell.ToolDecideApproval,
	vibesell.ToolListPendingApprovals, vibesell.ToolSaveTarget, vibesell.ToolSaveTargetFilters, vibesell.ToolConfirmTarget,
	vibesell.ToolEstimateLeadPool, vibesell.ToolPreviewLeadSample, vibesell.ToolImportLeads, vibesell.ToolSaveSequence,
	vibesell.ToolApproveSequence, vibesell.ToolCheckFirstEmail, vibesell.ToolStageCampaign, vibesell.ToolGetCampaign,
	vibesell.ToolEstimateCampaignPlan, vibesell.ToolLaunchCampaign, vibesell.ToolStopCampaign, vibesell.ToolResumeCampaign,
	vibesell.ToolListReplies, vibesell.ToolAnswerReply, vibesell.ToolCorrectReply, vibesell.ToolGetLead, vibesell.ToolGetPlansAndBilling, vibesell.ToolStartCheckout, vibesell.ToolOpenBillingPortal,
	vibesell.ToolUpgradePlan,
}

// logLargest logs each tool's largest text and structuredContent, the
// largest first.
func logLargest(t *testing.T, c *toolkittest.Client) {
	largest := c.Largest()
	tools := make([]string, 0, len(largest))
	for tool := range largest {
		tools = append(tools, tool)
	}
	sort.Slice(tools, func(i, j int) bool { return largest[tools[i]].Text > largest[tools[j]].Text })
	var b strings.Builder
	fmt.Fprintf(&b, "largest result per tool (bounds: %d characters of text, %d bytes of structuredContent):\n", vibesell.MaxResultText, vibesell.MaxResultStructured)
	for _, tool := range tools {
		fmt.Fprintf(&b, "  %-24s text %6d  structured %6d\n", tool, largest[tool].Text, largest[tool].Structured)
	}
	t.Log(b.String())
}

// settle calls a tool that asks its questions on cards, answering each
// card with pick (or its first choice) as a person would, until it
// settles.
func (f *flow) settle(tool string, args map[string]any, pick string) {
	f.test.Helper()
	var answers []any
	for range 20 {
		with := map[string]any{}
		for k, v := range args {
			with[k] = v
		}
		if len(answers) > 0 {
			with["answers"] = answers
		}
		var q choice
		f.call(tool, with, &q)
		if q.Kind != "choice" {
			return
		}
		answer := pick
		if answer == "" || !slices.ContainsFunc(q.Choices, func(c struct {
			ID string `json:"id"`
		}) bool {
			return c.ID == pick
		}) {
			answer = q.Choices[0].ID
		}
		answers = append(answers, map[string]string{"card": *q.Card, "answer": answer})
	}
	f.test.Fatalf("%s asked more than 20 questions", tool)
}

// longText is exactly n characters of prose starting with lead, with
// letters that take two bytes and characters JSON escapes, as people
// write.
func longText(n int, lead string) string {
	const filler = " Ünïcode prose with <angle> & \"quoted\" words, written at length."
	s := lead
	for len([]rune(s)) < n {
		s += filler
	}
	return string([]rune(s)[:n])
}

func longTexts(count, n int, lead string) []string {
	out := make([]string, count)
	for i := range out {
		out[i] = longText(n, fmt.Sprint(lead, " ", i))
	}
	return out
}

// longDomains are count valid domain names of n characters each.
func longDomains(count, n int) []string {
	out := make([]string, count)
	for i := range out {
		name := fmt.Sprintf("x%d", i)
		for len(name) < n-4 {
			label := min(63, n-4-len(name)-1)
			if label < 1 {
				break
			}
			name += "." + strings.Repeat("a", label)
		}
		out[i] = name + ".com"
	}
	return out
}

func domains(count int) []string {
	out := make([]string, count)
	for i := range out {
		out[i] = fmt.Sprintf("getacme-%s.com", strings.Repeat("x", 30+i))
	}
	return out
}

// suppressions are count addresses of the longest length.
func suppressions(count int) []string {
	out := make([]string, count)
	for i, d := range longDomains(count, 253) {
		out[i] = fmt.Sprintf("%s@%s", strings.Repeat("a", 60)+fmt.Sprintf("%04d", i), d)
	}
	return out
}

var countries = []string{"DE", "FR", "GB", "US", "CA", "ES", "IT", "NL", "BE", "AT", "CH", "SE", "NO", "DK", "FI", "IE", "PT", "PL", "CZ", "HU",
	"RO", "BG", "GR", "HR", "SI", "SK", "LT", "LV", "EE", "LU", "MT", "CY", "IS", "AU", "NZ", "JP", "KR", "SG", "IN", "BR",
	"MX", "AR", "CL", "CO", "PE", "ZA", "NG", "KE", "EG", "MA"}

// fillReplies keeps n replies to the campaign's leads, each with the
// longest excerpt the engine keeps and a long subject and sender.
func fillReplies(t *testing.T, f *flow, campaign string, n int) {
	t.Helper()
	ctx := context.Background()
	var leads []int64
	rows, err := f.pool.Query(ctx, `SELECT lead_id FROM campaign_leads WHERE campaign_id = $1 ORDER BY lead_id LIMIT $2`, campaign, n)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		leads = append(leads, id)
	}
	if err := rows.Err(); err != nil || len(leads) == 0 {
		t.Fatalf("the campaign's leads: %d, %v", len(leads), err)
	}
	for i := range n {
		_, err := f.pool.Exec(ctx, `INSERT INTO mail_replies (workspace_id, mailbox, message_id, from_address, subject, received_at, campaign_id, lead_id, step, matched_by, classification, rule, excerpt)
			VALUES ($1, 'ada@getacme.test', $2, $3, $4, $5, $6, $7, 1, 'thread', 'interested', $8, $9)`,
			f.two.Acme.ID, fmt.Sprintf("<%s.%d@alpha.test>", strings.Repeat("r", 200), i), longText(254, "someone")+"@alpha.test",
			longText(998, "Re: Lists"), time.Now().Add(-time.Duration(i)*time.Minute), campaign, leads[i%len(leads)],
			longText(200, "says interested"), longText(280, "Interested"))
		if err != nil {
			t.Fatal(err)
		}
	}
}
