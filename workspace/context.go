package workspace

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/jackc/pgx/v5"

	"vibesell/store"
)

// stampSQL reads a workspace's context stamp: 0 until something of its
// context is first written. The stamp moves in the transaction of every
// write to a table the context is read from (the touch_workspace_context
// trigger, migration 00030), so an unmoved stamp means that what was read
// with it is still what the database holds.
const stampSQL = `SELECT coalesce((SELECT stamp FROM workspace_context_stamps WHERE workspace_id = $1), 0)`

// ContextCache answers the reads of a workspace's context (what
// get_workspace_context shows) from what it read last time, for as long as
// the workspace's context stamp has not moved: one index lookup instead of
// every read, and never older than the database, because the stamp is
// read from the database each time. Any number of replicas can each keep
// their own.
//
// T is what read builds from the rows: it must not depend on the time it
// is read at (keep rows, work out "now" from them on each call), and the
// caller must treat it as read-only, since later calls share it.
type ContextCache[T any] struct {
	workspaces *Service
	read       ContextRead[T]
	entries    *lru.Cache[uuid.UUID, stamped[T]]
}

// ContextRead queues on b the reads of workspace ws's context; once b has
// been sent and closed without error, done returns what they read.
type ContextRead[T any] func(b *pgx.Batch, ws uuid.UUID) (done func() (T, error))

type stamped[T any] struct {
	stamp int64
	// wrote is this process's count of writes to the workspace when it
	// was read or confirmed ([Service.Wrote]).
	wrote uint64
	value T
	// confirmed: no notification came while it was read, so that while
	// the notifications are fresh, the absence of one since says the
	// stamp has not moved, without reading it.
	confirmed bool
}

// NewContextCache returns a cache of the contexts of up to size
// workspaces, the most recently read ones, read with read on the service's
// database. With a size of 0 or less it keeps nothing: every Read reads
// everything, as when the stamp has moved.
func NewContextCache[T any](s *Service, size int, read ContextRead[T]) *ContextCache[T] {
	c := &ContextCache[T]{workspaces: s, read: read}
	if size > 0 {
		c.entries, _ = lru.New[uuid.UUID, stamped[T]](size) // errors only for size <= 0
		if s != nil && s.notes != nil {
			s.notes.Subscribe(store.ContextChannel, func(payload string) {
				if ws, err := uuid.Parse(payload); err == nil {
					c.entries.Remove(ws)
				}
			}, c.entries.Purge)
		}
	}
	return c
}

// Read returns workspace ws's context: the kept one when the stamp has not
// moved since it was read (one round trip, one lookup), else read afresh
// with the stamp in one round trip. Errors of read's done, refusals
// included, are returned as they are, and nothing is kept then.
func (c *ContextCache[T]) Read(ctx context.Context, ws uuid.UUID) (T, error) {
	var zero T
	db := c.workspaces.db
	var kept stamped[T]
	ok := false
	if c.entries != nil {
		kept, ok = c.entries.Get(ws)
	}
	notes := c.workspaces.notes
	wrote := c.workspaces.writesTo(ws).Load()
	if ok && kept.confirmed && kept.wrote == wrote && notes.Fresh() {
		return kept.value, nil
	}
	generation := notes.Generation(store.ContextChannel)
	if ok {
		var stamp int64
		if err := db.QueryRow(ctx, stampSQL, ws).Scan(&stamp); err != nil {
			return zero, fmt.Errorf("read context stamp of workspace %s: %w", ws, err)
		}
		if stamp == kept.stamp {
			if (!kept.confirmed || kept.wrote != wrote) && notes.Fresh() && notes.Generation(store.ContextChannel) == generation {
				kept.confirmed, kept.wrote = true, wrote
				c.keep(ws, kept)
			}
			return kept.value, nil
		}
	}

	// The stamp is read before the rows: a write that commits between
	// the two leaves a stamp older than the rows, so the next Read reads
	// again, never the other way round.
	var (
		stamp    int64
		stampErr = errors.New("context stamp: not read")
	)
	b := &pgx.Batch{}
	b.Queue(stampSQL, ws).QueryRow(func(row pgx.Row) error {
		stampErr = row.Scan(&stamp)
		return stampErr
	})
	done := c.read(b, ws)
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return zero, fmt.Errorf("read context of workspace %s: %w", ws, err)
	}
	if stampErr != nil {
		return zero, fmt.Errorf("read context stamp of workspace %s: %w", ws, stampErr)
	}
	value, err := done()
	if err != nil {
		return zero, err
	}
	// Two calls that read at once may finish in either order: keep the
	// newer. (A race between the check and the add can still keep the
	// older; the next Read then reads again.)
	if c.entries == nil {
		return value, nil
	}
	c.keep(ws, stamped[T]{stamp: stamp, wrote: wrote, value: value, confirmed: notes.Fresh() && notes.Generation(store.ContextChannel) == generation})
	return value, nil
}

func (c *ContextCache[T]) keep(ws uuid.UUID, s stamped[T]) {
	if newer, ok := c.entries.Peek(ws); !ok || newer.stamp < s.stamp || (newer.stamp == s.stamp && (!newer.confirmed || newer.wrote < s.wrote)) {
		c.entries.Add(ws, s)
	}
}
