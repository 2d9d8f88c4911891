package toolkit

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	validator "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"vibesell"
)

// arguments checks a tool's arguments before its handler runs. mcp-go's
// own validation answers with Go struct dumps ("/limit: &{Got:string
// Want:[integer]}"); the assistant needs a sentence it can act on, so the
// validator's structured errors are turned into sentences here, worded from
// the same schema the assistant was given.
type arguments struct {
	schema   *jsonschema.Schema
	raw      json.RawMessage // the advertised inputSchema
	compiled *validator.Schema
	// noneValid is whether no arguments at all ({}) fit the schema: such
	// a call decodes to In's zero value, without being checked again.
	noneValid bool
}

// maxSentences keeps a refusal readable when a long list is wrong
// throughout; the rest are counted, not listed.
const maxSentences = 5

func newArguments(tool string, s *jsonschema.Schema) (*arguments, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	compiled, err := compileSchema("mem://vibesell/tools/"+tool+"/input.json", raw)
	if err != nil {
		return nil, err
	}
	// An example that does not fit its own schema teaches the assistant to
	// make the very mistake the schema refuses.
	for _, name := range s.PropertyOrder {
		p := s.Properties[name]
		propJSON, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		c, err := compileSchema("mem://vibesell/tools/"+tool+"/input/"+name+".json", propJSON)
		if err != nil {
			return nil, err
		}
		for _, ex := range p.Examples {
			exJSON, err := json.Marshal(ex)
			if err != nil {
				return nil, err
			}
			if err := validateJSON(c, exJSON); err != nil {
				return nil, fmt.Errorf("the example of %q does not fit its schema: %w", name, err)
			}
		}
	}
	return &arguments{schema: s, raw: raw, compiled: compiled, noneValid: validateJSON(compiled, []byte("{}")) == nil}, nil
}

// decodeArguments checks raw against the input schema, then decodes it
// strictly into In. A mismatch is a refusal (*vibesell.Error) that names
// the argument, what was sent, and the expected form with an example.
func decodeArguments[In any](a *arguments, raw any) (In, error) {
	var in In
	data, err := argumentBytes(raw)
	if err != nil {
		return in, fmt.Errorf("read arguments: %w", err)
	}
	if a.noneValid && string(data) == "{}" {
		return in, nil // what the checks and the decoding below come to
	}
	v, err := validator.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return in, vibesell.Errorf(vibesell.EINVALID, "The arguments are not valid JSON. Send them as one JSON object.")
	}
	// Optional means absent: a null is read as the argument left out, so a
	// required one given as null is refused as missing, by name.
	dropped := dropNulls(v)
	if err := a.compiled.Validate(v); err != nil {
		var verr *validator.ValidationError
		if !errors.As(err, &verr) {
			return in, fmt.Errorf("validate arguments: %w", err)
		}
		return in, a.refusal(v, verr)
	}
	if err := a.checkText(v); err != nil {
		return in, err
	}
	if normalized, changed := wholeNumbers(v); changed || dropped {
		if data, err = json.Marshal(normalized); err != nil {
			return in, fmt.Errorf("read arguments: %w", err)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	// The schema already refused unknown names; this also refuses the
	// case-insensitive matches encoding/json would otherwise accept.
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return in, a.decodeRefusal(v, err)
	}
	return in, nil
}

// argumentBytes returns the arguments as JSON, preferring the bytes mcp-go
// kept from the wire (exact numbers). Absent or null arguments are an empty
// object, so a tool without arguments can be called without any.
func argumentBytes(raw any) ([]byte, error) {
	switch r := raw.(type) {
	case nil:
		return []byte("{}"), nil
	case json.RawMessage:
		t := bytes.TrimSpace(r)
		if len(t) == 0 || string(t) == "null" {
			return []byte("{}"), nil
		}
		return t, nil
	default:
		return json.Marshal(r)
	}
}

// dropNulls removes every member whose value is null from the objects in
// v, at any depth, and reports whether it removed any.
func dropNulls(v any) bool {
	dropped := false
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				dropped = true
			} else if dropNulls(e) {
				dropped = true
			}
		}
	case []any:
		for _, e := range x {
			if dropNulls(e) {
				dropped = true
			}
		}
	}
	return dropped
}

// checkText applies the one rule for free text, whatever the tool: no
// control characters but the line break and the tab. A NUL cannot be
// stored (PostgreSQL refuses it in text), and the others are invisible to
// the person who later reads the text, so they are refused here, with the
// argument's name, instead of failing deep inside a feature.
func (a *arguments) checkText(v any) *vibesell.Error {
	loc, r, ok := findControl(v, nil)
	if !ok {
		return nil
	}
	_, path := a.lookup(loc)
	return vibesell.Errorf(vibesell.EINVALID,
		"The argument %q contains a control character (%U); text may hold line breaks and tabs but no other control characters. Send it again without it.",
		path, r)
}

