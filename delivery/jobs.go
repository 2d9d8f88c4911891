package delivery

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"vibesell/store"
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

// SettleLostEvery is how often steps left sending by a stopped worker are
// looked for; each is settled once its [SendingLease] is over.
const SettleLostEvery = 5 * time.Minute

// SettleLostArgs is the periodic job that settles the steps a stopped
// worker left marked sending ([Dispatcher.SettleLost]).
type SettleLostArgs struct{}

// Kind names the job in River.
func (SettleLostArgs) Kind() string { return "mail.settle_lost" }

// InsertOpts keeps one run per period however many replicas enqueue it.
func (SettleLostArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: SettleLostEvery}}
}

// AddWorkers registers the engine's jobs with River and returns their
// schedule. A tick that sends a lot may run ten minutes ([tickLimit]),
// longer than River's default.
func AddWorkers(workers *river.Workers, e *Engine) []*river.PeriodicJob {
	jobs := store.AddSweep[SendDueArgs](workers, SendEvery, func(ctx context.Context) error {
		return e.alone(ctx, func() error {
			_, err := e.Tick(ctx)
			return err
		})
	}, tickLimit)
	return append(jobs, store.AddSweep[SettleLostArgs](workers, SettleLostEvery, func(ctx context.Context) error {
		n, err := e.sender.SettleLost(ctx)
		if n > 0 {
			e.cfg.Logger.Warn("settled steps a stopped worker left sending as lost (not sent, unknown)", "steps", n)
		}
		return err
	}, time.Minute)...)
}

// tickLimit is the longest one tick may run; [SendingLease] is twice it.
const tickLimit = 10 * time.Minute

// tickLockKey is the advisory lock a tick holds while it runs.
const tickLockKey = 7_310_001

// alone runs tick unless another tick, on this replica or another, is
// running: the job is unique per period, but a tick may run longer than
// one (a big campaign under load), and two at once would each work out
// what is due from what the ledger said when it began, so a mailbox would
// send from both, past its daily cap and inside its gap (the replica suite
// saw it: TestSuiteEngineOnReplicas). The lock is the session's, on a
// connection of its own (a direct one: [EngineDeps.Sessions]), so a replica killed mid-tick lets it go as its
// connection closes. The tick skipped is the next period's to do.
func (e *Engine) alone(ctx context.Context, tick func() error) error {
	conn, err := e.sessions.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("the tick's lock: %w", err)
	}
	defer conn.Release()
	var got bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, tickLockKey).Scan(&got); err != nil {
		return fmt.Errorf("the tick's lock: %w", err)
	}
	if !got {
		e.cfg.Logger.Debug("another tick is still sending; this one is left to the next period")
		return nil
	}
	defer func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, tickLockKey); err != nil {
			conn.Conn().Close(context.WithoutCancel(ctx)) // closing the session lets the lock go
		}
	}()
	return tick()
}
