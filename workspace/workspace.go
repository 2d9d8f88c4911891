// Package workspace holds workspaces (one company's account) and what the
// product knows about them: memory, offer, playbook and support tickets.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/store"
)

// Workspace is one company's account. Everything else belongs to one.
type Workspace struct {
	ID        uuid.UUID
	Slug      string
	Name      string
	CreatedAt time.Time
}

// Service reads and writes workspaces.
type Service struct {
	db    *pgxpool.Pool
	clock vibesell.Clock
	// notes, when set, tell the context caches of a moved stamp; see
	// [Deps].Notes.
	notes *store.Notifications

	zonesOnce sync.Once
	zones     *ContextCache[*time.Location]

	// localWrites counts, per workspace, the writes this process made
	// ([Service.Wrote]): a context kept on the word of notifications is
	// read again after one, since the notification of a write can reach
	// this replica after its writer's next call does.
	localWrites sync.Map // uuid.UUID → *atomic.Uint64
}

// Wrote tells the context caches that this process has just written to
// workspace ws (a call that may change anything, once it is done and
// before its result is answered): the next read of its context checks
// the stamp instead of trusting the notifications, which reach this
// replica on a connection of their own and may come later than the
// caller's next request. Other replicas hear of the write by the
// notification, within a second.
func (s *Service) Wrote(ws uuid.UUID) { s.writesTo(ws).Add(1) }

func (s *Service) writesTo(ws uuid.UUID) *atomic.Uint64 {
	if v, ok := s.localWrites.Load(ws); ok {
		return v.(*atomic.Uint64)
	}
	v, _ := s.localWrites.LoadOrStore(ws, new(atomic.Uint64))
	return v.(*atomic.Uint64)
}

// Deps is what [New] needs.
type Deps struct {
	DB *pgxpool.Pool
	// Clock dates what is saved.
	Clock vibesell.Clock
	// Notes, when set, make the context caches answer from memory, without
	// reading the stamp, while notes are fresh: every replica hears of a
	// moved stamp within a second (the notify_context_stamp trigger,
	// migration 00047), and while notifications are lost each read reads
	// the stamp as before. Nil: every read reads the stamp.
	Notes *store.Notifications
}

// New returns the workspaces' Service on d.DB.
func New(d Deps) *Service {
	return &Service{db: d.DB, clock: d.Clock, notes: d.Notes}
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// Create makes a workspace named name, with a slug derived from it (a short
// suffix is added when the plain slug is taken). Refusals: EINVALID for an
// empty or over-long name.
func (s *Service) Create(ctx context.Context, name string) (Workspace, error) {
	return Create(ctx, s.db, name)
}

// Create is [Service.Create] on a given connection or transaction.
func Create(ctx context.Context, db store.DBTX, name string) (Workspace, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Workspace{}, vibesell.Errorf(vibesell.EINVALID, "A workspace needs a name, for example \"Acme Sales\".")
	}
	if len([]rune(name)) > 200 {
		return Workspace{}, vibesell.Errorf(vibesell.EINVALID, "A workspace name can be at most 200 characters long.")
	}
	base := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if len(base) > 48 {
		base = strings.Trim(base[:48], "-")
	}
	if base == "" {
		base = "workspace"
	}
	for attempt := 0; ; attempt++ {
		slug := base
		if attempt > 0 {
			slug = base + "-" + uuid.NewString()[:6]
		}
		ws := Workspace{ID: uuid.New(), Slug: slug, Name: name}
		err := db.QueryRow(ctx,
			`INSERT INTO workspaces (id, slug, name) VALUES ($1, $2, $3)
			 ON CONFLICT (slug) DO NOTHING RETURNING created_at`,
			ws.ID, ws.Slug, ws.Name).Scan(&ws.CreatedAt)
		if errors.Is(err, pgx.ErrNoRows) && attempt < 10 {
			continue
		}
		if err != nil {
			return Workspace{}, fmt.Errorf("create workspace %q: %w", name, err)
		}
		return ws, nil
	}
}

// workspaceSQL selects a workspace's columns, in the order scanWorkspace reads them.
const workspaceSQL = `SELECT id, slug, name, created_at FROM workspaces`

func scanWorkspace(row pgx.Row) (Workspace, error) {
	var ws Workspace
	err := row.Scan(&ws.ID, &ws.Slug, &ws.Name, &ws.CreatedAt)
	return ws, err
}

// FindBySlug returns the workspace with that slug. Refusals: ENOTFOUND.
func (s *Service) FindBySlug(ctx context.Context, slug string) (Workspace, error) {
	ws, err := scanWorkspace(s.db.QueryRow(ctx, workspaceSQL+` WHERE slug = $1`, slug))
	if isNoRows(err) {
		return Workspace{}, vibesell.Errorf(vibesell.ENOTFOUND, "There is no workspace %q.", slug)
	}
	if err != nil {
		return Workspace{}, fmt.Errorf("find workspace %q: %w", slug, err)
	}
	return ws, nil
}

// workspaceByIDSQL reads the workspace of id $1.
const workspaceByIDSQL = workspaceSQL + ` WHERE id = $1`

// FindByID returns the workspace with that id. Refusals: ENOTFOUND.
func (s *Service) FindByID(ctx context.Context, id uuid.UUID) (Workspace, error) {
	ws, err := scanWorkspace(s.db.QueryRow(ctx, workspaceByIDSQL, id))
	if isNoRows(err) {
		return Workspace{}, errNoWorkspace()
	}
	if err != nil {
		return Workspace{}, fmt.Errorf("find workspace %s: %w", id, err)
	}
	return ws, nil
}

// errNoWorkspace is the refusal for a workspace id that matches none: the
// workspace was deleted while something still acted for it.
func errNoWorkspace() error {
	return vibesell.Errorf(vibesell.ENOTFOUND, "This workspace no longer exists.")
}
