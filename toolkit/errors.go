package toolkit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vibesell"
	"vibesell/auth"
)

// This file is the one place where the outcome of a tool call becomes what
// the client sees:
//
//   - a result: one text block (the Markdown) and structuredContent;
//   - a refusal (*vibesell.Error): isError and the sentence with its next
//     steps written as the tools to call ([RefusalText]), nothing else but
//     the refusal's code under _meta["vibesell/refusal"], for the card;
//   - anything else, a panic included: isError and a generic sentence with
//     a ref (code "internal"); the cause goes to the log under the same
//     ref, never to the assistant.
//
// The Go error given back to mcp-go is always nil: mcp-go turns a handler
// error into a JSON-RPC -32603 carrying err.Error(), which the assistant
// cannot act on and which would leak internals.

// errNoWorkspace answers a call that reached the server without a
// workspace: the transport did not authenticate it, or did so without
// linking it to one.
var errNoWorkspace = vibesell.Errorf(vibesell.EUNAUTHORIZED,
	"This connection is not linked to a workspace. Reconnect VibeSell in the connector settings and sign in, then try again.")

// zoneMetaKey names, in a result's _meta, the time zone its text writes
// moments in (an IANA name), for the card to write them alike.
const zoneMetaKey = "vibesell/timeZone"

func (t Tool) handler(log *slog.Logger, gate Gate, zone func(context.Context, uuid.UUID) (*time.Location, error)) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if p, ok := auth.FromContext(ctx); ok && zone != nil {
			ctx = vibesell.WithZone(ctx, func(ctx context.Context) (*time.Location, error) { return zone(ctx, p.WorkspaceID) })
		}
		res := t.call(ctx, log, gate, req.GetRawArguments())
		if loc, ok := vibesell.ZoneRead(ctx); ok && !res.IsError && loc.String() != "UTC" {
			if res.Meta == nil {
				res.Meta = mcp.NewMetaFromMap(map[string]any{})
			}
			res.Meta.AdditionalFields[zoneMetaKey] = loc.String()
		}
		return res, nil
	}
}

func (t Tool) call(ctx context.Context, log *slog.Logger, gate Gate, raw any) (res *mcp.CallToolResult) {
	p, ok := auth.FromContext(ctx)
	if !ok {
		return refusalResult(errNoWorkspace.Code, errNoWorkspace.Message)
	}
	defer func() {
		if v := recover(); v != nil {
			res = t.internal(ctx, log, p, fmt.Errorf("panic: %v", v), debug.Stack())
		}
	}()
	if gate != nil {
		if err := gate(ctx, p, t.Name(), t.needs); err != nil {
			return t.failure(ctx, log, p, fmt.Errorf("gate: %w", err))
		}
	}
	markdown, structured, meta, err := t.run(ctx, p, raw)
	if err != nil {
		return t.failure(ctx, log, p, err)
	}
	res = &mcp.CallToolResult{
		Content: []mcp.Content{mcp.NewTextContent(markdown)},
		// Already-encoded bytes: what output validation checked is what
		// mcp-go sends.
		StructuredContent: structured,
	}
	if len(meta) > 0 {
		res.Meta = mcp.NewMetaFromMap(meta)
	}
	return res
}

// failure maps a call's error: a refusal's sentence, or an internal
// failure's ref.
func (t Tool) failure(ctx context.Context, log *slog.Logger, p auth.Principal, err error) *mcp.CallToolResult {
	var refusal *vibesell.Error
	// EINTERNAL is "our fault, never shown raw", even when someone
	// wrapped it in the refusal type.
	if errors.As(err, &refusal) && refusal.Code != vibesell.EINTERNAL && refusal.Message != "" {
		// A refusal keeps the bound of every result too: one that names
		// a list without bound fails loudly instead of being cut by the
		// host.
		text := RefusalText(refusal)
		if n := utf8.RuneCountInString(text); n > vibesell.MaxResultText {
			return t.internal(ctx, log, p, fmt.Errorf("refusal over bound: %d characters, the most a result may send is %d: %w", n, vibesell.MaxResultText, err), nil)
		}
		return refusalResult(refusal.Code, text)
	}
	return t.internal(ctx, log, p, err, nil)
}

// refusalMetaKey names the refusal's code (one of vibesell's error codes,
// such as "not_found") in a refused result's _meta: the card tells a
// missing approval from a failure by it, not by the sentence's wording.
const refusalMetaKey = "vibesell/refusal"

func refusalResult(code, sentence string) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Result:  mcp.Result{Meta: mcp.NewMetaFromMap(map[string]any{refusalMetaKey: code})},
		Content: []mcp.Content{mcp.NewTextContent(sentence)},
		IsError: true,
	}
}

// internal logs err under a fresh ref and gives the assistant only the ref.
func (t Tool) internal(ctx context.Context, log *slog.Logger, p auth.Principal, err error, stack []byte) *mcp.CallToolResult {
	ref := vibesell.NewRef()
	attrs := []any{
		slog.String("ref", ref),
		slog.String("tool", t.Name()),
		slog.String("workspace", p.WorkspaceID.String()),
		slog.Any("err", err),
	}
	if stack != nil {
		attrs = append(attrs, slog.String("stack", string(stack)))
	}
	level := slog.LevelError
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		// The client went away mid-call: worth knowing, not worth paging.
		level = slog.LevelWarn
	}
	log.Log(ctx, level, "tool call failed", attrs...)
	return refusalResult(vibesell.EINTERNAL, vibesell.InternalSentence(ref))
}
