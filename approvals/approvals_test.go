package approvals_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"vibesell"
	"vibesell/approvals"
)

func TestOpenReturnsThePendingApprovalForTheSameArguments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	first := e.open(t, e.a.ID, "anvil", true)
	if diff := cmp.Diff(decision{Status: approvals.Pending}, decisionOf(first, false)); diff != "" || first.DecidedAt != nil {
		t.Fatalf("opened (-want +got):\n%s", diff)
	}
	if first.AppURL != publicURL+"/app/approvals/"+first.ID {
		t.Fatalf("app URL %s", first.AppURL)
	}

	// Same arguments, keys in another order: the same approval.
	req := orderRequest(e.a.ID, "anvil", true)
	req.Arguments = struct {
		Quantity int    `json:"quantity"`
		Item     string `json:"item"`
	}{2, "anvil"}
	again, created, err := e.svc.Open(ctx, req)
	if err != nil || created || again.ID != first.ID {
		t.Fatalf("same arguments: created=%v id=%s err=%v, want %s", created, again.ID, err, first.ID)
	}
	// Other arguments, or another workspace: another approval.
	if other := e.open(t, e.a.ID, "rocket", true); other.ID == first.ID {
		t.Fatal("other arguments share the approval")
	}
	if other := e.open(t, e.b.ID, "anvil", true); other.ID == first.ID {
		t.Fatal("another workspace shares the approval")
	}
	// Concurrent opens of one new request: one approval.
	var wg sync.WaitGroup
	ids := make([]string, 16)
	for i := range ids {
		wg.Go(func() {
			a, _, err := e.svc.Open(ctx, orderRequest(e.a.ID, "piano", true))
			if err != nil {
				t.Error(err)
			}
			ids[i] = a.ID
		})
	}
	wg.Wait()
	if slices.Sort(ids); len(slices.Compact(slices.Clone(ids))) != 1 {
		t.Fatalf("16 concurrent opens gave several approvals: %v", ids)
	}
	if got := e.events(t, e.a.ID, first.ID); !slices.Equal(got, []string{"opened:>pending@conversation"}) {
		t.Fatalf("audit trail: %v", got)
	}
	// Approved and not yet carried out: asking again returns it.
	if _, _, err := e.svc.Decide(ctx, e.a.ID, first.ID, approvals.Decision{Approve: true, By: "x", Via: approvals.ViaConversation}); err != nil {
		t.Fatal(err)
	}
	if running, created, err := e.svc.Open(ctx, orderRequest(e.a.ID, "anvil", true)); err != nil || created || running.ID != first.ID || running.Status != approvals.Approved {
		t.Fatalf("while approved: created=%v %s %s err=%v", created, running.ID, running.Status, err)
	}
	// Once it has ended, the same request opens a new approval.
	if err := e.svc.Execute(ctx, e.a.ID, first.ID, 1, 8); err != nil {
		t.Fatal(err)
	}
	if next := e.open(t, e.a.ID, "anvil", true); next.ID == first.ID {
		t.Fatal("an ended approval was returned")
	}
}

