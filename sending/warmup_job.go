package sending

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"vibesell/store"
)

// The full-volume date an order promises holds only if the warmup starts
// on the day the mailboxes are ready, so nobody has to remember to start
// it: a periodic job starts every warmup that is due.

// WarmupSweepEvery is how often the job looks for mailboxes that became
// ready: a warmup starts at most this long after its mailbox is ready.
const WarmupSweepEvery = 15 * time.Minute

// StartDueWarmupsArgs is the periodic job that starts the warmup of every
// mailbox that is ready and not warming yet, in every workspace.
type StartDueWarmupsArgs struct{}

// Kind names the job in River.
func (StartDueWarmupsArgs) Kind() string { return "sending.start_due_warmups" }

// InsertOpts keeps one sweep per period however many replicas enqueue it.
func (StartDueWarmupsArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: WarmupSweepEvery}}
}

// AddWorkers registers this package's jobs with River and returns their
// schedule, to be passed to river.Config.PeriodicJobs.
func AddWorkers(workers *river.Workers, s *Service) []*river.PeriodicJob {
	return store.AddSweep[StartDueWarmupsArgs](workers, WarmupSweepEvery, s.startDueWarmups, 0)
}

func (s *Service) startDueWarmups(ctx context.Context) error {
	_, err := s.StartDueWarmups(ctx)
	return err
}

// StartDueWarmups starts, workspace by workspace, the warmup of every
// ordered mailbox that is ready and not warming yet, as [Service.StartWarmup]
// does, and returns how many workspaces had warmups started.
func (s *Service) StartDueWarmups(ctx context.Context) (int, error) {
	// The only read across workspaces: which ones have a warmup due.
	rows, err := s.db.Query(ctx, `
		SELECT DISTINCT workspace_id FROM sending_mailboxes
		WHERE status = 'ordered' AND NOT prewarmed AND ready_at <= $1 AND sandbox_ready_at IS NULL`, s.clock.Now())
	if err != nil {
		return 0, fmt.Errorf("find due warmups: %w", err)
	}
	due, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return 0, fmt.Errorf("find due warmups: %w", err)
	}
	for _, ws := range due {
		if _, err := s.StartWarmup(ctx, ws); err != nil {
			return 0, fmt.Errorf("start the due warmup of workspace %s: %w", ws, err)
		}
	}
	return len(due), nil
}
