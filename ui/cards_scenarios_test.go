package ui_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"vibesell"
	"vibesell/approvals"
)

// choiceScenarios: a question card, answered by a click and in the
// person's own words.
func choiceScenarios(t *testing.T, s *server) []*scenario {
	t.Helper()
	if s.has("choose_sending_source") {
		return nil // real choice cards: see sendingScenarios
	}
	const card = "3f9c2a7d1e4b6a80"
	choice := map[string]any{
		"kind": "choice", "card": card, "tool": "choose_sending_source", "arguments": map[string]any{},
		"question": "Where should your emails go out from?",
		"reason":   "This decides how sending is set up for this workspace. Nothing is set up, reserved or billed by answering.",
		"choices": []any{
			map[string]any{"id": "new_domains", "label": "New domains, warmed up for you", "description": "Bought and set up for you; ready to send in about 3 weeks."},
			map[string]any{"id": "warmed", "label": "Domains that are already warm", "description": "Ready to send in 1 business day."},
			map[string]any{"id": "own", "label": "My own mailboxes", "description": "Connect addresses you already have."},
		},
		"allowFreeText": true, "answers": []any{},
	}
	after := map[string]any{"kind": "sending_choice", "source": "warmed", "summary": "Emails will go out from domains that are already warm."}
	sc := hand("choice", "choose_sending_source", map[string]any{}, "Ask the person where their emails should go out from.", choice)
	sc.Responses = map[string][]json.RawMessage{"choose_sending_source": {resultOf("They chose warmed domains.", after)}}
	sc.Expect = expect{
		Texts:   []string{"Where should your emails go out from?", "Nothing is set up, reserved or billed by answering.", "New domains, warmed up for you", "Ready to send in 1 business day.", "Or answer in your own words"},
		Buttons: []string{"New domains, warmed up for you", "Domains that are already warm", "My own mailboxes", "Send answer"},
		Action: &action{
			Click:   "Domains that are already warm",
			Calls:   []call{{Name: "choose_sending_source", Arguments: map[string]any{"answers": []any{map[string]any{"card": card, "answer": "warmed"}}}}},
			Message: yes(), MessageIncl: "Domains that are already warm",
			After: []string{"Emails will go out from domains that are already warm."},
		},
	}

	free := hand("choice-own-words", "choose_sending_source", map[string]any{}, "Ask the person where their emails should go out from.", choice)
	free.Responses = sc.Responses
	free.Expect = expect{
		Texts: []string{"Where should your emails go out from?"},
		Action: &action{
			Fill:    &fill{Label: "Or answer in your own words", Text: "Our Google Workspace addresses"},
			Click:   "Send answer",
			Calls:   []call{{Name: "choose_sending_source", Arguments: map[string]any{"answers": []any{map[string]any{"card": card, "answer": "Our Google Workspace addresses"}}}}},
			Message: yes(), MessageIncl: "Our Google Workspace addresses",
		},
	}
	return []*scenario{sc, free}
}

func approvalData(id, status string, decideHere, irreversible bool, expires time.Time) map[string]any {
	return map[string]any{
		"kind": "approval", "approval": id, "action": "order_sending_setup", "status": status,
		"summary": "Buy 3 domains and set up 6 mailboxes for Acme Analytics",
		"impact": map[string]any{
			"what":        "Registers 3 domains for one year and creates 2 mailboxes on each, with SPF, DKIM and DMARC set.",
			"items":       []any{"acme-analytics-mail.com", "tryacme-analytics.com", "getacme-analytics.com"},
			"who":         "No one is contacted.",
			"when":        "Domains are registered at once; mailboxes are ready in about 1 hour.",
			"costOnce":    map[string]any{"amount": "1234.50", "currency": "USD"},
			"costMonthly": map[string]any{"amount": "36.00", "currency": "USD"},
			"renewal":     "Domains renew every year on the same day; mailboxes every month. Cancel any time in Settings.",
			"undo":        "Domains cannot be returned once registered.",
		},
		"irreversible": irreversible, "expiresAt": expires.UTC().Format(time.RFC3339), "decideHere": decideHere,
		"appUrl":    publicURL + "/app/approvals/" + id,
		"decidedBy": nil, "decidedAt": nil, "decidedVia": nil, "reason": nil, "outcome": nil,
	}
}

