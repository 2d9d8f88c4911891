package toolkit

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// CardURI returns the URI of the one MCP App every tool points at (the
// card renders any result by its kind): ui://vibesell/card-<v>.html, where
// v is the first 8 hex digits of the SHA-256 of its HTML. Hosts cache a
// card's HTML by its URI (ChatGPT does, for good), so a changed card must
// be a new URI; the URIs of earlier cards keep answering, with the
// current card ([LegacyCardURI] and every card-<v>.html).
func CardURI(html string) string {
	sum := sha256.Sum256([]byte(html))
	return cardURIPrefix + "-" + hex.EncodeToString(sum[:4]) + ".html"
}

// LegacyCardURI is the card's URI before it carried its version; hosts
// that stored it still read it, and get the current card.
const LegacyCardURI = cardURIPrefix + ".html"

const cardURIPrefix = "ui://vibesell/card"

// cardURITemplate matches the card's URI of any version, the unversioned
// one included ({version} is "" or "-<v>"): resources/read answers every
// one of them with the current card.
const cardURITemplate = cardURIPrefix + "{version}.html"

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
	// CardHTML is the HTML5 document served at CardURI(CardHTML). Default: a minimal
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
	cardURI := CardURI(o.CardHTML)

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
		// 2026-07-28 clients cache list and read results (ttlMs and
		// cacheScope): see releaseTTL.
		server.WithCacheHints(releaseTTL.Milliseconds(), mcp.CacheScopePublic),
	}
	s := server.NewMCPServer("vibesell", o.Version, append(serverOpts, o.ServerOptions...)...)
	hooks := s.GetHooks()
	if hooks == nil {
		hooks = &server.Hooks{}
		server.WithHooks(hooks)(s)
	}

	seen := map[string]bool{}
	serverTools := make([]server.ServerTool, 0, len(tools))
	for _, t := range tools {
		if seen[t.Name()] {
			panic(fmt.Sprintf("toolkit: %s is defined twice", t.Name()))
		}
		seen[t.Name()] = true
		def := t.def
		def.Meta = cardMeta(cardURI, t.appOnly)
		serverTools = append(serverTools, server.ServerTool{Tool: def, Handler: t.handler(o.Logger, o.Gate, o.Zone)})
	}
	s.AddTools(serverTools...)

	card := o.CardHTML
	// The card draws its own frame; a host border around it would be a
	// second one.
	contents := func(uri string) []mcp.ResourceContents {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: CardMIMEType, Text: card,
			Meta: map[string]any{"ui": map[string]any{"prefersBorder": false}}}}
	}
	// 2026-07-28 has no resources/subscribe (subscriptions/listen took its
	// place), so its discovery does not declare it; 2025-11-25's
	// initialize still does. A copy: the server's own capabilities stay.
	hooks.AddAfterDiscover(func(_ context.Context, _ any, _ *mcp.DiscoverRequest, res *mcp.DiscoverResult) {
		if res != nil && res.Capabilities.Resources != nil {
			r := *res.Capabilities.Resources
			r.Subscribe = false
			res.Capabilities.Resources = &r
		}
	})
	hooks.AddAfterReadResource(func(ctx context.Context, _ any, req *mcp.ReadResourceRequest, res *mcp.ReadResourceResult) {
		if res != nil && req.Params.URI == cardURI && server.IsModernRequest(ctx) {
			res.SetCacheHints(versionedTTL.Milliseconds(), mcp.CacheScopePublic)
		}
	})
	s.AddResource(
		mcp.NewResource(cardURI, "VibeSell card",
			mcp.WithResourceDescription(cardDescription),
			mcp.WithMIMEType(CardMIMEType),
		),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return contents(cardURI), nil
		},
	)
	// An earlier card's URI, stored by a host before a release, answers
	// with the current card: the card reads every kind of result a
	// release's tools return, and an older one may not.
	s.AddResourceTemplate(
		mcp.NewResourceTemplate(cardURITemplate, "VibeSell card, earlier versions",
			mcp.WithTemplateDescription("The URIs of earlier versions of the VibeSell card: each answers with the current card, "+cardURI+"."),
			mcp.WithTemplateMIMEType(CardMIMEType),
		),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return contents(req.Params.URI), nil
		},
	)
	return s
}

const cardDescription = "Shows a VibeSell result to the person: a question to answer, an approval to decide, or what was found or done."

// Cache hints (2026-07-28's ttlMs and cacheScope) say only what this
// server keeps true. Everything it lists or reads is the same for every
// caller (tools/list is not filtered by workspace or scope: a tool the
// token may not call is refused at the call), so every such result is
// public; and it changes only with a release (a new binary: the tools,
// the instructions, the card), so a client may keep it for releaseTTL,
// the time a release takes to reach a client that cached the last one.
// The card under its own versioned URI never changes at all (a changed
// card is a new URI), so it may be kept for versionedTTL; under an
// earlier URI it is the current card, which changes with a release.
// Tool results and per-workspace data are not cacheable results in the
// protocol: they carry no hints.
const (
	releaseTTL   = time.Hour
	versionedTTL = 30 * 24 * time.Hour
)

// cardMeta links a tool to the card under every key a host may read: the
// MCP Apps key, its older flat form (claude.ai once read only that), and
// ChatGPT's. An app-only tool says so (visibility ["app"]): hosts hide it
// from the model and let only the card call it.
func cardMeta(cardURI string, appOnly bool) *mcp.Meta {
	ui := map[string]any{"resourceUri": cardURI}
	if appOnly {
		ui["visibility"] = []string{"app"}
	}
	return mcp.NewMetaFromMap(map[string]any{
		"ui":                    ui,
		"ui/resourceUri":        cardURI,
		"openai/outputTemplate": cardURI,
	})
}
