package workspace

import (
	"context"
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

// maxMemories bounds what one workspace keeps, so the context the assistant
// reads stays small.
const maxMemories = 200

// Remember stores a fact. Refusals: EINVALID for an empty or over-long fact
// or an unknown subject; ECONFLICT when the workspace already keeps the
// maximum number of memories.
func (s *Service) Remember(ctx context.Context, ws uuid.UUID, about, fact string) (Memory, error) {
	fact = strings.TrimSpace(fact)
	if fact == "" {
		return Memory{}, vibesell.Errorf(vibesell.EINVALID, "There is nothing to remember: give the fact in a sentence, for example \"Prefers to be called Sam\".")
	}
	if len([]rune(fact)) > 1000 {
		return Memory{}, vibesell.Errorf(vibesell.EINVALID, "That is %d characters; a memory can be at most 1,000. Keep the fact to a sentence or two.", len([]rune(fact)))
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
// one to forget, or neither, to list them.
type MemoryChange struct {
	Fact   string
	About  string // person, company or preference; default company
	Forget string // a memory's id
}

// MemoryChanged is what a [MemoryChange] did.
type MemoryChanged struct {
	Action   string   // remembered, forgotten or listed
	Memory   *Memory  // the fact remembered or forgotten; nil when listing
	Memories []Memory // everything remembered now, newest first
}

// ChangeMemory remembers a fact, forgets one, or lists them, and returns
// what is remembered afterwards. Refusals: EINVALID for both a fact and an
// id, or an id that is not one; those of [Service.Remember] and
// [Service.Forget].
func (s *Service) ChangeMemory(ctx context.Context, ws uuid.UUID, c MemoryChange) (MemoryChanged, error) {
	var out MemoryChanged
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
	var err error
	if out.Memories, err = s.Memories(ctx, ws); err != nil {
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
			return Memory{}, vibesell.Errorf(vibesell.ENOTFOUND, "There is no memory %s in this workspace. Call %s with no arguments to list them.", id, vibesell.ToolRemember)
		}
		return Memory{}, fmt.Errorf("forget: %w", err)
	}
	return m, nil
}

// memoriesSQL lists the memories of workspace $1, newest first, at most $2.
const memoriesSQL = `SELECT id, about, fact, created_at FROM memories WHERE workspace_id = $1
	ORDER BY created_at DESC, id LIMIT $2`

// Memories lists the workspace's memories, newest first.
func (s *Service) Memories(ctx context.Context, ws uuid.UUID) ([]Memory, error) {
	return collectMemories(s.db.Query(ctx, memoriesSQL, ws, maxMemories))
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