// handApprovalScenarios are approvals written from the Go type, for when
// the approval tools are not served.
func handApprovalScenarios(t *testing.T) []*scenario {
	t.Helper()
	var out []*scenario
	expires := time.Now().Add(23*time.Hour + 59*time.Minute)

	// Decide here: Approve calls decide_approval and shows what it returns;
	// the original result replayed later offers no decision any more.
	const id = "ap_7k2m9q4x8w3n5r6t"
	pending := approvalData(id, "pending", true, false, expires)
	pending["summary"] = "Import 250 leads into the campaign “Q3 SaaS heads of marketing”"
	pending["action"] = "import_leads"
	pending["impact"] = map[string]any{
		"what":  "Adds 250 people from the lead directory to the campaign. Nobody is emailed until the campaign is launched.",
		"items": []any{}, "who": "No one is contacted now.", "when": "At once.",
		"costOnce": map[string]any{"amount": "0.00", "currency": "USD"}, "costMonthly": map[string]any{"amount": "0.00", "currency": "USD"},
		"renewal": "Nothing renews.", "undo": "The leads can be removed from the campaign before launch.",
	}
	approved := map[string]any{}
	for k, v := range pending {
		approved[k] = v
	}
	approved["status"] = "approved"
	approved["decidedBy"] = "sam@acme-analytics.com"
	approved["decidedAt"] = time.Now().UTC().Format(time.RFC3339)
	approved["decidedVia"] = "card"
	sc := hand("approval", "import_leads", map[string]any{"campaignId": "cmp_1"}, "Approval ap_… is waiting.", pending)
	sc.Responses = map[string][]json.RawMessage{
		"list_pending_approvals": {
			resultOf("Approval "+id+" is pending.", map[string]any{"kind": "approvals", "approvals": []any{pending}}),
			resultOf("Approval "+id+" is approved.", map[string]any{"kind": "approvals", "approvals": []any{approved}}),
		},
		"decide_approval": {resultOf("Approved.", approved)},
	}
	sc.Expect = expect{
		Texts:     []string{str(pending["summary"]), "Waiting for a decision", "Adds 250 people", "USD 0.00", "expires in 23 hours"},
		Buttons:   []string{"Approve", "Reject"},
		NoButtons: []string{"Review and approve in VibeSell"},
		Action: &action{
			Click:          "Approve",
			Calls:          []call{{Name: "decide_approval", Arguments: map[string]any{"approval": id, "decision": "approve"}}},
			Ignore:         []string{"list_pending_approvals"},
			After:          []string{"Approved, being carried out", "sam@acme-analytics.com"},
			NoButtonsAfter: []string{"Approve", "Reject"},
		},
		Replay: &replay{Reads: "list_pending_approvals", ReadArgs: readArgs(id), NoButtons: []string{"Approve", "Reject"}, Texts: []string{"Approved, being carried out"}},
	}
	out = append(out, sc)

	// Reject with a reason.
	rejected := map[string]any{}
	for k, v := range pending {
		rejected[k] = v
	}
	rejected["status"], rejected["decidedBy"], rejected["decidedAt"], rejected["decidedVia"], rejected["reason"] =
		"rejected", "sam@acme-analytics.com", time.Now().UTC().Format(time.RFC3339), "card", "Wrong campaign"
	sc = hand("approval-reject", "import_leads", map[string]any{"campaignId": "cmp_1"}, "Approval waiting.", pending)
	sc.Responses = map[string][]json.RawMessage{
		"list_pending_approvals": {resultOf("Approval "+id+" is pending.", map[string]any{"kind": "approvals", "approvals": []any{pending}})},
		"decide_approval":        {resultOf("Rejected.", rejected)},
	}
	sc.Expect = expect{
		Action: &action{
			First:  "Reject…",
			Fill:   &fill{Label: "Reason (optional)", Text: "Wrong campaign"},
			Click:  "Reject",
			Calls:  []call{{Name: "decide_approval", Arguments: map[string]any{"approval": id, "decision": "reject", "reason": "Wrong campaign"}}},
			Ignore: []string{"list_pending_approvals"},
			After:  []string{"Rejected", "Wrong campaign"},
		},
	}
	out = append(out, sc)

	// Only the web app may approve: the card opens appUrl, offers no Approve.
	const paid = "ap_3p8v2c6z1y9d4h7j"
	web := approvalData(paid, "pending", false, true, expires)
	sc = hand("approval-web-only", "order_sending_setup", map[string]any{}, "Approval waiting in the web app.", web)
	sc.Responses = map[string][]json.RawMessage{
		"list_pending_approvals": {resultOf("Approval "+paid+" is pending.", map[string]any{"kind": "approvals", "approvals": []any{web}})},
	}
	link := str(web["appUrl"])
	sc.Expect = expect{
		Texts:     []string{str(web["summary"]), "This cannot be undone.", "USD 1,234.50", "USD 36.00", "acme-analytics-mail.com", "signed-in person", link},
		Buttons:   []string{"Review and approve in VibeSell"},
		NoButtons: []string{"Approve"},
		Action: &action{
			Click:  "Review and approve in VibeSell",
			Calls:  []call{},
			Ignore: []string{"list_pending_approvals"},
			Link:   &link,
		},
	}
	out = append(out, sc)

	// Decided and carried out.
	done := approvalData("ap_9a8s7d6f5g4h3j2k", "done", true, false, expires)
	done["decidedBy"], done["decidedAt"], done["decidedVia"] = "sam@acme-analytics.com", time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), "web"
	done["outcome"] = "Registered 3 domains and created 6 mailboxes. Warm-up starts tomorrow."
	sc = hand("approval-done", "order_sending_setup", nil, "Done.", done)
	sc.Expect = expect{
		Texts:     []string{"Done", "Registered 3 domains and created 6 mailboxes", "sam@acme-analytics.com", "the web app"},
		NoButtons: []string{"Approve", "Reject"},
	}
	out = append(out, sc)

	out = append(out, bidiApprovalScenario())

	// Expired.
	expired := approvalData("ap_1q2w3e4r5t6y7u8i", "not_done", true, false, time.Now().Add(-time.Hour))
	expired["outcome"] = "Expired: nobody decided before Tue 1 Dec 2026, 09:00 UTC."
	sc = hand("approval-expired", "order_sending_setup", nil, "Expired.", expired)
	sc.Expect = expect{Texts: []string{"Not done", "Expired: nobody decided"}, NoButtons: []string{"Approve", "Reject"}}
	out = append(out, sc)

	// The list.
	sc = hand("approvals", "list_pending_approvals", nil, "2 approvals are waiting.", map[string]any{
		"kind": "approvals", "approvals": []any{pending, web},
	})
	sc.Expect = expect{Texts: []string{"2 approvals are waiting", str(pending["summary"]), str(web["summary"]), "Cannot be undone"}}
	out = append(out, sc)
	return out
}

