package approvals_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/approvals"
	"vibesell/approvals/approvalstest"
)

// A decision the assistant relays is recorded as the person's, in words a
// person reads, and an attempt to approve what only the web app may
// approve is recorded as the assistant's.
func TestRelayedDecisions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	// No wait for the outcome: the test works the execution itself.
	svc, err := approvals.NewService(e.pool, e.clock, approvals.Config{PublicURL: publicURL, RelayWait: -1})
	if err != nil {
		t.Fatal(err)
	}
	svc.Register(testAction, e.exec)

	t.Run("approved in the card, then carried out", func(t *testing.T) {
		ap := e.open(t, e.a.ID, "anvil", true)
		r, err := svc.Relay(ctx, e.a.ID, ap.ID, approvals.Relayed{Approve: true, Via: approvals.ViaCard})
		if err != nil {
			t.Fatal(err)
		}
		want := decision{Taken: true, Status: approvals.Approved, DecidedBy: "the person", DecidedVia: approvals.ViaCard}
		if diff := cmp.Diff(want, decisionOf(r.Approval, r.Taken)); diff != "" {
			t.Errorf("relayed approval (-want +got):\n%s", diff)
		}
		if done := approvalstest.Execute(t, e.pool, svc, ap.ID); done.Status != approvals.Done {
			t.Errorf("after the execution: %s", done.Status)
		}
		again, err := svc.Relay(ctx, e.a.ID, ap.ID, approvals.Relayed{Approve: false})
		if err != nil || again.Taken || again.Approval.Status != approvals.Done {
			t.Errorf("a late rejection: taken %v, %s, %v", again.Taken, again.Approval.Status, err)
		}
	})

	t.Run("rejected in the conversation", func(t *testing.T) {
		ap := e.open(t, e.a.ID, "rocket", true)
		r, err := svc.Relay(ctx, e.a.ID, ap.ID, approvals.Relayed{Approve: false, Reason: "Too expensive for now"})
		if err != nil {
			t.Fatal(err)
		}
		want := decision{Taken: true, Status: approvals.Rejected, DecidedBy: "the person", DecidedVia: approvals.ViaConversation, Reason: "Too expensive for now",
			Outcome: "Rejected by the person: Too expensive for now"}
		if diff := cmp.Diff(want, decisionOf(r.Approval, r.Taken)); diff != "" {
			t.Errorf("relayed rejection (-want +got):\n%s", diff)
		}
	})

	t.Run("a refused attempt is the assistant's", func(t *testing.T) {
		ap := e.open(t, e.a.ID, "piano", false)
		_, err := svc.Relay(ctx, e.a.ID, ap.ID, approvals.Relayed{Approve: true})
		if vibesell.ErrorCode(err) != vibesell.EINVALID {
			t.Fatalf("approving a paid action in the conversation: %v", err)
		}
		events, err := svc.Events(ctx, e.a.ID, ap.ID)
		if err != nil {
			t.Fatal(err)
		}
		var actors []string
		for _, ev := range events {
			actors = append(actors, ev.Event+" by "+ev.Actor)
		}
		want := []string{"opened by the assistant", "approve_refused by the assistant"}
		if diff := cmp.Diff(want, actors); diff != "" {
			t.Errorf("audit trail (-want +got):\n%s", diff)
		}
	})

	t.Run("only the card or the conversation relay", func(t *testing.T) {
		ap := e.open(t, e.a.ID, "harp", true)
		if _, err := svc.Relay(ctx, e.a.ID, ap.ID, approvals.Relayed{Approve: true, Via: approvals.ViaWeb}); vibesell.ErrorCode(err) != vibesell.EINTERNAL {
			t.Errorf("a relay via the web app: %v", err)
		}
	})
}
