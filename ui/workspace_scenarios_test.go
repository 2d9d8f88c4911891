package ui_test

import (
	"fmt"
	"regexp"
	"testing"

	"vibesell"
)

// money writes an amount the way the card must show it: the decimal text
// as sent, grouped by thousands, after the currency code.
func money(m map[string]any) string {
	s := vibesell.FormatMoney(str(m["currency"]), str(m["amount"]))
	if p := str(m["period"]); p != "" {
		s += " per " + p
	}
	return s
}

var ticketRef = regexp.MustCompile(`^VS-\d+$`)

func workspaceScenarios(t *testing.T, s *server) []*scenario {
	t.Helper()
	var out []*scenario
	if !s.has("get_workspace_context") {
		return out
	}

	// A new workspace: nothing saved, no plan (null: "Not available").
	sc, data := s.scenario("workspace-new", "get_workspace_context", nil)
	ws := obj(data["workspace"])
	var absent []string
	sc.Expect.Texts, absent = withStep([]string{str(ws["name"]), "Not saved yet"}, data)
	if data["plan"] == nil {
		sc.Expect.Texts = append(sc.Expect.Texts, "Not available")
	}
	sc.Expect.Absent = append(absent, "null", "undefined", "NaN", "[object Object]")
	out = append(out, sc)

	sc, data = s.scenario("offer", "save_offer", map[string]any{
		"companyName": "Acme Analytics", "companyDomain": "acme-analytics.com",
		"product":      "A dashboard that shows which ads bring paying customers",
		"audience":     "Heads of marketing at B2B SaaS companies with 20 to 200 employees in Europe",
		"value":        "Stop paying for ads that never convert; cut wasted spend by a third",
		"proofPoints":  []string{"Used by 40 SaaS teams", "Cut Foo Inc's cost per lead by 31%"},
		"callToAction": "Book a 20-minute demo",
		"price":        map[string]any{"amount": 1450, "currency": "EUR", "period": "month"},
	})
	offer := obj(data["offer"])
	sc.Expect.Texts = []string{str(offer["product"]), str(offer["audience"]), str(offer["value"]), str(offer["callToAction"]),
		money(obj(offer["price"])), str(offer["companyDomain"])}
	for _, p := range list(offer["proofPoints"]) {
		sc.Expect.Texts = append(sc.Expect.Texts, str(p))
	}
	sc.Expect.Absent = []string{"1450.0 ", "€"}
	out = append(out, sc)

	sc, data = s.scenario("playbook", "save_playbook", map[string]any{
		"tone":   "Plain-spoken and brief, no hype, first names",
		"angles": []string{"Wasted ad spend", "A recent funding round"},
		"objections": []map[string]any{
			{"objection": "We already use Google Analytics", "answer": "It tells you clicks; we tell you which clicks paid"},
		},
		"dos":   []string{"Mention one number"},
		"donts": []string{"Never promise ROI"},
	})
	pb := obj(data["playbook"])
	sc.Expect.Texts = []string{str(pb["tone"])}
	for _, k := range []string{"angles", "dos", "donts"} {
		for _, v := range list(pb[k]) {
			sc.Expect.Texts = append(sc.Expect.Texts, str(v))
		}
	}
	for _, o := range list(pb["objections"]) {
		sc.Expect.Texts = append(sc.Expect.Texts, str(obj(o)["objection"]), str(obj(o)["answer"]))
	}
	out = append(out, sc)

	s.call("remember", map[string]any{"fact": "We never email on Fridays", "about": "preference"})
	sc, data = s.scenario("memory", "remember", map[string]any{"fact": "Prefers to be called Sam", "about": "person"})
	sc.Expect.Texts = []string{"Prefers to be called Sam", "We never email on Fridays", fmt.Sprintf("Remembered now (%d facts)", len(list(data["memories"])))}
	out = append(out, sc)

	sc, data = s.scenario("support", "contact_support", map[string]any{
		"message": "The approval card stays blank after I click Approve", "topic": "bug", "replyTo": "sam@acme-analytics.com",
	})
	ticket := obj(data["ticket"])
	if !ticketRef.MatchString(str(ticket["reference"])) {
		t.Fatalf("support ticket reference %q", ticket["reference"])
	}
	sc.Expect.Texts = []string{str(ticket["reference"]), str(ticket["message"]), str(ticket["replyTo"]), str(data["whatNext"]), "Open"}
	out = append(out, sc)

	sc, data = s.scenario("workspace", "get_workspace_context", nil)
	offer = obj(data["offer"])
	sc.Expect.Texts = []string{str(obj(data["workspace"])["name"]), str(offer["product"]), money(obj(offer["price"])),
		str(obj(data["playbook"])["tone"]), "Prefers to be called Sam"}
	sc.Expect.Texts, absent = withStep(sc.Expect.Texts, data)
	sc.Expect.Absent = append(absent, "Not saved yet")
	if setup := obj(data["sendingSetup"]); setup != nil && setup["source"] == nil {
		sc.Expect.Texts = append(sc.Expect.Texts, "Sending from Not chosen yet")
	}
	out = append(out, sc)
	return out
}
