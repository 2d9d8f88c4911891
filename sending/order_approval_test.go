package sending_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"

	"vibesell"
	"vibesell/approvals"
	"vibesell/cards"
	"vibesell/sending"
	"vibesell/store"
	"vibesell/workspace"
)

// planned walks ws's setup up to the order: own names, a confirmed sizing
// of dailyVolume, getacme.com, and first-name addresses for Ada Lovelace.
func (f fixture) planned(t *testing.T, ws workspace.Workspace, dailyVolume int) {
	t.Helper()
	f.chooseSource(t, ws, sending.SourceOwnNames)
	if _, err := f.svc.ConfirmSizing(context.Background(), ws.ID, sending.SizingRequest{DailyVolume: dailyVolume}); err != nil {
		t.Fatal(err)
	}
	f.pick(t, ws, "getacme.com")
}

// approve approves a in the web app, as a signed-in person would.
func (f fixture) approve(t *testing.T, a approvals.Approval) {
	t.Helper()
	user := uuid.New()
	if _, taken, err := f.approvals.Decide(context.Background(), a.WorkspaceID, a.ID, approvals.Decision{
		Approve: true, By: "ada@acme.test", ByUser: &user, Via: approvals.ViaWeb,
	}); err != nil || !taken {
		t.Fatalf("approve %s: taken %v, %v", a.ID, taken, err)
	}
}

