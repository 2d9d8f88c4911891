package toolkit

import (
	"context"
	_ "embed"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// CardURI is the one MCP App every tool points at; the card renders any
// result by its kind.
const CardURI = "ui://vibesell/card.html"

// CardMIMEType is the MIME type MCP Apps hosts require, exactly.
const CardMIMEType = "text/html;profile=mcp-app"

//go:embed card.html
var defaultCard string

// Options configure [NewServer]. A nil *Options means all defaults.
type Options struct {
	// Version is reported in serverInfo. Default "dev".
	Version string
	// Instructions are sent once, in the initialize result: what the
	// assistant must know before any tool description (the catalog's
	// tools.Instructions).
	Instructions string
	// Logger receives internal failures under their ref. Default slog.Default().
	Logger *slog.Logger
	// CardHTML is the HTML5 document served at CardURI. Default: a minimal
	// card that completes the MCP Apps handshake and lists the result.
	CardHTML string
	// Gate, when set, is asked before every call whether the caller may
	// make it (see [Gate]): where a tool the token's scope does not cover
	// is refused.
	Gate Gate
	// Zone, when set, reads the workspace's time zone, which texts write
	// moments in (vibesell.FormatTimeFor); it is read only by a call whose
	// text writes one, and the card is then told it in the result's
	// _meta["vibesell/timeZone"]. Without it, moments are in UTC.
	Zone func(ctx context.Context, ws uuid.UUID) (*time.Location, error)
	// Echo adds the echo tool. For benchmarks and tests only: it is not
	// part of the product.
	Echo bool
	// ServerOptions are added after NewServer's own, e.g. server.WithHooks
	// or server.WithToolFilter.
	ServerOptions []server.ServerOption
}

// NewServer returns an MCP server that serves tools (normally the
// catalog's, tools.Registry), the card, and the instructions that teach
// the assistant the result protocol. Transports (streamable HTTP, stdio) are wrapped
// around it by the caller, which must put the request's auth.Principal
// on the context (server.WithHTTPContextFunc, server.WithStdioContextFunc).
//
// It panics if two tools share a name or CardHTML is not an HTML5
// document: both are mistakes in the program, not in a request.
func NewServer(tools []Tool, opts *Options) *server.MCPServer {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.CardHTML == "" {
		o.CardHTML = defaultCard
	}
	if !strings.HasPrefix(strings.ToLower(strings.TrimSpace(o.CardHTML)), "<!doctype html>") {
		panic("toolkit: CardHTML must be an HTML5 document starting with <!doctype html>")
	}
	if o.Echo {
		tools = append(tools[:len(tools):len(tools)], echo())
	}

	serverOpts := []server.ServerOption{
		server.WithTitle("VibeSell"),
		server.WithInstructions(o.Instructions),
		// The lists never change while the server runs.
		server.WithToolCapabilities(false),
		server.WithPromptCapabilities(false),
		// subscribe: the card never changes, so a subscription is honoured
		// and simply never fires; declaring it lets hosts and the
		// conformance suite subscribe without a -32601.
		server.WithResourceCapabilities(true, false),
		server.WithLogging(),
		server.WithCompletions(),
	}
	s := server.NewMCPServer("vibesell", o.Version, append(serverOpts, o.ServerOptions...)...)

	seen := map[string]bool{}
	serverTools := make([]server.ServerTool, 0, len(tools))
	for _, t := range tools {
		if seen[t.Name()] {
			panic(fmt.Sprintf("toolkit: %s is defined twice", t.Name()))
		}
		seen[t.Name()] = true
		def := t.def
		def.Meta = cardMeta(t.appOnly)
		serverTools = append(serverTools, server.ServerTool{Tool: def, Handler: t.handler(o.Logger, o.Gate, o.Zone)})
	}
	s.AddTools(serverTools...)

	card := o.CardHTML
	s.AddResource(
		mcp.NewResource(CardURI, "VibeSell card",
			mcp.WithResourceDescription("Shows a VibeSell result to the person: a question to answer, an approval to decide, or what was found or done."),
			mcp.WithMIMEType(CardMIMEType),
		),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			// The card draws its own frame; a host border around it would
			// be a second one.
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: CardURI, MIMEType: CardMIMEType, Text: card,
				Meta: map[string]any{"ui": map[string]any{"prefersBorder": false}}}}, nil
		},
	)
	return s
}

// cardMeta links a tool to the card under every key a host may read: the
// MCP Apps key, its older flat form (claude.ai once read only that), and
// ChatGPT's. An app-only tool says so (visibility ["app"]): hosts hide it
// from the model and let only the card call it.
func cardMeta(appOnly bool) *mcp.Meta {
	ui := map[string]any{"resourceUri": CardURI}
	if appOnly {
		ui["visibility"] = []string{"app"}
	}
	return mcp.NewMetaFromMap(map[string]any{
		"ui":                    ui,
		"ui/resourceUri":        CardURI,
		"openai/outputTemplate": CardURI,
	})
}
