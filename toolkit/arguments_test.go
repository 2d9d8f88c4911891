package toolkit

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestArgumentRefusals(t *testing.T) {
	c, logs := connect(t)
	for _, tc := range []struct {
		name string
		tool string
		args string
		want string
	}{
		{"unknown", "save_contact", `{"name":"Acme","bogus":1}`,
			`Unknown argument "bogus". This tool takes: name, email.`},
		{"unknown several", "save_contact", `{"name":"Acme","b":1,"a":2}`,
			`Unknown arguments "a", "b". This tool takes: name, email.`},
		{"unknown differs only in case", "save_contact", `{"Name":"Acme"}`,
			`Unknown argument "Name". This tool takes: name, email. The argument "name" is required: the company name, for example "Acme".`},
		{"unknown on a tool without arguments", "ping", `{"verbose":true}`,
			`Unknown argument "verbose". This tool takes no arguments.`},
		{"missing", "save_contact", `{}`,
			`The argument "name" is required: the company name, for example "Acme".`},
		{"missing when arguments are absent", "save_contact", ``,
			`The argument "name" is required: the company name, for example "Acme".`},
		{"wrong type", "list_leads", `{"limit":"abc"}`,
			`The argument "limit" must be a whole number from 1 to 100, for example 20; you sent "abc".`},
		{"not whole", "list_leads", `{"limit":2.5}`,
			`The argument "limit" must be a whole number from 1 to 100, for example 20; you sent 2.5.`},
		{"below minimum", "list_leads", `{"limit":0}`,
			`The argument "limit" must be a whole number from 1 to 100, for example 20; you sent 0.`},
		{"above maximum", "list_leads", `{"limit":1000}`,
			`The argument "limit" must be a whole number from 1 to 100, for example 20; you sent 1000.`},
		{"too large for the field", "list_leads", `{"offset":1e30}`,
			`The argument "offset" must be a whole number of at least 0, for example 0; you sent 1e30.`},
		{"enum", "list_leads", `{"status":"open"}`,
			`The argument "status" must be one of "new", "replied" or "bounced", for example "replied"; you sent "open".`},
		{"empty text", "save_contact", `{"name":""}`,
			`The argument "name" must be text of 1 to 100 characters, for example "Acme"; you sent "".`},
		{"pattern", "save_contact", `{"name":"Acme","email":"ada at acme"}`,
			`The argument "email" must be text matching the pattern ^[^@ ]+@[^@ ]+$, for example "ada@acme.com"; you sent "ada at acme".`},
		{"wrong type of a list", "list_leads", `{"answers":"gmail"}`,
			`The argument "answers" must be a list of at most 5 items, each an object with the fields card and answer, for example [{"answer":"gmail","card":"0123456789abcdef"}]; you sent "gmail".`},
		{"nested", "list_leads", `{"answers":[{"card":"XYZ","answer":"gmail","extra":1},{"answer":""}]}`,
			`Unknown field "extra" in "answers[0]". It takes: card, answer. ` +
				`The argument "answers[1].card" is required: the id of the card that asked. ` +
				`The argument "answers[0].card" must be text matching the pattern ^[0-9a-f]{16}$; you sent "XYZ". ` +
				`The argument "answers[1].answer" must be non-empty text; you sent "".`},
		{"everything at once, in order", "list_leads", `{"limit":"x","status":"open","zzz":1}`,
			`Unknown argument "zzz". This tool takes: limit, status, answers, offset. ` +
				`The argument "limit" must be a whole number from 1 to 100, for example 20; you sent "x". ` +
				`The argument "status" must be one of "new", "replied" or "bounced", for example "replied"; you sent "open".`},
		{"not an object", "save_contact", `["Acme"]`,
			`The arguments must be an object with the fields name and email; you sent ["Acme"].`},
		{"long value is shortened", "list_leads", `{"status":"` + strings.Repeat("x", 100) + `"}`,
			`The argument "status" must be one of "new", "replied" or "bounced", for example "replied"; you sent "` + strings.Repeat("x", 56) + `...".`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var args any
			if tc.args != "" {
				args = json.RawMessage(tc.args)
			}
			if got := c.Refusal(tc.tool, args); got != tc.want {
				t.Errorf("refusal:\n got %s\nwant %s", got, tc.want)
			}
		})
	}
	if recs := logs.records(t); len(recs) != 0 {
		t.Errorf("argument refusals were logged: %v", recs)
	}
}

func TestArgumentsAccepted(t *testing.T) {
	c, _ := connect(t)
	c.Result("ping", nil, nil)
	c.Result("ping", json.RawMessage(`null`), nil)
	c.Result("ping", map[string]any{}, nil)
	c.Result("list_leads", map[string]any{"limit": 100, "status": "new", "answers": []any{map[string]any{"card": "0123456789abcdef", "answer": "gmail"}}}, nil)
	// 20.0 and 2e1 are whole numbers in JSON Schema; an int field takes them.
	c.Result("list_leads", json.RawMessage(`{"limit":20.0,"offset":2e1}`), nil)
}

func TestManyProblemsAreCounted(t *testing.T) {
	c, _ := connect(t)
	bad := `{"card":"x","answer":""}`
	got := c.Refusal("list_leads", json.RawMessage(`{"answers":[`+strings.Repeat(bad+",", 4)+bad+`]}`))
	if n := strings.Count(got, "The argument "); n != 5 {
		t.Errorf("%d sentences, want 5: %s", n, got)
	}
	if !strings.HasSuffix(got, ". There are 5 more problems with the arguments.") {
		t.Errorf("refusal = %s", got)
	}
}

func TestPhrase(t *testing.T) {
	for desc, want := range map[string]string{
		"the company name":  "the company name",
		"The company name.": "the company name",
		"The sending domain, e.g. acme.com. Must be owned.": "the sending domain, e.g. acme.com",
		"Stripe customer to bill.":                          "Stripe customer to bill",
		"URL of the page":                                   "URL of the page",
		"":                                                  "",
	} {
		if got := phrase(desc); got != want {
			t.Errorf("phrase(%q) = %q, want %q", desc, got, want)
		}
	}
}
