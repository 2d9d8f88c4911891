package store

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// Sweep is the River worker of a periodic job of kind A: one piece of
// work across the installation (start the warmups that are due, send what
// is due, prune what expired), run by whichever replica takes the job.
type Sweep[A river.JobArgs] struct {
	river.WorkerDefaults[A]
	Run func(context.Context) error
	// Limit is how long one run may take; zero is River's default.
	Limit time.Duration
}

// Work runs the sweep.
func (w *Sweep[A]) Work(ctx context.Context, _ *river.Job[A]) error { return w.Run(ctx) }

// Timeout is the sweep's Limit.
func (w *Sweep[A]) Timeout(*river.Job[A]) time.Duration { return w.Limit }

// AddSweep registers run as the job of kind A and schedules it every
// interval and once at start, so what fell due while the server was down
// is done at once. Every replica schedules it; A's InsertOpts should make
// it unique by period, so that one run a period is enqueued however many
// replicas there are.
func AddSweep[A river.JobArgs](workers *river.Workers, every time.Duration, run func(context.Context) error, limit time.Duration) []*river.PeriodicJob {
	river.AddWorker(workers, &Sweep[A]{Run: run, Limit: limit})
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(every),
			func() (river.JobArgs, *river.InsertOpts) { var args A; return args, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
	}
}
