package toolkit

import (
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"vibesell"
	"vibesell/auth"
)

func TestResult(t *testing.T) {
	c, _ := connect(t)

	// toolstest.Client checks every call: one text block, structuredContent
	// with a kind and valid against the advertised outputSchema.
	res := c.Call("save_contact", map[string]any{"name": "Acme", "email": "ada@acme.com"})
	if res.IsError {
		t.Fatalf("refused: %v", res.Content)
	}
	if got := res.Content[0].(mcp.TextContent).Text; got != "Saved **Acme**." {
		t.Errorf("text = %q", got)
	}
	want := map[string]any{"kind": "target", "name": "Acme", "email": "ada@acme.com"}
	if !reflect.DeepEqual(res.StructuredContent, want) {
		t.Errorf("structuredContent = %v, want %v (kind filled in)", res.StructuredContent, want)
	}

	// Not available is null, not "".
	var out contactOutput
	c.Result("save_contact", map[string]any{"name": "Acme"}, &out)
	if out.Email != nil || out.Kind != "target" {
		t.Errorf("structuredContent = %+v, want kind target and email null", out)
	}

	var echoed echoOutput
	if text := c.Result("echo", map[string]any{"text": "<b>hi</b> & bye"}, &echoed); text != "<b>hi</b> & bye" {
		t.Errorf("echo text = %q", text)
	}
	if echoed != (echoOutput{Kind: "echo", Text: "<b>hi</b> & bye"}) {
		t.Errorf("echo = %+v", echoed)
	}

	var pinged pingOutput
	c.Result("ping", nil, &pinged)
	if pinged.Workspace != "acme" {
		t.Errorf("handler saw workspace %q, want the principal's", pinged.Workspace)
	}
}

func TestResultWireShape(t *testing.T) {
	s := NewServer([]Tool{saveContact()}, &Options{Logger: slog.New(slog.DiscardHandler)})
	msg := s.HandleMessage(withPrincipal(t), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"save_contact","arguments":{"name":"Acme & <Co>"}}}`))
	b, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"content":[{"type":"text","text":"Saved **Acme \u0026 \u003cCo\u003e**."}],"structuredContent":{"kind":"target","name":"Acme & <Co>","email":null}}`
	var got struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if !jsonEqual(t, got.Result, []byte(want)) {
		t.Errorf("result = %s\nwant %s", got.Result, want)
	}
}

func TestRefusal(t *testing.T) {
	c, logs := connect(t)
	for mode, want := range map[string]struct{ code, text string }{
		"refuse":  {vibesell.ENOTFOUND, "MC9999 is not a design we carry. Ask for the catalogue to see what we have."},
		"wrapped": {vibesell.ECONFLICT, "Campaign Spring is already sending. Pause it first."},
	} {
		res := c.Call("behave", map[string]any{"mode": mode})
		if !res.IsError || len(res.Content) != 1 || res.StructuredContent != nil {
			t.Errorf("%s: isError %v, %d blocks, structuredContent %v; want a text-only refusal", mode, res.IsError, len(res.Content), res.StructuredContent)
		}
		if got := res.Content[0].(mcp.TextContent).Text; got != want.text {
			t.Errorf("%s: text = %q, want %q", mode, got, want.text)
		}
		if got := refusalCode(res); got != want.code {
			t.Errorf("%s: _meta refusal code = %q, want %q", mode, got, want.code)
		}
	}
	if recs := logs.records(t); len(recs) != 0 {
		t.Errorf("refusals were logged: %v", recs)
	}
}

var refText = regexp.MustCompile(`^Something went wrong on our side \(ref ([0-9a-f]{8})\)\. Try again in a minute\.$`)

