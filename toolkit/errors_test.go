package toolkit

import (
	"context"
	"encoding/json"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"vibesell"
	"vibesell/auth"
	"vibesell/toolkit/toolkittest"
)

func TestResult(t *testing.T) {
	// toolkittest.Client checks every call: one text block, structuredContent
	// with a kind and valid against the advertised outputSchema.
	b := setup(t)
	t.Run("the kind is filled in", func(t *testing.T) {
		res := b.client.For(t).Call("save_contact", map[string]any{"name": "Acme", "email": "ada@acme.com"})
		want := map[string]any{"kind": "target", "name": "Acme", "email": "ada@acme.com"}
		if diff := cmp.Diff(want, res.StructuredContent); diff != "" {
			t.Errorf("structuredContent (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff("Saved **Acme**.", toolkittest.TextOf(res)); diff != "" {
			t.Errorf("text (-want +got):\n%s", diff)
		}
	})
	t.Run("not available is null, not empty", func(t *testing.T) {
		var out contactOutput
		b.client.For(t).Result("save_contact", map[string]any{"name": "Acme"}, &out)
		if diff := cmp.Diff(contactOutput{Kind: "target", Name: "Acme"}, out); diff != "" {
			t.Errorf("structuredContent (-want +got):\n%s", diff)
		}
	})
	t.Run("text is sent as the handler wrote it", func(t *testing.T) {
		var echoed echoOutput
		text := b.client.For(t).Result("echo", map[string]any{"text": "<b>hi</b> & bye"}, &echoed)
		if diff := cmp.Diff("<b>hi</b> & bye", text); diff != "" {
			t.Errorf("text (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(echoOutput{Kind: "echo", Text: "<b>hi</b> & bye"}, echoed); diff != "" {
			t.Errorf("structuredContent (-want +got):\n%s", diff)
		}
	})
	t.Run("the handler acts for the principal", func(t *testing.T) {
		var pinged pingOutput
		b.client.For(t).Result("ping", nil, &pinged)
		if diff := cmp.Diff(pingOutput{Kind: "support", Workspace: "acme"}, pinged); diff != "" {
			t.Errorf("structuredContent (-want +got):\n%s", diff)
		}
	})
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
	var gotValue, wantValue any
	if err := json.Unmarshal(got.Result, &gotValue); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &wantValue); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantValue, gotValue); diff != "" {
		t.Errorf("result on the wire (-want +got):\n%s", diff)
	}
}

func TestRefusal(t *testing.T) {
	b := setup(t)
	for mode, want := range map[string]refusalSeen{
		"refuse":  {true, 1, "MC9999 is not a design we carry. Ask for the catalogue to see what we have.", vibesell.ENOTFOUND, nil},
		"wrapped": {true, 1, "Campaign Spring is already sending. Pause it first.", vibesell.ECONFLICT, nil},
		// The steps follow the sentence, each as the tool to call and the
		// arguments the refusal knows.
		"steps": {true, 1, "Campaign Spring is already sending.\n\nNext:\n- Pause it first. Call pause_campaign with campaign c_1.\n- Ask the owner.\n- Call get_campaign.", vibesell.ECONFLICT, nil},
	} {
		t.Run(mode, func(t *testing.T) {
			res := b.client.For(t).Call("behave", map[string]any{"mode": mode})
			got := seenRefusal(res)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("refusal (-want +got):\n%s", diff)
			}
		})
	}
	if recs := b.logs.Records(t); len(recs) != 0 {
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
		// A result over the bounds is never sent: hosts would cut it.
		{"long_text", "result over bound: the text is 25001 characters", false},
		{"big_structured", "result over bound: structuredContent is 100031 bytes", false},
		{"long_refusal", "refusal over bound: 25001 characters", false},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			b := setup(t)
			text := b.client.Refusal("behave", map[string]any{"mode": tc.mode})
			m := refText.FindStringSubmatch(text)
			if m == nil {
				t.Fatalf("text = %q, want the generic sentence with a ref", text)
			}
			ref := m[1]
			recs := b.logs.Records(t)
			if len(recs) != 1 {
				t.Fatalf("%d log records, want 1: %v", len(recs), recs)
			}
			r := recs[0]
			want := map[string]any{"level": "ERROR", "ref": ref, "tool": "behave", "workspace": testPrincipal.WorkspaceID.String()}
			got := map[string]any{"level": r["level"], "ref": r["ref"], "tool": r["tool"], "workspace": r["workspace"]}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("log record (-want +got):\n%s", diff)
			}
			if cause, _ := r["err"].(string); !strings.Contains(cause, tc.cause) {
				t.Errorf("logged err = %q, want it to contain %q", cause, tc.cause)
			}
			stack, _ := r["stack"].(string)
			if tc.stack != strings.Contains(stack, "goroutine") {
				t.Errorf("logged stack = %q, want a stack: %v", stack, tc.stack)
			}
			if code := refusalCode(b.client.Call("behave", map[string]any{"mode": tc.mode})); code != vibesell.EINTERNAL {
				t.Errorf("_meta refusal code = %q, want %q", code, vibesell.EINTERNAL)
			}
		})
	}

	b := setup(t)
	first := refText.FindStringSubmatch(b.client.Refusal("behave", map[string]any{"mode": "fail"}))
	second := refText.FindStringSubmatch(b.client.Refusal("behave", map[string]any{"mode": "fail"}))
	if first[1] == second[1] {
		t.Errorf("two failures got the same ref %s", first[1])
	}
}

