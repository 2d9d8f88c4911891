package campaigns

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTemplate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		text   string
		values map[string]string
		want   Rendered
	}{
		{"a field", "Hi {{first_name}},", map[string]string{"first_name": "Ana"},
			Rendered{Text: "Hi Ana,", HTML: "Hi Ana,"}},
		{"spaces and case in the name", "Hi {{ First_Name }}", map[string]string{"first_name": "Ana"},
			Rendered{Text: "Hi Ana", HTML: "Hi Ana"}},
		{"a missing field takes its fallback", "Hi {{first_name|there}},", map[string]string{},
			Rendered{Text: "Hi there,", HTML: "Hi there,"}},
		{"blank counts as missing", "Hi {{first_name|there}},", map[string]string{"first_name": "  "},
			Rendered{Text: "Hi there,", HTML: "Hi there,"}},
		{"a missing field without fallback is unresolved and never printed", "Hi {{first_name}} at {{company}}", map[string]string{"company": "Acme"},
			Rendered{Text: "Hi  at Acme", HTML: "Hi  at Acme", Unresolved: []string{"first_name"}}},
		{"non-Latin names", "Здравствуйте, {{first_name}} из {{company}}", map[string]string{"first_name": "Мария", "company": "東京商事"},
			Rendered{Text: "Здравствуйте, Мария из 東京商事", HTML: "Здравствуйте, Мария из 東京商事"}},
		{"HTML in a field is escaped for the HTML part only", "At {{company}}:\nhello", map[string]string{"company": `<script>alert("x")</script> & Co`},
			Rendered{Text: "At <script>alert(\"x\")</script> & Co:\nhello", HTML: "At &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; Co:<br>\nhello"}},
		{"a value that looks like a field is never merged", "Hi {{first_name|there}}", map[string]string{"first_name": "{{company}}"},
			Rendered{Text: "Hi there", HTML: "Hi there"}},
		{"template syntax of other engines is text", "Hi {{first_name}} {% if x %}${x}<%= y %>", map[string]string{"first_name": "Ana"},
			Rendered{Text: "Hi Ana {% if x %}${x}<%= y %>", HTML: "Hi Ana {% if x %}${x}&lt;%= y %&gt;"}},
		{"single braces are text", "{first_name} {", map[string]string{"first_name": "Ana"},
			Rendered{Text: "{first_name} {", HTML: "{first_name} {"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tpl, err := ParseTemplate(tt.text)
			if err != nil {
				t.Fatal(err)
			}
			got := tpl.Render(tt.values)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("render (-want +got):\n%s", d)
			}
			if strings.Contains(got.Text, "{{") || strings.Contains(got.HTML, "{{") {
				t.Errorf("left a merge field: %q", got.Text)
			}
		})
	}
}

func TestTemplateRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct{ text, want string }{
		{"Hi {{first_name", "never closed"},
		{"Hi first_name}}", "never opened"},
		{"Hi {{nickname}}", "{{nickname}} is not a merge field we know; the fields are {{first_name}}, {{last_name}}"},
		{"Hi {{first_name|}}", "empty fallback"},
		{"Hi {{first_{{name}}}}", "inside another"},
		{"Hi {{}}", "not a merge field"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			_, err := ParseTemplate(tt.text)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseTemplate(%q) = %v, want an error with %q", tt.text, err, tt.want)
			}
		})
	}
}

func TestTemplateUses(t *testing.T) {
	t.Parallel()
	tpl, err := ParseTemplate("{{first_name|there}} at {{company}}")
	if err != nil {
		t.Fatal(err)
	}
	want := []FieldUse{{Field: "first_name", Fallback: "there", HasFallback: true}, {Field: "company"}}
	if d := cmp.Diff(want, tpl.Uses()); d != "" {
		t.Errorf("uses (-want +got):\n%s", d)
	}
}
