package workspace

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/store"
)

// Memory is one thing to keep in mind about the person or their company.
type Memory struct {
	ID        uuid.UUID
	About     string // person, company or preference
	Fact      string
	CreatedAt time.Time
}

// MemoryAbout lists what a memory can be about.
var MemoryAbout = []string{"person", "company", "preference"}

// What one workspace keeps is bounded: at most MaxMemories facts of at
// most MaxFactLength characters each (200,000 characters in all). No
// result shows them all at once: remember lists them a page at a time
// (at most MaxMemoryPage, about 21,000 characters at the longest), and
// the workspace context shows only the count and the newest
// ContextMemories, so that every result stays within the bounds hosts
// keep (25,000 characters of text).
const (
	MaxMemories     = 200
	MaxFactLength   = 1000
	MaxMemoryPage   = 20
	ContextMemories = 5
	// defaultMemoryPage is a page's size when none is asked for.
	defaultMemoryPage = 10
)

// maxMemories is [MaxMemories], under the name the rules below use.
const maxMemories = MaxMemories

// Remember stores a fact. Refusals: EINVALID for an empty or over-long fact
// or an unknown subject; ECONFLICT when the workspace already keeps the
// maximum number of memories.
func (s *Service) Remember(ctx context.Context, ws uuid.UUID, about, fact string) (Memory, error) {
	fact = strings.TrimSpace(fact)
	if fact == "" {
		return Memory{}, vibesell.Errorf(vibesell.EINVALID, "There is nothing to remember: give the fact in a sentence, for example \"Prefers to be called Sam\".")
	}
	if len([]rune(fact)) > MaxFactLength {
		return Memory{}, vibesell.Errorf(vibesell.EINVALID, "That is %d characters; a memory can be at most %s. Keep the fact to a sentence or two.", len([]rune(fact)), vibesell.Count(MaxFactLength))
	}
	m := Memory{ID: uuid.New(), About: about, Fact: fact}
	// Locking the workspace row serialises concurrent calls of one
	// workspace, so the count and the insert cannot race past the limit.
	// The count is a statement of its own, after the lock: a statement
	// reads with the snapshot it started with, so a count in the locking
	// statement would miss what the holder of the lock inserted meanwhile.
	err := store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		var locked bool
		if err := tx.QueryRow(ctx, `SELECT true FROM workspaces WHERE id = $1 FOR UPDATE`, ws).Scan(&locked); err != nil {
			return fmt.Errorf("lock workspace: %w", err)
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM memories WHERE workspace_id = $1`, ws).Scan(&n); err != nil {
			return fmt.Errorf("count memories: %w", err)
		}
		if n >= maxMemories {
			return vibesell.Errorf(vibesell.ECONFLICT, "This workspace already keeps %d memories, the most it can. Forget one that no longer matters first.", maxMemories)
		}
		return tx.QueryRow(ctx, `INSERT INTO memories (workspace_id, id, about, fact, created_at) VALUES ($1, $2, $3, $4, $5)
			RETURNING created_at`, ws, m.ID, about, fact, s.clock.Now()).Scan(&m.CreatedAt)
	})
	if err != nil {
		if vibesell.ErrorCode(err) != vibesell.EINTERNAL {
			return Memory{}, err
		}
		return Memory{}, fmt.Errorf("remember: %w", err)
	}
	return m, nil
}

// MemoryChange is one request about memories: a fact to keep, the id of
// one to forget, or neither, to list them; and which page of what is
// remembered afterwards to return.
type MemoryChange struct {
	Fact   string
	About  string // person, company or preference; default company
	Forget string // a memory's id
	Limit  int    // the page's size, 1 to MaxMemoryPage; 0: the default (10)
	Cursor string // from a previous page's Next; empty for the newest
}

// MemoryChanged is what a [MemoryChange] did.
type MemoryChanged struct {
	Action string  // remembered, forgotten or listed
	Memory *Memory // the fact remembered or forgotten; nil when listing
	MemoryPage
}

// MemoryPage is one page of what a workspace remembers, newest first.
type MemoryPage struct {
	Memories []Memory // this page
	Total    int      // how many the workspace remembers in all
	Next     string   // the cursor of the next page; empty on the last page
}

// ChangeMemory remembers a fact, forgets one, or lists them, and returns
// a page of what is remembered afterwards. Refusals: EINVALID for both a
// fact and an id, an id that is not one, a limit out of range or a cursor
// this list did not give; those of [Service.Remember] and
// [Service.Forget].
func (s *Service) ChangeMemory(ctx context.Context, ws uuid.UUID, c MemoryChange) (MemoryChanged, error) {
	var out MemoryChanged
	if c.Limit == 0 {
		c.Limit = defaultMemoryPage
	}
	if c.Limit < 1 || c.Limit > MaxMemoryPage {
		return MemoryChanged{}, vibesell.Errorf(vibesell.EINVALID, "limit: a page holds 1 to %d memories; %d was asked for.", MaxMemoryPage, c.Limit)
	}
	after, err := decodeMemoryCursor(c.Cursor)
	if err != nil {
		return MemoryChanged{}, err
	}
	switch {
	case c.Fact != "" && c.Forget != "":
		return MemoryChanged{}, vibesell.Errorf(vibesell.EINVALID, "Give either a fact to remember or the id of one to forget, not both.")
	case c.Forget != "":
		id, err := uuid.Parse(c.Forget)
		if err != nil {
			return MemoryChanged{}, vibesell.Errorf(vibesell.EINVALID, "%q is not a memory id; ids look like 0b6f9a52-4d1e-4c55-9c1f-3f1e2d7c8a10.", c.Forget)
		}
		m, err := s.Forget(ctx, ws, id)
		if err != nil {
			return MemoryChanged{}, err
		}
		out.Action, out.Memory = "forgotten", &m
	case c.Fact != "":
		if c.About == "" {
			c.About = "company"
		}
		m, err := s.Remember(ctx, ws, c.About, c.Fact)
		if err != nil {
			return MemoryChanged{}, err
		}
		out.Action, out.Memory = "remembered", &m
	default:
		out.Action = "listed"
	}
	if out.MemoryPage, err = s.memoryPage(ctx, ws, c.Limit, after); err != nil {
		return MemoryChanged{}, err
	}
	return out, nil
}

// Forget deletes a memory and returns it. Refusals: ENOTFOUND.
func (s *Service) Forget(ctx context.Context, ws, id uuid.UUID) (Memory, error) {
	m := Memory{ID: id}
	err := s.db.QueryRow(ctx,
		`DELETE FROM memories WHERE workspace_id = $1 AND id = $2 RETURNING about, fact, created_at`,
		ws, id).Scan(&m.About, &m.Fact, &m.CreatedAt)
	if err != nil {
		if isNoRows(err) {
			return Memory{}, vibesell.Errorf(vibesell.ENOTFOUND, "There is no memory %s in this workspace.", id).Then(
				vibesell.Next{Do: "List what is remembered.", Tool: vibesell.ToolRemember})
		}
		return Memory{}, fmt.Errorf("forget: %w", err)
	}
	return m, nil
}

// memoriesSQL lists the memories of workspace $1, newest first, at most $2.
const memoriesSQL = `SELECT id, about, fact, created_at FROM memories WHERE workspace_id = $1
	ORDER BY created_at DESC, id LIMIT $2`

// memoryCountSQL counts the memories of workspace $1.
const memoryCountSQL = `SELECT count(*) FROM memories WHERE workspace_id = $1`

// Memories lists the workspace's memories, newest first.
func (s *Service) Memories(ctx context.Context, ws uuid.UUID) ([]Memory, error) {
	return collectMemories(s.db.Query(ctx, memoriesSQL, ws, maxMemories))
}

// memoryCursor is where a page of memories starts: after this memory, in
// the order of memoriesSQL (newest first, then by id).
type memoryCursor struct {
	at time.Time
	id uuid.UUID
}

// memoryPage reads limit memories after after (nil: from the newest) and
// the count, in one round trip.
func (s *Service) memoryPage(ctx context.Context, ws uuid.UUID, limit int, after *memoryCursor) (MemoryPage, error) {
	var (
		p    MemoryPage
		list []Memory
	)
	b := &pgx.Batch{}
	if after == nil {
		b.Queue(memoriesSQL, ws, limit+1).Query(func(rows pgx.Rows) (err error) {
			list, err = collectMemories(rows, nil)
			return err
		})
	} else {
		b.Queue(`SELECT id, about, fact, created_at FROM memories WHERE workspace_id = $1
			AND (created_at < $2 OR (created_at = $2 AND id > $3))
			ORDER BY created_at DESC, id LIMIT $4`, ws, after.at, after.id, limit+1).Query(func(rows pgx.Rows) (err error) {
			list, err = collectMemories(rows, nil)
			return err
		})
	}
	b.Queue(memoryCountSQL, ws).QueryRow(func(row pgx.Row) error { return row.Scan(&p.Total) })
	if err := s.db.SendBatch(ctx, b).Close(); err != nil {
		return MemoryPage{}, fmt.Errorf("list memories: %w", err)
	}
	if len(list) > limit {
		list = list[:limit]
		last := list[len(list)-1]
		p.Next = encodeMemoryCursor(memoryCursor{at: last.CreatedAt, id: last.ID})
	}
	p.Memories = list
	return p, nil
}

func encodeMemoryCursor(c memoryCursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte(c.at.UTC().Format(time.RFC3339Nano) + "|" + c.id.String()))
}

// decodeMemoryCursor reads a cursor memoryPage gave; nil for none.
// Refusals: EINVALID for any other.
func decodeMemoryCursor(c string) (*memoryCursor, error) {
	if c == "" {
		return nil, nil
	}
	bad := vibesell.Errorf(vibesell.EINVALID, "The cursor %q is not one this list gave. Leave it out to start from the newest memory.", c)
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return nil, bad
	}
	at, id, ok := strings.Cut(string(raw), "|")
	if !ok {
		return nil, bad
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return nil, bad
	}
	u, err := uuid.Parse(id)
	if err != nil {
		return nil, bad
	}
	return &memoryCursor{at: t, id: u}, nil
}

// collectMemories reads the rows of memoriesSQL (nil when there are none),
// or the error of the query that gave them.
func collectMemories(rows pgx.Rows, err error) ([]Memory, error) {
	if err != nil {
		return nil, fmt.Errorf("list memories: %w", err)
	}
	out, err := pgx.AppendRows([]Memory(nil), rows, func(r pgx.CollectableRow) (Memory, error) {
		var m Memory
		err := r.Scan(&m.ID, &m.About, &m.Fact, &m.CreatedAt)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("list memories: %w", err)
	}
	return out, nil
}
