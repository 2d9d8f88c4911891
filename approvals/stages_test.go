package approvals_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"vibesell"
	"vibesell/approvals"
)

const (
	ada = "ada@acme.test" // asks for it, and sells
	bob = "bob@acme.test" // sells
	cy  = "cy@acme.test"  // sells
	fin = "fin@acme.test" // finance
)

// staged is an env whose service emails through box, with stagedAction
// (an action a policy can be set for) carried out by the test executor.
type staged struct {
	*env
	svc *approvals.Service
	box *mailbox
}

const stagedAction = vibesell.ToolImportLeads

func setupStaged(t *testing.T, p approvals.Policy) *staged {
	t.Helper()
	e := setup(t)
	box := &mailbox{people: map[uuid.UUID][]string{e.a.ID: {ada, bob, cy, fin}}}
	svc := approvals.New(approvals.Deps{DB: e.pool, Clock: e.clock, PublicURL: publicURL, Logger: slog.New(slog.DiscardHandler),
		Mailer: box, RelayWait: -1})
	svc.Register(testAction, e.exec)
	svc.Register(stagedAction, e.exec)
	e.svc = svc // env's helpers (execute) read the same service
	p.Action = stagedAction
	if err := svc.SavePolicy(context.Background(), e.a.ID, p, ada); err != nil {
		t.Fatal(err)
	}
	return &staged{env: e, svc: svc, box: box}
}

// openStaged asks for the staged action on ada's behalf, costing once
// costOnce dollars (and 10 a month).
func (s *staged) openStaged(t *testing.T, item string, costOnce int64) approvals.Approval {
	t.Helper()
	r := orderRequest(s.a.ID, item, true)
	r.Action = stagedAction
	r.Impact.CostOnce = vibesell.NewMoney(costOnce*100, "USD")
	r.RequestedBy = approvals.Person(ada, "Claude")
	a, created, err := s.svc.Open(context.Background(), r)
	if err != nil || !created {
		t.Fatalf("open %s: created %v, %v", item, created, err)
	}
	return a
}

func (s *staged) decide(t *testing.T, id, who string, approve bool, reason string) (approvals.Approval, bool, error) {
	t.Helper()
	return s.svc.Decide(context.Background(), s.a.ID, id, approvals.Decision{Approve: approve, By: who, Via: approvals.ViaWeb, Reason: reason})
}

func (s *staged) mustDecide(t *testing.T, id, who string, approve bool, wantStatus approvals.Status, wantProgress string) approvals.Approval {
	t.Helper()
	a, taken, err := s.decide(t, id, who, approve, "")
	if err != nil || !taken {
		t.Fatalf("%s decides %s: taken %v, %v", who, id, taken, err)
	}
	if a.Status != wantStatus || a.Progress().Text() != wantProgress {
		t.Fatalf("after %s: %s, %q; want %s, %q", who, a.Status, a.Progress().Text(), wantStatus, wantProgress)
	}
	return a
}

func refusedInvalid(t *testing.T, what string, err error, says string) {
	t.Helper()
	if vibesell.ErrorCode(err) != vibesell.EINVALID || !strings.Contains(vibesell.ErrorForPerson(err), says) {
		t.Fatalf("%s: got %v, want a refusal saying %q", what, err, says)
	}
}

var salesThenFinance = approvals.Policy{
	Stages: []approvals.Stage{
		{Name: "sales", Approvers: []string{ada, bob, cy}, Needed: 2},
		{Name: "finance", Approvers: []string{fin}, Needed: 1, Above: &vibesell.Money{Minor: 100_00, Currency: "USD"}},
	},
	RequesterBarred: true,
}

