package workspace

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// List returns every workspace of the installation, by slug. It is for
// the operator's commands only: nothing a workspace's people or assistant
// reach may show another workspace.
func (s *Service) List(ctx context.Context) ([]Workspace, error) {
	rows, err := s.db.Query(ctx, workspaceSQL+` ORDER BY slug`)
	if err != nil {
		return nil, fmt.Errorf("list workspaces: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Workspace, error) { return scanWorkspace(row) })
	if err != nil {
		return nil, fmt.Errorf("list workspaces: %w", err)
	}
	return list, nil
}