// A result at the bound is sent: the text's bound counts characters, not
// bytes.
func TestResultAtTheBound(t *testing.T) {
	b := setup(t)
	text := b.client.Result("behave", map[string]any{"mode": "at_bound"}, nil)
	if n := len([]rune(text)); n != vibesell.MaxResultText {
		t.Errorf("the text sent is %d characters, want %d", n, vibesell.MaxResultText)
	}
}

func TestNoPrincipal(t *testing.T) {
	logs := &toolkittest.LogBuffer{}
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
	got := seenRefusal(res)
	want := refusalSeen{true, 1, errNoWorkspace.Message, vibesell.EUNAUTHORIZED, nil}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if recs := logs.Records(t); len(recs) != 0 {
		t.Errorf("logged %v; the handler must not have run", recs)
	}
}

func TestCancelledCallLogsWarning(t *testing.T) {
	logs := &toolkittest.LogBuffer{}
	tool := Define(Spec[struct{}, pingOutput]{
		Name: "slow", Title: "Slow", Description: "Waits for the caller to give up.",
		Annotations: Annotations{ReadOnly: Yes, Destructive: No, Idempotent: Yes, OpenWorld: No},
		Requires:    Needs{Scope: vibesell.ScopeRead},
		Handler: func(ctx context.Context, _ auth.Principal, _ struct{}) (Result[pingOutput], error) {
			<-ctx.Done()
			return Result[pingOutput]{}, ctx.Err()
		},
	})
	ctx, cancel := context.WithCancel(withPrincipal(t))
	cancel()
	res := tool.call(ctx, slog.New(slog.NewJSONHandler(logs, nil)), nil, nil)
	if !res.IsError || !refText.MatchString(toolkittest.TextOf(res)) {
		t.Errorf("result %q (isError %v), want the internal sentence with a ref", toolkittest.TextOf(res), res.IsError)
	}
	if recs := logs.Records(t); len(recs) != 1 || recs[0]["level"] != "WARN" {
		t.Errorf("log = %v, want one WARN record", recs)
	}
}

// refusalSeen is what a client sees of a refused result: isError, one
// text block, the code for the card, and no structuredContent.
type refusalSeen struct {
	Error  bool
	Blocks int
	Text   string
	Code   string
	Data   any
}

func seenRefusal(res *mcp.CallToolResult) refusalSeen {
	return refusalSeen{res.IsError, len(res.Content), toolkittest.TextOf(res), refusalCode(res), res.StructuredContent}
}

// refusalCode is the code a refused result carries for the card.
func refusalCode(res *mcp.CallToolResult) string {
	if res.Meta == nil {
		return ""
	}
	code, _ := res.Meta.AdditionalFields[refusalMetaKey].(string)
	return code
}
