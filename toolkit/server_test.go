package toolkit

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"
)

func TestToolsListAnnotations(t *testing.T) {
	b := setup(t)
	for _, tc := range []struct {
		tool string
		want map[string]any
	}{
		{"save_contact", map[string]any{"title": "Save a contact", "readOnlyHint": false, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}},
		{"list_leads", map[string]any{"title": "List leads", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true}},
		{"behave", map[string]any{"title": "Behave", "readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": true}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			var def struct {
				Title       string         `json:"title"`
				Annotations map[string]any `json:"annotations"`
			}
			if err := json.Unmarshal(b.client.For(t).Tool(tc.tool), &def); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, def.Annotations); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
			if def.Title != tc.want["title"] {
				t.Errorf("title = %q, want %q", def.Title, tc.want["title"])
			}
		})
	}
}

func TestToolsListMeta(t *testing.T) {
	b := setup(t)
	uri := CardURI(defaultCard)
	if !regexp.MustCompile(`^ui://vibesell/card-[0-9a-f]{8}\.html$`).MatchString(uri) {
		t.Fatalf("card URI %q carries no version", uri)
	}
	want := map[string]any{
		"ui":                    map[string]any{"resourceUri": uri},
		"ui/resourceUri":        uri,
		"openai/outputTemplate": uri,
	}
	for _, name := range []string{"save_contact", "list_leads", "ping", "behave", "echo"} {
		t.Run(name, func(t *testing.T) {
			var def struct {
				Meta map[string]any `json:"_meta"`
			}
			if err := json.Unmarshal(b.client.For(t).Tool(name), &def); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, def.Meta); diff != "" {
				t.Errorf("_meta (-want +got):\n%s", diff)
			}
		})
	}
}

func TestToolsListInputSchema(t *testing.T) {
	b := setup(t)
	inputSchema := func(t *testing.T, tool string) map[string]any {
		t.Helper()
		var def struct {
			InputSchema map[string]any `json:"inputSchema"`
		}
		if err := json.Unmarshal(b.client.For(t).Tool(tool), &def); err != nil {
			t.Fatal(err)
		}
		return def.InputSchema
	}
	t.Run("every argument has its type, rules, description and example", func(t *testing.T) {
		want := map[string]any{
			"type": "object",
			"properties": map[string]any{
				"limit":  map[string]any{"type": "integer", "minimum": 1.0, "maximum": 100.0, "description": "how many leads to show", "examples": []any{20.0}},
				"status": map[string]any{"type": "string", "enum": []any{"new", "replied", "bounced"}, "description": "only leads in this state", "examples": []any{"replied"}},
				"answers": map[string]any{
					"type": "array", "maxItems": 5.0, "description": "the answers given so far",
					"examples": []any{[]any{map[string]any{"card": "0123456789abcdef", "answer": "gmail"}}},
					"items": map[string]any{
						"type": "object", "additionalProperties": false, "required": []any{"card", "answer"},
						"properties": map[string]any{
							"card":   map[string]any{"type": "string", "pattern": "^[0-9a-f]{16}$", "description": "the id of the card that asked"},
							"answer": map[string]any{"type": "string", "minLength": 1.0, "description": "the choice id, or the person's own words"},
						},
					},
				},
				"offset": map[string]any{"type": "integer", "minimum": 0.0, "description": "how many leads to skip", "examples": []any{0.0}},
			},
			"additionalProperties": false,
		}
		if diff := cmp.Diff(want, inputSchema(t, "list_leads")); diff != "" {
			t.Errorf("list_leads inputSchema (-want +got):\n%s", diff)
		}
	})
	t.Run("a field without omitempty is required", func(t *testing.T) {
		if diff := cmp.Diff([]any{"name"}, inputSchema(t, "save_contact")["required"]); diff != "" {
			t.Errorf("save_contact required (-want +got):\n%s", diff)
		}
	})
	t.Run("a tool without arguments takes an empty object", func(t *testing.T) {
		want := map[string]any{"type": "object", "properties": map[string]any{}, "additionalProperties": false}
		if diff := cmp.Diff(want, inputSchema(t, "ping")); diff != "" {
			t.Errorf("ping inputSchema (-want +got):\n%s", diff)
		}
	})
}

func TestToolsListOutputSchema(t *testing.T) {
	b := setup(t)
	var def struct {
		OutputSchema map[string]any `json:"outputSchema"`
	}
	if err := json.Unmarshal(b.client.Tool("save_contact"), &def); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"kind": map[string]any{"type": "string", "enum": []any{"target"}},
			"name": map[string]any{"type": "string", "description": "the company name"},
			// A pointer field may be null: null means "not available".
			"email": map[string]any{"type": []any{"null", "string"}, "description": "where to write to them; null means not available"},
		},
		// A nullable field is still always present.
		"required":             []any{"kind", "name", "email"},
		"additionalProperties": false,
	}
	if diff := cmp.Diff(want, def.OutputSchema); diff != "" {
		t.Errorf("save_contact outputSchema (-want +got):\n%s", diff)
	}
}

func TestInitialize(t *testing.T) {
	b := setup(t)
	init := b.client.Initialize()
	type seen struct {
		Instructions                       string
		Server, Version                    string
		Logging, Resources, Prompts, Tools bool
	}
	caps := init.Capabilities
	got := seen{init.Instructions, init.ServerInfo.Name, init.ServerInfo.Version,
		caps.Logging != nil, caps.Resources != nil, caps.Prompts != nil, caps.Tools != nil}
	want := seen{testInstructions, "vibesell", "test", true, true, true, true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("initialize (-want +got):\n%s", diff)
	}
}

