package toolkit

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestToolsListAnnotations(t *testing.T) {
	c, _ := connect(t)
	for _, tc := range []struct {
		tool string
		want map[string]any
	}{
		{"save_contact", map[string]any{"title": "Save a contact", "readOnlyHint": false, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}},
		{"list_leads", map[string]any{"title": "List leads", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true}},
		{"behave", map[string]any{"title": "Behave", "readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": true}},
	} {
		var def struct {
			Title       string         `json:"title"`
			Annotations map[string]any `json:"annotations"`
		}
		if err := json.Unmarshal(c.Tool(tc.tool), &def); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(def.Annotations, tc.want) {
			t.Errorf("%s annotations = %v, want %v", tc.tool, def.Annotations, tc.want)
		}
		if def.Title != tc.want["title"] {
			t.Errorf("%s title = %q", tc.tool, def.Title)
		}
	}
}

func TestToolsListMeta(t *testing.T) {
	c, _ := connect(t)
	want := map[string]any{
		"ui":                    map[string]any{"resourceUri": "ui://vibesell/card.html"},
		"ui/resourceUri":        "ui://vibesell/card.html",
		"openai/outputTemplate": "ui://vibesell/card.html",
	}
	for _, name := range []string{"save_contact", "list_leads", "ping", "behave", "echo"} {
		var def struct {
			Meta map[string]any `json:"_meta"`
		}
		if err := json.Unmarshal(c.Tool(name), &def); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(def.Meta, want) {
			t.Errorf("%s _meta = %v, want %v", name, def.Meta, want)
		}
	}
}

func TestToolsListInputSchema(t *testing.T) {
	c, _ := connect(t)
	var def struct {
		InputSchema struct {
			Type                 string                    `json:"type"`
			Properties           map[string]map[string]any `json:"properties"`
			Required             []string                  `json:"required"`
			AdditionalProperties *bool                     `json:"additionalProperties"`
		} `json:"inputSchema"`
	}
	if err := json.Unmarshal(c.Tool("list_leads"), &def); err != nil {
		t.Fatal(err)
	}
	in := def.InputSchema
	if in.Type != "object" || in.AdditionalProperties == nil || *in.AdditionalProperties {
		t.Errorf("inputSchema type %q additionalProperties %v, want object and false", in.Type, in.AdditionalProperties)
	}
	if len(in.Required) != 0 {
		t.Errorf("required = %v, want none (all omitempty)", in.Required)
	}
	for name, p := range in.Properties {
		if d, _ := p["description"].(string); d == "" {
			t.Errorf("%s has no description", name)
		}
		if ex, _ := p["examples"].([]any); len(ex) == 0 {
			t.Errorf("%s has no examples", name)
		}
	}
	limit := in.Properties["limit"]
	if limit["type"] != "integer" || limit["minimum"] != 1.0 || limit["maximum"] != 100.0 || !reflect.DeepEqual(limit["examples"], []any{20.0}) {
		t.Errorf("limit = %v", limit)
	}
	if got := in.Properties["status"]["enum"]; !reflect.DeepEqual(got, []any{"new", "replied", "bounced"}) {
		t.Errorf("status enum = %v", got)
	}
	items, _ := in.Properties["answers"]["items"].(map[string]any)
	if items["additionalProperties"] != false || !reflect.DeepEqual(items["required"], []any{"card", "answer"}) {
		t.Errorf("answers items = %v, want closed objects requiring card and answer", items)
	}

	var contact struct {
		InputSchema struct {
			Required []string `json:"required"`
		} `json:"inputSchema"`
	}
	if err := json.Unmarshal(c.Tool("save_contact"), &contact); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(contact.InputSchema.Required, []string{"name"}) {
		t.Errorf("save_contact required = %v, want [name]", contact.InputSchema.Required)
	}

	var noArgs struct {
		InputSchema map[string]any `json:"inputSchema"`
	}
	if err := json.Unmarshal(c.Tool("ping"), &noArgs); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"type": "object", "properties": map[string]any{}, "additionalProperties": false}
	if !reflect.DeepEqual(noArgs.InputSchema, want) {
		t.Errorf("ping inputSchema = %v, want %v", noArgs.InputSchema, want)
	}
}

func TestToolsListOutputSchema(t *testing.T) {
	c, _ := connect(t)
	var def struct {
		OutputSchema struct {
			Type       string                    `json:"type"`
			Properties map[string]map[string]any `json:"properties"`
			Required   []string                  `json:"required"`
		} `json:"outputSchema"`
	}
	if err := json.Unmarshal(c.Tool("save_contact"), &def); err != nil {
		t.Fatal(err)
	}
	out := def.OutputSchema
	if out.Type != "object" {
		t.Errorf("outputSchema type = %q, want object", out.Type)
	}
	if got := out.Properties["kind"]["enum"]; !reflect.DeepEqual(got, []any{"target"}) {
		t.Errorf("kind enum = %v, want [target]", got)
	}
	if !reflect.DeepEqual(out.Required, []string{"kind", "name", "email"}) {
		t.Errorf("required = %v: a nullable field is still always present", out.Required)
	}
	// A pointer field may be null: null means "not available".
	if got := out.Properties["email"]["type"]; !reflect.DeepEqual(got, []any{"null", "string"}) {
		t.Errorf("email type = %v, want [null string]", got)
	}
}

func TestInitialize(t *testing.T) {
	c, _ := connect(t)
	init := c.Initialize()
	if init.Instructions != testInstructions {
		t.Errorf("instructions = %q, want the ones the server was given", init.Instructions)
	}
	caps := init.Capabilities
	if caps.Logging == nil || caps.Resources == nil || caps.Prompts == nil || caps.Tools == nil {
		t.Errorf("capabilities = %+v, want logging, resources, prompts and tools", caps)
	}
	if init.ServerInfo.Name != "vibesell" || init.ServerInfo.Version != "test" {
		t.Errorf("serverInfo = %+v", init.ServerInfo)
	}
}

func TestCardResource(t *testing.T) {
	c, _ := connect(t)
	ctx := c.Context()

	list, err := c.MCP().ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Resources) != 1 || list.Resources[0].URI != CardURI || list.Resources[0].MIMEType != "text/html;profile=mcp-app" {
		t.Errorf("resources/list = %+v", list.Resources)
	}

	res, err := c.MCP().ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "ui://vibesell/card.html"}})
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
	if text.URI != CardURI || text.MIMEType != "text/html;profile=mcp-app" {
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
	c, _ := connect(t)
	ctx := c.Context()
	if err := c.MCP().SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelInfo}}); err != nil {
		t.Errorf("logging/setLevel: %v", err)
	}
	prompts, err := c.MCP().ListPrompts(ctx, mcp.ListPromptsRequest{})
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
