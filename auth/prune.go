package auth

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"vibesell/store"
)

// AddHourlyPrune registers prune as the job of kind A and schedules it
// every hour and once at start, so what expired while the server was down
// goes at once. The sessions, the accounts and the OAuth server prune
// this way.
func AddHourlyPrune[A river.JobArgs](workers *river.Workers, prune func(context.Context) (int64, error)) []*river.PeriodicJob {
	return store.AddSweep[A](workers, time.Hour, func(ctx context.Context) error {
		_, err := prune(ctx)
		return err
	}, 0)
}
