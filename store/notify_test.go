package store_test

import (
	"context"
	"sync/atomic"
	"testing"

	"vibesell/store"
	"vibesell/store/storetest"
)

func TestNotificationsArriveAndALostConnectionResets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	notes := storetest.StartNotifications(t, pool)

	var got atomic.Value
	var resets atomic.Int32
	notes.Subscribe(store.SessionsChannel, func(p string) { got.Store(p) }, func() { resets.Add(1) })
	before := notes.Generation(store.SessionsChannel)
	if _, err := pool.Exec(ctx, `SELECT pg_notify($1, 'mcp_1')`, store.SessionsChannel); err != nil {
		t.Fatal(err)
	}
	storetest.WaitFor(t, "the notification", func() bool { return got.Load() == "mcp_1" })
	if notes.Generation(store.SessionsChannel) == before {
		t.Error("a notification did not move the generation")
	}

	// A lost connection turns the notifications stale, and the
	// reconnection resets every subscriber before they are fresh again.
	storetest.DropListeners(t, pool)
	storetest.WaitFor(t, "the lost connection to be noticed", func() bool { return !notes.Fresh() })
	storetest.WaitFor(t, "the reconnection", notes.Fresh)
	if resets.Load() == 0 {
		t.Error("fresh again without a reset: what was kept may have missed a notification")
	}
	if (*store.Notifications)(nil).Fresh() {
		t.Error("no notifications are fresh")
	}
}
