package workspace

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"vibesell/store"
)

// firstStartLockKey orders replicas that start together on an empty
// database, so only one of them creates the first workspace.
const firstStartLockKey int64 = 0x76696265_00000001

// ClaimFirstStart reports whether this is the first start of the
// installation, and if so records ws as its first workspace. Call it in a
// transaction: it holds a lock until that transaction ends, so of several
// replicas starting at once exactly one sees true.
func ClaimFirstStart(ctx context.Context, tx store.DBTX, create func(context.Context) (uuid.UUID, error)) (bool, error) {
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", firstStartLockKey); err != nil {
		return false, fmt.Errorf("lock first start: %w", err)
	}
	var installed bool
	if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM installation)").Scan(&installed); err != nil {
		return false, fmt.Errorf("read installation: %w", err)
	}
	if installed {
		return false, nil
	}
	id, err := create(ctx)
	if err != nil {
		return false, err
	}
	if _, err := tx.Exec(ctx, "INSERT INTO installation (workspace_id) VALUES ($1)", id); err != nil {
		return false, fmt.Errorf("record installation: %w", err)
	}
	return true, nil
}
