package approvals

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// ExpireArgs is the periodic job that ends pending approvals past their
// expiry (not done, expired).
type ExpireArgs struct{}

// Kind names the job in River.
func (ExpireArgs) Kind() string { return "approvals.expire" }

// InsertOpts keeps one sweep per minute however many replicas enqueue it.
func (ExpireArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: time.Minute}}
}

// ExpireWorker runs [ExpireArgs].
type ExpireWorker struct {
	river.WorkerDefaults[ExpireArgs]
	Service *Service
}

// Work expires what is due.
func (w *ExpireWorker) Work(ctx context.Context, _ *river.Job[ExpireArgs]) error {
	_, err := w.Service.ExpireDue(ctx)
	return err
}

// ExpireDue ends every pending approval whose expiry has passed, with an
// audit row each, and returns how many it ended.
func (s *Service) ExpireDue(ctx context.Context) (int64, error) {
	return s.expireCount(ctx, s.db, s.clock.Now(), expireScope{})
}

// ExpireEvery is how often the expiry sweep runs. An approval is also
// expired whenever someone tries to decide it, lists it or opens it again,
// so the sweep only bounds how long a forgotten one shows as pending.
const ExpireEvery = time.Minute

// EscalateEvery is how often stages nobody decided are looked at: an
// escalation is at most this late.
const EscalateEvery = time.Minute

// AddWorkers registers this package's jobs with River and returns their
// schedule, to be passed to river.Config.PeriodicJobs.
func AddWorkers(workers *river.Workers, s *Service) []*river.PeriodicJob {
	river.AddWorker(workers, &ExecuteWorker{Service: s})
	river.AddWorker(workers, &ExpireWorker{Service: s})
	river.AddWorker(workers, &RemindWorker{Service: s})
	river.AddWorker(workers, &EscalateWorker{Service: s})
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(ExpireEvery),
			func() (river.JobArgs, *river.InsertOpts) { return ExpireArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(EscalateEvery),
			func() (river.JobArgs, *river.InsertOpts) { return EscalateArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
	}
}
