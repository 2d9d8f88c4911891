package auth

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
)

// Sessions keeps MCP sessions in PostgreSQL so that every replica knows
// every session: which workspace it acts for, who the client is and what
// it can do.
type Sessions struct {
	db *pgxpool.Pool
}

// NewSessions returns a Sessions on db.
func NewSessions(db *pgxpool.Pool) *Sessions { return &Sessions{db: db} }

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
	if _, err := s.db.Exec(ctx, `INSERT INTO mcp_sessions (id, workspace_id) VALUES ($1, $2)`, id, workspaceID); err != nil {
		return "", fmt.Errorf("open session: %w", err)
	}
	return id, nil
}

// Describe records what the client said about itself at initialize.
func (s *Sessions) Describe(ctx context.Context, workspaceID uuid.UUID, id, protocolVersion, clientName, clientVersion string, capabilities any) error {
	caps, err := json.Marshal(capabilities)
	if err != nil {
		return fmt.Errorf("encode capabilities: %w", err)
	}
	_, err = s.db.Exec(ctx, `UPDATE mcp_sessions SET protocol_version = $3, client_name = $4, client_version = $5, capabilities = $6
		WHERE id = $1 AND workspace_id = $2`, id, workspaceID, protocolVersion, clientName, clientVersion, caps)
	if err != nil {
		return fmt.Errorf("describe session: %w", err)
	}
	return nil
}

// touchEvery bounds how often a busy session's last-seen time is written.
const touchEvery = 5 * time.Minute

// Check reports whether the session exists for this workspace and whether
// it has ended. A session of another workspace reads as unknown.
// Errors: [ErrUnknownSession].
func (s *Sessions) Check(ctx context.Context, workspaceID uuid.UUID, id string) (terminated bool, err error) {
	var lastSeen time.Time
	var ended *time.Time
	err = s.db.QueryRow(ctx, `SELECT last_seen_at, terminated_at FROM mcp_sessions WHERE id = $1 AND workspace_id = $2`,
		id, workspaceID).Scan(&lastSeen, &ended)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, ErrUnknownSession
	}
	if err != nil {
		return false, fmt.Errorf("check session: %w", err)
	}
	if ended != nil {
		return true, nil
	}
	if time.Since(lastSeen) > touchEvery {
		if _, err := s.db.Exec(ctx, `UPDATE mcp_sessions SET last_seen_at = now() WHERE id = $1`, id); err != nil {
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

// PruneWorker runs [PruneArgs].
type PruneWorker struct {
	river.WorkerDefaults[PruneArgs]
	Sessions *Sessions
}

// Work ends sessions idle past the limit and deletes those ended a week ago.
func (w *PruneWorker) Work(ctx context.Context, _ *river.Job[PruneArgs]) error {
	_, err := w.Sessions.Prune(ctx, time.Now())
	return err
}

// Prune ends sessions idle since before now minus the idle limit and
// deletes sessions that ended more than a week ago. It returns how many
// rows it deleted.
func (s *Sessions) Prune(ctx context.Context, now time.Time) (int64, error) {
	if _, err := s.db.Exec(ctx,
		`UPDATE mcp_sessions SET terminated_at = $1 WHERE terminated_at IS NULL AND last_seen_at < $2`,
		now, now.Add(-sessionIdleLimit)); err != nil {
		return 0, fmt.Errorf("end idle sessions: %w", err)
	}
	tag, err := s.db.Exec(ctx, `DELETE FROM mcp_sessions WHERE terminated_at < $1`, now.Add(-7*24*time.Hour))
	if err != nil {
		return 0, fmt.Errorf("delete ended sessions: %w", err)
	}
	return tag.RowsAffected(), nil
}

// AddWorkers registers this package's jobs and their schedule.
func AddWorkers(workers *river.Workers, sessions *Sessions) []*river.PeriodicJob {
	river.AddWorker(workers, &PruneWorker{Sessions: sessions})
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
			func() (river.JobArgs, *river.InsertOpts) { return PruneArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
	}
}
