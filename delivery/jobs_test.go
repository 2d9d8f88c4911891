package delivery_test

import (
	"context"
	"testing"

	"vibesell/delivery"
	"vibesell/store/storetest"
)

// Two ticks never run at once, on one replica or several: while one
// holds the lock, the next is skipped; once it is done, the next runs.
func TestOneTickAtATime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	engine := delivery.NewEngine(delivery.EngineDeps{DB: pool})
	other := delivery.NewEngine(delivery.EngineDeps{DB: pool}) // another replica's
	ran := 0
	if err := delivery.Alone(engine, ctx, func() error {
		return delivery.Alone(other, ctx, func() error { ran++; return nil })
	}); err != nil {
		t.Fatal(err)
	}
	if ran != 0 {
		t.Fatal("a tick ran while another was running")
	}
	if err := delivery.Alone(other, ctx, func() error { ran++; return nil }); err != nil || ran != 1 {
		t.Fatalf("once the first tick is done, the next ran %d times (%v), want once", ran, err)
	}
}
