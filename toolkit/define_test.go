package toolkit

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"vibesell"
	"vibesell/auth"
)

type docIn struct {
	Name string `json:"name" jsonschema:"the company name" example:"Acme"`
}

type docOut struct {
	Kind string `json:"kind" enum:"target"`
}

func handlerOf[In, Out any]() Handler[In, Out] {
	return func(context.Context, auth.Principal, In) (Result[Out], error) {
		return Result[Out]{Markdown: "ok"}, nil
	}
}

var allNo = Annotations{ReadOnly: No, Destructive: No, Idempotent: No, OpenWorld: No}

func spec[In, Out any]() Spec[In, Out] {
	return Spec[In, Out]{Name: "t", Title: "T", Description: "D.", Annotations: allNo, Requires: Needs{Scope: vibesell.ScopeRead}, Handler: handlerOf[In, Out]()}
}

// Mistakes in a spec stop the server at start-up, with a message that says
// what to fix.
func TestDefineRefusesMistakes(t *testing.T) {
	t.Run("ok", func(t *testing.T) { Define(spec[docIn, docOut]()) })

	t.Run("hint left unsaid", func(t *testing.T) {
		s := spec[docIn, docOut]()
		s.Annotations.OpenWorld = 0
		mustPanic(t, "all four annotations", func() { Define(s) })
	})
	t.Run("read-only and destructive", func(t *testing.T) {
		s := spec[docIn, docOut]()
		s.Annotations.ReadOnly, s.Annotations.Destructive = Yes, Yes
		mustPanic(t, "read-only tool cannot be destructive", func() { Define(s) })
	})
	t.Run("name", func(t *testing.T) {
		s := spec[docIn, docOut]()
		s.Name = "getCampaign"
		mustPanic(t, "snake_case", func() { Define(s) })
	})
	t.Run("no handler", func(t *testing.T) {
		s := spec[docIn, docOut]()
		s.Handler = nil
		mustPanic(t, "handler is required", func() { Define(s) })
	})
	t.Run("no scope", func(t *testing.T) {
		s := spec[docIn, docOut]()
		s.Requires = Needs{}
		mustPanic(t, "Requires.Scope is required", func() { Define(s) })
	})
	t.Run("no description", func(t *testing.T) {
		type in struct {
			Name string `json:"name" example:"Acme"`
		}
		mustPanic(t, `argument "name" has no description`, func() { Define(spec[in, docOut]()) })
	})
	t.Run("no example", func(t *testing.T) {
		type in struct {
			Name string `json:"name" jsonschema:"the company name"`
		}
		mustPanic(t, `argument "name" has no example`, func() { Define(spec[in, docOut]()) })
	})
	t.Run("nested field without description", func(t *testing.T) {
		type item struct {
			Card string `json:"card"`
		}
		type in struct {
			Answers []item `json:"answers" jsonschema:"answers" example:"[{\"card\":\"a\"}]"`
		}
		mustPanic(t, "field answers[].card has no description", func() { Define(spec[in, docOut]()) })
	})
	t.Run("example that breaks its own schema", func(t *testing.T) {
		type in struct {
			Limit int `json:"limit" jsonschema:"how many" example:"500" maximum:"100"`
		}
		mustPanic(t, `the example of "limit" does not fit`, func() { Define(spec[in, docOut]()) })
	})
	t.Run("constraint on the wrong type", func(t *testing.T) {
		type in struct {
			Name string `json:"name" jsonschema:"the name" example:"Acme" minimum:"1"`
		}
		mustPanic(t, "minimum on a string", func() { Define(spec[in, docOut]()) })
	})
	t.Run("mcp-go style tag", func(t *testing.T) {
		type in struct {
			Name string `json:"name" jsonschema:"required,description=the name" example:"Acme"`
		}
		mustPanic(t, "WORD=", func() { Define(spec[in, docOut]()) })
	})
	t.Run("no kind", func(t *testing.T) {
		type out struct {
			Name string `json:"name"`
		}
		mustPanic(t, "Out needs a field", func() { Define(spec[docIn, out]()) })
	})
	t.Run("kind omitempty", func(t *testing.T) {
		type out struct {
			Kind string `json:"kind,omitempty" enum:"target"`
		}
		mustPanic(t, "must not be omitempty", func() { Define(spec[docIn, out]()) })
	})
	t.Run("kind without enum", func(t *testing.T) {
		type out struct {
			Kind string `json:"kind"`
		}
		mustPanic(t, "needs an enum tag", func() { Define(spec[docIn, out]()) })
	})
	t.Run("not structs", func(t *testing.T) {
		mustPanic(t, "must be struct types", func() { Define(spec[string, docOut]()) })
	})
}

