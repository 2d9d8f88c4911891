package auth

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// PruneJobWorker runs a prune job of kind A: deleting what has expired.
type PruneJobWorker[A river.JobArgs] struct {
	river.WorkerDefaults[A]
	Prune func(context.Context) (int64, error)
}

// Work prunes.
func (w *PruneJobWorker[A]) Work(ctx context.Context, _ *river.Job[A]) error {
	_, err := w.Prune(ctx)
	return err
}

// AddHourlyPrune registers prune as the job of kind A and schedules it
// every hour and once at start, so what expired while the server was down
// goes at once. The sessions, the accounts and the OAuth server prune
// this way.
func AddHourlyPrune[A river.JobArgs](workers *river.Workers, prune func(context.Context) (int64, error)) []*river.PeriodicJob {
	river.AddWorker(workers, &PruneJobWorker[A]{Prune: prune})
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
			func() (river.JobArgs, *river.InsertOpts) { var args A; return args, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
	}
}
