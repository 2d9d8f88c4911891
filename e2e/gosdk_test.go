package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vibesell/store/storetest"
	"vibesell/toolkit"
	"vibesell/ui"
)

// bearer adds a workspace token to every request of the SDK's client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// The official Go SDK client (github.com/modelcontextprotocol/go-sdk)
// runs the journey against the built server under each revision it
// offers, pinned: 2025-11-25 (initialize and a session) and 2026-07-28
// (server/discover, stateless). Each run lists the tools (every one
// pointing at the versioned card), reads the card under its URI and the
// unversioned one, and goes from an empty workspace to a saved offer
// that the context then reads back, validating every structuredContent
// against its tool's outputSchema.
func TestOfficialGoSDKClientUnderBothRevisions(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds the server")
	}
	t.Parallel()
	bin := buildServer(t)
	dbURL := storetest.NewURL(t)
	srv := startServer(t, bin, "DATABASE_URL="+dbURL)
	cardURI := toolkit.CardURI(ui.CardHTML)

	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			_, token := newWorkspace(t, dbURL, "Go SDK "+version)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			client := mcp.NewClient(&mcp.Implementation{Name: "vibesell-e2e-go-sdk", Version: "1"}, nil)
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
				Endpoint: srv.url, HTTPClient: &http.Client{Transport: bearer{token}}, MaxRetries: -1, DisableStandaloneSSE: true,
			}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatalf("connect: %v\n%s", err, tail(srv.stderr.String(), 10))
			}
			defer cs.Close()
			init := cs.InitializeResult()
			if init.ProtocolVersion != version || init.ServerInfo == nil || init.ServerInfo.Name != "vibesell" {
				t.Fatalf("negotiated %q with %+v, want %s with vibesell", init.ProtocolVersion, init.ServerInfo, version)
			}
			if stateless := version >= "2026-07-28"; stateless != (cs.ID() == "") {
				t.Errorf("session id %q on %s", cs.ID(), version)
			}
			if !strings.Contains(init.Instructions, "null means") {
				t.Errorf("no instructions: %.200q", init.Instructions)
			}

			schemas := map[string]*jsonschema.Resolved{}
			for tool, err := range cs.Tools(ctx, nil) {
				if err != nil {
					t.Fatalf("tools/list: %v", err)
				}
				link, _ := tool.Meta["ui"].(map[string]any)
				if link["resourceUri"] != cardURI || tool.Meta["openai/outputTemplate"] != cardURI {
					t.Errorf("%s points at %v, not the card %s", tool.Name, tool.Meta, cardURI)
				}
				raw, _ := json.Marshal(tool.OutputSchema)
				var s jsonschema.Schema
				if err := json.Unmarshal(raw, &s); err != nil {
					t.Fatalf("%s outputSchema: %v", tool.Name, err)
				}
				resolved, err := s.Resolve(nil)
				if err != nil {
					t.Fatalf("%s outputSchema: %v", tool.Name, err)
				}
				schemas[tool.Name] = resolved
			}
			if len(schemas) < 40 {
				t.Fatalf("tools/list gave %d tools", len(schemas))
			}

			for _, uri := range []string{cardURI, toolkit.LegacyCardURI} {
				res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
				if err != nil || len(res.Contents) != 1 || res.Contents[0].URI != uri || res.Contents[0].Text != ui.CardHTML {
					t.Errorf("resources/read %s: %v; want the current card under that URI", uri, err)
				}
			}

			call := func(tool string, args map[string]any) string {
				t.Helper()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
				if err != nil {
					t.Fatalf("%s: %v", tool, err)
				}
				raw, _ := json.Marshal(res.StructuredContent)
				if res.IsError {
					t.Fatalf("%s refused: %v", tool, res.Content)
				}
				var data any
				_ = json.Unmarshal(raw, &data)
				if err := schemas[tool].Validate(data); err != nil {
					t.Errorf("%s: structuredContent does not fit its outputSchema: %v", tool, err)
				}
				return string(raw)
			}
			if ctxBefore := call("get_workspace_context", map[string]any{}); strings.Contains(ctxBefore, "Anvils for coyotes") {
				t.Fatalf("a new workspace already has the offer: %s", ctxBefore)
			}
			call("save_offer", map[string]any{"companyName": "Acme", "companyDomain": "acme.com", "product": "Anvils for coyotes",
				"audience": "Coyotes in the desert", "value": "Catch the bird", "callToAction": "Book a demo"})
			call("remember", map[string]any{"fact": "Prefers short emails", "about": "preference"})
			if after := call("get_workspace_context", map[string]any{}); !strings.Contains(after, "Anvils for coyotes") {
				t.Errorf("the context does not read back the saved offer: %.400s", after)
			}
			call("list_pending_approvals", map[string]any{})
		})
	}
}
