package mail

import (
	"context"
	"time"
	"vibesell/store"

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

// AddWorkers registers the engine's job with River and returns its
// schedule. A tick that sends a lot may run ten minutes, longer than
// River's default.
func AddWorkers(workers *river.Workers, e *Engine) []*river.PeriodicJob {
	return store.AddSweep[SendDueArgs](workers, SendEvery, func(ctx context.Context) error {
		_, err := e.Tick(ctx)
		return err
	}, 10*time.Minute)
}