func TestInternalFailure(t *testing.T) {
	for _, tc := range []struct {
		mode  string
		cause string
		stack bool
	}{
		{"fail", "find approval: connection refused to 10.0.0.7:5432", false},
		{"internal_refusal", "pq: relation approvals does not exist", false},
		{"panic", "panic: assignment to entry in nil map", true},
		{"bad_kind", "structuredContent does not match the output schema", false},
		{"no_markdown", "handler returned a result without Markdown", false},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			c, logs := connect(t)
			text := c.Refusal("behave", map[string]any{"mode": tc.mode})
			m := refText.FindStringSubmatch(text)
			if m == nil {
				t.Fatalf("text = %q, want the generic sentence with a ref", text)
			}
			ref := m[1]
			recs := logs.records(t)
			if len(recs) != 1 {
				t.Fatalf("%d log records, want 1: %v", len(recs), recs)
			}
			r := recs[0]
			if r["level"] != "ERROR" || r["ref"] != ref || r["tool"] != "behave" || r["workspace"] != testPrincipal.WorkspaceID.String() {
				t.Errorf("log record = %v, want level ERROR, ref %s, tool behave, workspace %s", r, ref, testPrincipal.WorkspaceID)
			}
			if cause, _ := r["err"].(string); !strings.Contains(cause, tc.cause) {
				t.Errorf("logged err = %q, want it to contain %q", cause, tc.cause)
			}
			stack, _ := r["stack"].(string)
			if tc.stack != strings.Contains(stack, "goroutine") {
				t.Errorf("logged stack = %q, want a stack: %v", stack, tc.stack)
			}
			if code := refusalCode(c.Call("behave", map[string]any{"mode": tc.mode})); code != vibesell.EINTERNAL {
				t.Errorf("_meta refusal code = %q, want %q", code, vibesell.EINTERNAL)
			}
		})
	}

	c, _ := connect(t)
	first := refText.FindStringSubmatch(c.Refusal("behave", map[string]any{"mode": "fail"}))
	second := refText.FindStringSubmatch(c.Refusal("behave", map[string]any{"mode": "fail"}))
	if first[1] == second[1] {
		t.Errorf("two failures got the same ref %s", first[1])
	}
}

func TestNoPrincipal(t *testing.T) {
	logs := &logBuffer{}
	s := NewServer([]Tool{behave()}, &Options{Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	c, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := t.Context() // no auth.NewContext: as if the transport found no token
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_LEGACY_PROTOCOL_VERSION}}); err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "behave", Arguments: map[string]any{"mode": "panic"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || res.StructuredContent != nil || len(res.Content) != 1 {
		t.Fatalf("result = %+v, want a text-only refusal", res)
	}
	if got := res.Content[0].(mcp.TextContent).Text; !strings.HasPrefix(got, "This connection is not linked to a workspace.") {
		t.Errorf("text = %q", got)
	}
	if code := refusalCode(res); code != vibesell.EUNAUTHORIZED {
		t.Errorf("_meta refusal code = %q, want %q", code, vibesell.EUNAUTHORIZED)
	}
	if recs := logs.records(t); len(recs) != 0 {
		t.Errorf("logged %v; the handler must not have run", recs)
	}
}

func TestCancelledCallLogsWarning(t *testing.T) {
	logs := &logBuffer{}
	tool := Define(Spec[struct{}, pingOutput]{
		Name: "slow", Title: "Slow", Description: "Waits for the caller to give up.",
		Annotations: Annotations{ReadOnly: Yes, Destructive: No, Idempotent: Yes, OpenWorld: No},
		Handler: func(ctx context.Context, _ auth.Principal, _ struct{}) (Result[pingOutput], error) {
			<-ctx.Done()
			return Result[pingOutput]{}, ctx.Err()
		},
	})
	ctx, cancel := context.WithCancel(withPrincipal(t))
	cancel()
	res := tool.call(ctx, slog.New(slog.NewJSONHandler(logs, nil)), nil)
	if !res.IsError || !refText.MatchString(res.Content[0].(mcp.TextContent).Text) {
		t.Errorf("result = %+v", res)
	}
	if recs := logs.records(t); len(recs) != 1 || recs[0]["level"] != "WARN" {
		t.Errorf("log = %v, want one WARN record", recs)
	}
}

// refusalCode is the code a refused result carries for the card.
func refusalCode(res *mcp.CallToolResult) string {
	if res.Meta == nil {
		return ""
	}
	code, _ := res.Meta.AdditionalFields[refusalMetaKey].(string)
	return code
}
