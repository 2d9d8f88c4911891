package auth

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"vibesell"
	"vibesell/store"
)

// Sessions keeps MCP sessions in PostgreSQL so that every replica knows
// every session: which workspace it acts for, who the client is and what
// it can do.
type Sessions struct {
	db     *pgxpool.Pool
	limits SessionLimits
	// With notes, the sessions checked lately are kept in memory; see
	// [SessionsDeps].Notes.
	notes *store.Notifications
	known *lru.Cache[string, *knownSession]
	// ended are told of each session that ends; see [Sessions.OnEnd].
	ended []func(id string)
}

type knownSession struct {
	workspaceID uuid.UUID
	terminated  bool
	// seenAt is when last_seen_at was last written, in Unix nanoseconds.
	seenAt atomic.Int64
}

// SessionLimits bound what MCP sessions keep in the database.
type SessionLimits struct {
	// PerWorkspace is how many sessions a workspace keeps, live or ended:
	// opening one more deletes the ended ones first, then those idle the
	// longest. Clients start a new session when theirs is gone.
	PerWorkspace int
	// InfoBytes bounds what is stored of what a client says about itself
	// at initialize (its capabilities, name and version), as JSON.
	InfoBytes int
}

// DefaultSessionLimits are the limits of [NewSessions] where
// [SessionsDeps].Limits leaves a field zero.
var DefaultSessionLimits = SessionLimits{PerWorkspace: 1000, InfoBytes: 16 << 10}

// SessionsDeps is what [NewSessions] needs.
type SessionsDeps struct {
	DB *pgxpool.Pool
	// Limits bound what sessions keep; zero fields are
	// [DefaultSessionLimits]'.
	Limits SessionLimits
	// Notes, when set, make Check answer the last Kept sessions it checked
	// from memory, without a database round trip, while notes are fresh:
	// a session ended on any replica is seen ended everywhere within a
	// second, and while notifications are lost every check reads the
	// database. Nil: every check reads the database.
	Notes *store.Notifications
	Kept  int
}

// NewSessions returns the Sessions on d.DB.
func NewSessions(d SessionsDeps) *Sessions {
	s := &Sessions{db: d.DB, limits: DefaultSessionLimits}
	if d.Limits.PerWorkspace > 0 {
		s.limits.PerWorkspace = d.Limits.PerWorkspace
	}
	if d.Limits.InfoBytes > 0 {
		s.limits.InfoBytes = d.Limits.InfoBytes
	}
	if d.Notes != nil {
		s.known, _ = lru.New[string, *knownSession](max(d.Kept, 1))
		s.notes = d.Notes
		d.Notes.Subscribe(store.SessionsChannel, func(id string) {
			s.known.Remove(id)
			s.tellEnded([]string{id})
		}, s.known.Purge)
	}
	return s
}

// OnEnd makes fn hear of every session that ends or is deleted, so that
// what a replica keeps of it in memory goes at once: those this replica
// ends ([Sessions.Terminate]) or deletes to make room ([Sessions.Open]),
// as it does so, and, with [SessionsDeps].Notes, those any replica
// ends, as their notifications arrive (a notification that is lost
// leaves the memory to its idle limit). fn must be quick and may hear of
// a session twice. Call it before serving.
func (s *Sessions) OnEnd(fn func(id string)) { s.ended = append(s.ended, fn) }

func (s *Sessions) tellEnded(ids []string) {
	for _, fn := range s.ended {
		for _, id := range ids {
			fn(id)
		}
	}
}

// Session is what a replica needs to serve a request of a session it did
// not start.
type Session struct {
	ID              string
	WorkspaceID     string
	ProtocolVersion string
	ClientName      string
	ClientVersion   string
	Capabilities    json.RawMessage
	TerminatedAt    *time.Time
}

// ErrUnknownSession is returned for a session id that was never issued.
var ErrUnknownSession = errors.New("unknown session")

// Open records a new session for the workspace and returns its id.
func (s *Sessions) Open(ctx context.Context, workspaceID uuid.UUID) (string, error) {
	id := NewSessionID()
	// Past the limit, the ended sessions go first, then those idle the
	// longest; the one being opened is the most recent. What a replica
	// keeps in memory of those deleted goes with them ([Sessions.OnEnd]).
	rows, err := s.db.Query(ctx, `WITH opened AS (INSERT INTO mcp_sessions (id, workspace_id) VALUES ($1, $2))
		DELETE FROM mcp_sessions WHERE id IN (
			SELECT id FROM mcp_sessions WHERE workspace_id = $2
			ORDER BY terminated_at IS NULL DESC, last_seen_at DESC, created_at DESC OFFSET $3)
		RETURNING id`,
		id, workspaceID, s.limits.PerWorkspace-1)
	if err != nil {
		return "", fmt.Errorf("open session: %w", err)
	}
	deleted, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", fmt.Errorf("open session: %w", err)
	}
	s.tellEnded(deleted)
	return id, nil
}