// statusLabel is how the card names an approval's status.
var statusLabel = map[string]string{
	"pending": "Waiting for a decision", "approved": "Approved, being carried out", "done": "Done", "not_done": "Not done", "rejected": "Rejected",
}

// readArgs is how the card re-reads an approval: exactly that one, by id,
// whatever its status and age.
func readArgs(id string) map[string]any { return map[string]any{"approval": id} }

// impactTexts is what an approval card must show of its impact.
func impactTexts(data map[string]any) []string {
	im := obj(data["impact"])
	texts := []string{str(data["summary"]), str(im["what"]), str(im["who"]), str(im["when"]), str(im["renewal"]), str(im["undo"]),
		money(obj(im["costOnce"])), money(obj(im["costMonthly"]))}
	for _, it := range list(im["items"]) {
		texts = append(texts, str(it))
	}
	return texts
}

func approvalScenarios(t *testing.T, s *server) []*scenario {
	t.Helper()
	if !s.has("order_sending_setup") || !s.has("decide_approval") || !s.has("list_pending_approvals") {
		return handApprovalScenarios(t)
	}
	var out []*scenario

	// The order of the sending setup planned above: paid, so only the web
	// app may approve it. It is the sandbox's: its amounts are never
	// charged and nothing real is registered, so it is not irreversible.
	web, order := s.scenario("approval-web-only", "order_sending_setup", nil)
	orderID := str(order["approval"])
	if order["decideHere"] != false || order["status"] != "pending" {
		t.Fatalf("order_sending_setup: %v", order)
	}

	// One that may be decided here: opened the way an action tool opens it
	// (no such tool is served yet), shown as the server lists it.
	ctx := context.Background()
	a, _, err := s.approvals.Open(ctx, approvals.Request{
		WorkspaceID: s.ws.ID, Action: testAction, Arguments: map[string]any{"campaign": "Q3 SaaS heads of marketing", "leads": 250},
		Summary: "Import 250 leads into the campaign “Q3 SaaS heads of marketing”",
		Impact: approvals.Impact{
			What:  "Adds 250 people from the lead directory to the campaign. Nobody is emailed until the campaign is launched.",
			Items: []string{}, Who: "No one is contacted now.", When: "At once, as soon as it is approved.",
			CostOnce: vibesell.NewMoney(0, "USD"), CostMonthly: vibesell.NewMoney(0, "USD"),
			Renewal: "Nothing renews.", Undo: "The leads can be removed from the campaign before it is launched.",
		},
		DecideHere: true,
	})
	if err != nil {
		t.Fatal(err)
	}

	orderBefore, _ := s.call("list_pending_approvals", readArgs(orderID))
	hereBefore, _ := s.call("list_pending_approvals", readArgs(a.ID))
	list, listData := s.scenario("approvals", "list_pending_approvals", nil)
	var here map[string]any
	for _, it := range listData["approvals"].([]any) {
		if str(obj(it)["approval"]) == a.ID {
			here = map[string]any{"kind": "approval"}
			for k, v := range obj(it) {
				here[k] = v
			}
		}
	}
	if here == nil {
		t.Fatalf("list_pending_approvals does not list %s: %v", a.ID, listData)
	}
	list.Expect.Texts = []string{"2 waiting for a decision", str(order["summary"]), a.Summary, "sandbox amounts, nothing charged"}
	list.Expect.Absent = []string{"Cannot be undone"}
	out = append(out, list)

	// The person rejects the order in the card, with a reason; then
	// approves the other one in its card. Each click goes to the card's
	// own tool with the token of the card's latest read of it.
	// The click names what the card shows (shown), as the card read it.
	rejectArgs := map[string]any{"approval": orderID, "decision": "reject", "reason": "Too expensive for now", "token": tokenIn(orderBefore, orderID), "shown": order["shown"]}
	rejectedRaw, clickedReject := s.call("decide_in_card", rejectArgs)
	rejected := obj(clickedReject["approval"])
	approveArgs := map[string]any{"approval": a.ID, "decision": "approve", "token": tokenIn(hereBefore, a.ID), "shown": here["shown"]}
	doneRaw, clickedApprove := s.call("decide_in_card", approveArgs)
	done := obj(clickedApprove["approval"])
	if rejected["decidedVia"] != "card" || done["decidedVia"] != "card" {
		t.Fatalf("clicks recorded as %v and %v, want card", rejected["decidedVia"], done["decidedVia"])
	}
	orderAfter, _ := s.call("list_pending_approvals", readArgs(orderID))
	hereAfter, _ := s.call("list_pending_approvals", readArgs(a.ID))

	link := str(order["appUrl"])
	web.Responses = map[string][]json.RawMessage{"list_pending_approvals": {orderBefore}}
	web.Expect = expect{
		Texts: append(impactTexts(order), "sandbox amount: nothing is charged", str(obj(order["impact"])["charged"]),
			"Waiting for a decision", link, "Only a signed-in person in the VibeSell web app can approve this"),
		Absent:    []string{"This cannot be undone."},
		Buttons:   []string{"Review and approve in VibeSell", "Reject…"},
		NoButtons: []string{"Approve"},
		Action: &action{
			Click: "Review and approve in VibeSell", Calls: []call{}, Ignore: []string{"list_pending_approvals"}, Link: &link, Message: no(),
		},
	}
	out = append(out, web)

	reject := s.resultScenario("approval-reject", "order_sending_setup", nil, web.Result, order)
	reject.Responses = map[string][]json.RawMessage{"list_pending_approvals": {orderBefore}, "decide_in_card": {rejectedRaw}}
	reject.Expect = expect{
		Action: &action{
			First: "Reject…", Fill: &fill{Label: "Reason (optional)", Text: "Too expensive for now"}, Click: "Reject",
			Calls:  []call{{Name: "decide_in_card", Arguments: rejectArgs}},
			Ignore: []string{"list_pending_approvals"}, Message: yes(),
			After: []string{statusLabel[str(rejected["status"])], "Too expensive for now", str(rejected["decidedBy"]),
				approvals.ViaLabels.Of(approvals.ViaCard)},
			NoButtonsAfter: []string{"Approve", "Reject", "Review and approve in VibeSell"},
		},
	}
	out = append(out, reject)

	// The order's card shown again after the decision: the host replays
	// the original, pending result; the card re-reads and offers nothing.
	again := s.resultScenario("approval-shown-again", "order_sending_setup", nil, web.Result, order)
	again.Responses = map[string][]json.RawMessage{"list_pending_approvals": {orderAfter}}
	again.Expect = expect{
		Texts:     []string{statusLabel[str(rejected["status"])], "Too expensive for now"},
		NoButtons: []string{"Approve", "Reject", "Review and approve in VibeSell"},
		Absent:    []string{"Waiting for a decision", "expires in"},
		Replay:    &replay{Reads: "list_pending_approvals", ReadArgs: readArgs(orderID), NoButtons: []string{"Approve", "Reject"}, Texts: []string{statusLabel[str(rejected["status"])]}},
	}
	out = append(out, again)

	// A card whose approval the server has no record of in this workspace
	// (another workspace's, shown in this conversation): the re-read is
	// refused as not found, and the card offers nothing to decide.
	const goneID = "ap_0000000000000000"
	goneData := map[string]any{}
	for k, v := range order {
		goneData[k] = v
	}
	goneData["approval"], goneData["appUrl"] = goneID, publicURL+"/app/approvals/"+goneID
	goneRead := s.refusal("list_pending_approvals", readArgs(goneID), "There is no approval "+goneID+" in this workspace")
	gone := &scenario{Name: "approval-not-found", Kind: "approval", Source: "hand", Tool: s.listed["order_sending_setup"], Input: map[string]any{},
		Result: resultOf("Approval "+goneID+" is waiting for a decision.", goneData)}
	gone.Responses = map[string][]json.RawMessage{"list_pending_approvals": {goneRead}}
	gone.Expect = expect{
		Texts:     []string{str(order["summary"]), "Not found", "VibeSell has no record of this approval in this workspace", goneID},
		NoButtons: []string{"Approve", "Reject", "Review and approve in VibeSell"},
		Absent:    []string{"Waiting for a decision", "expires in", "Checking the current status"},
		Replay:    &replay{Reads: "list_pending_approvals", ReadArgs: readArgs(goneID), NoButtons: []string{"Approve", "Reject", "Review and approve in VibeSell"}, Texts: []string{"Not found"}},
	}
	out = append(out, gone)

	// The card goes by the refusal's code in _meta, not by its wording: a
	// "not_found" said in other words is still not found, and another code
	// is not, whatever the sentence says.
	refused := func(code, text string) json.RawMessage {
		raw, err := json.Marshal(map[string]any{
			"_meta":   map[string]any{"vibesell/refusal": code},
			"content": []any{map[string]any{"type": "text", "text": text}},
			"isError": true,
		})
		if err != nil {
			s.t.Fatal(err)
		}
		return raw
	}
	goneByCode := &scenario{Name: "approval-not-found-by-code", Kind: "approval", Source: "hand", Tool: gone.Tool, Input: map[string]any{}, Result: gone.Result}
	goneByCode.Responses = map[string][]json.RawMessage{"list_pending_approvals": {refused("not_found", "Nothing by that id here.")}}
	goneByCode.Expect = expect{
		Texts:     []string{"Not found", "VibeSell has no record of this approval in this workspace"},
		NoButtons: []string{"Approve", "Reject", "Review and approve in VibeSell"},
		Absent:    []string{"Waiting for a decision", "Checking the current status"},
	}
	out = append(out, goneByCode)
	failedRead := &scenario{Name: "approval-read-failed", Kind: "approval", Source: "hand", Tool: gone.Tool, Input: map[string]any{}, Result: gone.Result}
	failedRead.Responses = map[string][]json.RawMessage{"list_pending_approvals": {refused("internal", "There is no approval "+goneID+" in this workspace (ref 0badc0de).")}}
	failedRead.Expect = expect{
		Texts:  []string{"Waiting for a decision"},
		Absent: []string{"Not found", "Checking the current status"},
	}
	out = append(out, failedRead)

	// Decided in the card: Approve sends decide_approval and shows the
	// status the server returns (done: the workers carried it out).
	hereRaw := resultOf("Approval "+a.ID+" is waiting for the person's decision.", here)
	approve := &scenario{Name: "approval", Kind: "approval", Source: "server", Tool: s.listed["decide_approval"], Input: map[string]any{}, Result: hereRaw}
	approve.Tool, _ = json.Marshal(map[string]any{"name": testAction, "inputSchema": map[string]any{"type": "object"}})
	approve.Responses = map[string][]json.RawMessage{"list_pending_approvals": {hereBefore, hereAfter}, "decide_in_card": {doneRaw}}
	after := []string{statusLabel[str(done["status"])], approvals.ViaLabels.Of(approvals.ViaCard)}
	if o := str(done["outcome"]); o != "" {
		after = append(after, o)
	}
	approve.Expect = expect{
		Texts:     append(impactTexts(here), "Waiting for a decision", "expires in"),
		Buttons:   []string{"Approve", "Reject…"},
		NoButtons: []string{"Review and approve in VibeSell"},
		Action: &action{
			Click: "Approve", Calls: []call{{Name: "decide_in_card", Arguments: approveArgs}},
			Ignore: []string{"list_pending_approvals"}, Message: yes(), After: after,
			NoButtonsAfter: []string{"Approve", "Reject"},
		},
		Replay: &replay{Reads: "list_pending_approvals", ReadArgs: readArgs(a.ID), NoButtons: []string{"Approve", "Reject"}, Texts: after},
	}
	out = append(out, approve)

	// A host that gives the card no token (it drops the result's _meta):
	// the card decides the assistant's way, recorded as relayed.
	for _, sc := range handApprovalScenarios(t)[:1] {
		sc.Name = "approval-no-token"
		out = append(out, sc)
	}

	// Ended without a decision: expiry cannot be waited for here, so this
	// one is written from the Go type.
	expired := approvalData("ap_1a2b3c4d5e6f7a8b", "not_done", true, false, time.Now().Add(-time.Hour))
	expired["outcome"] = "Expired: nobody decided before " + time.Now().Add(-time.Hour).UTC().Format("Mon 2 Jan 2006, 15:04 UTC") + ", so nothing was done."
	sc := hand("approval-expired", "order_sending_setup", nil, "Expired.", expired)
	sc.Expect = expect{Texts: []string{"Not done", "Expired: nobody decided"}, NoButtons: []string{"Approve", "Reject"}}
	out = append(out, sc, bidiApprovalScenario(), progressScenario(t, s))
	return out
}

