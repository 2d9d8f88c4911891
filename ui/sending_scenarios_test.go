package ui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"vibesell/approvals"
	"vibesell/sending"
)

// answerClick sets a choice scenario's action: clicking the choice with id
// (or, with text, sending the person's own words) must send exactly one
// tools/call, the card's own tool with the answer and the token the
// result gave the card, and show what it returns: the settled result,
// made now by the real server. It returns the question's tool's result
// for the same answer relayed afterwards (which must read as clicked),
// for the scenarios that follow.
func answerClick(s *server, sc *scenario, data map[string]any, id, text string) (json.RawMessage, map[string]any) {
	s.t.Helper()
	a, answer := choiceAction(s, sc, data, id, text)
	token := tokenIn(sc.Result, str(data["card"]))
	if token == "" {
		s.t.Fatalf("%s: the result gives the card no token for card %s", sc.Name, str(data["card"]))
	}
	click := map[string]any{"card": str(data["card"]), "answer": answer, "token": token}
	a.Calls = []call{{Name: "decide_in_card", Arguments: click}}
	clicked, decision := s.call("decide_in_card", click)
	sc.Responses = map[string][]json.RawMessage{"decide_in_card": {clicked}}
	if decision["sending"] == nil && decision["email"] == nil {
		s.t.Fatalf("%s: the click returned no result of the question's tool: %v", sc.Name, decision)
	}
	raw, next := s.call(str(data["tool"]), answeredArgs(data, answer))
	if !slices.Contains(list(next["clicked"]), data["card"]) {
		s.t.Fatalf("%s: the answer relayed after the click does not read as clicked: %v", sc.Name, next["clicked"])
	}
	return raw, next
}

// relayClick sets a choice scenario's action for a host that gives the
// card a token but cannot run the card's own tool (no app-only tools):
// the card then calls the question's tool with its arguments and the
// answers plus this one, which binds it as relayed.
func relayClick(s *server, sc *scenario, data map[string]any, id string) (json.RawMessage, map[string]any) {
	s.t.Helper()
	a, answer := choiceAction(s, sc, data, id, "")
	token := tokenIn(sc.Result, str(data["card"]))
	args := answeredArgs(data, answer)
	a.Calls = []call{{Name: "decide_in_card", Arguments: map[string]any{"card": str(data["card"]), "answer": answer, "token": token}}, {Name: str(data["tool"]), Arguments: args}}
	raw, next := s.call(str(data["tool"]), args)
	// The test host has no result for decide_in_card: it answers as a host
	// without app-only tools does.
	sc.Responses = map[string][]json.RawMessage{str(data["tool"]): {raw}}
	return raw, next
}

// choiceAction is the click (or the words sent) that answers a choice
// scenario, and the answer it sends.
func choiceAction(s *server, sc *scenario, data map[string]any, id, text string) (*action, string) {
	s.t.Helper()
	a := &action{Message: yes()}
	answer := text
	if id != "" {
		answer = id
		for _, c := range list(data["choices"]) {
			if str(obj(c)["id"]) == id {
				a.Click = str(obj(c)["label"])
			}
		}
		if a.Click == "" {
			s.t.Fatalf("%s: no choice %q in %v", sc.Name, id, data["choices"])
		}
		a.MessageIncl = a.Click
	} else {
		a.Fill = &fill{Label: "Or answer in your own words", Text: text}
		a.Click = "Send answer"
		a.MessageIncl = text
	}
	sc.Expect.Action = a
	return a, answer
}

// answeredArgs are the arguments the question's tool is called back with:
// the card's, and its answers plus this one.
func answeredArgs(data map[string]any, answer string) map[string]any {
	args := map[string]any{}
	for k, v := range obj(data["arguments"]) {
		args[k] = v
	}
	answers := append([]any{}, list(data["answers"])...)
	args["answers"] = append(answers, map[string]any{"card": str(data["card"]), "answer": answer})
	return args
}

// choiceTexts is what a choice card must show: the question, why, and
// every choice.
func choiceTexts(data map[string]any) ([]string, []string) {
	texts := []string{str(data["question"]), str(data["reason"])}
	var buttons []string
	for _, c := range list(data["choices"]) {
		texts = append(texts, str(obj(c)["label"]))
		if d := str(obj(c)["description"]); d != "" {
			texts = append(texts, d)
		}
		buttons = append(buttons, str(obj(c)["label"]))
	}
	if data["allowFreeText"] == true {
		texts = append(texts, "Or answer in your own words")
		buttons = append(buttons, "Send answer")
	}
	return texts, buttons
}