func TestCardResource(t *testing.T) {
	b := setup(t)
	ctx := b.client.Context()

	list, err := b.client.MCP().ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, r := range list.Resources {
		listed = append(listed, r.URI+" "+r.MIMEType)
	}
	if diff := cmp.Diff([]string{CardURI(defaultCard) + " text/html;profile=mcp-app"}, listed); diff != "" {
		t.Errorf("resources/list (-want +got):\n%s", diff)
	}

	res, err := b.client.MCP().ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: CardURI(defaultCard)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 {
		t.Fatalf("%d contents, want 1", len(res.Contents))
	}
	text, ok := mcp.AsTextResourceContents(res.Contents[0])
	if !ok {
		t.Fatalf("content is %T, want text", res.Contents[0])
	}
	if text.URI != CardURI(defaultCard) || text.MIMEType != "text/html;profile=mcp-app" {
		t.Errorf("uri %q mimeType %q", text.URI, text.MIMEType)
	}
	if ui, _ := text.Meta["ui"].(map[string]any); ui == nil || ui["prefersBorder"] != false {
		t.Errorf("content _meta %v: the card draws its own frame, so prefersBorder must be false", text.Meta)
	}
	if !strings.HasPrefix(strings.ToLower(text.Text), "<!doctype html>") {
		t.Errorf("card starts with %q", text.Text[:min(40, len(text.Text))])
	}
	// Hosts do not honour CSP domains reliably: everything is inline.
	if regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?https?:`).MatchString(text.Text) {
		t.Error("card loads something from the network")
	}
	for _, step := range []string{"ui/initialize", "ui/notifications/initialized", "ui/notifications/tool-result", "ui/notifications/size-changed"} {
		if !strings.Contains(text.Text, step) {
			t.Errorf("card does not handle %s", step)
		}
	}
}

func TestCardHTMLOption(t *testing.T) {
	s := NewServer(nil, &Options{CardHTML: "<!DOCTYPE html><html><body>ui</body></html>"})
	r := s.HandleMessage(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"ui://vibesell/card.html"}}`))
	b, _ := json.Marshal(r)
	var read struct {
		Result struct {
			Contents []struct {
				Text string `json:"text"`
			} `json:"contents"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &read); err != nil {
		t.Fatal(err)
	}
	if len(read.Result.Contents) != 1 || read.Result.Contents[0].Text != "<!DOCTYPE html><html><body>ui</body></html>" {
		t.Errorf("resources/read = %s", b)
	}
	mustPanic(t, "HTML5 document", func() { NewServer(nil, &Options{CardHTML: "<div>not a document</div>"}) })
}

func TestLoggingAndPrompts(t *testing.T) {
	b := setup(t)
	ctx := b.client.Context()
	//lint:ignore SA1019 the server still declares logging (server.WithLogging), so it must answer logging/setLevel for clients on protocol versions before 2026-07-28
	if err := b.client.MCP().SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelInfo}}); err != nil {
		t.Errorf("logging/setLevel: %v", err)
	}
	prompts, err := b.client.MCP().ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Errorf("prompts/list: %v", err)
	} else if len(prompts.Prompts) != 0 {
		t.Errorf("prompts = %v", prompts.Prompts)
	}
}

func TestDuplicateToolName(t *testing.T) {
	mustPanic(t, "defined twice", func() { NewServer([]Tool{ping(), ping()}, nil) })
	mustPanic(t, "defined twice", func() { NewServer([]Tool{echo()}, &Options{Echo: true}) })
}

func TestEchoOnlyOnRequest(t *testing.T) {
	s := NewServer([]Tool{ping()}, nil)
	if s.GetTool("echo") != nil {
		t.Error("echo is served without Options.Echo")
	}
}

// A changed card is a new URI (hosts cache a card's HTML by its URI), and
// the URIs a host stored before keep answering, with the current card;
// a URI of no card is not found.
func TestCardURIChangesWithTheCard(t *testing.T) {
	const older, newer = "<!doctype html><p>one</p>", "<!doctype html><p>two</p>"
	if CardURI(older) == CardURI(newer) {
		t.Fatalf("two cards share the URI %s", CardURI(older))
	}
	if CardURI(newer) != CardURI(strings.Clone(newer)) {
		t.Fatal("the URI of one card is not stable")
	}
	s := NewServer([]Tool{ping()}, &Options{CardHTML: newer})
	read := func(uri string) (string, string, *mcp.JSONRPCErrorDetails) {
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": map[string]any{"uri": uri}})
		b, _ := json.Marshal(s.HandleMessage(t.Context(), msg))
		var r struct {
			Result struct {
				Contents []struct{ URI, Text string } `json:"contents"`
			} `json:"result"`
			Error *mcp.JSONRPCErrorDetails `json:"error"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		if r.Error != nil || len(r.Result.Contents) != 1 {
			return "", "", r.Error
		}
		return r.Result.Contents[0].URI, r.Result.Contents[0].Text, nil
	}
	for _, uri := range []string{CardURI(newer), CardURI(older), LegacyCardURI} {
		got, text, rpcErr := read(uri)
		if rpcErr != nil || got != uri || text != newer {
			t.Errorf("resources/read %s: uri %q, text %q, error %v; want the current card under the URI asked for", uri, got, text, rpcErr)
		}
	}
	if _, _, rpcErr := read("ui://vibesell/other.html"); rpcErr == nil || rpcErr.Code != mcp.RESOURCE_NOT_FOUND {
		t.Errorf("resources/read of no card: error %v, want %d", rpcErr, mcp.RESOURCE_NOT_FOUND)
	}
	// Tools point at the current card's URI.
	msg := []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	b, _ := json.Marshal(s.HandleMessage(t.Context(), msg))
	if !strings.Contains(string(b), `"openai/outputTemplate":"`+CardURI(newer)+`"`) {
		t.Errorf("tools/list does not point at %s: %s", CardURI(newer), b)
	}
}
