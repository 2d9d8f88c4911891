package toolkit

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/google/uuid"
)

// typeSchemas are the types whose JSON form is not their Go shape; left to
// reflection, a uuid.UUID would be advertised as an array of 16 integers.
var typeSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[uuid.UUID](): {Type: "string", Format: "uuid"},
	reflect.TypeFor[time.Time](): {Type: "string", Format: "date-time"},
	reflect.TypeFor[[]byte]():    {Type: "string", ContentEncoding: "base64"},
}

// generateSchema builds the JSON Schema of a struct with google/jsonschema-go
// (the generator mcp-go itself uses: a field without omitempty is required,
// a pointer may be null, a struct takes no other properties, the jsonschema
// tag is the description) and then applies the tags that generator does not
// know. mcp-go's own wrapper is not used: it prints generation errors to
// stderr and carries on with an empty schema.
func generateSchema(t reflect.Type) (*jsonschema.Schema, error) {
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: typeSchemas})
	if err != nil {
		return nil, err
	}
	if err := applyTags(t, s); err != nil {
		return nil, err
	}
	if s.Properties == nil {
		// MCP clients expect "properties" even for a tool without arguments.
		s.Properties = map[string]*jsonschema.Schema{}
	}
	return s, nil
}

// withoutNull types every property of an input schema as its one type:
// the generator advertises a pointer or a list as ["null", T] (Go encodes
// a nil one as null), which schema dialects that take a single type (some
// hosts' function calling among them) cannot read. In an input, optional
// means absent, and a null sent anyway is read as absent (see
// [decodeArguments]), so a required list given as null is refused like a
// missing one. Outputs keep their nulls: there, null means "not available".
func withoutNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && slices.Contains(s.Types, "null") {
		s.Type, s.Types = jsonType(s), nil
	}
	withoutNull(s.Items)
	withoutNull(s.AdditionalProperties)
	for _, p := range s.Properties {
		withoutNull(p)
	}
}

// applyTags walks the Go type next to its schema and applies, field by
// field, the tags described in the package documentation.
func applyTags(t reflect.Type, s *jsonschema.Schema) error {
	t = deref(t)
	if s == nil || typeSchemas[t] != nil {
		return nil
	}
	switch {
	case isList(t):
		return applyTags(t.Elem(), s.Items)
	case t.Kind() == reflect.Map:
		return applyTags(t.Elem(), s.AdditionalProperties)
	case t.Kind() != reflect.Struct:
		return nil
	}
	for _, f := range reflect.VisibleFields(t) {
		// Like the generator: embedded structs contribute their promoted
		// fields, which VisibleFields lists on their own.
		if f.Anonymous || !f.IsExported() {
			continue
		}
		name, _, ok := jsonName(f)
		if !ok {
			continue
		}
		prop := s.Properties[name]
		if prop == nil {
			continue
		}
		if err := applyFieldTags(f, prop); err != nil {
			return fmt.Errorf("field %s.%s: %w", t.Name(), f.Name, err)
		}
		if err := applyTags(f.Type, prop); err != nil {
			return err
		}
	}
	return nil
}

func applyFieldTags(f reflect.StructField, prop *jsonschema.Schema) error {
	// Value constraints on a list field apply to its items, so
	// `enum:"email,linkedin"` on a []string means each item is one of them.
	scalar := prop
	if isList(deref(f.Type)) {
		if prop.Items == nil {
			return errors.New("a list without an item schema")
		}
		scalar = prop.Items
	}
	scalarType := jsonType(scalar)
	isNumber := scalarType == "integer" || scalarType == "number"

	if v, ok := f.Tag.Lookup("enum"); ok {
		values, err := parseEnum(v, scalarType)
		if err != nil {
			return fmt.Errorf("enum: %w", err)
		}
		scalar.Enum = values
	}
	for _, c := range []struct {
		tag string
		dst **float64
	}{{"minimum", &scalar.Minimum}, {"maximum", &scalar.Maximum}} {
		v, ok := f.Tag.Lookup(c.tag)
		if !ok {
			continue
		}
		if !isNumber {
			return fmt.Errorf("%s on a %s", c.tag, scalarType)
		}
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return fmt.Errorf("%s: %w", c.tag, err)
		}
		*c.dst = &n
	}
	for _, c := range []struct {
		tag    string
		dst    **int
		target *jsonschema.Schema
		want   string
	}{
		{"minLength", &scalar.MinLength, scalar, "string"},
		{"maxLength", &scalar.MaxLength, scalar, "string"},
		{"minItems", &prop.MinItems, prop, "array"},
		{"maxItems", &prop.MaxItems, prop, "array"},
	} {
		v, ok := f.Tag.Lookup(c.tag)
		if !ok {
			continue
		}
		if jsonType(c.target) != c.want {
			return fmt.Errorf("%s on a %s", c.tag, jsonType(c.target))
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("%s must be a whole number of at least 0", c.tag)
		}
		*c.dst = &n
	}
	if v, ok := f.Tag.Lookup("pattern"); ok {
		if scalarType != "string" {
			return fmt.Errorf("pattern on a %s", scalarType)
		}
		if _, err := regexp.Compile(v); err != nil {
			return fmt.Errorf("pattern: %w", err)
		}
		scalar.Pattern = v
	}
	if v, ok := f.Tag.Lookup("example"); ok {
		ex, err := parseExample(v, jsonType(prop))
		if err != nil {
			return fmt.Errorf("example: %w", err)
		}
		prop.Examples = []any{ex}
	}
	return nil
}

