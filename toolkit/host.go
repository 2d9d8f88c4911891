package toolkit

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/server"

	"vibesell/auth"
)

// Session is the MCP session a call came through, as far as this process
// knows it: its id (empty over stdio, and on 2026-07-28, which has no
// sessions) and, when the session was initialized in this process or the
// request declared its client in its _meta (2026-07-28), whether its host
// declared the MCP Apps extension (nil when that is not known here: ask
// the stored session, [auth.Sessions.AppsDeclared]). It is only ever a
// note: no result depends on it, since a host opens several clients per
// conversation and not all of them declare the extension.
type Session struct {
	ID           string
	AppsDeclared *bool
}

// SessionOf returns the session of a tool call's context.
func SessionOf(ctx context.Context) Session {
	cs := server.ClientSessionFromContext(ctx)
	if cs == nil {
		return Session{}
	}
	s := Session{ID: cs.SessionID()}
	if ci, ok := cs.(server.SessionWithClientInfo); ok && ci.GetClientInfo().Name != "" {
		caps, err := json.Marshal(ci.GetClientCapabilities())
		declared := err == nil && auth.DeclaresApps(caps)
		s.AppsDeclared = &declared
	}
	return s
}