// Two of three salespeople, then finance above 100 dollars: the same
// person counts once, a person a stage does not name is refused, and the
// action runs once, with the last approval needed.
func TestTwoOfThreeThenFinanceAboveAnAmount(t *testing.T) {
	t.Parallel()
	s := setupStaged(t, salesThenFinance)

	big := s.openStaged(t, "anvils", 300)
	if got := big.Progress().Text(); got != "0 of 3 approvals; waiting for 2 more from sales" {
		t.Fatalf("progress when opened: %q", got)
	}
	s.mustDecide(t, big.ID, ada, true, approvals.Pending, "1 of 3 approvals; waiting for sales")
	_, _, err := s.decide(t, big.ID, ada, true, "")
	refusedInvalid(t, "ada twice", err, "already counted, once")
	_, _, err = s.decide(t, big.ID, fin, true, "")
	refusedInvalid(t, "finance at the sales stage", err, "is not one of them")
	s.mustDecide(t, big.ID, approvals.Person(bob, "Claude"), true, approvals.Pending, "2 of 3 approvals; waiting for finance")
	_, _, err = s.decide(t, big.ID, cy, true, "")
	refusedInvalid(t, "a third salesperson at the finance stage", err, "waiting for finance")
	if n := s.jobCount(t, big.ID); n != 0 {
		t.Fatalf("%d executions enqueued before finance approved", n)
	}
	done := s.mustDecide(t, big.ID, fin, true, approvals.Approved, "3 of 3 approvals")
	if got := *done.DecidedBy; got != fin {
		t.Errorf("decided by %q, want the last approver", got)
	}
	if n := s.jobCount(t, big.ID); n != 1 {
		t.Fatalf("%d executions enqueued, want 1", n)
	}
	if a := s.execute(t, big.ID); a.Status != approvals.Done {
		t.Fatalf("executed: %s", a.Status)
	}

	// Below the amount, finance is not asked.
	small := s.openStaged(t, "nails", 20)
	if got := small.Progress().Text(); got != "0 of 2 approvals; waiting for 2 more from sales" {
		t.Fatalf("progress of a small one: %q", got)
	}
	s.mustDecide(t, small.ID, bob, true, approvals.Pending, "1 of 2 approvals; waiting for sales")
	s.mustDecide(t, small.ID, cy, true, approvals.Approved, "2 of 2 approvals")

	// A rejection at any stage ends it.
	no := s.openStaged(t, "rockets", 500)
	s.mustDecide(t, no.ID, bob, true, approvals.Pending, "1 of 3 approvals; waiting for sales")
	s.mustDecide(t, no.ID, cy, true, approvals.Pending, "2 of 3 approvals; waiting for finance")
	s.mustDecide(t, no.ID, fin, false, approvals.Rejected, "2 of 3 approvals; waiting for finance")
	if n := s.jobCount(t, no.ID); n != 0 {
		t.Fatalf("a rejected approval enqueued %d executions", n)
	}

	// An approval no one can name is not counted.
	anon := s.openStaged(t, "bolts", 20)
	relayed := conversation
	relayed.Approve = true
	_, _, err = s.svc.Decide(context.Background(), s.a.ID, anon.ID, relayed)
	refusedInvalid(t, "a relayed approval by no one named", err, "must be known by name")
}

// The requester may approve, but never alone: with one approval by anyone
// needed, the requester's is counted and it waits for someone else.
func TestRequesterIsBarredFromApprovingAlone(t *testing.T) {
	t.Parallel()
	s := setupStaged(t, approvals.Policy{RequesterBarred: true})
	a := s.openStaged(t, "anvils", 20)
	if a.RequestedByEmail != ada {
		t.Fatalf("requester recorded as %q", a.RequestedByEmail)
	}
	s.mustDecide(t, a.ID, approvals.Person(ada, "Claude"), true, approvals.Pending, "1 of 1 approval; waiting for someone other than ada@acme.test")
	if n := s.jobCount(t, a.ID); n != 0 {
		t.Fatalf("the requester alone enqueued %d executions", n)
	}
	s.mustDecide(t, a.ID, cy, true, approvals.Approved, "1 of 1 approval")
}

// A policy asking a reason to reject refuses a rejection without one.
func TestReasonRequired(t *testing.T) {
	t.Parallel()
	s := setupStaged(t, approvals.Policy{ReasonToReject: true, Where: approvals.DecideAnywhere})
	a := s.openStaged(t, "anvils", 20)
	_, _, err := s.decide(t, a.ID, bob, false, "")
	refusedInvalid(t, "a rejection without a reason", err, "asks for a reason to reject")
	got, taken, err := s.decide(t, a.ID, bob, false, "Too dear")
	if err != nil || !taken || got.Status != approvals.Rejected {
		t.Fatalf("with a reason: %v %v %v", got.Status, taken, err)
	}
}

