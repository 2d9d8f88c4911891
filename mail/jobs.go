package mail

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// SendEvery is how often the engine sends what is due: with the default
// gaps of 2 to 6 minutes between two emails from one mailbox, a tick this
// often keeps every mailbox at its pace.
const SendEvery = 30 * time.Second

// SendDueArgs is the periodic job that sends what running campaigns have
// due now ([Engine.Tick]).
type SendDueArgs struct{}

// Kind names the job in River.
func (SendDueArgs) Kind() string { return "mail.send_due" }

// InsertOpts keeps one tick per period however many replicas enqueue it;
// two ticks at once would still send each step once (the ledger).
func (SendDueArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: SendEvery}}
}

// SendDueWorker runs [SendDueArgs].
type SendDueWorker struct {
	river.WorkerDefaults[SendDueArgs]
	Engine *Engine
}

// Work sends what is due.
func (w *SendDueWorker) Work(ctx context.Context, _ *river.Job[SendDueArgs]) error {
	_, err := w.Engine.Tick(ctx)
	return err
}

// Timeout lets a tick that sends a lot run longer than River's default.
func (w *SendDueWorker) Timeout(*river.Job[SendDueArgs]) time.Duration { return 10 * time.Minute }

// AddWorkers registers the engine's job with River and returns its
// schedule.
func AddWorkers(workers *river.Workers, e *Engine) []*river.PeriodicJob {
	river.AddWorker(workers, &SendDueWorker{Engine: e})
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(SendEvery),
			func() (river.JobArgs, *river.InsertOpts) { return SendDueArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
	}
}
