package toolkit

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestArgumentRefusals(t *testing.T) {
	b := setup(t)
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
			if diff := cmp.Diff(tc.want, b.client.For(t).Refusal(tc.tool, args)); diff != "" {
				t.Errorf("refusal (-want +got):\n%s", diff)
			}
		})
	}
	if recs := b.logs.Records(t); len(recs) != 0 {
		t.Errorf("argument refusals were logged: %v", recs)
	}
}

func TestArgumentsAccepted(t *testing.T) {
	b := setup(t)
	b.client.Result("ping", nil, nil)
	b.client.Result("ping", json.RawMessage(`null`), nil)
	b.client.Result("ping", map[string]any{}, nil)
	b.client.Result("list_leads", map[string]any{"limit": 100, "status": "new", "answers": []any{map[string]any{"card": "0123456789abcdef", "answer": "gmail"}}}, nil)
	// 20.0 and 2e1 are whole numbers in JSON Schema; an int field takes them.
	b.client.Result("list_leads", json.RawMessage(`{"limit":20.0,"offset":2e1}`), nil)
}

func TestManyProblemsAreCounted(t *testing.T) {
	b := setup(t)
	bad := `{"card":"x","answer":""}`
	got := b.client.Refusal("list_leads", json.RawMessage(`{"answers":[`+strings.Repeat(bad+",", 4)+bad+`]}`))
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

// Optional means absent: a null is read as the argument left out, so a
// required list given as null is refused like a missing one, and an
// optional one given as null is simply not given.
func TestNullIsAbsent(t *testing.T) {
	b := setup(t)
	t.Run("a required list given as null is missing", func(t *testing.T) {
		got := b.client.For(t).Refusal("tag_leads", json.RawMessage(`{"names":null}`))
		want := `The argument "names" is required: the leads to tag, for example ["ada@acme.com"].`
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("refusal (-want +got):\n%s", diff)
		}
	})
	t.Run("a nested required field given as null is missing", func(t *testing.T) {
		got := b.client.For(t).Refusal("list_leads", json.RawMessage(`{"answers":[{"card":null,"answer":"gmail"}]}`))
		want := `The argument "answers[0].card" is required: the id of the card that asked.`
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("refusal (-want +got):\n%s", diff)
		}
	})
	t.Run("an optional argument given as null is left out", func(t *testing.T) {
		var out tagOutput
		b.client.For(t).Result("tag_leads", json.RawMessage(`{"names":["ada@acme.com"],"note":null}`), &out)
		if diff := cmp.Diff(tagOutput{Kind: "lead_count", Tagged: 1}, out); diff != "" {
			t.Errorf("result (-want +got):\n%s", diff)
		}
	})
	t.Run("a null inside a list is a wrong value", func(t *testing.T) {
		got := b.client.For(t).Refusal("tag_leads", json.RawMessage(`{"names":["ada@acme.com",null]}`))
		want := `The argument "names[1]" must be text; you sent null.`
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("refusal (-want +got):\n%s", diff)
		}
	})
}

// Schema dialects that take one type per property (some hosts' function
// calling among them) cannot read ["null", "array"]; every input property
// is advertised with its one type.
func TestInputSchemasHaveOneTypePerProperty(t *testing.T) {
	b := setup(t)
	for _, tool := range []string{"save_contact", "list_leads", "tag_leads", "ping", "behave", "echo"} {
		t.Run(tool, func(t *testing.T) {
			var def struct {
				InputSchema any `json:"inputSchema"`
			}
			if err := json.Unmarshal(b.client.For(t).Tool(tool), &def); err != nil {
				t.Fatal(err)
			}
			var several []string
			walkSchema(def.InputSchema, "", func(path string, node map[string]any) {
				if _, ok := node["type"].([]any); ok {
					several = append(several, path)
				}
			})
			if len(several) > 0 {
				t.Errorf("properties typed with several types: %v", several)
			}
		})
	}
	t.Run("outputs keep null for not available", func(t *testing.T) {
		var def struct {
			OutputSchema struct {
				Properties map[string]map[string]any `json:"properties"`
			} `json:"outputSchema"`
		}
		if err := json.Unmarshal(b.client.For(t).Tool("tag_leads"), &def); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]any{"null", "string"}, def.OutputSchema.Properties["note"]["type"]); diff != "" {
			t.Errorf("note's type (-want +got):\n%s", diff)
		}
	})
}

func walkSchema(v any, path string, visit func(path string, node map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		visit(path, x)
		for k, e := range x {
			walkSchema(e, path+"/"+k, visit)
		}
	case []any:
		for i, e := range x {
			walkSchema(e, fmt.Sprintf("%s/%d", path, i), visit)
		}
	}
}

// One rule for every free-text argument of every tool: no control
// characters but the line break and the tab. PostgreSQL refuses a NUL in
// text, which used to surface as an internal error; the others are
// invisible to the person who reads the text later.
func TestControlCharactersAreRefusedByName(t *testing.T) {
	b := setup(t)
	for _, tc := range []struct {
		name string
		tool string
		args string
		want string
	}{
		{"NUL", "save_contact", `{"name":"Ac\u0000me"}`,
			`The argument "name" contains a control character (U+0000); text may hold line breaks and tabs but no other control characters. Send it again without it.`},
		{"bell, nested in a list", "list_leads", `{"answers":[{"card":"0123456789abcdef","answer":"gm\u0007ail"}]}`,
			`The argument "answers[0].answer" contains a control character (U+0007); text may hold line breaks and tabs but no other control characters. Send it again without it.`},
		{"carriage return", "tag_leads", `{"names":["ada@acme.com"],"note":"met\r\nat the fair"}`,
			`The argument "note" contains a control character (U+000D); text may hold line breaks and tabs but no other control characters. Send it again without it.`},
		{"delete", "echo", `{"text":"x\u007f"}`,
			`The argument "text" contains a control character (U+007F); text may hold line breaks and tabs but no other control characters. Send it again without it.`},
		{"a C1 control", "tag_leads", `{"names":["ada@acme.com","bob\u0085@acme.com"]}`,
			`The argument "names[1]" contains a control character (U+0085); text may hold line breaks and tabs but no other control characters. Send it again without it.`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := b.client.For(t).Refusal(tc.tool, json.RawMessage(tc.args))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("refusal (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("line breaks and tabs are text", func(t *testing.T) {
		var out echoOutput
		b.client.For(t).Result("echo", json.RawMessage(`{"text":"one\n\ttwo"}`), &out)
		if diff := cmp.Diff("one\n\ttwo", out.Text); diff != "" {
			t.Errorf("echoed (-want +got):\n%s", diff)
		}
	})
	if recs := b.logs.Records(t); len(recs) != 0 {
		t.Errorf("refused text was logged: %v", recs)
	}
}
