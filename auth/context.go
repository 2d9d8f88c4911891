// Package auth knows who is asking: bearer tokens for MCP clients, and the
// workspace a request acts for.
package auth

import (
	"context"

	"github.com/google/uuid"
)

// Principal is who a request acts for: always one workspace, and for a
// client connected through OAuth also the person who connected it and
// their grant.
type Principal struct {
	WorkspaceID   uuid.UUID
	WorkspaceSlug string
	// UserID is the person an OAuth client acts for; uuid.Nil for a
	// workspace token from `server token create` or stdio, which stand for
	// the workspace and no one in it.
	UserID uuid.UUID
	// UserEmail names that person, for the record of who did what.
	UserEmail string
	// GrantID is the OAuth grant the request came through and ClientName
	// the app it was granted to; zero without one.
	GrantID    uuid.UUID
	ClientName string
	// Scopes are the OAuth scopes the request may use (vibesell.Scope*,
	// each covering those below it, see vibesell.ScopeCovers): for an
	// OAuth client those the person granted, for a workspace token or
	// stdio every scope, as they stand for the whole workspace. A
	// principal made without them may call no tool that needs one.
	Scopes []string
}

type principalKey struct{}

// NewContext returns a context that carries p.
func NewContext(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the principal of the request, if one was set.
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}
