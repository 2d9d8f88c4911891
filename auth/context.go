// Package auth knows who is asking: bearer tokens for MCP clients, and the
// workspace a request acts for.
package auth

import (
	"context"

	"github.com/google/uuid"
)

// Principal is who a request acts for: always one workspace.
type Principal struct {
	WorkspaceID   uuid.UUID
	WorkspaceSlug string
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