// progressScenario is an approval the workspace's policy gives two
// stages, approved by the first: the card says how far it is and whom it
// waits for. The policy is set back once it is opened (the approval keeps
// its own), so that no other scenario's approval is staged.
func progressScenario(t *testing.T, s *server) *scenario {
	t.Helper()
	ctx := context.Background()
	staged := approvals.Policy{Action: testAction, Stages: []approvals.Stage{
		{Name: "sales", Approvers: []string{"ada@acme.test"}},
		{Name: "finance", Approvers: []string{"fin@acme.test"}},
	}}
	if err := s.approvals.SavePolicy(ctx, s.ws.ID, staged, "ada@acme.test"); err != nil {
		t.Fatal(err)
	}
	a, _, err := s.approvals.Open(ctx, approvals.Request{
		WorkspaceID: s.ws.ID, Action: testAction, Arguments: map[string]any{"campaign": "Q4 finance leads", "leads": 900},
		Summary: "Import 900 leads into the campaign “Q4 finance leads”",
		Impact: approvals.Impact{
			What: "Adds 900 people from the lead directory to the campaign.", Items: []string{}, Who: "No one is contacted now.",
			When: "At once, as soon as it is approved.", CostOnce: vibesell.NewMoney(0, "USD"), CostMonthly: vibesell.NewMoney(0, "USD"),
			Renewal: "Nothing renews.", Undo: "The leads can be removed from the campaign before it is launched.",
		},
		DecideHere: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.approvals.SavePolicy(ctx, s.ws.ID, approvals.Policy{Action: testAction}, "ada@acme.test"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.approvals.Decide(ctx, s.ws.ID, a.ID, approvals.Decision{Approve: true, By: "ada@acme.test", Via: approvals.ViaWeb}); err != nil {
		t.Fatal(err)
	}
	read, data := s.call("list_pending_approvals", readArgs(a.ID))
	one := map[string]any{"kind": "approval"}
	for k, v := range obj(list(data["approvals"])[0]) {
		one[k] = v
	}
	sc := &scenario{Name: "approval-progress", Kind: "approval", Source: "server", Tool: s.listed["list_pending_approvals"], Input: map[string]any{},
		Result: resultOf("Approval "+a.ID+" has 1 of 2 approvals; it waits for finance.", one)}
	sc.Tool, _ = json.Marshal(map[string]any{"name": testAction, "inputSchema": map[string]any{"type": "object"}})
	sc.Responses = map[string][]json.RawMessage{"list_pending_approvals": {read}}
	sc.Expect = expect{
		Texts:   []string{"Waiting for a decision", "1 of 2 approvals; waiting for finance"},
		Buttons: []string{"Approve", "Reject…"},
		Replay:  &replay{Reads: "list_pending_approvals", ReadArgs: readArgs(a.ID), Texts: []string{"1 of 2 approvals; waiting for finance"}},
	}
	return sc
}

// bidiApprovalScenario: bidirectional controls in text the assistant wrote
// (here a summary and a sender's name in the outcome) would make the person read a
// reversed price; the card shows the text without them.
func bidiApprovalScenario() *scenario {
	expires := time.Now().Add(time.Hour)
	bidi := approvalData("ap_5b1d2c3e4f5a6b7c", "done", false, true, expires)
	bidi["decidedBy"], bidi["decidedAt"], bidi["decidedVia"] = "sam@acme-analytics.com", time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), "web"
	bidi["outcome"] = "Created the mailbox of Ada \u202eLovelace\u202c <ada@getacme.com>."
	bidi["summary"] = "Set up rocket\u202e 00.51$ \u2067for\u2069 Acme"
	sc := hand("approval-bidi", "order_sending_setup", nil, "Done.", bidi)
	sc.Expect = expect{
		Texts:  []string{"Set up rocket 00.51$ for Acme", "Created the mailbox of Ada Lovelace <ada@getacme.com>."},
		Absent: []string{"\u202e", "\u2067", "\u2069", "\u202c"},
	}
	return sc
}