// Describe records what the client said about itself at initialize.
// What a client says about itself is stored within InfoBytes: names and
// versions cut to a sensible length, and capabilities too large to keep
// reduced to their names.
//
// Whether the client declared the MCP Apps extension ([AppsExtension]) is
// kept apart from the capabilities, so that it survives their reduction:
// decisions record it beside where they came from.
func (s *Sessions) Describe(ctx context.Context, workspaceID uuid.UUID, id, protocolVersion, clientName, clientVersion string, capabilities any) error {
	caps, err := json.Marshal(capabilities)
	if err != nil {
		return fmt.Errorf("encode capabilities: %w", err)
	}
	apps := DeclaresApps(caps)
	protocolVersion, clientName, clientVersion = cut(protocolVersion, 40), cut(clientName, 200), cut(clientVersion, 100)
	if len(caps)+len(clientName)+len(clientVersion) > s.limits.InfoBytes {
		caps = capabilityNames(caps, s.limits.InfoBytes-len(clientName)-len(clientVersion))
	}
	_, err = s.db.Exec(ctx, `UPDATE mcp_sessions SET protocol_version = $3, client_name = $4, client_version = $5, capabilities = $6,
		apps_declared = $7 WHERE id = $1 AND workspace_id = $2`, id, workspaceID, protocolVersion, clientName, clientVersion, caps, apps)
	if err != nil {
		return fmt.Errorf("describe session: %w", err)
	}
	return nil
}

// AppsExtension is the MCP Apps extension's id: a host that declares it
// under capabilities.extensions at initialize can show the card.
const AppsExtension = "io.modelcontextprotocol/ui"

// DeclaresApps reports whether client capabilities, as JSON, declare the
// MCP Apps extension.
func DeclaresApps(capabilities []byte) bool {
	var c struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if json.Unmarshal(capabilities, &c) != nil {
		return false
	}
	_, ok := c.Extensions[AppsExtension]
	return ok
}

// AppsDeclared reports whether the session of the workspace declared the
// MCP Apps extension at initialize; nil when the session is not known (an
// unknown id, or none: stdio, a protocol without sessions).
func (s *Sessions) AppsDeclared(ctx context.Context, workspaceID uuid.UUID, id string) (*bool, error) {
	if id == "" {
		return nil, nil
	}
	var declared bool
	err := s.db.QueryRow(ctx, `SELECT apps_declared FROM mcp_sessions WHERE id = $1 AND workspace_id = $2`, id, workspaceID).Scan(&declared)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read session's extensions: %w", err)
	}
	return &declared, nil
}

// cut shortens s to at most n bytes, on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// capabilityNames keeps the names of the capabilities in caps (a JSON
// object) without their details, within limit bytes; {} when even that
// does not fit.
func capabilityNames(caps []byte, limit int) []byte {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(caps, &all); err == nil {
		names := map[string]struct{}{}
		for name := range all {
			names[cut(name, 100)] = struct{}{}
		}
		if b, err := json.Marshal(names); err == nil && len(b) <= limit {
			return b
		}
	}
	return []byte("{}")
}

// touchEvery bounds how often a busy session's last-seen time is written.
const touchEvery = 5 * time.Minute

