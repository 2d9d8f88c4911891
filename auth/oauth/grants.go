package oauth

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"vibesell"
)

// Connection is a client a person of the workspace connected: one grant.
type Connection struct {
	GrantID      uuid.UUID
	ClientName   string
	Verified     bool
	RedirectHost string
	// Person is who consented, by email.
	Person      string
	ConnectedAt time.Time
	// LastUsedAt is the last token or request through the grant (to the
	// minute); nil when never used.
	LastUsedAt *time.Time
}

// Connections lists the workspace's connected clients, newest first.
func (s *Server) Connections(ctx context.Context, workspaceID uuid.UUID) ([]Connection, error) {
	rows, err := s.db.Query(ctx, `SELECT g.id, c.name, c.kind, c.redirect_uris[1], u.email, g.created_at, g.last_used_at
		FROM oauth_grants g JOIN oauth_clients c ON c.id = g.client_id JOIN users u ON u.id = g.user_id
		WHERE g.workspace_id = $1 AND g.revoked_at IS NULL
		ORDER BY g.created_at DESC, g.id`, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("list connections: %w", err)
	}
	defer rows.Close()
	var out []Connection
	for rows.Next() {
		var c Connection
		var kind, redirect string
		if err := rows.Scan(&c.GrantID, &c.ClientName, &kind, &redirect, &c.Person, &c.ConnectedAt, &c.LastUsedAt); err != nil {
			return nil, fmt.Errorf("read connection: %w", err)
		}
		c.Verified = kind == "cimd"
		c.RedirectHost = RedirectHost(redirect)
		out = append(out, c)
	}
	return out, rows.Err()
}

// ErrNoConnection answers a disconnect of a connection that is not in the
// workspace or already disconnected.
var ErrNoConnection = vibesell.Errorf(vibesell.ENOTFOUND, "This app is not connected to your workspace (it may have been disconnected already).")

// Disconnect revokes a grant of the workspace: its refresh token stops
// working at once and its access tokens within a second, on every
// replica. Errors:
// [ErrNoConnection].
func (s *Server) Disconnect(ctx context.Context, workspaceID, grantID uuid.UUID, by string) error {
	tag, err := s.db.Exec(ctx, `UPDATE oauth_grants SET revoked_at = $3, revoked_why = $4
		WHERE id = $1 AND workspace_id = $2 AND revoked_at IS NULL`, grantID, workspaceID, s.clock.Now(), "disconnected by "+by)
	if err != nil {
		return fmt.Errorf("disconnect: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return ErrNoConnection
	}
	return nil
}
