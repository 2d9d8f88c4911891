package sending_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/cards"
	"vibesell/sending"
	"vibesell/workspace"
)

// summaryIn sends a batch holding workspace ws's summary reads on db, and
// works out the setup.
func summaryIn(t *testing.T, db interface {
	SendBatch(context.Context, *pgx.Batch) pgx.BatchResults
}, svc *sending.Service, ws uuid.UUID) sending.Setup {
	t.Helper()
	b := &pgx.Batch{}
	done := svc.QueueSummary(b, ws)
	if err := db.SendBatch(context.Background(), b).Close(); err != nil {
		t.Fatal(err)
	}
	st, err := done()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// QueueSummary reads, in the caller's batch, the setup Summary reads: nil
// for what is not chosen yet, and nothing of another workspace, on the pool
// or in a transaction.
func TestQueueSummaryReadsTheSetupInTheCallersBatch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()

	// Nothing chosen yet (the next step's words are the summary's own;
	// its tool is compared).
	fresh := sending.Setup{WarmupDays: 21, Sandbox: true, Next: workspace.NextStep{Next: []vibesell.Next{{Tool: vibesell.ToolChooseSendingSource}}}}
	ignoreNextStep := cmp.Comparer(func(a, b workspace.NextStep) bool { return a.Tool() == b.Tool() })
	st := summaryIn(t, f.pool, f.svc, f.a.ID)
	if diff := cmp.Diff(fresh, st, ignoreNextStep); diff != "" {
		t.Fatalf("nothing chosen yet mismatch (-want +got):\n%s", diff)
	}
	want, err := f.svc.Summary(ctx, f.a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, st); diff != "" {
		t.Fatalf("batch and Summary mismatch (-want +got):\n%s", diff)
	}

	q, err := f.svc.ChooseSource(ctx, f.a.ID, sending.ChooseSourceRequest{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.ChooseSource(ctx, f.a.ID, sending.ChooseSourceRequest{}, []cards.Answer{{Card: q.Card.ID, Answer: string(sending.SourceOwnNames)}}); err != nil {
		t.Fatal(err)
	}
	f.pick(t, f.a, "getacme.com")
	if _, err := f.svc.ConfirmSizing(ctx, f.a.ID, sending.SizingRequest{DailyVolume: 90}); err != nil {
		t.Fatal(err)
	}
	want, err = f.svc.Summary(ctx, f.a.ID)
	if err != nil {
		t.Fatal(err)
	}

	// Both workspaces in one batch: neither sees the other's rows.
	b := &pgx.Batch{}
	doneA, doneB := f.svc.QueueSummary(b, f.a.ID), f.svc.QueueSummary(b, f.b.ID)
	if err := f.pool.SendBatch(ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	a, err := doneA()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, a); diff != "" {
		t.Fatalf("batch and Summary mismatch (-want +got):\n%s", diff)
	}
	// shape is what a test checks of a setup: its source, whether it is
	// sized, its domains and the state of each mailbox, and what is next.
	type shape struct {
		Source    sending.SourceKind
		Sized     bool
		Domains   int
		Mailboxes []sending.MailboxState
		Ready     bool
		NextTool  string
	}
	shapeOf := func(st sending.Setup) shape {
		s := shape{Source: sourceKind(st.Source), Sized: st.Sizing != nil, Domains: len(st.Domains), Ready: st.ReadyToSendOn != nil, NextTool: st.Next.Tool()}
		for _, m := range st.Mailboxes {
			s.Mailboxes = append(s.Mailboxes, m.State)
		}
		return s
	}
	planned := []sending.MailboxState{sending.MailboxPlanned, sending.MailboxPlanned, sending.MailboxPlanned}
	if diff := cmp.Diff(shape{sending.SourceOwnNames, true, 1, planned, false, vibesell.ToolOrderSendingSetup}, shapeOf(a)); diff != "" {
		t.Fatalf("picked and sized mismatch (-want +got):\n%s", diff)
	}
	other, err := doneB()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fresh, other, ignoreNextStep); diff != "" {
		t.Fatalf("another workspace mismatch (-want +got):\n%s", diff)
	}

	// Ordered, and read in a transaction: the batch sees the
	// transaction's own writes.
	if _, err := f.svc.PlaceOrder(ctx, f.a.ID, nil); err != nil {
		t.Fatal(err)
	}
	tx, err := f.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `UPDATE sending_setups SET source = 'already_warmed' WHERE workspace_id = $1`, f.a.ID); err != nil {
		t.Fatal(err)
	}
	st = summaryIn(t, tx, f.svc, f.a.ID)
	preparing := []sending.MailboxState{sending.MailboxPreparing, sending.MailboxPreparing, sending.MailboxPreparing}
	if diff := cmp.Diff(shape{sending.SourceAlreadyWarmed, true, 1, preparing, true, vibesell.ToolStartWarmup}, shapeOf(st)); diff != "" {
		t.Fatalf("in a transaction mismatch (-want +got):\n%s", diff)
	}
}

