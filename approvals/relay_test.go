package approvals_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/approvals"
	"vibesell/approvals/approvalstest"
	"vibesell/proof"
)

// A decision the assistant relays is recorded as relayed, in words a
// person reads, and an attempt to approve what only the web app may
// approve is recorded as the assistant's.
func TestRelayedDecisions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	svc := noWait(t, e)

	t.Run("approved in the conversation, then carried out", func(t *testing.T) {
		ap := e.open(t, e.a.ID, "anvil", true)
		r, err := svc.Relay(ctx, e.a.ID, ap.ID, approvals.Relayed{Approve: true, HostApps: ptrTo(false)})
		if err != nil {
			t.Fatal(err)
		}
		want := decision{Taken: true, Status: approvals.Approved, DecidedBy: "the person", DecidedVia: approvals.ViaConversation}
		if diff := cmp.Diff(want, decisionOf(r.Approval, r.Taken)); diff != "" {
			t.Errorf("relayed approval (-want +got):\n%s", diff)
		}
		if r.Approval.DecidedHostApps == nil || *r.Approval.DecidedHostApps {
			t.Errorf("host apps on record: %v, want false", r.Approval.DecidedHostApps)
		}
		if done := approvalstest.Execute(t, e.pool, svc, ap.ID); done.Status != approvals.Done {
			t.Errorf("after the execution: %s", done.Status)
		}
		// A late decision is refused: nothing was recorded, and the
		// refusal says what stands and where to read it.
		_, err = svc.Relay(ctx, e.a.ID, ap.ID, approvals.Relayed{Approve: false})
		if vibesell.ErrorCode(err) != vibesell.ECONFLICT || !strings.Contains(vibesell.ErrorMessage(err), "already approved by the person (the conversation, relayed by the assistant)") ||
			!strings.Contains(vibesell.ErrorMessage(err), "it is done now") {
			t.Errorf("a late rejection: %v", err)
		}
		if a, err := svc.Find(ctx, e.a.ID, ap.ID); err != nil || a.Status != approvals.Done {
			t.Errorf("after a late rejection: %s, %v", a.Status, err)
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
}

// A click in the card is recorded as clicked only with the card's token:
// bound to one approval of one workspace, used once, short-lived.
func TestClickedDecisions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	svc := noWait(t, e)
	tokenOf := e.token

	t.Run("a click with the token is recorded as clicked, once", func(t *testing.T) {
		ap := e.open(t, e.a.ID, "anvil", true)
		token := tokenOf(t, ap)
		r, err := svc.Click(ctx, e.a.ID, ap.ID, approvals.Clicked{Approve: true, Token: token, HostApps: ptrTo(true)})
		if err != nil {
			t.Fatal(err)
		}
		want := decision{Taken: true, Status: approvals.Approved, DecidedBy: "the person", DecidedVia: approvals.ViaCard}
		if diff := cmp.Diff(want, decisionOf(r.Approval, r.Taken)); diff != "" {
			t.Errorf("clicked approval (-want +got):\n%s", diff)
		}
		events, err := svc.Events(ctx, e.a.ID, ap.ID)
		if err != nil {
			t.Fatal(err)
		}
		last := events[len(events)-1]
		type line struct {
			Event, Via string
			HostApps   *bool
		}
		yes := true
		if diff := cmp.Diff(line{"approved", approvals.ViaCard, &yes}, line{last.Event, last.Via, last.HostApps}); diff != "" {
			t.Errorf("the trail's last line mismatch (-want +got):\n%s", diff)
		}
		// Replayed: the same token again is refused, whatever is on record.
		if _, err := svc.Click(ctx, e.a.ID, ap.ID, approvals.Clicked{Approve: false, Token: token}); vibesell.ErrorCode(err) != vibesell.EINVALID {
			t.Errorf("the token replayed: %v", err)
		}
	})

	t.Run("refused tokens", func(t *testing.T) {
		ap := e.open(t, e.a.ID, "rocket", true)
		other := e.open(t, e.a.ID, "kite", true)
		theirs := e.open(t, e.b.ID, "rocket", true)
		used := tokenOf(t, other)
		if _, err := svc.Click(ctx, e.a.ID, other.ID, approvals.Clicked{Approve: false, Token: used}); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name, token string
		}{
			{"none", ""},
			{"made up", "vsd_" + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
			{"used up on another approval", used},
			{"another approval's", tokenOf(t, e.open(t, e.a.ID, "yacht", true))},
			{"another workspace's", tokenOf(t, theirs)},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				_, err := svc.Click(ctx, e.a.ID, ap.ID, approvals.Clicked{Approve: true, Token: c.token})
				if vibesell.ErrorCode(err) != vibesell.EINVALID {
					t.Errorf("refusal: %v", err)
				}
			})
		}
		t.Run("expired", func(t *testing.T) {
			token := tokenOf(t, ap)
			e.clock.Advance(proof.TTL + time.Second)
			if _, err := svc.Click(ctx, e.a.ID, ap.ID, approvals.Clicked{Approve: true, Token: token}); vibesell.ErrorCode(err) != vibesell.EINVALID {
				t.Errorf("an expired token: %v", err)
			}
		})
		now, err := svc.Find(ctx, e.a.ID, ap.ID)
		if err != nil || now.Status != approvals.Pending {
			t.Errorf("after refused clicks: %s, %v", now.Status, err)
		}
	})

	t.Run("the workspace's rule: approved by a click, never relayed", func(t *testing.T) {
		if err := svc.SetPolicy(ctx, e.a.ID, testAction, true, "ada@acme.test"); err == nil {
			t.Errorf("a rule for an action people cannot name was set")
		}
		ap := e.open(t, e.a.ID, "bell", true)
		if _, err := e.pool.Exec(ctx, `INSERT INTO approval_policies (workspace_id, action, set_by, set_at) VALUES ($1, $2, 'test', now())`,
			e.a.ID, testAction); err != nil {
			t.Fatal(err)
		}
		now, err := svc.Find(ctx, e.a.ID, ap.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{approvals.ViaCard, approvals.ViaWeb}, now.ApproveWays()); diff != "" {
			t.Errorf("ways open (-want +got):\n%s", diff)
		}
		if _, err := svc.Relay(ctx, e.a.ID, ap.ID, approvals.Relayed{Approve: true}); vibesell.ErrorCode(err) != vibesell.EINVALID {
			t.Errorf("relayed under the rule: %v", err)
		}
		// The rule is about who decides: a rejection passed on is refused
		// too, and leaves the approval for the person.
		_, err = svc.Relay(ctx, e.a.ID, ap.ID, approvals.Relayed{Approve: false, Reason: "the model says no"})
		if vibesell.ErrorCode(err) != vibesell.EINVALID || !strings.Contains(err.Error(), "Ask the person to click Reject in the card") {
			t.Errorf("rejection relayed under the rule: %v", err)
		}
		if still, err := svc.Find(ctx, e.a.ID, ap.ID); err != nil || still.Status != approvals.Pending {
			t.Errorf("after a refused relayed rejection: %s, %v", still.Status, err)
		}
		r, err := svc.Click(ctx, e.a.ID, ap.ID, approvals.Clicked{Approve: true, Token: tokenOf(t, now)})
		if err != nil || !r.Taken {
			t.Errorf("clicked under the rule: %v, %v", r.Taken, err)
		}
		// The other workspace has no rule.
		theirs := e.open(t, e.b.ID, "bell", true)
		if r, err := svc.Relay(ctx, e.b.ID, theirs.ID, approvals.Relayed{Approve: true}); err != nil || !r.Taken {
			t.Errorf("relayed in another workspace: %v, %v", r.Taken, err)
		}
	})
}

// noWait is a service that does not wait for a decision's outcome: the
// test works the execution itself.
func noWait(t *testing.T, e *env) *approvals.Service {
	t.Helper()
	svc := approvals.New(approvals.Deps{DB: e.pool, Clock: e.clock, PublicURL: publicURL, RelayWait: -1})
	svc.Register(testAction, e.exec)
	return svc
}

func ptrTo[T any](v T) *T { return &v }
