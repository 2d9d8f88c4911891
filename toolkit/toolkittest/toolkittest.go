// Package toolkittest drives a VibeSell MCP server through mcp-go's
// in-process client, acting for one workspace, and checks every tool result
// against the result protocol, so a feature test only states what its tool
// should say and return.
//
// Every call made through a [Client] fails the test unless:
//
//   - a result has exactly one text block, not empty, and structuredContent
//     with a kind, valid against the outputSchema the tool advertised in
//     tools/list;
//   - a refusal (isError) has exactly one text block and no
//     structuredContent;
//   - either keeps within the bounds of every result: text of at most
//     vibesell.MaxResultText characters, structuredContent of at most
//     vibesell.MaxResultStructured bytes.
//
// The client also keeps, per tool, the largest result it saw ([Client.Largest]).
package toolkittest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	validator "github.com/santhosh-tekuri/jsonschema/v6"

	"vibesell"
	"vibesell/auth"
)

// Client is an in-process MCP client whose calls act for one workspace.
type Client struct {
	t      testing.TB
	ctx    context.Context
	mcp    *client.Client
	init   *mcp.InitializeResult
	listed map[string]json.RawMessage   // tool name → its definition as listed
	output map[string]*validator.Schema // tool name → compiled outputSchema
	rawOut map[string]json.RawMessage   // tool name → outputSchema as listed
	sizes  *sizes                       // shared by the copies For makes
}

// Size is how large a result is: its text in characters, and its
// structuredContent in bytes of JSON (0 for a refusal).
type Size struct {
	Text       int
	Structured int
}

type sizes struct {
	mu      sync.Mutex
	largest map[string]Size
}

func (s *sizes) add(tool string, n Size) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.largest[tool]
	l.Text, l.Structured = max(l.Text, n.Text), max(l.Structured, n.Structured)
	s.largest[tool] = l
}

// Largest returns, per tool called through c (or a copy For made), the
// largest text and the largest structuredContent of its results so far.
func (c *Client) Largest() map[string]Size {
	c.sizes.mu.Lock()
	defer c.sizes.mu.Unlock()
	out := make(map[string]Size, len(c.sizes.largest))
	for k, v := range c.sizes.largest {
		out[k] = v
	}
	return out
}

// Connect starts an in-process client on s, completes the initialize
// handshake, and lists the tools. Every request carries p on its context,
// which is how the in-process transport hands a principal to the handlers
// (HTTP and stdio do it with their context functions). The client is
// closed when the test ends.
func Connect(t testing.TB, s *server.MCPServer, p auth.Principal) *Client {
	t.Helper()
	ctx := auth.NewContext(t.Context(), p)
	c, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatalf("toolkittest: new in-process client: %v", err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatalf("toolkittest: start: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	init, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		// The handshake hosts use today (Claude, ChatGPT), not the
		// stateless 2026-07-28 discovery.
		ProtocolVersion: mcp.LATEST_LEGACY_PROTOCOL_VERSION,
		ClientInfo:      mcp.Implementation{Name: "toolstest", Version: "1"},
	}})
	if err != nil {
		t.Fatalf("toolkittest: initialize: %v", err)
	}
	tc := &Client{t: t, ctx: ctx, mcp: c, init: init,
		listed: map[string]json.RawMessage{}, output: map[string]*validator.Schema{}, rawOut: map[string]json.RawMessage{},
		sizes: &sizes{largest: map[string]Size{}}}
	tc.listTools()
	return tc
}

// For returns the client reporting to t: in a subtest, calls must fail the
// subtest, not the test that connected.
func (c *Client) For(t testing.TB) *Client {
	cp := *c
	cp.t = t
	return &cp
}

// MCP returns the underlying client, for requests the helpers do not cover.
func (c *Client) MCP() *client.Client { return c.mcp }

// Context returns the context the client's requests carry: the test's,
// with the principal on it.
func (c *Client) Context() context.Context { return c.ctx }

// Initialize returns the server's answer to the initialize handshake.
func (c *Client) Initialize() *mcp.InitializeResult { return c.init }

// Tool returns a tool's definition exactly as tools/list sent it; the test
// fails if the tool is not listed.
func (c *Client) Tool(name string) json.RawMessage {
	c.t.Helper()
	def, ok := c.listed[name]
	if !ok {
		c.t.Fatalf("toolkittest: tool %q is not listed", name)
	}
	return def
}

// Call calls a tool with args (any JSON-encodable value; nil for none) and
// returns its result after checking it against the result protocol. A
// protocol error fails the test.
func (c *Client) Call(name string, args any) *mcp.CallToolResult {
	c.t.Helper()
	res, err := c.mcp.CallTool(c.ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		c.t.Fatalf("toolkittest: call %s: protocol error: %v", name, err)
	}
	c.check(name, res)
	return res
}

// Result calls a tool that must succeed, decodes its structuredContent into
// out (when out is not nil) and returns its Markdown.
func (c *Client) Result(name string, args any, out any) string {
	c.t.Helper()
	res := c.Call(name, args)
	text := TextOf(res)
	if res.IsError {
		c.t.Fatalf("toolkittest: %s refused: %s", name, text)
	}
	if out != nil {
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			c.t.Fatalf("toolkittest: %s: encode structuredContent: %v", name, err)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(out); err != nil {
			c.t.Fatalf("toolkittest: %s: decode structuredContent into %T: %v", name, out, err)
		}
	}
	return text
}

