package ui_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"vibesell/proof"
)

// A scenario is one card the browser test shows: a tool's input and
// result, the canned results the test host answers the card's own calls
// with, and what the person must (and must not) see and cause. The
// harness (harness/run.mjs) reads them as JSON.
type scenario struct {
	Name      string                       `json:"name"`
	Kind      string                       `json:"kind"`
	Source    string                       `json:"source"` // server: a real result of the Go server; hand: written here
	Preview   bool                         `json:"preview,omitempty"`
	Tool      json.RawMessage              `json:"tool"`
	Input     map[string]any               `json:"input"`
	Result    json.RawMessage              `json:"result,omitempty"`
	Cancel    *string                      `json:"cancel,omitempty"`
	Responses map[string][]json.RawMessage `json:"responses,omitempty"`
	Expect    expect                       `json:"expect"`
}

type expect struct {
	Texts     []string `json:"texts,omitempty"`
	Absent    []string `json:"absent,omitempty"`
	Buttons   []string `json:"buttons,omitempty"`
	NoButtons []string `json:"noButtons,omitempty"`
	Action    *action  `json:"action,omitempty"`
	Replay    *replay  `json:"replay,omitempty"`
}

type action struct {
	Fill           *fill    `json:"fill,omitempty"`
	First          string   `json:"first,omitempty"`
	Click          string   `json:"click"`
	Calls          []call   `json:"calls"`
	Ignore         []string `json:"ignore,omitempty"`
	Message        *bool    `json:"message,omitempty"`
	MessageIncl    string   `json:"messageIncludes,omitempty"`
	Link           *string  `json:"link,omitempty"`
	After          []string `json:"after,omitempty"`
	AbsentAfter    []string `json:"absentAfter,omitempty"`
	NoButtonsAfter []string `json:"noButtonsAfter,omitempty"`
}

type fill struct {
	Label string `json:"label"`
	Text  string `json:"text"`
}

type call struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

type replay struct {
	Reads     string         `json:"reads,omitempty"`
	ReadArgs  map[string]any `json:"readArgs,omitempty"`
	Texts     []string       `json:"texts,omitempty"`
	NoButtons []string       `json:"noButtons,omitempty"`
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

// server is the VibeSell MCP server the scenarios' real results come from.
type server struct {
	*env
	t      *testing.T
	listed map[string]json.RawMessage
}

func newServer(t *testing.T, e *env) *server {
	t.Helper()
	c := e.c
	s := &server{env: e, t: t, listed: map[string]json.RawMessage{}}
	res, err := c.MCP().ListTools(c.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	for _, tool := range res.Tools {
		s.listed[tool.Name] = c.Tool(tool.Name)
	}
	return s
}

// has reports whether the server offers a tool.
func (s *server) has(tool string) bool { _, ok := s.listed[tool]; return ok }

// call calls a tool that must succeed and returns the result as the host
// sends it to the card, and its structuredContent.
func (s *server) call(tool string, args map[string]any) (json.RawMessage, map[string]any) {
	s.t.Helper()
	res := s.c.Call(tool, args)
	if res.IsError {
		s.t.Fatalf("%s refused: %v", tool, res.Content)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		s.t.Fatal(err)
	}
	var data map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &data); err != nil {
		s.t.Fatal(err)
	}
	return raw, data
}

// tokenIn returns the card's one-time decision token for subject (an
// approval or card id) that a result carries in its _meta; "" for none.
func tokenIn(raw json.RawMessage, subject string) string {
	var res struct {
		Meta map[string]map[string]string `json:"_meta"`
	}
	_ = json.Unmarshal(raw, &res)
	return res.Meta[proof.MetaKey][subject]
}

// refusal calls a tool that must refuse with a sentence containing want,
// and returns the refusal as the host sends it to the card.
func (s *server) refusal(tool string, args map[string]any, want string) json.RawMessage {
	s.t.Helper()
	res := s.c.Call(tool, args)
	text := ""
	if len(res.Content) == 1 {
		if tc, ok := mcp.AsTextContent(res.Content[0]); ok {
			text = tc.Text
		}
	}
	if !res.IsError || !strings.Contains(text, want) {
		s.t.Fatalf("%s %v: want a refusal saying %q, got (isError %v) %q", tool, args, want, res.IsError, text)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		s.t.Fatal(err)
	}
	return raw
}

// scenario calls a tool and makes a scenario of its real result.
func (s *server) scenario(name, tool string, args map[string]any) (*scenario, map[string]any) {
	s.t.Helper()
	raw, data := s.call(tool, args)
	if args == nil {
		args = map[string]any{}
	}
	kind, _ := data["kind"].(string)
	return &scenario{Name: name, Kind: kind, Source: "server", Tool: s.listed[tool], Input: args, Result: raw}, data
}

// hand makes a scenario of a result written in the test, for a kind whose
// tool the server does not offer yet.
func hand(name, tool string, args map[string]any, text string, data map[string]any) *scenario {
	if args == nil {
		args = map[string]any{}
	}
	raw, err := json.Marshal(map[string]any{
		"content":           []map[string]any{{"type": "text", "text": text}},
		"structuredContent": data,
	})
	if err != nil {
		panic(err)
	}
	def, _ := json.Marshal(map[string]any{"name": tool, "inputSchema": map[string]any{"type": "object"}})
	return &scenario{Name: name, Kind: data["kind"].(string), Source: "hand", Tool: def, Input: args, Result: raw}
}

// resultOf is a CallToolResult, as JSON, for a canned response.
func resultOf(text string, data map[string]any) json.RawMessage {
	raw, err := json.Marshal(map[string]any{
		"content":           []map[string]any{{"type": "text", "text": text}},
		"structuredContent": data,
	})
	if err != nil {
		panic(err)
	}
	return raw
}

// goKinds lists the kinds that have a Go output type in package tools
// (an enum tag on a kind field), whether or not a tool returns them yet.
func goKinds(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "tools", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("`json:\"kind\" enum:\"([a-z_,]+)\"")
	kinds := map[string]bool{}
	for _, f := range files {
		if filepath.Ext(f) != ".go" || len(f) > 8 && f[len(f)-8:] == "_test.go" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			for _, k := range regexp.MustCompile(",").Split(m[1], -1) {
				kinds[k] = true
			}
		}
	}
	return kinds
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}
