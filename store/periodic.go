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

// CompletedJobRetention is how long River keeps a completed job's row
// (its default is a day). The queue's jobs are mostly the periodic sweeps
// (a send tick every 30 s, the lost-send settle, the expiries) and one
// webhook delivery per event: a day of them is tens of thousands of dead
// rows that every fetch's index scan steps over. Two hours is past the
// longest uniqueness period a job relies on (a webhook delivery is unique
// per hour, [river.UniqueOpts.ByPeriod]; a completed row that is deleted
// sooner lets the same job be enqueued again; the jobs unique by their
// arguments alone, an approval's execution and reminder and a webhook's
// delivery, are made once by their own rows' status, not by River's), and
// enough to read what just ran. Cancelled and discarded jobs keep River's defaults (a day,
// a week): they are few, and they are what a person looks into.
const CompletedJobRetention = 2 * time.Hour

// jobTableStorage is the autovacuum setting of River's job table, set
// after River's migrations (they create the table, after ours): a queue is
// a table of short-lived rows, each updated three or four times (available,
// running, completed, then deleted), so it is vacuumed after 2% of its rows
// died rather than PostgreSQL's 20%, and at least every 500 dead rows.
const jobTableStorage = `ALTER TABLE river_job SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 500,
	autovacuum_analyze_scale_factor = 0.05, autovacuum_vacuum_insert_scale_factor = 0.05)`