// withStep adds a result's next step to what must be shown when it is for
// the person (no tool named), and to what must not be when it is an
// instruction for the assistant ("Call propose_email…").
func withStep(texts []string, data map[string]any) ([]string, []string) {
	step := obj(data["nextStep"])
	if step == nil || str(step["why"]) == "" {
		return texts, nil
	}
	if step["tool"] == nil {
		return append(texts, str(step["why"])), nil
	}
	return texts, []string{str(step["why"])}
}

// resultScenario makes a scenario of a result the server already returned.
func (s *server) resultScenario(name, tool string, args map[string]any, raw json.RawMessage, data map[string]any) *scenario {
	return &scenario{Name: name, Kind: str(data["kind"]), Source: "server", Tool: s.listed[tool], Input: args, Result: raw}
}

func sendingScenarios(t *testing.T, s *server) []*scenario {
	t.Helper()
	var out []*scenario
	if !s.has("choose_sending_source") {
		return out
	}

	// Sizing: a calculation, then the one the person agreed to.
	sc, data := s.scenario("sizing", "size_sending_capacity", map[string]any{"dailyVolume": 300})
	sc.Expect.Texts = []string{
		fmt.Sprintf("%v mailboxes on %v domains", data["mailboxes"], data["domains"]),
		money(obj(data["monthlyCost"])), money(obj(data["yearlyCost"])), "Calculation only", "300",
	}
	out = append(out, sc)
	deadline := time.Now().AddDate(0, 3, 0).Format(time.DateOnly)
	sc, data = s.scenario("sizing-recorded", "confirm_sizing", map[string]any{"leadCount": 3000, "deadline": deadline, "emailsPerLead": 3})
	sc.Expect.Texts = []string{"Recorded", money(obj(data["monthlyCost"])), money(obj(data["yearlyCost"])), "3,000", "9,000"}
	out = append(out, sc)

	// The source: a question, answered by a click; its answer is the
	// sending_choice the server returns for it.
	sc, data = s.scenario("choice", "choose_sending_source", nil)
	sc.Expect.Texts, sc.Expect.Buttons = choiceTexts(data)
	raw, next := answerClick(s, sc, data, "own_names", "")
	sc.Expect.Action.After = []string{str(next["meaning"])}
	out = append(out, sc)

	sc = s.resultScenario("sending-choice", "choose_sending_source", nil, raw, next)
	sc.Expect.Texts = []string{str(list(next["chosen"])[0].(map[string]any)["label"]), str(next["meaning"]), "Recorded"}
	sc.Expect.Texts, sc.Expect.Absent = withStep(sc.Expect.Texts, next)
	out = append(out, sc)

	// The domains: one pick from lookalikes of the offer's domain.
	sc, data = s.scenario("choice-domains", "propose_domains", map[string]any{"count": 1})
	sc.Expect.Texts, sc.Expect.Buttons = choiceTexts(data)
	first := str(obj(list(data["choices"])[0])["id"])
	raw, next = answerClick(s, sc, data, first, "")
	sc.Expect.Action.After = []string{first, "1 domain picked"}
	out = append(out, sc)

	sc = s.resultScenario("sending-choice-domains", "propose_domains", map[string]any{"count": 1}, raw, next)
	sc.Expect.Texts = []string{"1 domain picked", str(next["meaning"])}
	for _, d := range list(next["domains"]) {
		sc.Expect.Texts = append(sc.Expect.Texts, str(obj(d)["domain"]), money(obj(obj(d)["yearlyPrice"])))
	}
	if next["provider"] == "sandbox" {
		sc.Expect.Texts = append(sc.Expect.Texts, "Sandbox")
	}
	out = append(out, sc)

	// A host without app-only tools: the same kind of click, relayed.
	sc, data = s.scenario("choice-relayed", "propose_warmed_domains", nil)
	sc.Expect.Texts, sc.Expect.Buttons = choiceTexts(data)
	_, next = relayClick(s, sc, data, "keep")
	sc.Expect.Action.After = []string{str(next["meaning"])}
	out = append(out, sc)

	// The addresses: answered in the person's own words.
	emailArgs := map[string]any{"senderNames": []any{"Ada Lovelace"}}
	sc, data = s.scenario("choice-own-words", "propose_email", emailArgs)
	sc.Expect.Texts, sc.Expect.Buttons = choiceTexts(data)
	raw, next = answerClick(s, sc, data, "", "ada@ and sales@")
	sc.Expect.Action.After = []string{"addresses planned"}
	out = append(out, sc)

	sc = s.resultScenario("email-step", "propose_email", emailArgs, raw, next)
	sc.Expect.Texts = []string{str(next["styleLabel"]), money(obj(next["monthlyCost"])), money(obj(next["yearlyCost"]))}
	sc.Expect.Texts, sc.Expect.Absent = withStep(sc.Expect.Texts, next)
	for _, a := range list(next["addresses"]) {
		sc.Expect.Texts = append(sc.Expect.Texts, str(obj(a)["address"]))
	}
	out = append(out, sc)

	// Checking names, and the warmed shelf.
	sc, data = s.scenario("domain-quote", "check_domains", map[string]any{"names": []any{"getacme-analytics.com", "acme-analytics.io", "acme-analytics.xyz"}})
	for _, q := range list(data["quotes"]) {
		sc.Expect.Texts = append(sc.Expect.Texts, str(obj(q)["domain"]))
		if p := obj(obj(q)["pricePerYear"]); p != nil {
			sc.Expect.Texts = append(sc.Expect.Texts, money(p)+" per year")
		}
		if r := str(obj(q)["reason"]); r != "" {
			sc.Expect.Texts = append(sc.Expect.Texts, r)
		}
	}
	out = append(out, sc)

	sc, data = s.scenario("warmed-shelf", "list_warmed_domains", map[string]any{"limit": 3})
	sc.Expect.Texts = []string{fmt.Sprintf("%v already-warmed domain", data["total"])}
	for _, w := range list(data["domains"]) {
		sc.Expect.Texts = append(sc.Expect.Texts, str(obj(w)["domain"]), money(obj(obj(w)["monthlyPrice"])))
	}
	out = append(out, sc)

	// Everything so far.
	sc, data = s.scenario("sending-setup", "get_sending_setup", nil)
	sc.Expect.Texts, sc.Expect.Absent = withStep([]string{sending.SourceLabels.Of(str(obj(data["source"])["id"])), "Picked, not ordered", "Planned, not ordered"}, data)
	for _, d := range list(data["domains"]) {
		sc.Expect.Texts = append(sc.Expect.Texts, str(obj(d)["domain"]))
	}
	for _, m := range list(data["mailboxes"]) {
		sc.Expect.Texts = append(sc.Expect.Texts, str(obj(m)["address"]))
	}
	if data["readyToSendOn"] == nil {
		sc.Expect.Texts = append(sc.Expect.Texts, "Full volume from Not available")
	}
	out = append(out, sc)

	return out
}

