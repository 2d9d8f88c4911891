package approvals_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"vibesell"
	"vibesell/approvals"
	"vibesell/toolkit"
	"vibesell/workspace"
)

// While an approval waits for a person's decision, the workspace's next
// step is that decision and where to take it: not the offer, not asking
// for the same action again.
func TestContextNamesTheApprovalsWaiting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	// Contexts are kept between reads: what follows from the time must be
	// worked out on each read all the same.
	contexts := e.contexts(10)
	read := func(t *testing.T, ws workspace.Workspace) (approvals.Waiting, workspace.NextStep) {
		t.Helper()
		c := contexts(t, ws.ID)
		waiting, ok := workspace.View[approvals.Waiting](c)
		if !ok {
			t.Fatal("the approvals contributed no view")
		}
		// The step as the assistant reads it: why, then the calls.
		next := c.NextStep
		next.Why, next.Next = toolkit.GuidanceText(next.Why, next.Next), nil
		return waiting, next
	}

	t.Run("nothing waiting", func(t *testing.T) {
		waiting, next := read(t, e.a)
		if d := cmp.Diff([]string(nil), idsOf(waiting)); d != "" {
			t.Errorf("waiting mismatch (-want +got):\n%s", d)
		}
		if next.Pressing || !strings.Contains(next.Why, "Call "+vibesell.ToolSaveOffer+".") {
			t.Errorf("with nothing waiting, next %s (pressing %v), want %s, not pressing", next.Why, next.Pressing, vibesell.ToolSaveOffer)
		}
	})

	paid := e.open(t, e.a.ID, "anvil", false)
	t.Run("a paid action waits for the web app", func(t *testing.T) {
		waiting, next := read(t, e.a)
		if d := cmp.Diff([]string{paid.ID}, idsOf(waiting)); d != "" {
			t.Fatalf("waiting mismatch (-want +got):\n%s", d)
		}
		want := workspace.NextStep{Pressing: true, Why: "An approval is waiting for the person's decision: " + paid.ID +
			" (Order 2 anvil; expires " + vibesell.FormatTime(paid.ExpiresAt) + "): only a signed-in person can approve it, in the web app at " + paid.AppURL +
			" (only the person opens it). Give the person the link and wait for their decision; do not ask for the same action again." +
			" See the outcome once they have decided, and every approval waiting. Call list_pending_approvals."}
		if diff := cmp.Diff(want, next); diff != "" {
			t.Errorf("next step (-want +got):\n%s", diff)
		}
	})

	free := e.open(t, e.a.ID, "rocket", true)
	t.Run("two waiting, one decidable here", func(t *testing.T) {
		_, next := read(t, e.a)
		for _, w := range []string{"2 approvals are waiting", paid.ID, free.ID, "in the card, in the conversation or in the web app at " + free.AppURL, "Call decide_approval."} {
			if !strings.Contains(next.Why, w) {
				t.Errorf("the next step lacks %q:\n%s", w, next.Why)
			}
		}
	})

	t.Run("another workspace sees none of them", func(t *testing.T) {
		waiting, next := read(t, e.b)
		if d := cmp.Diff([]string(nil), idsOf(waiting)); d != "" {
			t.Errorf("another workspace's waiting mismatch (-want +got):\n%s", d)
		}
		if next.Pressing {
			t.Errorf("another workspace's next step is pressing: %s", next.Why)
		}
	})

	t.Run("decided or expired, it no longer waits", func(t *testing.T) {
		if _, _, err := e.svc.Decide(ctx, e.a.ID, free.ID, conversation); err != nil {
			t.Fatal(err)
		}
		waiting, _ := read(t, e.a)
		if d := cmp.Diff([]string{paid.ID}, idsOf(waiting)); d != "" {
			t.Errorf("after a rejection, waiting mismatch (-want +got):\n%s", d)
		}
		e.clock.Advance(2 * time.Hour) // past the expiry, before any sweep
		waiting, next := read(t, e.a)
		if d := cmp.Diff([]string(nil), idsOf(waiting)); d != "" {
			t.Errorf("after the expiry, waiting mismatch (-want +got):\n%s", d)
		}
		if next.Pressing {
			t.Errorf("after the expiry, the next step is pressing: %s", next.Why)
		}
	})
}

// However many approvals wait, the next step names the oldest few and
// counts the rest: it is repeated wherever the context shows a step.
func TestContextNamesAFewOfManyApprovalsWaiting(t *testing.T) {
	t.Parallel()
	e := setup(t)
	why := e.nextStepText(0)
	var opened []approvals.Approval
	for i := range 5 {
		opened = append(opened, e.open(t, e.a.ID, fmt.Sprint("anvil ", i), false))
		e.clock.Advance(time.Second)
	}
	got := why(t)
	for _, w := range []string{"5 approvals are waiting", opened[0].ID, opened[2].ID, "; and 2 more.", "every approval waiting. Call list_pending_approvals."} {
		if !strings.Contains(got, w) {
			t.Errorf("the next step lacks %q:\n%s", w, got)
		}
	}
	if strings.Contains(got, opened[3].ID) {
		t.Errorf("the next step names more than the oldest 3:\n%s", got)
	}
	for i := range 20 {
		e.open(t, e.a.ID, fmt.Sprint("rocket ", i), false)
	}
	if got := why(t); !strings.HasPrefix(got, "More than 20 approvals are waiting") || !strings.Contains(got, "; and more.") || !strings.Contains(got, "Call list_pending_approvals.") {
		t.Errorf("with 25 waiting, the next step says:\n%s", got)
	}
}

// idsOf lists the ids of the approvals waiting, in order; nil for none.
func idsOf(w approvals.Waiting) []string {
	var ids []string
	for _, a := range w {
		ids = append(ids, a.ID)
	}
	return ids
}

// contexts returns a reader of workspace contexts made of the approvals'
// part alone, keeping keep contexts between reads.
func (e *env) contexts(keep int) func(t *testing.T, ws uuid.UUID) workspace.Context {
	r := workspace.NewContextReader(workspace.ContextReaderDeps{Workspaces: workspace.New(workspace.Deps{DB: e.pool, Clock: e.clock}),
		Kept: keep, Parts: []workspace.Part{e.svc.ContextPart()}})
	return func(t *testing.T, ws uuid.UUID) workspace.Context {
		t.Helper()
		c, err := r.Read(context.Background(), ws)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
}

// nextStepText returns a reader of Acme's next step as the assistant reads
// it (why, then the calls), keeping keep contexts between reads.
func (e *env) nextStepText(keep int) func(t *testing.T) string {
	read := e.contexts(keep)
	return func(t *testing.T) string {
		t.Helper()
		c := read(t, e.a.ID)
		return toolkit.GuidanceText(c.NextStep.Why, c.NextStep.Next)
	}
}
