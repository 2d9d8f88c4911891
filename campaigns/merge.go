package campaigns

import (
	"fmt"
	"html"
	"slices"
	"strings"
)

// Fields are the merge fields a sequence may use, each filled from the
// lead it is sent to.
var Fields = []string{"first_name", "last_name", "company", "title", "company_domain"}

// Template is a subject or body with merge fields: {{first_name}}, or
// {{first_name|there}} with the text a lead lacking the field receives.
// It is parsed once, by a parser that knows nothing but text and field
// names: nothing in the text is ever run, and rendering never leaves a
// "{{…}}" behind.
type Template struct {
	parts []part
}

type part struct {
	text        string // literal text, when field is ""
	field       string
	fallback    string
	hasFallback bool
}

// FieldUse is one merge field as a template uses it.
type FieldUse struct {
	Field       string
	Fallback    string
	HasFallback bool
}

// ParseTemplate parses text. Refusal sentences name where the mistake is
// (what the person wrote) and what is allowed.
func ParseTemplate(text string) (Template, error) {
	var t Template
	rest := text
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			if strings.Contains(rest, "}}") {
				return Template{}, fmt.Errorf("%q closes a merge field that was never opened; write fields as {{first_name}}", excerpt(rest, strings.Index(rest, "}}")))
			}
			t.add(part{text: rest})
			return t, nil
		}
		if j := strings.Index(rest[:i], "}}"); j >= 0 {
			return Template{}, fmt.Errorf("%q closes a merge field that was never opened; write fields as {{first_name}}", excerpt(rest, j))
		}
		t.add(part{text: rest[:i]})
		rest = rest[i+2:]
		end := strings.Index(rest, "}}")
		if end < 0 {
			return Template{}, fmt.Errorf("%q opens a merge field that is never closed; write fields as {{first_name}}", excerpt("{{"+rest, 0))
		}
		inner := rest[:end]
		rest = rest[end+2:]
		if strings.Contains(inner, "{{") {
			return Template{}, fmt.Errorf("%q opens a merge field inside another; write fields as {{first_name}}", "{{"+inner+"}}")
		}
		name, fallback, hasFallback := strings.Cut(inner, "|")
		name = strings.ToLower(strings.TrimSpace(name))
		if !slices.Contains(Fields, name) {
			return Template{}, fmt.Errorf("{{%s}} is not a merge field we know; the fields are %s", inner, strings.Join(wrapped(Fields), ", "))
		}
		fallback = strings.TrimSpace(fallback)
		if hasFallback && fallback == "" {
			return Template{}, fmt.Errorf("{{%s}} has an empty fallback; write the text a lead without it receives, as in {{%s|there}}, or leave out the |", inner, name)
		}
		t.add(part{field: name, fallback: fallback, hasFallback: hasFallback})
	}
}

func (t *Template) add(p part) {
	if p.field == "" && p.text == "" {
		return
	}
	t.parts = append(t.parts, p)
}

func wrapped(fields []string) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = "{{" + f + "}}"
	}
	return out
}

func excerpt(s string, at int) string {
	from, to := max(0, at-20), min(len(s), at+22)
	for from > 0 && !utf8Start(s[from]) {
		from--
	}
	for to < len(s) && !utf8Start(s[to]) {
		to++
	}
	return s[from:to]
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// Uses lists the merge fields of t, in order of first use.
func (t Template) Uses() []FieldUse {
	var out []FieldUse
	for _, p := range t.parts {
		if p.field != "" {
			out = append(out, FieldUse{Field: p.field, Fallback: p.fallback, HasFallback: p.hasFallback})
		}
	}
	return out
}

// Value is what a lead's field holds for merging: "" when the lead lacks
// it. A value that itself looks like a merge field counts as lacking, so a
// lead's data can never put "{{…}}" into an email.
func Value(v string) string {
	v = strings.TrimSpace(v)
	if strings.Contains(v, "{{") || strings.Contains(v, "}}") {
		return ""
	}
	return v
}

// Rendered is a template filled in for one lead.
type Rendered struct {
	Text string // plain text
	HTML string // the same, escaped for an HTML part, line breaks kept
	// Unresolved are the fields the lead lacks that have no fallback: the
	// email must not be sent to this lead while any is left.
	Unresolved []string
}

// Render fills t with values (field name to the lead's value). A field
// the lead lacks takes its fallback; with none it is left out of Text and
// HTML and named in Unresolved.
func (t Template) Render(values map[string]string) Rendered {
	var text, htm strings.Builder
	var out Rendered
	for _, p := range t.parts {
		s := p.text
		if p.field != "" {
			s = Value(values[p.field])
			if s == "" {
				s = p.fallback
				if !p.hasFallback && !slices.Contains(out.Unresolved, p.field) {
					out.Unresolved = append(out.Unresolved, p.field)
				}
			}
		}
		text.WriteString(s)
		htm.WriteString(strings.ReplaceAll(html.EscapeString(s), "\n", "<br>\n"))
	}
	out.Text, out.HTML = text.String(), htm.String()
	return out
}