// orderedScenarios: the order approved by a signed-in person in the web
// app, carried out, and days later the warmup started.
func orderedScenarios(t *testing.T, s *server) []*scenario {
	t.Helper()
	if !s.has("order_sending_setup") || !s.has("start_warmup") {
		return []*scenario{handWarmupScenario()}
	}
	ctx := context.Background()
	_, order := s.call("order_sending_setup", nil) // the first one was rejected: a new approval
	if _, _, err := s.approvals.Decide(ctx, s.ws.ID, str(order["approval"]), approvals.Decision{
		Approve: true, By: "sam@acme-analytics.com", Via: approvals.ViaWeb,
	}); err != nil {
		t.Fatal(err)
	}
	a, err := s.approvals.Wait(ctx, s.ws.ID, str(order["approval"]), 20*time.Second)
	if err != nil || a.Status != approvals.Done {
		var outcome string
		if a.Outcome != nil {
			outcome = *a.Outcome
		}
		t.Fatalf("the approved order was not carried out: %v, %s, %q", err, a.Status, outcome)
	}
	// The sandbox prepares mailboxes in 2 business days.
	s.clock.advance(5 * 24 * time.Hour)

	var out []*scenario
	sc, data := s.scenario("warmup", "start_warmup", nil)
	started := list(data["started"])
	if len(started) == 0 {
		t.Fatalf("start_warmup started nothing: %v", data)
	}
	sc.Expect.Texts = []string{fmt.Sprintf("Warmup started for %d mailboxes", len(started)), "Sandbox"}
	for _, m := range started {
		sc.Expect.Texts = append(sc.Expect.Texts, str(m))
	}
	out = append(out, sc)

	sc, data = s.scenario("sending-setup-warming", "get_sending_setup", nil)
	sc.Expect.Texts = []string{"Warming up", "Warmup day 1 of"}
	for _, d := range list(data["domains"]) {
		sc.Expect.Texts = append(sc.Expect.Texts, str(obj(d)["domain"]), statusText[str(obj(d)["status"])])
		for _, c := range list(obj(d)["dns"]) {
			sc.Expect.Texts = append(sc.Expect.Texts, str(obj(c)["type"]))
		}
	}
	if data["readyToSendOn"] != nil {
		sc.Expect.Texts = append(sc.Expect.Texts, "Ready to send at full volume from")
	}
	out = append(out, sc)
	return out
}