func TestQueueSummaryDoneBeforeTheBatchRanIsAnError(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	done := f.svc.QueueSummary(&pgx.Batch{}, f.a.ID)
	if _, err := done(); err == nil || vibesell.ErrorCode(err) != vibesell.EINTERNAL {
		t.Fatalf("done before the batch was sent = %v", err)
	}
}

// The setup's states follow the clock from the order to full volume, and
// each state's next step says what (if anything) to do.
func TestSetupFromOrderToFullVolume(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	if _, err := f.svc.ConfirmSizing(ctx, f.a.ID, sending.SizingRequest{DailyVolume: 90}); err != nil {
		t.Fatal(err)
	}
	f.pickDomains(t, f.a, "getacme.com")
	f.planAddresses(t, f.a, "first_name", "Ada Lovelace", "Grace Hopper")
	if _, err := f.svc.PlaceOrder(ctx, f.a.ID, nil); err != nil {
		t.Fatal(err)
	}
	type state struct {
		Domain, Mailbox   string
		DNSOK             bool
		WarmupDay, Today  int
		Done              int
		ReadyToSend, Next string
	}
	at := func(now time.Time) state {
		t.Helper()
		f.clock.Set(now)
		st, err := f.svc.GetSetup(ctx, f.a.ID)
		if err != nil {
			t.Fatal(err)
		}
		m := st.Mailboxes[0]
		s := state{Domain: string(st.Domains[0].State), Mailbox: string(m.State), DNSOK: st.Domains[0].Checks[0].OK != nil && *st.Domains[0].Checks[0].OK, Next: st.Next.Tool()}
		if m.WarmupDay != nil {
			s.WarmupDay, s.Today, s.Done = *m.WarmupDay, *m.TodayVolume, *m.WarmupDone
		}
		if st.ReadyToSendOn != nil {
			s.ReadyToSend = st.ReadyToSendOn.Format(time.DateOnly)
		}
		return s
	}

	want := state{Domain: "preparing", Mailbox: "preparing", ReadyToSend: "2026-12-29", Next: vibesell.ToolStartWarmup}
	if diff := cmp.Diff(want, at(time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC))); diff != "" {
		t.Errorf("ordered mismatch (-want +got):\n%s", diff)
	}
	if _, err := f.svc.StartWarmup(ctx, f.a.ID); err == nil || !strings.Contains(err.Error(), "ready on Tue 8 Dec 2026, and their warmup starts by itself that day") {
		t.Errorf("start before the ready day: %v", err)
	}

	want = state{Domain: "ready", Mailbox: "ready", DNSOK: true, ReadyToSend: "2026-12-29", Next: vibesell.ToolStartWarmup}
	if diff := cmp.Diff(want, at(time.Date(2026, 12, 8, 11, 0, 0, 0, time.UTC))); diff != "" {
		t.Errorf("ready mismatch (-want +got):\n%s", diff)
	}
	w, err := f.svc.StartWarmup(ctx, f.a.ID)
	if err != nil {
		t.Fatal(err)
	}
	full := "never"
	if w.FullVolumeOn != nil {
		full = w.FullVolumeOn.Format(time.DateOnly)
	}
	if len(w.Started) != 3 || full != "2026-12-29" {
		t.Fatalf("warmup: %d mailboxes started, at full volume on %s; want 3 on 2026-12-29", len(w.Started), full)
	}
	// From Tue 8 Dec, 2 emails a mailbox, 2 more each day up to 30 on
	// day 15, for the 3 mailboxes.
	var ramp []sending.RampDay
	for i, per := range []int{2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 30, 30, 30, 30, 30, 30} {
		ramp = append(ramp, sending.RampDay{Day: i + 1, Date: time.Date(2026, 12, 8+i, 0, 0, 0, 0, time.UTC), PerMailbox: per, Total: 3 * per})
	}
	if diff := cmp.Diff(ramp, w.Ramp); diff != "" {
		t.Fatalf("warmup ramp mismatch (-want +got):\n%s", diff)
	}

	want = state{Domain: "ready", Mailbox: "warming", DNSOK: true, WarmupDay: 6, Today: 12, Done: 23, ReadyToSend: "2026-12-29"}
	if diff := cmp.Diff(want, at(time.Date(2026, 12, 13, 9, 0, 0, 0, time.UTC))); diff != "" {
		t.Errorf("warming mismatch (-want +got):\n%s", diff)
	}
	want = state{Domain: "ready", Mailbox: "warm", DNSOK: true, ReadyToSend: "2026-12-29"}
	if diff := cmp.Diff(want, at(time.Date(2026, 12, 29, 9, 0, 0, 0, time.UTC))); diff != "" {
		t.Errorf("warm mismatch (-want +got):\n%s", diff)
	}
}
