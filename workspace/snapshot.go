package workspace

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// Snapshot is what the product knows about a workspace, read at once: what
// get_workspace_context shows.
type Snapshot struct {
	Workspace Workspace
	Offer     *Offer    // nil: not saved yet
	Playbook  *Playbook // nil: not saved yet
	// Memories are the newest [ContextMemories] facts, newest first (nil
	// when there are none); MemoryCount counts them all. The context
	// summarises what is remembered, so that it stays small whatever the
	// workspace keeps; remember lists the rest a page at a time.
	Memories    []Memory
	MemoryCount int
	OpenTickets int
	// Zone is the workspace's time zone, which its texts write moments
	// in (UTC until its settings set one).
	Zone *time.Location
}

// QueueSnapshot queues on b the reads of workspace ws's [Snapshot] (read
// through a [ContextCache], with other packages' reads in the same batch):
// the same queries, and the same scanning, as [Service.FindByID],
// [Service.FindOffer], [Service.FindPlaybook], the newest of [Service.Memories] and
// [Service.OpenTickets]. Once b has been sent and closed without error,
// done returns the snapshot.
//
// Refusals (from done): ENOTFOUND when the workspace does not exist.
func QueueSnapshot(b *pgx.Batch, ws uuid.UUID) (done func() (Snapshot, error)) {
	var (
		snap     Snapshot
		found    bool
		complete bool // the last read ran: every read before it did too
	)
	// A missing workspace is not an error of the batch: the callback that
	// returns one stops the others and makes pgx drop its statement cache
	// for every query of the batch. done refuses instead.
	b.Queue(workspaceByIDSQL, ws).QueryRow(func(row pgx.Row) error {
		w, err := scanWorkspace(row)
		switch {
		case isNoRows(err):
			return nil
		case err != nil:
			return fmt.Errorf("find workspace %s: %w", ws, err)
		}
		snap.Workspace, found = w, true
		return nil
	})
	b.Queue(offerSQL, ws).QueryRow(func(row pgx.Row) (err error) {
		snap.Offer, err = scanOffer(row)
		return err
	})
	b.Queue(playbookSQL, ws).QueryRow(func(row pgx.Row) (err error) {
		snap.Playbook, err = scanPlaybook(row)
		return err
	})
	b.Queue(memoriesSQL, ws, ContextMemories).Query(func(rows pgx.Rows) (err error) {
		snap.Memories, err = collectMemories(rows, nil)
		return err
	})
	b.Queue(memoryCountSQL, ws).QueryRow(func(row pgx.Row) error {
		return row.Scan(&snap.MemoryCount)
	})
	snap.Zone = time.UTC
	b.Queue(zoneSQL, ws).QueryRow(func(row pgx.Row) error {
		var name string
		switch err := row.Scan(&name); {
		case isNoRows(err):
			return nil
		case err != nil:
			return fmt.Errorf("read time zone of workspace %s: %w", ws, err)
		}
		snap.Zone = Sender{TimeZone: name}.Location()
		return nil
	})
	b.Queue(openTicketsSQL, ws).QueryRow(func(row pgx.Row) (err error) {
		snap.OpenTickets, err = scanOpenTickets(row)
		complete = err == nil
		return err
	})
	return func() (Snapshot, error) {
		switch {
		case !complete:
			return Snapshot{}, errors.New("workspace snapshot: read before its batch was sent, or after the batch failed")
		case !found:
			return Snapshot{}, errNoWorkspace()
		}
		return snap, nil
	}
}