// Refusal calls a tool that must refuse and returns the sentence.
func (c *Client) Refusal(name string, args any) string {
	c.t.Helper()
	res := c.Call(name, args)
	if !res.IsError {
		c.t.Fatalf("toolkittest: %s succeeded, want a refusal; it said: %s", name, TextOf(res))
	}
	return TextOf(res)
}

func (c *Client) check(name string, res *mcp.CallToolResult) {
	c.t.Helper()
	if len(res.Content) != 1 {
		c.t.Fatalf("toolkittest: %s: %d content blocks, want exactly one text block", name, len(res.Content))
	}
	text, ok := mcp.AsTextContent(res.Content[0])
	if !ok {
		c.t.Fatalf("toolkittest: %s: content is %T, want text", name, res.Content[0])
	}
	if strings.TrimSpace(text.Text) == "" {
		c.t.Fatalf("toolkittest: %s: empty text", name)
	}
	size := Size{Text: utf8.RuneCountInString(text.Text)}
	if res.StructuredContent != nil {
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			c.t.Fatalf("toolkittest: %s: encode structuredContent: %v", name, err)
		}
		size.Structured = len(data)
	}
	c.sizes.add(name, size)
	if size.Text > vibesell.MaxResultText {
		c.t.Fatalf("toolkittest: %s: the text is %d characters, over the bound of %d", name, size.Text, vibesell.MaxResultText)
	}
	if size.Structured > vibesell.MaxResultStructured {
		c.t.Fatalf("toolkittest: %s: structuredContent is %d bytes, over the bound of %d", name, size.Structured, vibesell.MaxResultStructured)
	}
	if res.IsError {
		if res.StructuredContent != nil {
			c.t.Fatalf("toolkittest: %s: a refusal carries structuredContent: %v", name, res.StructuredContent)
		}
		return
	}
	if res.StructuredContent == nil {
		c.t.Fatalf("toolkittest: %s: a result without structuredContent", name)
	}
	if kind, _ := res.StructuredContent.(map[string]any)["kind"].(string); kind == "" {
		c.t.Fatalf("toolkittest: %s: structuredContent has no kind: %v", name, res.StructuredContent)
	}
	schema := c.output[name]
	if schema == nil {
		c.t.Fatalf("toolkittest: %s: no outputSchema was listed", name)
	}
	if err := validate(schema, res.StructuredContent); err != nil {
		c.t.Fatalf("toolkittest: %s: structuredContent does not match the advertised outputSchema: %v\nschema: %s", name, err, c.rawOut[name])
	}
}

// listTools reads tools/list as raw JSON: mcp-go's typed mcp.Tool drops
// schema keywords it does not model, and the test must see what a host sees.
func (c *Client) listTools() {
	c.t.Helper()
	var cursor string
	for page := int64(1); ; page++ {
		var params any
		if cursor != "" {
			params = map[string]any{"cursor": cursor}
		}
		resp, err := c.mcp.GetTransport().SendRequest(c.ctx, transport.JSONRPCRequest{
			JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(-page), Method: string(mcp.MethodToolsList), Params: params,
		})
		if err != nil {
			c.t.Fatalf("toolkittest: tools/list: %v", err)
		}
		if resp.Error != nil {
			c.t.Fatalf("toolkittest: tools/list: %d %s", resp.Error.Code, resp.Error.Message)
		}
		var list struct {
			Tools []json.RawMessage `json:"tools"`
			Next  string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(resp.Result, &list); err != nil {
			c.t.Fatalf("toolkittest: tools/list: %v", err)
		}
		for _, def := range list.Tools {
			var tool struct {
				Name         string          `json:"name"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			}
			if err := json.Unmarshal(def, &tool); err != nil {
				c.t.Fatalf("toolkittest: tools/list: %v", err)
			}
			c.listed[tool.Name] = def
			if len(tool.OutputSchema) > 0 {
				s, err := compile(tool.OutputSchema)
				if err != nil {
					c.t.Fatalf("toolkittest: %s: outputSchema does not compile: %v", tool.Name, err)
				}
				c.output[tool.Name] = s
				c.rawOut[tool.Name] = tool.OutputSchema
			}
		}
		if list.Next == "" {
			return
		}
		cursor = list.Next
	}
}

// ValidateStructured fails the test unless value, encoded as JSON, is valid
// against schema (a JSON Schema document, e.g. a tool's outputSchema).
func ValidateStructured(t testing.TB, schema json.RawMessage, value any) {
	t.Helper()
	s, err := compile(schema)
	if err != nil {
		t.Fatalf("toolkittest: schema does not compile: %v", err)
	}
	if err := validate(s, value); err != nil {
		t.Fatalf("toolkittest: value does not match the schema: %v", err)
	}
}

func compile(schema json.RawMessage) (*validator.Schema, error) {
	doc, err := validator.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := validator.NewCompiler()
	c.DefaultDraft(validator.Draft2020)
	c.AssertFormat()
	const url = "mem://toolkittest/schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

func validate(s *validator.Schema, value any) error {
	data, err := json.Marshal(value)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	v, err := validator.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return s.Validate(v)
}