// statusText is how the card names a domain's status in the setup.
var statusText = map[string]string{"chosen": "Picked, not ordered", "preparing": "Being prepared", "ready": "Ready"}

// handWarmupScenario is a warmup result written from its Go type
// (warmupOutput), for when the order cannot be made here.
func handWarmupScenario() *scenario {
	start := time.Now().UTC()
	var ramp []any
	for i := 0; i < 21; i++ {
		per := min(2+2*i, 30)
		ramp = append(ramp, map[string]any{"day": i + 1, "date": start.AddDate(0, 0, i).Format(time.DateOnly), "perMailbox": per, "total": per * 2})
	}
	sc := hand("warmup", "start_warmup", nil, "Warmup started for 2 mailboxes.", map[string]any{
		"kind": "warmup", "provider": "sandbox",
		"started":        []any{"ada@getacme-analytics.com", "sales@getacme-analytics.com"},
		"alreadyWarming": []any{}, "notReady": []any{map[string]any{"address": "ada@acmehq.com", "readyOn": start.AddDate(0, 0, 2).Format(time.DateOnly)}},
		"prewarmed": []any{}, "startedOn": start.Format(time.DateOnly), "fullVolumeOn": start.AddDate(0, 0, 21).Format(time.DateOnly), "ramp": ramp,
	})
	sc.Expect.Texts = []string{"Warmup started for 2 mailboxes", "ada@getacme-analytics.com", "sales@getacme-analytics.com", "ada@acmehq.com", "Still being prepared", "Sandbox"}
	return sc
}

// genericScenarios: a kind the card has no view for reads as words.
func genericScenarios() []*scenario {
	// No tool returns this kind: it stands for one added to the server
	// before the card has a view for it.
	sc := hand("generic", "export_leads", nil, "About 12,400 people match.", map[string]any{
		"kind": "lead_export", "count": 12400, "estimatedAt": "2026-12-01T09:00:00Z", "sample": nil,
		"filters": map[string]any{"roles": []any{"Head of marketing"}, "countries": []any{"DE", "FR"}},
	})
	sc.Expect = expect{Texts: []string{"Lead export", "12,400", "Not available", "Head of marketing", "Roles"}, Absent: []string{"null", "[object Object]"}}
	return []*scenario{sc}
}

// hostScenarios: what the card shows besides a kind: a refusal (the tool
// said no; text only) and a call the host cancelled.
func hostScenarios(t *testing.T, s *server) []*scenario {
	t.Helper()
	var out []*scenario
	if s.has("start_warmup") {
		// Nothing is ordered (the order was rejected above), so there is
		// nothing to warm up: a real refusal.
		res := s.c.Call("start_warmup", map[string]any{})
		if !res.IsError {
			t.Fatalf("start_warmup with nothing ordered did not refuse: %v", res.Content)
		}
		raw, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		text := mcpText(res)
		out = append(out, &scenario{Name: "refusal", Source: "server", Tool: s.listed["start_warmup"], Input: map[string]any{}, Result: raw,
			Expect: expect{Texts: []string{"VibeSell could not do this", text}}})
	}
	reason := "The person stopped the request."
	def, _ := json.Marshal(map[string]any{"name": "check_domains", "title": "Check domain names", "inputSchema": map[string]any{"type": "object"}})
	out = append(out, &scenario{Name: "cancelled", Source: "host", Tool: def, Input: map[string]any{"names": []any{"getacme.com"}}, Cancel: &reason,
		Expect: expect{Texts: []string{"This was cancelled", reason}}})
	return out
}

func mcpText(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := mcp.AsTextContent(res.Content[0]); ok {
		return tc.Text
	}
	return ""
}