// findControl returns where in v the first string (or object key) holding
// a forbidden control character is, and that character. Members are
// visited in name order, so the same arguments always name the same one.
func findControl(v any, loc []string) ([]string, rune, bool) {
	switch x := v.(type) {
	case string:
		if r, ok := forbiddenControl(x); ok {
			return loc, r, true
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			at := append(slices.Clip(loc), k)
			if r, ok := forbiddenControl(k); ok {
				return at, r, true
			}
			if l, r, ok := findControl(x[k], at); ok {
				return l, r, true
			}
		}
	case []any:
		for i, e := range x {
			if l, r, ok := findControl(e, append(slices.Clip(loc), strconv.Itoa(i))); ok {
				return l, r, true
			}
		}
	}
	return nil, 0, false
}

func forbiddenControl(s string) (rune, bool) {
	for _, r := range s {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			return r, true
		}
	}
	return 0, false
}

// wholeNumbers rewrites numbers such as 20.0 or 2e1 as 20. JSON Schema
// counts them as whole numbers, so they pass validation, but encoding/json
// refuses them for an int field, and the assistant would be told that 20.0
// is not a whole number.
func wholeNumbers(v any) (any, bool) {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			return v, false
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return v, false
		}
		return json.Number(strconv.FormatInt(int64(f), 10)), true
	case map[string]any:
		changed := false
		for k, e := range x {
			if n, ok := wholeNumbers(e); ok {
				x[k], changed = n, true
			}
		}
		return x, changed
	case []any:
		changed := false
		for i, e := range x {
			if n, ok := wholeNumbers(e); ok {
				x[i], changed = n, true
			}
		}
		return x, changed
	}
	return v, false
}

// A problem is one thing wrong with the arguments, in the order sentences
// are given: unknown names first (the usual slip), then missing ones, then
// wrong values.
type problem struct {
	rank     int // 0 unknown, 1 missing, 2 invalid
	position int // the top-level argument's place in the schema
	path     string
	sentence string
}

func (a *arguments) refusal(v any, verr *validator.ValidationError) *vibesell.Error {
	var problems []problem
	seen := map[string]bool{}
	add := func(rank int, loc []string, path, sentence string) {
		if seen[sentence] {
			return
		}
		seen[sentence] = true
		problems = append(problems, problem{rank: rank, position: a.position(loc), path: path, sentence: sentence})
	}
	invalidAt := map[string]bool{}
	for _, leaf := range leaves(verr) {
		loc := leaf.InstanceLocation
		switch k := leaf.ErrorKind.(type) {
		case *kind.AdditionalProperties:
			s, path := a.lookup(loc)
			add(0, loc, path, unknownSentence(s, path, k.Properties))
		case *kind.Required:
			for _, name := range k.Missing {
				field := append(slices.Clone(loc), name)
				s, path := a.lookup(field)
				add(1, field, path, missingSentence(s, path))
			}
		default:
			s, path := a.lookup(loc)
			if invalidAt[path] {
				continue // one sentence per argument, however many rules it breaks
			}
			invalidAt[path] = true
			if len(loc) == 0 {
				add(2, loc, path, fmt.Sprintf("The arguments must be %s; you sent %s.", form(a.schema), sent(v)))
				continue
			}
			value, found := valueAt(v, loc)
			add(2, loc, path, invalidSentence(s, path, value, found))
		}
	}
	slices.SortStableFunc(problems, func(x, y problem) int {
		return cmp.Or(cmp.Compare(x.rank, y.rank), cmp.Compare(x.position, y.position), strings.Compare(x.path, y.path))
	})
	var sentences []string
	for i, p := range problems {
		if i == maxSentences {
			sentences = append(sentences, fmt.Sprintf("There are %d more problems with the arguments.", len(problems)-i))
			break
		}
		sentences = append(sentences, p.sentence)
	}
	if len(sentences) == 0 {
		// Unreachable with the schemas Define generates; never say nothing.
		sentences = append(sentences, "The arguments do not fit this tool's input schema: "+verr.Error()+".")
	}
	return &vibesell.Error{Code: vibesell.EINVALID, Message: strings.Join(sentences, " ")}
}

