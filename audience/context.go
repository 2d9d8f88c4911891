package audience

import (
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell/workspace"
)

// ContextRows are what get_workspace_context shows of the audience: the
// target, the number of leads and the latest import. They come from
// audience_targets and lead_imports only, the two tables that carry the
// context stamp's trigger: the lead count is the sum of the imports'
// counts (leads arrive only through imports), so a thousand leads written
// in one batch move the stamp once, through their import's row, and the
// leads table needs no trigger of its own.
type ContextRows struct {
	Target     Target
	Leads      int
	LastImport *Import
}

// QueueRows queues the reads of [ContextRows] on b, to travel in the
// workspace context's batch; done returns them once the batch has run.
func (s *Service) QueueRows(b *pgx.Batch, ws uuid.UUID) (done func() (ContextRows, error)) {
	var r ContextRows
	b.Queue(`SELECT `+targetColumns+` FROM audience_targets WHERE workspace_id = $1`, ws).QueryRow(func(row pgx.Row) error {
		t, err := scanTarget(row)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		r.Target = t
		return err
	})
	b.Queue(`SELECT coalesce(sum(imported), 0) FROM lead_imports WHERE workspace_id = $1`, ws).QueryRow(func(row pgx.Row) error {
		return row.Scan(&r.Leads)
	})
	lastImport := workspace.QueueOptional(b, scanImport, lastImportSQL, ws) // queued last
	return func() (ContextRows, error) {
		im, err := lastImport()
		if err != nil {
			return ContextRows{}, fmt.Errorf("audience: %w", err)
		}
		r.LastImport = im
		return r, nil
	}
}
