package sending_test

import (
	"context"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/approvals"
	"vibesell/sending"
	"vibesell/toolkit"
)

// An order is held to the plan's mailboxes: refused when asked for above
// them (for the assistant), not carried out when the plan filled up since
// it was approved (for a person), and never past the last mailbox when
// orders race.
func TestOrderHeldToPlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("asking for more mailboxes than the plan allows is refused", func(t *testing.T) {
		t.Parallel()
		f := newFixtureHeld(t, sending.Providers{}, 2)
		f.planned(t, f.a, 90) // three addresses
		_, _, err := f.svc.RequestOrder(ctx, f.a.ID, "")
		want := "The Free plan allows 2 mailboxes; 0 in use, so 3 more would go over. The Starter plan allows 15 mailboxes for USD 49.00 per month.\n\nNext:\n- Subscribe to the Starter plan. Call start_checkout with plan starter."
		if d := cmp.Diff([]string{vibesell.EPAYMENTREQUIRED, want}, []string{vibesell.ErrorCode(err), toolkit.ForAssistant(err)}); d != "" {
			t.Errorf("refusal (-want +got):\n%s", d)
		}
	})

	t.Run("an approved order the plan no longer allows is not carried out, and says why to a person", func(t *testing.T) {
		t.Parallel()
		f := newFixtureHeld(t, sending.Providers{}, 3)
		f.planned(t, f.a, 90)
		a, _, err := f.svc.RequestOrder(ctx, f.a.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		// A mailbox ordered meanwhile (another order, done first).
		if _, err := f.pool.Exec(ctx, `INSERT INTO sending_domains (workspace_id, domain, origin, status, currency, yearly_cents, mailbox_cents, card, chosen_at, provider, ordered_at, ready_at)
			VALUES ($1, 'other.test', 'new', 'ordered', 'USD', 1500, 500, 'card', $2, 'sandbox', $2, $2)`, f.a.ID, f.clock.Now()); err != nil {
			t.Fatal(err)
		}
		if _, err := f.pool.Exec(ctx, `INSERT INTO sending_mailboxes (workspace_id, address, domain, sender_name, status, prewarmed, currency, monthly_cents, card, planned_at, provider, ordered_at, ready_at)
			VALUES ($1, 'sam@other.test', 'other.test', 'Sam', 'ordered', true, 'USD', 500, 'card', $2, 'sandbox', $2, $2)`, f.a.ID, f.clock.Now()); err != nil {
			t.Fatal(err)
		}
		f.approve(t, a)
		done := f.execute(t, a)
		want := "Not carried out: The Free plan allows 3 mailboxes; 1 in use, so 3 more would go over. The Starter plan allows 15 mailboxes for USD 49.00 per month. Subscribe to the Starter plan."
		if done.Status != approvals.NotDone || done.Outcome == nil || *done.Outcome != want {
			t.Errorf("outcome: %s %v\nwant %q", done.Status, done.Outcome, want)
		}
		if n, err := sending.OrderedMailboxes(ctx, f.pool, f.a.ID); err != nil || n != 1 {
			t.Errorf("%d mailboxes ordered, %v; want only the one ordered before", n, err)
		}
	})

	t.Run("orders racing for the last mailboxes: exactly one is placed", func(t *testing.T) {
		t.Parallel()
		f := newFixtureHeld(t, sending.Providers{}, 3)
		f.planned(t, f.a, 90)
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Go(func() { _, errs[i] = f.svc.PlaceOrder(ctx, f.a.ID, nil) })
		}
		wg.Wait()
		placed := 0
		for _, err := range errs {
			if err == nil {
				placed++
			}
		}
		n, err := sending.OrderedMailboxes(ctx, f.pool, f.a.ID)
		if placed != 1 || n != 3 || err != nil {
			t.Errorf("%d orders placed, %d mailboxes ordered (%v); want 1 and 3: %v", placed, n, err, errs)
		}
	})
}