func TestOpenSupersedesAPendingApprovalWhoseImpactChanged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	old := e.open(t, e.a.ID, "anvil", true)
	req := orderRequest(e.a.ID, "anvil", true)
	req.Impact.CostMonthly.Minor = 1200
	fresh, created, err := e.svc.Open(ctx, req)
	if err != nil || !created || fresh.ID == old.ID {
		t.Fatalf("changed price: created=%v id=%s err=%v", created, fresh.ID, err)
	}
	old, _ = e.svc.Find(ctx, e.a.ID, old.ID)
	if old.Status != approvals.NotDone || !strings.Contains(*old.Outcome, fresh.ID) {
		t.Fatalf("old approval: %s %v", old.Status, old.Outcome)
	}
	if got := e.events(t, e.a.ID, old.ID); !slices.Equal(got, []string{"opened:>pending@conversation", "superseded:pending>not_done@system"}) {
		t.Fatalf("audit trail: %v", got)
	}
	// The same amount again is the same proposal.
	req.Impact.CostMonthly = vibesell.NewMoney(1200, "USD")
	if same, created, _ := e.svc.Open(ctx, req); created || same.ID != fresh.ID {
		t.Fatalf("the same amount superseded the approval")
	}
	// Changed details (the exact plan) supersede too; the same details in
	// another key order do not.
	req.Details = map[string]any{"domains": []string{"a.com", "b.com"}, "cents": 1500}
	withPlan, created, err := e.svc.Open(ctx, req)
	if err != nil || !created || withPlan.ID == fresh.ID || string(withPlan.Details) != `{"cents": 1500, "domains": ["a.com", "b.com"]}` {
		t.Fatalf("details: created=%v %s err=%v", created, withPlan.Details, err)
	}
	req.Details = struct {
		Domains []string `json:"domains"`
		Cents   int      `json:"cents"`
	}{[]string{"a.com", "b.com"}, 1500}
	if same, created, _ := e.svc.Open(ctx, req); created || same.ID != withPlan.ID {
		t.Fatal("the same details superseded the approval")
	}
}

func TestOpenRefusesMistakesInTheCallingTool(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	for name, mutate := range map[string]func(*approvals.Request){
		"irreversible decided here": func(r *approvals.Request) { r.Irreversible, r.DecideHere = true, true },
		"unknown action":            func(r *approvals.Request) { r.Action = "launch_rockets" },
		"no summary":                func(r *approvals.Request) { r.Summary = " " },
		"no undo":                   func(r *approvals.Request) { r.Impact.Undo = "" },
		"bad currency":              func(r *approvals.Request) { r.Impact.CostOnce.Currency = "usd" },
		"too long":                  func(r *approvals.Request) { r.TTL = 90 * 24 * time.Hour },
	} {
		t.Run(name, func(t *testing.T) {
			req := orderRequest(e.a.ID, "anvil", true)
			mutate(&req)
			if _, _, err := e.svc.Open(ctx, req); vibesell.ErrorCode(err) != vibesell.EINTERNAL {
				t.Errorf("err = %v, want an internal error", err)
			}
		})
	}
}

// 32 concurrent approve and reject calls on one approval: one decision is
// taken, 31 answers report it, and the trail holds one decision.
func TestDecisionIsTakenExactlyOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	ap := e.open(t, e.a.ID, "anvil", true)

	type answer struct {
		a     approvals.Approval
		taken bool
		err   error
	}
	answers := make([]answer, 32)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range answers {
		wg.Go(func() {
			d := approvals.Decision{Approve: i%2 == 0, By: "caller", Via: approvals.ViaConversation, Reason: "call " + string(rune('A'+i))}
			<-start
			a, taken, err := e.svc.Decide(ctx, e.a.ID, ap.ID, d)
			answers[i] = answer{a, taken, err}
		})
	}
	close(start)
	wg.Wait()

	final, err := e.svc.Find(ctx, e.a.ID, ap.ID)
	if err != nil {
		t.Fatal(err)
	}
	taken := 0
	for i, ans := range answers {
		if ans.err != nil {
			t.Fatalf("answer %d: %v", i, ans.err)
		}
		if ans.taken {
			taken++
		}
		if ans.a.Status != final.Status || !ans.a.DecidedAt.Equal(*final.DecidedAt) || *ans.a.Reason != *final.Reason {
			t.Errorf("answer %d reports %s at %v (%s), record says %s at %v (%s)",
				i, ans.a.Status, ans.a.DecidedAt, *ans.a.Reason, final.Status, final.DecidedAt, *final.Reason)
		}
	}
	if taken != 1 {
		t.Fatalf("%d decisions taken, want 1", taken)
	}
	trail := e.events(t, e.a.ID, ap.ID)
	if len(trail) != 2 || trail[0] != "opened:>pending@conversation" {
		t.Fatalf("audit trail: %v", trail)
	}
	wantJobs := 0
	if final.Status == approvals.Approved {
		wantJobs = 1
	}
	if n := e.jobCount(t, ap.ID); n != wantJobs {
		t.Fatalf("%s: %d execution jobs, want %d", final.Status, n, wantJobs)
	}
}