// Check reports whether the session exists for this workspace and whether
// it has ended. A session of another workspace reads as unknown.
// Errors: [ErrUnknownSession].
func (s *Sessions) Check(ctx context.Context, workspaceID uuid.UUID, id string) (terminated bool, err error) {
	k, ok := (*knownSession)(nil), false
	if s.known != nil && s.notes.Fresh() {
		k, ok = s.known.Get(id)
	}
	if !ok {
		generation := s.notes.Generation(store.SessionsChannel)
		var lastSeen time.Time
		var ended *time.Time
		k = &knownSession{}
		err = s.db.QueryRow(ctx, `SELECT workspace_id, last_seen_at, terminated_at FROM mcp_sessions WHERE id = $1`,
			id).Scan(&k.workspaceID, &lastSeen, &ended)
		if errors.Is(err, pgx.ErrNoRows) {
			return false, ErrUnknownSession
		}
		if err != nil {
			return false, fmt.Errorf("check session: %w", err)
		}
		k.terminated = ended != nil
		k.seenAt.Store(lastSeen.UnixNano())
		// Kept only if no notification came during the read: it may
		// have been of an end the read did not see.
		if s.known != nil && s.notes.Fresh() && s.notes.Generation(store.SessionsChannel) == generation {
			s.known.Add(id, k)
		}
	}
	if k.workspaceID != workspaceID {
		return false, ErrUnknownSession
	}
	if k.terminated {
		return true, nil
	}
	now := time.Now()
	if last := k.seenAt.Load(); now.Sub(time.Unix(0, last)) > touchEvery && k.seenAt.CompareAndSwap(last, now.UnixNano()) {
		if _, err := s.db.Exec(ctx, `UPDATE mcp_sessions SET last_seen_at = $2 WHERE id = $1`, id, now); err != nil {
			k.seenAt.Store(last)
			return false, fmt.Errorf("touch session: %w", err)
		}
	}
	return false, nil
}

// Find returns what is stored about a session of the workspace.
// Errors: [ErrUnknownSession].
func (s *Sessions) Find(ctx context.Context, workspaceID uuid.UUID, id string) (Session, error) {
	var ses Session
	var ws uuid.UUID
	err := s.db.QueryRow(ctx, `SELECT id, workspace_id, protocol_version, client_name, client_version, capabilities, terminated_at
		FROM mcp_sessions WHERE id = $1 AND workspace_id = $2`, id, workspaceID).
		Scan(&ses.ID, &ws, &ses.ProtocolVersion, &ses.ClientName, &ses.ClientVersion, &ses.Capabilities, &ses.TerminatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Session{}, ErrUnknownSession
	}
	if err != nil {
		return Session{}, fmt.Errorf("find session: %w", err)
	}
	ses.WorkspaceID = ws.String()
	return ses, nil
}

// Terminate ends a session of the workspace. Errors: [ErrUnknownSession].
func (s *Sessions) Terminate(ctx context.Context, workspaceID uuid.UUID, id string) error {
	tag, err := s.db.Exec(ctx, `UPDATE mcp_sessions SET terminated_at = coalesce(terminated_at, now())
		WHERE id = $1 AND workspace_id = $2`, id, workspaceID)
	if err != nil {
		return fmt.Errorf("terminate session: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return ErrUnknownSession
	}
	if s.known != nil {
		s.known.Remove(id) // the notification says so to the other replicas
	}
	s.tellEnded([]string{id})
	return nil
}

// NewSessionID returns a fresh, unguessable session id (visible ASCII, as
// the transport requires).
func NewSessionID() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return "mcp_" + hex.EncodeToString(b)
}

// Idle sessions end after this long without a request; clients start a
// new one transparently.
const sessionIdleLimit = 30 * 24 * time.Hour

// PruneArgs is the periodic job that ends idle sessions and forgets ended
// ones.
type PruneArgs struct{}

// Kind names the job in River.
func (PruneArgs) Kind() string { return "auth.prune_sessions" }

// Prune ends sessions idle since before now minus the idle limit and
// deletes sessions that ended more than a week ago. It returns how many
// rows it deleted.
func (s *Sessions) Prune(ctx context.Context, now time.Time) (int64, error) {
	if _, err := s.db.Exec(ctx,
		`UPDATE mcp_sessions SET terminated_at = $1 WHERE terminated_at IS NULL AND last_seen_at < $2`,
		now, now.Add(-sessionIdleLimit)); err != nil {
		return 0, fmt.Errorf("end idle sessions: %w", err)
	}
	tag, err := s.db.Exec(ctx, `DELETE FROM mcp_sessions WHERE terminated_at < $1`, now.Add(-EndedMCPSessionKept))
	if err != nil {
		return 0, fmt.Errorf("delete ended sessions: %w", err)
	}
	return tag.RowsAffected(), nil
}

// AddWorkers registers this package's jobs and their schedule; clock says
// when now is for the prune.
func AddWorkers(workers *river.Workers, sessions *Sessions, clock vibesell.Clock) []*river.PeriodicJob {
	return AddHourlyPrune[PruneArgs](workers, func(ctx context.Context) (int64, error) {
		return sessions.Prune(ctx, clock.Now())
	})
}