// 64 decisions at once on a 2-of-3 policy, by its three people: two are
// counted, one of them approves, and the action is enqueued and carried
// out exactly once.
func TestConcurrentDecisionsExecuteOnce(t *testing.T) {
	t.Parallel()
	s := setupStaged(t, approvals.Policy{Stages: []approvals.Stage{{Name: "sales", Approvers: []string{ada, bob, cy}, Needed: 2}}})
	a := s.openStaged(t, "anvils", 20)
	people := []string{ada, bob, cy}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		taken   int
		refused int
	)
	start := make(chan struct{})
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, ok, err := s.decide(t, a.ID, people[i%3], true, "")
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil && vibesell.ErrorCode(err) != vibesell.EINVALID:
				t.Errorf("decision %d: %v", i, err)
			case err != nil:
				refused++
			case ok:
				taken++
			}
		}()
	}
	close(start)
	wg.Wait()
	if taken != 2 {
		t.Errorf("%d decisions taken, want 2 (one counted, one approving)", taken)
	}
	if n := s.jobCount(t, a.ID); n != 1 {
		t.Fatalf("%d executions enqueued, want exactly 1", n)
	}
	var votes int
	if err := s.pool.QueryRow(context.Background(), `SELECT count(*) FROM approval_votes WHERE approval_id = $1`, a.ID).Scan(&votes); err != nil {
		t.Fatal(err)
	}
	if votes != 2 {
		t.Errorf("%d votes recorded, want 2", votes)
	}
	before := s.exec.executes.Load()
	if done := s.execute(t, a.ID); done.Status != approvals.Done {
		t.Fatalf("executed: %s", done.Status)
	}
	if n := s.exec.executes.Load() - before; n != 1 {
		t.Errorf("executed %d times, want once", n)
	}
	t.Logf("64 decisions: %d taken, %d refused, the rest found it decided", taken, refused)
}