// execute runs a's execution job synchronously, as River would, and
// returns the approval afterwards.
func (f fixture) execute(t *testing.T, a approvals.Approval) approvals.Approval {
	t.Helper()
	ctx := context.Background()
	w := rivertest.NewWorker(t, riverpgxv5.New(f.pool), &river.Config{}, &approvals.ExecuteWorker{Service: f.approvals})
	tx, err := f.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := w.Work(ctx, t, tx, approvals.ExecuteArgs{WorkspaceID: a.WorkspaceID, ApprovalID: a.ID}, nil); err != nil {
		t.Fatalf("execute %s: %v", a.ID, err)
	}
	after, err := f.approvals.Find(ctx, a.WorkspaceID, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	return after
}

// toolNames are the words that must never reach a person.
func toolNames(text string) []string {
	var found []string
	for _, name := range []string{
		vibesell.ToolOrderSendingSetup, vibesell.ToolGetSendingSetup, vibesell.ToolContactSupport, vibesell.ToolProposeDomains,
		vibesell.ToolProposeEmail, vibesell.ToolStartWarmup, vibesell.ToolConfirmSizing, vibesell.ToolDecideApproval,
	} {
		if strings.Contains(text, name) {
			found = append(found, name)
		}
	}
	return found
}

// ending is how an approval ended: its status and what it says.
type ending struct {
	Status  approvals.Status
	Outcome *string
}

func TestOrderApproval(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("the approval states the order for a person, sandbox amounts as such", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.planned(t, f.a, 90)
		a, created, err := f.svc.RequestOrder(ctx, f.a.ID, "")
		if err != nil || !created {
			t.Fatalf("RequestOrder: created %v, %v", created, err)
		}
		want := approvals.Impact{
			What: "Orders the sending setup from the sandbox provider: registers 1 new domain and creates 3 mailboxes on it. " +
				"This is the sandbox: nothing real is registered, created or billed, and every amount here is a sandbox amount that is never charged.",
			Items: []string{
				"getacme.com: new domain, registered for the workspace, USD 15.00 per year (a sandbox amount: nothing is charged)",
				"ada@getacme.com: mailbox, signed Ada Lovelace, USD 5.00 per month (a sandbox amount: nothing is charged)",
				"ada.lovelace@getacme.com: mailbox, signed Ada Lovelace, USD 5.00 per month (a sandbox amount: nothing is charged)",
				"a.lovelace@getacme.com: mailbox, signed Ada Lovelace, USD 5.00 per month (a sandbox amount: nothing is charged)",
			},
			Who: "No one is contacted: this prepares the addresses the workspace's emails will go out from.",
			When: "Ordered as soon as it is approved. Ready on Tue 8 Dec 2026; the warmup then starts by itself, " +
				"and all addresses can send at full volume from Tue 29 Dec 2026.",
			// The cost now is what ordering charges: the first year and the
			// first month, the figure Charged names.
			CostOnce: vibesell.NewMoney(3000, "USD"), CostMonthly: vibesell.NewMoney(1500, "USD"),
			Renewal: "In the sandbox nothing renews and nothing is charged; a real order would renew the domain every year (USD 15.00 per year) " +
				"and the mailboxes every month (USD 15.00 per month).",
			Undo: "Nothing real is ordered in the sandbox, so nothing is paid or kept.",
			Charged: "Nothing: this is the sandbox, and every amount here is a sandbox amount that is never charged. " +
				"A real order would charge USD 30.00 when it is ordered (the domain's first year, USD 15.00, and the mailboxes' first month, USD 15.00), " +
				"then USD 15.00 per month for the mailboxes and USD 15.00 per year for the domain.",
			Sandbox: true,
		}
		// One figure, computed once: the cost now is the charge the
		// words name.
		if !strings.Contains(a.Impact.Charged, "charge "+a.Impact.CostOnce.String()+" when it is ordered") {
			t.Errorf("cost now %s, but the charge says %q", a.Impact.CostOnce, a.Impact.Charged)
		}
		if diff := cmp.Diff(want, a.Impact); diff != "" {
			t.Errorf("impact mismatch (-want +got):\n%s", diff)
		}
		// Nothing real is registered or paid in the sandbox: approving it
		// loses nothing, so it is not marked irreversible.
		if a.Irreversible || a.DecideHere {
			t.Errorf("irreversible %v, decideHere %v; want false, false", a.Irreversible, a.DecideHere)
		}
		if names := toolNames(strings.Join(append(a.Impact.Items, a.Impact.What, a.Impact.When, a.Impact.Renewal, a.Impact.Undo), " ")); names != nil {
			t.Errorf("the impact names tools %v", names)
		}
	})

	t.Run("picks short of the sizing are said in the impact and the setup", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.planned(t, f.a, 353)
		const short = "This reaches 90 of the 353 emails a day the confirmed sizing needs (3 mailboxes of the 12 sized)."
		st, err := f.svc.GetSetup(ctx, f.a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if st.Next.Tool() != vibesell.ToolProposeDomains || !strings.Contains(nextText(st.Next), short) || !strings.Contains(nextText(st.Next), `Call propose_domains with count 4.`) {
			t.Errorf("next step %s: %q", st.Next.Tool(), nextText(st.Next))
		}
		// 3 mailboxes reach 90 of 353 a day; the sizing has 12 on 4 domains.
		want := &sending.Capacity{Needed: 353, Reach: 90, Mailboxes: 3, Want: 12, WantDomains: 4}
		if diff := cmp.Diff(want, st.Capacity); diff != "" {
			t.Errorf("capacity mismatch (-want +got):\n%s", diff)
		}
		if st.Capacity != nil && !st.Capacity.Short() {
			t.Errorf("reaching %d of %d a day does not read as short", st.Capacity.Reach, st.Capacity.Needed)
		}
		a, _, err := f.svc.RequestOrder(ctx, f.a.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(a.Impact.What, short) {
			t.Errorf("impact: %q lacks %q", a.Impact.What, short)
		}
	})

	t.Run("picks beyond the sizing are said too", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.chooseSource(t, f.a, sending.SourceOwnNames)
		if _, err := f.svc.ConfirmSizing(ctx, f.a.ID, sending.SizingRequest{DailyVolume: 30}); err != nil {
			t.Fatal(err)
		}
		// Two domains where the sizing has one: each carries a mailbox.
		f.pickDomains(t, f.a, "getacme.com", "tryacme.com")
		f.planAddresses(t, f.a, "first_name", "Ada Lovelace")
		st, err := f.svc.Summary(ctx, f.a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if want := "This has 2 mailboxes, more than the 1 the confirmed sizing needs for 30 emails a day"; !strings.Contains(nextText(st.Next), want) {
			t.Errorf("next step %q lacks %q", nextText(st.Next), want)
		}
	})

	t.Run("while the approval is pending, nothing says order", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.planned(t, f.a, 90)
		a, _, err := f.svc.RequestOrder(ctx, f.a.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		st, err := f.svc.GetSetup(ctx, f.a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if st.Next.Tool() != vibesell.ToolListPendingApprovals || !strings.Contains(nextText(st.Next), a.ID) || !strings.Contains(nextText(st.Next), a.AppURL) {
			t.Errorf("next step %s: %q", st.Next.Tool(), nextText(st.Next))
		}
		_, err = f.svc.StartWarmup(ctx, f.a.ID)
		if err == nil || !strings.Contains(err.Error(), a.ID) || !strings.Contains(err.Error(), a.AppURL) {
			t.Errorf("start warmup: %v", err)
		}
		// The source answered again says the same: the order waits.
		q, err := f.svc.ChooseSource(ctx, f.a.ID, sending.ChooseSourceRequest{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		again, err := f.svc.ChooseSource(ctx, f.a.ID, sending.ChooseSourceRequest{}, []cards.Answer{{Card: q.Card.ID, Answer: "own_names"}})
		if r := settledResult(t, "the source again", again, err); r.Next.Tool() != vibesell.ToolListPendingApprovals || !strings.Contains(nextText(r.Next), a.ID) {
			t.Errorf("the source again, with the order waiting: next %s %q", r.Next.Tool(), nextText(r.Next))
		}
		// Globex has no order waiting.
		if st, err := f.svc.GetSetup(ctx, f.b.ID); err != nil || st.Next.Tool() != vibesell.ToolChooseSendingSource {
			t.Errorf("Globex: %s %v", st.Next.Tool(), err)
		}
	})

	t.Run("approved, it is ordered once, and the outcome is for a person", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.planned(t, f.a, 90)
		a, _, err := f.svc.RequestOrder(ctx, f.a.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		f.approve(t, a)
		done := f.execute(t, a)
		// The outcome is a record, read long after: what was done and
		// when, in the past tense, never "are being prepared" once they
		// are ready.
		want := "Ordered from the sandbox provider on Fri 4 Dec 2026, 10:00 UTC: getacme.com, with 3 mailboxes (ada@getacme.com, ada.lovelace@getacme.com, a.lovelace@getacme.com). " +
			"When ordered, they were due to be ready on Tue 8 Dec 2026, their warmup then starting by itself; the Sending page shows where they stand now. " +
			"Sandbox: nothing real was registered, created or billed."
		if diff := cmp.Diff(ending{approvals.Done, &want}, ending{done.Status, done.Outcome}); diff != "" {
			t.Fatalf("after executing mismatch (-want +got):\n%s", diff)
		}
		st, err := f.svc.Summary(ctx, f.a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.DomainCount(sending.DomainPreparing); got != 1 || st.MailboxCount(sending.MailboxPreparing) != 3 {
			t.Errorf("after the order: %d preparing domains, %d preparing mailboxes", got, st.MailboxCount(sending.MailboxPreparing))
		}
	})

	t.Run("a name taken after approval ends not done, in a person's words", func(t *testing.T) {
		t.Parallel()
		avail := &takenAvailability{taken: map[string]bool{}}
		f := newFixtureWith(t, sending.Providers{Availability: avail})
		f.planned(t, f.a, 90)
		a, _, err := f.svc.RequestOrder(ctx, f.a.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		f.approve(t, a)
		avail.take("getacme.com")
		done := f.execute(t, a)
		want := "Not carried out: The sending setup cannot be ordered yet: getacme.com was registered by someone else since it was picked. Pick lookalike domains of the brand, with their prices."
		if diff := cmp.Diff(ending{approvals.NotDone, &want}, ending{done.Status, done.Outcome}); diff != "" {
			t.Fatalf("after executing mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("a plan changed after approval is not ordered", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.planned(t, f.a, 90)
		a, _, err := f.svc.RequestOrder(ctx, f.a.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		f.approve(t, a)
		f.planAddresses(t, f.a, "first_name", "Grace Hopper")
		done := f.execute(t, a)
		outcome := ""
		if done.Outcome != nil {
			outcome = *done.Outcome
		}
		if done.Status != approvals.NotDone || !strings.Contains(outcome, "the sending setup changed after this was approved") {
			t.Fatalf("after executing: %s, outcome %q; want not done, as the setup changed", done.Status, outcome)
		}
		if names := toolNames(*done.Outcome); names != nil {
			t.Errorf("the outcome names tools %v: %q", names, *done.Outcome)
		}
		if st, _ := f.svc.Summary(ctx, f.a.ID); st.DomainCount(sending.DomainChosen) != 1 {
			t.Error("the changed plan was ordered")
		}
	})
}

func TestDueWarmupsStartByThemselves(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.pick(t, f.a, "getacme.com")
	f.pick(t, f.b, "tryacme.com")
	for _, ws := range []workspace.Workspace{f.a, f.b} {
		if _, err := f.svc.PlaceOrder(ctx, ws.ID, nil); err != nil {
			t.Fatal(err)
		}
	}
	sweep := func() {
		t.Helper()
		w := rivertest.NewWorker(t, riverpgxv5.New(f.pool), &river.Config{}, &store.Sweep[sending.StartDueWarmupsArgs]{Run: func(ctx context.Context) error { _, err := f.svc.StartDueWarmups(ctx); return err }})
		tx, err := f.pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		if _, err := w.Work(ctx, t, tx, sending.StartDueWarmupsArgs{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	warming := func() []int {
		var out []int
		for _, ws := range []workspace.Workspace{f.a, f.b} {
			st, err := f.svc.Summary(ctx, ws.ID)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, st.MailboxCount(sending.MailboxWarming))
		}
		return out
	}

	sweep() // Friday: still being prepared
	if diff := cmp.Diff([]int{0, 0}, warming()); diff != "" {
		t.Errorf("before the ready day, warming mismatch (-want +got):\n%s", diff)
	}
	f.clock.Set(time.Date(2026, 12, 8, 10, 5, 0, 0, time.UTC)) // Tuesday, ready
	sweep()
	if diff := cmp.Diff([]int{3, 3}, warming()); diff != "" {
		t.Errorf("on the ready day, warming mismatch (-want +got):\n%s", diff)
	}
	sweep() // again: nothing restarts
	st, err := f.svc.Summary(ctx, f.a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(new(time.Date(2026, 12, 8, 10, 5, 0, 0, time.UTC)), st.Mailboxes[0].WarmupStartedAt); diff != "" {
		t.Errorf("warmup start mismatch (-want +got):\n%s", diff)
	}
}