func TestApprovingEnqueuesTheExecutionAndRejectingDoesNot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	yes := e.open(t, e.a.ID, "anvil", true)
	no := e.open(t, e.a.ID, "rocket", true)
	d := conversation
	d.Approve = true
	a, taken, err := e.svc.Decide(ctx, e.a.ID, yes.ID, d)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(decision{Taken: true, Status: approvals.Approved, DecidedBy: "the person", DecidedVia: "conversation"}, decisionOf(a, taken)); diff != "" {
		t.Fatalf("approve (-want +got):\n%s", diff)
	}
	d = approvals.Decision{By: "ada@acme.test", Via: approvals.ViaWeb, Reason: "  Too expensive  "}
	r, taken, err := e.svc.Decide(ctx, e.a.ID, no.ID, d)
	if err != nil {
		t.Fatal(err)
	}
	want := decision{Taken: true, Status: approvals.Rejected, DecidedBy: "ada@acme.test", DecidedVia: "web", Reason: "Too expensive", Outcome: "Rejected by ada@acme.test: Too expensive"}
	if diff := cmp.Diff(want, decisionOf(r, taken)); diff != "" {
		t.Fatalf("reject (-want +got):\n%s", diff)
	}
	if e.jobCount(t, yes.ID) != 1 || e.jobCount(t, no.ID) != 0 {
		t.Fatalf("jobs: approved %d, rejected %d", e.jobCount(t, yes.ID), e.jobCount(t, no.ID))
	}
	// Approving again reports the decision on record and enqueues nothing.
	if _, taken, _ := e.svc.Decide(ctx, e.a.ID, yes.ID, approvals.Decision{Approve: true, By: "x", Via: approvals.ViaWeb}); taken || e.jobCount(t, yes.ID) != 1 {
		t.Fatal("a second approval was taken")
	}
	if got := e.events(t, e.a.ID, no.ID); !slices.Equal(got, []string{"opened:>pending@conversation", "rejected:pending>rejected@web"}) {
		t.Fatalf("audit trail: %v", got)
	}
}

func TestPaidActionsAreApprovedOnlyInTheWebApp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	ap := e.open(t, e.a.ID, "anvil", false)
	if ap.DecideHere || !ap.Irreversible {
		t.Fatalf("opened %s deciding here %v, irreversible %v; want only in the web app, irreversible", ap.ID, ap.DecideHere, ap.Irreversible)
	}
	for _, via := range []string{approvals.ViaConversation, approvals.ViaCard} {
		t.Run("approve via "+via, func(t *testing.T) {
			d := approvals.Decision{Approve: true, By: "the assistant", Via: via}
			if via == approvals.ViaCard {
				d.Token = e.token(t, ap)
			}
			_, taken, err := e.svc.Decide(ctx, e.a.ID, ap.ID, d)
			if vibesell.ErrorCode(err) != vibesell.EINVALID || taken {
				t.Fatalf("taken=%v err=%v; want refused as invalid", taken, err)
			}
			msg := vibesell.ErrorMessage(err)
			if !strings.Contains(msg, ap.AppURL) || !strings.Contains(msg, "costs money and cannot be undone") || !strings.Contains(msg, "rejected here") {
				t.Fatalf("refusal: %s", msg)
			}
		})
	}
	if a, _ := e.svc.Find(ctx, e.a.ID, ap.ID); a.Status != approvals.Pending || e.jobCount(t, ap.ID) != 0 {
		t.Fatalf("after refused approvals: %s, %d jobs", a.Status, e.jobCount(t, ap.ID))
	}
	user := uuid.New()
	a, taken, err := e.svc.Decide(ctx, e.a.ID, ap.ID, approvals.Decision{Approve: true, By: "ada@acme.test", ByUser: &user, Via: approvals.ViaWeb})
	if err != nil {
		t.Fatalf("approve in the web app: %v", err)
	}
	if !taken || a.Status != approvals.Approved {
		t.Fatalf("approve in the web app: %s, taken %v; want approved, taken", a.Status, taken)
	}
	want := []string{"opened:>pending@conversation", "approve_refused:pending>pending@conversation",
		"approve_refused:pending>pending@card", "approved:pending>approved@web"}
	if got := e.events(t, e.a.ID, ap.ID); !slices.Equal(got, want) {
		t.Fatalf("audit trail: %v", got)
	}

	// Rejecting is allowed from anywhere.
	other := e.open(t, e.a.ID, "rocket", false)
	r, taken, err := e.svc.Decide(ctx, e.a.ID, other.ID, conversation)
	if err != nil {
		t.Fatalf("reject from the conversation: %v", err)
	}
	if !taken || r.Status != approvals.Rejected {
		t.Fatalf("reject from the conversation: %s, taken %v; want rejected, taken", r.Status, taken)
	}
}

func TestAnotherWorkspaceSeesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	ap := e.open(t, e.a.ID, "anvil", true)
	if _, err := e.svc.Find(ctx, e.b.ID, ap.ID); vibesell.ErrorCode(err) != vibesell.ENOTFOUND {
		t.Fatalf("find from another workspace: %v", err)
	}
	if _, _, err := e.svc.Decide(ctx, e.b.ID, ap.ID, conversation); vibesell.ErrorCode(err) != vibesell.ENOTFOUND {
		t.Fatalf("decide from another workspace: %v", err)
	}
	if _, err := e.svc.Events(ctx, e.b.ID, ap.ID); vibesell.ErrorCode(err) != vibesell.ENOTFOUND {
		t.Fatalf("audit trail from another workspace: %v", err)
	}
	if p, err := e.svc.List(ctx, e.b.ID, approvals.ListOptions{Filter: approvals.All}); err != nil || len(p.Approvals) != 0 {
		t.Fatalf("list of another workspace: %d %v", len(p.Approvals), err)
	}
	if a, _ := e.svc.Find(ctx, e.a.ID, ap.ID); a.Status != approvals.Pending {
		t.Fatalf("another workspace changed it: %s", a.Status)
	}
	for _, bad := range []string{"ap_zz", "AP_0123456789ABCDEF", "' OR 1=1 --"} {
		t.Run("find "+bad, func(t *testing.T) {
			if _, err := e.svc.Find(ctx, e.a.ID, bad); vibesell.ErrorCode(err) != vibesell.ENOTFOUND {
				t.Fatalf("err = %v, want not found", err)
			}
		})
	}
}

func TestListPagesNewestFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	var ids []string
	for i := range 5 {
		e.clock.Advance(time.Second)
		ids = append(ids, e.open(t, e.a.ID, "item"+string(rune('a'+i)), true).ID)
	}
	if _, _, err := e.svc.Decide(ctx, e.a.ID, ids[1], conversation); err != nil {
		t.Fatal(err)
	}
	var got []string
	cursor := ""
	for {
		p, err := e.svc.List(ctx, e.a.ID, approvals.ListOptions{Limit: 2, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range p.Approvals {
			got = append(got, a.ID)
		}
		if p.Next == "" {
			break
		}
		cursor = p.Next
	}
	if want := []string{ids[4], ids[3], ids[2], ids[0]}; !slices.Equal(got, want) {
		t.Fatalf("open approvals %v, want %v", got, want)
	}
	past, _ := e.svc.List(ctx, e.a.ID, approvals.ListOptions{Filter: approvals.Past})
	if len(past.Approvals) != 1 || past.Approvals[0].ID != ids[1] {
		t.Fatalf("past: %v", past.Approvals)
	}
	if _, err := e.svc.List(ctx, e.a.ID, approvals.ListOptions{Cursor: "bogus"}); vibesell.ErrorCode(err) != vibesell.EINVALID {
		t.Fatalf("bad cursor: %v", err)
	}
}

// Current reads one approval whatever its status, expiring it first as a
// list does, and only in its own workspace.
func TestCurrentReadsOneApprovalAsItStandsNow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	decided := e.open(t, e.a.ID, "anvil", true)
	if _, _, err := e.svc.Decide(ctx, e.a.ID, decided.ID, conversation); err != nil {
		t.Fatal(err)
	}
	a, err := e.svc.Current(ctx, e.a.ID, decided.ID)
	if err != nil {
		t.Fatalf("current of a rejected approval: %v", err)
	}
	if a.ID != decided.ID || a.Status != approvals.Rejected {
		t.Fatalf("current of %s: %s, %s; want %s, rejected", decided.ID, a.ID, a.Status, decided.ID)
	}

	due := e.open(t, e.a.ID, "rocket", true)
	e.clock.Advance(time.Hour)
	// Another workspace reads it as not found, and does not expire it.
	for _, id := range []string{due.ID, decided.ID, "ap_0123456789abcdef", "ap_zz"} {
		t.Run("another workspace's current of "+id, func(t *testing.T) {
			if _, err := e.svc.Current(ctx, e.b.ID, id); vibesell.ErrorCode(err) != vibesell.ENOTFOUND {
				t.Fatalf("err = %v, want not found", err)
			}
		})
	}
	if a, _ := e.svc.Find(ctx, e.a.ID, due.ID); a.Status != approvals.Pending {
		t.Fatalf("another workspace's read (or find) changed it: %s", a.Status)
	}
	a, err = e.svc.Current(ctx, e.a.ID, due.ID)
	if err != nil {
		t.Fatalf("current of an approval past its expiry: %v", err)
	}
	if a.Status != approvals.NotDone || a.Outcome == nil || !strings.Contains(*a.Outcome, "expired") {
		t.Fatalf("current of an approval past its expiry: %s, outcome %q; want not_done, saying it expired", a.Status, outcomeOf(a))
	}
	if got := e.events(t, e.a.ID, due.ID); got[len(got)-1] != "expired:pending>not_done@system" {
		t.Fatalf("audit trail: %v", got)
	}
}

// A client that keeps trying to approve from the wrong place must not grow
// the trail (and the web page) without bound; every attempt still counts.
func TestRefusedApprovalsKeepTheTrailShort(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	ap := e.open(t, e.a.ID, "anvil", false)
	const attempts = 200
	for i := range attempts {
		// A refused approve is always the assistant's; the same place
		// retrying adds to one line, another place starts its own.
		d := approvals.Decision{Approve: true, By: "the person", Via: approvals.ViaCard}
		if i < 10 {
			d.Via = approvals.ViaConversation
		} else {
			d.Token = e.token(t, ap)
		}
		if _, _, err := e.svc.Decide(ctx, e.a.ID, ap.ID, d); vibesell.ErrorCode(err) != vibesell.EINVALID {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	evs, err := e.svc.Events(ctx, e.a.ID, ap.ID)
	if err != nil {
		t.Fatal(err)
	}
	var counted []int
	total := 0
	for _, ev := range evs {
		if ev.Event == "approve_refused" {
			counted = append(counted, ev.Repeats)
			total += ev.Repeats
		}
	}
	if len(counted) > 5 || total != attempts {
		t.Errorf("%d refused attempts made %d lines counting %v; want at most 5 lines counting every attempt", attempts, len(counted), counted)
	}
	if first := evs[1]; first.Repeats != 10 || first.Actor != "the assistant" || first.LastAt == nil || first.LastAt.Before(first.At) {
		t.Errorf("the first line: %d repeats by %s, last at %v; want the 10 attempts of the assistant", first.Repeats, first.Actor, first.LastAt)
	}
}

// outcomeOf is the approval's outcome, "" when it has none.
func outcomeOf(a approvals.Approval) string {
	if a.Outcome == nil {
		return ""
	}
	return *a.Outcome
}