func parseEnum(tag, typ string) ([]any, error) {
	var values []any
	for v := range strings.SplitSeq(tag, ",") {
		v = strings.TrimSpace(v)
		switch typ {
		case "string":
			values = append(values, v)
		case "integer":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, err
			}
			values = append(values, n)
		case "number":
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, err
			}
			values = append(values, n)
		default:
			return nil, fmt.Errorf("not allowed on a %s", typ)
		}
	}
	return values, nil
}

// parseExample reads an example tag: the text itself for a text field
// (`example:"Acme"`), JSON for anything else (`example:"20"`,
// `example:"[\"gmail\"]"`).
func parseExample(tag, typ string) (any, error) {
	if typ == "string" {
		return tag, nil
	}
	var v any
	if err := json.Unmarshal([]byte(tag), &v); err != nil {
		return nil, fmt.Errorf("must be JSON for a %s: %w", typ, err)
	}
	return v, nil
}

// checkInputDocs enforces the design's rule that the assistant is never
// left guessing: every argument has a description and an example, and
// every field inside an argument has a description.
func checkInputDocs(s *jsonschema.Schema) error {
	for _, name := range s.PropertyOrder {
		p := s.Properties[name]
		if p.Description == "" {
			return fmt.Errorf("argument %q has no description (jsonschema tag)", name)
		}
		if len(p.Examples) == 0 {
			return fmt.Errorf("argument %q has no example (example tag)", name)
		}
		if err := checkNestedDocs(name, p); err != nil {
			return err
		}
	}
	return nil
}

func checkNestedDocs(path string, s *jsonschema.Schema) error {
	if s.Items != nil {
		if err := checkNestedDocs(path+"[]", s.Items); err != nil {
			return err
		}
	}
	for _, name := range s.PropertyOrder {
		p := s.Properties[name]
		if p.Description == "" {
			return fmt.Errorf("field %s.%s has no description (jsonschema tag)", path, name)
		}
		if err := checkNestedDocs(path+"."+name, p); err != nil {
			return err
		}
	}
	return nil
}

// kindField locates the kind field of an Out type, so the framework can
// fill it in when the type allows exactly one kind.
type kindField struct {
	index []int
	only  string
}

func findKind(t reflect.Type, s *jsonschema.Schema) (kindField, error) {
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		if name, _, ok := jsonName(f); !ok || name != "kind" {
			continue
		}
		if f.Type.Kind() != reflect.String {
			return kindField{}, errors.New("the kind field must be a string")
		}
		if !slices.Contains(s.Required, "kind") {
			return kindField{}, errors.New("the kind field must not be omitempty: every result says what it is")
		}
		p := s.Properties["kind"]
		if len(p.Enum) == 0 {
			return kindField{}, errors.New(`the kind field needs an enum tag listing the kinds it holds, for example enum:"workspace"`)
		}
		k := kindField{index: f.Index}
		if len(p.Enum) == 1 {
			k.only, _ = p.Enum[0].(string)
		}
		return k, nil
	}
	return kindField{}, errors.New("the tool's Out needs a field `Kind string `json:\"kind\" enum:\"...\"``")
}

// fill sets the kind on *v when the handler left it empty and the type
// allows only one; any other wrong kind is caught by output validation.
func (k kindField) fill(v any) {
	if k.only == "" {
		return
	}
	f, err := reflect.ValueOf(v).Elem().FieldByIndexErr(k.index)
	if err != nil {
		return
	}
	if f.String() == "" {
		f.SetString(k.only)
	}
}

// jsonName returns the name encoding/json uses for f, and whether f is
// encoded at all.
func jsonName(f reflect.StructField) (name string, omitempty, ok bool) {
	tag, hasTag := f.Tag.Lookup("json")
	if !hasTag {
		return f.Name, false, true
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "-" && opts == "" {
		return "", false, false
	}
	if name == "" {
		name = f.Name
	}
	for o := range strings.SplitSeq(opts, ",") {
		if o == "omitempty" || o == "omitzero" {
			omitempty = true
		}
	}
	return name, omitempty, true
}

// jsonType returns the schema's type without "null": a pointer field is
// advertised as ["null", T], and T is what the person is told to send.
func jsonType(s *jsonschema.Schema) string {
	if s == nil {
		return ""
	}
	if s.Type != "" {
		return s.Type
	}
	for _, t := range s.Types {
		if t != "null" {
			return t
		}
	}
	return ""
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// isList reports whether t is encoded as a JSON array ([]byte is base64 text).
func isList(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Array:
		return typeSchemas[t] == nil
	case reflect.Slice:
		return t.Elem().Kind() != reflect.Uint8
	}
	return false
}