// decodeRefusal words a decoding failure that the schema let through, such
// as a whole number too large for the field.
func (a *arguments) decodeRefusal(v any, err error) *vibesell.Error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		loc := strings.Split(te.Field, ".")
		if s, path := a.lookup(loc); s != nil {
			value, found := valueAt(v, loc)
			return &vibesell.Error{Code: vibesell.EINVALID, Message: invalidSentence(s, path, value, found)}
		}
	}
	return vibesell.Errorf(vibesell.EINVALID, "The arguments could not be read: %s. Check them against this tool's input schema.",
		strings.TrimPrefix(err.Error(), "json: "))
}

func leaves(e *validator.ValidationError) []*validator.ValidationError {
	if len(e.Causes) == 0 {
		return []*validator.ValidationError{e}
	}
	var out []*validator.ValidationError
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// lookup finds the schema of the value at loc and the name the person and
// the assistant know it by: limit, answers[0].card.
func (a *arguments) lookup(loc []string) (*jsonschema.Schema, string) {
	s := a.schema
	var path strings.Builder
	for _, seg := range loc {
		if s == nil {
			return nil, path.String()
		}
		switch {
		case s.Properties[seg] != nil:
			s = s.Properties[seg]
			if path.Len() > 0 {
				path.WriteByte('.')
			}
			path.WriteString(seg)
		case jsonType(s) == "array":
			s = s.Items
			path.WriteString("[" + seg + "]")
		case s.AdditionalProperties != nil && s.AdditionalProperties.Not == nil:
			// A map: every key shares the value schema.
			s = s.AdditionalProperties
			if path.Len() > 0 {
				path.WriteByte('.')
			}
			path.WriteString(seg)
		default:
			return nil, path.String()
		}
	}
	return s, path.String()
}

func (a *arguments) position(loc []string) int {
	if len(loc) == 0 {
		return -1
	}
	if i := slices.Index(a.schema.PropertyOrder, loc[0]); i >= 0 {
		return i
	}
	return len(a.schema.PropertyOrder)
}

func valueAt(v any, loc []string) (any, bool) {
	for _, seg := range loc {
		switch c := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = c[seg]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// Unknown argument "bogus". This tool takes: name, email.
func unknownSentence(s *jsonschema.Schema, path string, names []string) string {
	names = slices.Sorted(slices.Values(names))
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	noun := "argument"
	if path != "" {
		noun = "field"
	}
	if len(names) > 1 {
		noun += "s"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Unknown %s %s", noun, strings.Join(quoted, ", "))
	if path != "" {
		fmt.Fprintf(&b, " in %q", path)
	}
	var takes []string
	if s != nil {
		takes = s.PropertyOrder
	}
	switch {
	case path == "" && len(takes) == 0:
		b.WriteString(". This tool takes no arguments.")
	case path == "":
		fmt.Fprintf(&b, ". This tool takes: %s.", strings.Join(takes, ", "))
	case len(takes) > 0:
		fmt.Fprintf(&b, ". It takes: %s.", strings.Join(takes, ", "))
	default:
		b.WriteString(".")
	}
	return b.String()
}

// The argument "name" is required: the company name, for example "Acme".
func missingSentence(s *jsonschema.Schema, path string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The argument %q is required", path)
	if s != nil {
		if d := phrase(s.Description); d != "" {
			b.WriteString(": " + d)
		}
		if len(s.Examples) > 0 {
			b.WriteString(", for example " + jsonText(s.Examples[0]))
		}
	}
	b.WriteString(".")
	return b.String()
}

// The argument "limit" must be a whole number from 1 to 100, for example 20; you sent "abc".
func invalidSentence(s *jsonschema.Schema, path string, value any, found bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The argument %q must be ", path)
	if s == nil {
		b.WriteString("as described in this tool's input schema")
	} else {
		b.WriteString(form(s))
		if len(s.Examples) > 0 {
			b.WriteString(", for example " + jsonText(s.Examples[0]))
		}
	}
	if found {
		fmt.Fprintf(&b, "; you sent %s", sent(value))
	}
	b.WriteString(".")
	return b.String()
}

// form describes in words the values a schema accepts.
func form(s *jsonschema.Schema) string {
	if len(s.Enum) > 0 {
		if len(s.Enum) == 1 {
			return "exactly " + jsonText(s.Enum[0])
		}
		texts := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			texts[i] = jsonText(v)
		}
		return "one of " + vibesell.JoinOr(texts)
	}
	if s.Const != nil {
		return "exactly " + jsonText(*s.Const)
	}
	switch jsonType(s) {
	case "integer":
		return withBounds("a whole number", s)
	case "number":
		return withBounds("a number", s)
	case "boolean":
		return "true or false"
	case "string":
		return textForm(s)
	case "array":
		return listForm(s)
	case "object":
		if len(s.PropertyOrder) == 0 {
			return "an object"
		}
		return "an object with the fields " + vibesell.JoinAnd(s.PropertyOrder)
	}
	return "a valid value"
}

func withBounds(noun string, s *jsonschema.Schema) string {
	if s.Minimum != nil && s.Maximum != nil {
		return fmt.Sprintf("%s from %s to %s", noun, num(*s.Minimum), num(*s.Maximum))
	}
	var parts []string
	if s.Minimum != nil {
		parts = append(parts, "of at least "+num(*s.Minimum))
	}
	if s.ExclusiveMinimum != nil {
		parts = append(parts, "greater than "+num(*s.ExclusiveMinimum))
	}
	if s.Maximum != nil {
		parts = append(parts, "of at most "+num(*s.Maximum))
	}
	if s.ExclusiveMaximum != nil {
		parts = append(parts, "less than "+num(*s.ExclusiveMaximum))
	}
	if len(parts) == 0 {
		return noun
	}
	return noun + " " + strings.Join(parts, " and ")
}

func textForm(s *jsonschema.Schema) string {
	var text string
	switch s.Format {
	case "uuid":
		return "an id of the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (hexadecimal digits)"
	case "date-time":
		return "a date and time with its offset, such as 2026-12-02T09:00:00+01:00"
	}
	switch {
	case s.MinLength != nil && s.MaxLength != nil && *s.MinLength == *s.MaxLength:
		text = fmt.Sprintf("text of exactly %d characters", *s.MinLength)
	case s.MinLength != nil && s.MaxLength != nil:
		text = fmt.Sprintf("text of %d to %d characters", *s.MinLength, *s.MaxLength)
	case s.MinLength != nil && *s.MinLength == 1:
		text = "non-empty text"
	case s.MinLength != nil:
		text = fmt.Sprintf("text of at least %d characters", *s.MinLength)
	case s.MaxLength != nil:
		text = fmt.Sprintf("text of at most %d characters", *s.MaxLength)
	default:
		text = "text"
	}
	if s.Pattern != "" {
		text += " matching the pattern " + s.Pattern
	}
	return text
}

func listForm(s *jsonschema.Schema) string {
	text := "a list"
	switch {
	case s.MinItems != nil && s.MaxItems != nil:
		text += fmt.Sprintf(" of %d to %d items", *s.MinItems, *s.MaxItems)
	case s.MinItems != nil:
		text += fmt.Sprintf(" of at least %d items", *s.MinItems)
	case s.MaxItems != nil:
		text += fmt.Sprintf(" of at most %d items", *s.MaxItems)
	}
	if s.Items != nil && (jsonType(s.Items) != "" || len(s.Items.Enum) > 0) {
		text += ", each " + form(s.Items)
	}
	return text
}

// phrase turns a field description into a clause that follows a colon:
// its first sentence, without the full stop, starting in lower case unless
// it starts with an acronym or a name the person would capitalise.
func phrase(desc string) string {
	desc = strings.TrimSpace(desc)
	// The first sentence ends at a full stop followed by a capital, so
	// "e.g. acme.com" does not end it.
	for i := 0; ; {
		j := strings.Index(desc[i:], ". ")
		if j < 0 {
			break
		}
		i += j + 2
		if r, _ := utf8.DecodeRuneInString(desc[i:]); unicode.IsUpper(r) {
			desc = desc[:i-2]
			break
		}
	}
	desc = strings.TrimSuffix(desc, ".")
	first, size := utf8.DecodeRuneInString(desc)
	next, _ := utf8.DecodeRuneInString(desc[size:])
	if unicode.IsUpper(first) && unicode.IsLower(next) && isCommonWord(desc) {
		desc = string(unicode.ToLower(first)) + desc[size:]
	}
	return desc
}

// isCommonWord reports whether the description opens with a word that is
// capitalised only because it starts the sentence.
func isCommonWord(desc string) bool {
	word, _, _ := strings.Cut(desc, " ")
	switch strings.ToLower(word) {
	case "the", "a", "an", "one", "each", "how", "what", "which", "when", "whether", "your":
		return true
	}
	return false
}

// sent shows what the assistant sent, short enough to sit in a sentence.
// Long text keeps its quotes, so the cut is visibly inside the value.
func sent(v any) string {
	const limit, keep = 60, 56
	if s, ok := v.(string); ok && utf8.RuneCountInString(s) > limit {
		return jsonText(string([]rune(s)[:keep]) + "...")
	}
	text := jsonText(v)
	if utf8.RuneCountInString(text) > limit {
		text = string([]rune(text)[:keep]) + "..."
	}
	return text
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