// A stage no one decides is reminded after its time, and its fallback
// approver asked after as long again; each step once, recorded, and the
// fallback may approve only once asked.
func TestEscalationOnTheClock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := setupStaged(t, approvals.Policy{TTL: 48 * time.Hour, Stages: []approvals.Stage{
		{Name: "sales", Approvers: []string{ada, bob}, Needed: 1},
		{Name: "finance", Approvers: []string{cy}, Needed: 1, Fallback: fin, EscalateAfterMinutes: 60},
	}})
	a := s.openStaged(t, "anvils", 20)
	s.clock.Advance(3 * time.Hour) // the finance stage begins with sales' approval, not at the opening
	s.mustDecide(t, a.ID, bob, true, approvals.Pending, "1 of 2 approvals; waiting for finance")
	// Sales approved: finance's people are emailed, once, with the progress.
	var jobs int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'approvals.remind' AND args->>'reminder' = 'stage 1'`).Scan(&jobs); err != nil || jobs != 1 {
		t.Fatalf("%d emails to the next stage enqueued, %v", jobs, err)
	}
	for range 2 {
		if _, err := s.svc.Remind(ctx, s.a.ID, a.ID, approvals.ReminderStage(1)); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(s.box.sent); n != 1 || s.box.sent[0].To[0] != cy || !strings.Contains(s.box.sent[0].Body, "Approvals so far: 1 of 2 approvals; waiting for finance.") {
		t.Fatalf("the next stage's email: %+v", s.box.sent)
	}
	step := func(after time.Duration, want int) {
		t.Helper()
		s.clock.Advance(after)
		n, err := s.svc.EscalateDue(ctx)
		if err != nil || n != want {
			t.Fatalf("escalate: %d steps, %v; want %d", n, err, want)
		}
	}
	step(59*time.Minute, 0)
	step(2*time.Minute, 1) // reminded
	step(0, 0)             // once
	if last := s.box.sent[len(s.box.sent)-1]; len(last.To) != 1 || last.To[0] != cy || !strings.Contains(last.Body, "1 of 2 approvals; waiting for finance") {
		t.Fatalf("reminder: %+v", last)
	}
	_, _, err := s.decide(t, a.ID, fin, true, "")
	refusedInvalid(t, "the fallback before being asked", err, "is not one of them")
	step(60*time.Minute, 1) // the fallback asked
	if last := s.box.sent[len(s.box.sent)-1]; len(last.To) != 1 || last.To[0] != fin || !strings.Contains(last.Subject, "in place of finance") {
		t.Fatalf("fallback's email: %+v", last)
	}
	s.mustDecide(t, a.ID, fin, true, approvals.Approved, "2 of 2 approvals")
	var trail []string
	for _, ev := range s.events(t, s.a.ID, a.ID) {
		trail = append(trail, strings.Split(ev, ":")[0])
	}
	if got := strings.Join(trail, ","); got != "opened,vote,reminded,escalated,approved" {
		t.Errorf("trail: %s", got)
	}
}

// A person away names a delegate until a date: the delegate's approval
// counts as theirs, recorded "X for Y", until the date and not after.
func TestDelegationUntilADate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := setupStaged(t, approvals.Policy{Stages: []approvals.Stage{{Name: "finance", Approvers: []string{fin}, Needed: 1}}})
	if err := s.svc.SetDelegate(ctx, s.a.ID, fin, "nobody@else.test", s.clock.Now().Add(48*time.Hour)); vibesell.ErrorCode(err) != vibesell.EINVALID {
		t.Fatalf("a delegate outside the workspace: %v", err)
	}
	if err := s.svc.SetDelegate(ctx, s.a.ID, fin, bob, s.clock.Now().Add(48*time.Hour)); err != nil {
		t.Fatal(err)
	}
	a := s.openStaged(t, "anvils", 20)
	_, _, err := s.decide(t, a.ID, cy, true, "")
	refusedInvalid(t, "someone not named, delegated to by no one", err, "is not one of them")
	got := s.mustDecide(t, a.ID, bob, true, approvals.Approved, "1 of 1 approval")
	if *got.DecidedBy != "bob@acme.test for fin@acme.test" || got.Votes[0].Voter != fin {
		t.Fatalf("decided by %q, vote %+v", *got.DecidedBy, got.Votes)
	}
	s.clock.Advance(49 * time.Hour)
	later := s.openStaged(t, "nails", 20)
	_, _, err = s.decide(t, later.ID, bob, true, "")
	refusedInvalid(t, "the delegate after the date", err, "is not one of them")
}

// Today's rules are part of the same policy: web only opens the action's
// approvals for the web app alone, and its expiry sets when they expire.
func TestPolicyWhereAndExpiry(t *testing.T) {
	t.Parallel()
	s := setupStaged(t, approvals.Policy{Where: approvals.DecideWeb, TTL: 5 * time.Hour, ReasonToApprove: true})
	a := s.openStaged(t, "anvils", 20)
	if a.DecideHere || !a.ExpiresAt.Equal(a.CreatedAt.Add(5*time.Hour)) {
		t.Fatalf("decide here %v, expires %s after opening", a.DecideHere, a.ExpiresAt.Sub(a.CreatedAt))
	}
	relayed := conversation
	relayed.Approve = true
	_, _, err := s.svc.Decide(context.Background(), s.a.ID, a.ID, relayed)
	refusedInvalid(t, "approving a web-only action in the conversation", err, "only be approved by a signed-in person in the web app")
	_, _, err = s.decide(t, a.ID, bob, true, "")
	refusedInvalid(t, "approving without the reason asked for", err, "asks for a reason to approve")
	got, taken, err := s.decide(t, a.ID, bob, true, "Within budget")
	if err != nil || !taken || got.Status != approvals.Approved {
		t.Fatalf("with a reason, in the web app: %s %v %v", got.Status, taken, err)
	}
	policies, err := s.svc.Policies(context.Background(), s.a.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range policies {
		if p.Action == stagedAction && (p.Where != approvals.DecideWeb || p.ClickedOnly) {
			t.Errorf("read back: %+v", p)
		}
	}
	// A stage that could never be met is refused.
	err = s.svc.SavePolicy(context.Background(), s.a.ID, approvals.Policy{Action: stagedAction,
		Stages: []approvals.Stage{{Name: "board", Approvers: []string{ada}, Needed: 2}}}, ada)
	refusedInvalid(t, "2 of 1", err, "it could never be approved")
}