// The output check remembers outputs that fitted, and only those: bytes
// that did not fit are refused every time, however often others passed.
func TestOutputCheckRemembersOnlyWhatFitted(t *testing.T) {
	schema, err := generateSchema(reflect.TypeFor[docOut]())
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	compiled, err := compileSchema("mem://test/output.json", raw)
	if err != nil {
		t.Fatal(err)
	}
	c := newOutputCheck(compiled)
	good, bad := []byte(`{"kind":"target"}`), []byte(`{"kind":"other"}`)
	for range 3 {
		if err := c.check(good); err != nil {
			t.Fatalf("a fitting output was refused: %v", err)
		}
		if err := c.check(bad); err == nil {
			t.Fatal("an output of another kind passed")
		}
	}
	if c.passed.Len() != 1 || !c.passed.Contains(maphash.Bytes(c.seed, good)) {
		t.Fatalf("remembered %d outputs, want the fitting one only", c.passed.Len())
	}
}

// A spec's Markdown writes the text from the data; a workspace's call
// whose data is the same as its last is answered with the text and the
// bytes written for the last, without writing them again, and any change
// in the data writes them anew.
func TestMarkdownWrittenOncePerData(t *testing.T) {
	type out struct {
		Kind  string   `json:"kind" enum:"status"`
		Name  string   `json:"name"`
		Items []string `json:"items"`
	}
	data := out{Name: "Acme", Items: []string{"a", "b"}}
	written := 0
	s := spec[struct{}, out]()
	s.Handler = func(context.Context, auth.Principal, struct{}) (Result[out], error) {
		// A fresh value each call, as a handler builds it.
		return Result[out]{Data: out{Name: data.Name, Items: slices.Clone(data.Items)}}, nil
	}
	s.Markdown = func(o out) string {
		written++
		return fmt.Sprintf("%s: %s", o.Name, strings.Join(o.Items, ", "))
	}
	tool := Define(s)
	acme, globex := auth.Principal{WorkspaceID: uuid.New()}, auth.Principal{WorkspaceID: uuid.New()}
	call := func(p auth.Principal, wantText, wantJSON string, wantWritten int) {
		t.Helper()
		text, structured, _, err := tool.run(context.Background(), p, map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		if text != wantText || string(structured) != wantJSON {
			t.Errorf("got %q and %s, want %q and %s", text, structured, wantText, wantJSON)
		}
		if written != wantWritten {
			t.Errorf("Markdown written %d times, want %d", written, wantWritten)
		}
	}
	call(acme, "Acme: a, b", `{"kind":"status","name":"Acme","items":["a","b"]}`, 1)
	call(acme, "Acme: a, b", `{"kind":"status","name":"Acme","items":["a","b"]}`, 1)
	call(globex, "Acme: a, b", `{"kind":"status","name":"Acme","items":["a","b"]}`, 2)
	data.Items[1] = "c"
	call(acme, "Acme: a, c", `{"kind":"status","name":"Acme","items":["a","c"]}`, 3)
	call(acme, "Acme: a, c", `{"kind":"status","name":"Acme","items":["a","c"]}`, 3)

	t.Run("handler writes Markdown too", func(t *testing.T) {
		s.Handler = handlerOf[struct{}, out]()
		if _, _, _, err := Define(s).run(context.Background(), acme, map[string]any{}); err == nil || !strings.Contains(err.Error(), "spec's Markdown") {
			t.Errorf("err = %v, want a refusal of Markdown from both", err)
		}
	})
}
