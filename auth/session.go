package auth

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

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
	LogLevel        string
	TerminatedAt    *time.Time
}

// ErrUnknownSession is returned for a session id that was never issued.
var ErrUnknownSession = errors.New("unknown session")

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
