package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
	"vibesell/sending"
	"vibesell/store/storetest"
	"vibesell/toolkit/toolkittest"
	"vibesell/web"
	"vibesell/workspace"
)

// approvalFixture is the sending fixture plus approvals, the web app on
// 127.0.0.1 (where appUrl points) and a person who can sign in to it.
type approvalFixture struct {
	*sendingFixture
	approvals *approvals.Service
	accounts  *auth.Accounts
	web       *httptest.Server
	c         *toolkittest.Client // acts for ws, with the approval tools
	executed  chan string         // test_action executions
}

const approvalPassword = "correct horse battery staple"

func newApprovalFixture(t *testing.T) *approvalFixture {
	t.Helper()
	f := &approvalFixture{sendingFixture: newSendingFixture(t, nil), executed: make(chan string, 10)}
	f.avail.all = true
	var h http.Handler
	f.web = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(f.web.Close)
	logger := slog.New(slog.DiscardHandler)
	var err error
	f.approvals, err = approvals.NewService(f.pool, approvals.Config{PublicURL: f.web.URL, Clock: f.clock, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	f.sendingFixture.approvals = f.approvals
	f.svc = f.service(f.pool)
	f.approvals.Register(vibesell.ToolOrderSendingSetup, sending.NewOrderAction(f.svc))
	f.approvals.Register("test_action", approvals.ExecutorFuncs{ExecuteFunc: func(ctx context.Context, ex approvals.Execution) (string, error) {
		f.executed <- ex.Approval.ID
		return "Did the test action.", nil
	}})
	f.accounts = auth.NewAccounts(f.pool, nil)
	if _, err := f.accounts.CreateUser(context.Background(), auth.NewUser{WorkspaceID: f.ws.ID, Email: "ada@acme.test", Password: approvalPassword}); err != nil {
		t.Fatal(err)
	}
	if h, err = web.New(web.Config{PublicURL: f.web.URL, Accounts: f.accounts, Approvals: f.approvals, Logger: logger}); err != nil {
		t.Fatal(err)
	}
	f.c = f.approvalClient(f.ws)
	return f
}

func (f *approvalFixture) approvalClient(ws workspace.Workspace) *toolkittest.Client {
	d := Deps{Clock: f.clock, Workspaces: f.workspaces, Sending: f.svc, Approvals: f.approvals}
	return toolkittest.Connect(f.t, NewServer(d, nil), auth.Principal{WorkspaceID: ws.ID, WorkspaceSlug: ws.Slug})
}

// startWorkers runs the approvals' River workers until the test ends.
func (f *approvalFixture) startWorkers() {
	f.t.Helper()
	workers := river.NewWorkers()
	storetest.StartRiver(f.t, f.pool, &river.Config{Workers: workers, PeriodicJobs: approvals.AddWorkers(workers, f.approvals)})
}

// planSetup walks the sending setup up to the order, as the person would:
// own names, 90 emails a day (3 mailboxes on 1 domain), getacme.com, and
// first-name addresses for Ada Lovelace.
func (f *approvalFixture) planSetup(c *toolkittest.Client) {
	f.t.Helper()
	f.saveOffer(f.ws, "acme.com")
	var q sendingChoiceOutput
	c.Result("choose_sending_source", map[string]any{}, &q)
	c.Result("choose_sending_source", map[string]any{"answers": []any{ans(*q.Card, "own_names")}}, &q)
	c.Result("confirm_sizing", map[string]any{"dailyVolume": 90}, nil)
	c.Result("propose_domains", map[string]any{}, &q)
	c.Result("propose_domains", map[string]any{"answers": []any{ans(*q.Card, "getacme.com")}}, &q)
	names := map[string]any{"senderNames": []string{"Ada Lovelace"}}
	var e emailStepOutput
	c.Result("propose_email", names, &e)
	c.Result("propose_email", withAnswers(names, ans(*e.Card, "first_name")), &e)
	if e.Kind != "email_step" || len(e.Addresses) != 3 {
		f.t.Fatalf("planned addresses: %+v", e)
	}
}

func TestOrderSendingSetupListsEveryMissingStep(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t)
	msg := f.c.Refusal("order_sending_setup", nil)
	mustContain(t, msg, "cannot be ordered yet", "no sending source is chosen (call choose_sending_source)",
		"no sizing is confirmed (call size_sending_capacity", "no domains are picked (call propose_domains or propose_warmed_domains)")
	if strings.Count(msg, "There is nothing to order") != 0 {
		t.Errorf("the refusal repeats itself:\n%s", msg)
	}

	// Domains picked but no addresses and no sizing: both are listed.
	var q sendingChoiceOutput
	f.c.Result("propose_domains", map[string]any{"companyDomain": "acme.com"}, &q)
	f.c.Result("propose_domains", map[string]any{"companyDomain": "acme.com", "answers": []any{ans(*q.Card, "getacme.com")}}, &q)
	msg = f.c.Refusal("order_sending_setup", nil)
	mustContain(t, msg, "no sending source is chosen", "no sizing is confirmed", "getacme.com has no addresses yet (call propose_email)")
	if strings.Count(msg, "getacme.com has no addresses") != 1 {
		t.Errorf("a blocker is listed twice:\n%s", msg)
	}
}

// The whole path of the issue: order_sending_setup opens a paid approval;
// the conversation cannot approve it; a signed-in person approves it in
// the web app at its appUrl; it is ordered once; get_sending_setup shows
// the domain and addresses in preparation.
func TestOrderSendingSetupIsApprovedInTheWebAppAndDone(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t)
	f.startWorkers()
	f.planSetup(f.c)

	var ap approvalOutput
	md := f.c.Result("order_sending_setup", nil, &ap)
	if ap.Kind != "approval" || ap.Status != "pending" || ap.DecideHere || !ap.Irreversible || ap.Action != "order_sending_setup" ||
		ap.AppURL != f.web.URL+"/app/approvals/"+ap.Approval || ap.DecidedBy != nil || ap.Outcome != nil {
		t.Fatalf("order approval: %+v", ap)
	}
	wantItems := []string{
		"getacme.com: new domain, registered for the workspace, USD 15.00 per year",
		"ada@getacme.com: mailbox, signed Ada Lovelace, USD 5.00 per month",
		"ada.lovelace@getacme.com: mailbox, signed Ada Lovelace, USD 5.00 per month",
	}
	for _, w := range wantItems {
		if !strings.Contains(strings.Join(ap.Impact.Items, "\n"), w) {
			t.Errorf("impact items lack %q: %v", w, ap.Impact.Items)
		}
	}
	if ap.Impact.CostOnce != (moneyData{"15.00", "USD"}) || ap.Impact.CostMonthly != (moneyData{"15.00", "USD"}) ||
		!strings.Contains(ap.Impact.When, "Ready on Tue 8 Dec 2026") || !strings.Contains(ap.Impact.When, "Tue 29 Dec 2026") ||
		!strings.Contains(ap.Impact.Renewal, "would renew the domains every year") || !strings.Contains(ap.Impact.What, "sandbox") {
		t.Fatalf("impact: %+v", ap.Impact)
	}
	mustContain(t, md, "Nothing is ordered yet", ap.AppURL, "Do not call decide_approval to approve it", "USD 15.00 once, then USD 15.00 per month")

	// Asking again returns the same approval.
	var again approvalOutput
	mustContain(t, f.c.Result("order_sending_setup", nil, &again), "already waiting for a decision")
	if again.Approval != ap.Approval {
		t.Fatalf("a second approval %s for the same order", again.Approval)
	}
	// The conversation cannot approve it, and says where to go.
	mustContain(t, f.c.Refusal("decide_approval", map[string]any{"approval": ap.Approval, "decision": "approve"}),
		"only be approved by a signed-in person in the web app", ap.AppURL, "can still be rejected here")
	mustContain(t, f.c.Refusal("decide_approval", map[string]any{"approval": ap.Approval, "decision": "approve", "via": "card"}), ap.AppURL)

	// The person opens appUrl, signs in, ticks "I understand" and approves.
	b := newWebClient(t, f.web.URL)
	page := b.get(ap.AppURL)
	if page.status != http.StatusSeeOther || !strings.HasPrefix(page.location, "/app/sign-in?next=") {
		t.Fatalf("appUrl signed out: %d %s", page.status, page.location)
	}
	b.signIn("ada@acme.test", page.location)
	page = b.get(ap.AppURL)
	mustContain(t, page.body, "Order the sending setup: 1 domain and 3 mailboxes", "ada.lovelace@getacme.com", "USD 15.00", "This cannot be undone.")
	r := b.post(ap.AppURL+"/approve", url.Values{"csrf": {page.csrf(t)}, "confirm": {"yes"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("approve in the web app: %d\n%s", r.status, r.body)
	}
	done, err := f.approvals.Wait(context.Background(), f.ws.ID, ap.Approval, 30*time.Second)
	if err != nil || done.Status != approvals.Done {
		t.Fatalf("after approving: %s %v %v", done.Status, done.Outcome, err)
	}
	mustContain(t, *done.Outcome, "Ordered from the sandbox provider: getacme.com, with 3 mailboxes", "ready on Tue 8 Dec 2026", "nothing real")

	var setup sendingSetupOutput
	f.c.Result("get_sending_setup", nil, &setup)
	if setup.Domains[0].Status != "preparing" || len(setup.Mailboxes) != 3 || setup.Mailboxes[0].Status != "preparing" {
		t.Fatalf("setup after the order: %+v", setup)
	}

	// The conversation sees the outcome, and a late decision is not taken.
	var list approvalsOutput
	f.c.Result("list_pending_approvals", map[string]any{"includeDecided": true}, &list)
	if len(list.Approvals) != 1 || list.Approvals[0].Status != "done" || *list.Approvals[0].DecidedVia != "web" ||
		*list.Approvals[0].DecidedBy != "ada@acme.test" || list.NextCursor != nil {
		t.Fatalf("list: %+v", list)
	}
	var late approvalOutput
	mustContain(t, f.c.Result("decide_approval", map[string]any{"approval": ap.Approval, "decision": "reject"}, &late),
		"Not recorded: this approval was already decided (approved by ada@acme.test")
	if late.Status != "done" {
		t.Fatalf("a late rejection changed it: %s", late.Status)
	}
	// Everything is ordered now: another order is refused.
	mustContain(t, f.c.Refusal("order_sending_setup", nil), "already ordered", "get_sending_setup")
}

func TestOrderSendingSetupIsRejectedThroughDecideApproval(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t)
	f.startWorkers()
	f.planSetup(f.c)
	var ap approvalOutput
	f.c.Result("order_sending_setup", nil, &ap)

	// Another workspace cannot see or decide it.
	other := f.approvalClient(f.other)
	mustContain(t, other.Refusal("decide_approval", map[string]any{"approval": ap.Approval, "decision": "reject"}), "There is no approval "+ap.Approval)
	var list approvalsOutput
	other.Result("list_pending_approvals", nil, &list)
	if len(list.Approvals) != 0 {
		t.Fatalf("another workspace lists %d approvals", len(list.Approvals))
	}

	var r approvalOutput
	md := f.c.Result("decide_approval", map[string]any{"approval": ap.Approval, "decision": "reject", "reason": "Too expensive for now"}, &r)
	if r.Status != "rejected" || *r.Reason != "Too expensive for now" || *r.DecidedVia != "conversation" || r.DecidedAt == nil ||
		!strings.Contains(*r.DecidedBy, "workspace acme-sales") || !strings.Contains(*r.Outcome, "Too expensive for now") {
		t.Fatalf("rejected: %+v", r)
	}
	mustContain(t, md, "Rejected and recorded. Nothing will be done.")

	var setup sendingSetupOutput
	f.c.Result("get_sending_setup", nil, &setup)
	if setup.Domains[0].Status != "chosen" || setup.Mailboxes[0].Status != "planned" {
		t.Fatalf("a rejected order was placed: %+v", setup)
	}
	// The same order can be asked for again: a new approval.
	var next approvalOutput
	f.c.Result("order_sending_setup", nil, &next)
	if next.Approval == ap.Approval || next.Status != "pending" {
		t.Fatalf("after a rejection: %+v", next)
	}
}

// The picks change after the order was approved but before it runs: the
// person paid for what they approved or for nothing.
func TestAnApprovedOrderIsNotPlacedWhenThePlanChanged(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t)
	f.planSetup(f.c)
	var ap approvalOutput
	f.c.Result("order_sending_setup", nil, &ap)
	user := auth.User{}
	if _, _, err := f.approvals.Decide(context.Background(), f.ws.ID, ap.Approval, approvals.Decision{
		Approve: true, By: "ada@acme.test", ByUser: &user.ID, Via: approvals.ViaWeb,
	}); err != nil {
		t.Fatal(err)
	}
	// Other addresses are planned before the workers run.
	names := map[string]any{"senderNames": []string{"Grace Hopper"}}
	var e emailStepOutput
	f.c.Result("propose_email", names, &e)
	f.c.Result("propose_email", withAnswers(names, ans(*e.Card, "first_name")), &e)

	f.startWorkers()
	a, err := f.approvals.Wait(context.Background(), f.ws.ID, ap.Approval, 30*time.Second)
	if err != nil || a.Status != approvals.NotDone || !strings.Contains(*a.Outcome, "the sending setup changed after this was approved") {
		t.Fatalf("after the change: %s %v %v", a.Status, a.Outcome, err)
	}
	var setup sendingSetupOutput
	f.c.Result("get_sending_setup", nil, &setup)
	if setup.Domains[0].Status != "chosen" {
		t.Fatal("the changed plan was ordered")
	}
}

// A pending order whose plan changed is replaced by a new approval.
func TestOrderApprovalIsReplacedWhenThePlanChanges(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t)
	f.planSetup(f.c)
	var first, second approvalOutput
	f.c.Result("order_sending_setup", nil, &first)
	f.clock.Set(f.clock.Now().Add(time.Minute))
	names := map[string]any{"senderNames": []string{"Grace Hopper"}}
	var e emailStepOutput
	f.c.Result("propose_email", names, &e)
	f.c.Result("propose_email", withAnswers(names, ans(*e.Card, "full_name")), &e)
	f.c.Result("order_sending_setup", nil, &second)
	if second.Approval == first.Approval || !strings.Contains(strings.Join(second.Impact.Items, " "), "grace.hopper@getacme.com") {
		t.Fatalf("after the change: %+v", second)
	}
	var list approvalsOutput
	md := f.c.Result("list_pending_approvals", map[string]any{"includeDecided": true}, &list)
	if len(list.Approvals) != 2 || list.Approvals[0].Approval != second.Approval || list.Approvals[1].Status != "not_done" ||
		!strings.Contains(*list.Approvals[1].Outcome, "replaced by "+second.Approval) {
		t.Fatalf("list: %+v", list)
	}
	mustContain(t, md, second.Approval, "Only a signed-in person can approve it")
}

// An action the person may decide in the conversation: approved through
// decide_approval (from the card), carried out, and reported done.
func TestDecideApprovalInTheConversation(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t)
	f.startWorkers()
	a, _, err := f.approvals.Open(context.Background(), approvals.Request{
		WorkspaceID: f.ws.ID, Action: "test_action", Arguments: map[string]any{"campaign": "spring"},
		Summary: "Pause campaign Spring",
		Impact: approvals.Impact{What: "Stops sending campaign Spring.", Items: []string{"Spring"}, Who: "42 leads stop receiving emails.",
			When: "At once.", CostOnce: vibesell.NewMoney(0, "USD"), CostMonthly: vibesell.NewMoney(0, "USD"),
			Renewal: "Nothing renews.", Undo: "Resume it at any time with resume_campaign."},
		DecideHere: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	var list approvalsOutput
	md := f.c.Result("list_pending_approvals", nil, &list)
	if len(list.Approvals) != 1 || list.Approvals[0].Approval != a.ID || list.Approvals[0].Impact.CostOnce.Amount != "0.00" {
		t.Fatalf("pending: %+v", list)
	}
	mustContain(t, md, a.ID, "Pause campaign Spring", "decide_approval")

	mustContain(t, f.c.Refusal("decide_approval", map[string]any{"approval": a.ID, "decision": "maybe"}), `"decision"`, "approve", "reject")
	mustContain(t, f.c.Refusal("decide_approval", map[string]any{"approval": "ap_123", "decision": "approve"}), `"approval"`)

	var out approvalOutput
	md = f.c.Result("decide_approval", map[string]any{"approval": a.ID, "decision": "approve", "via": "card"}, &out)
	if out.Status != "done" || *out.Outcome != "Did the test action." || *out.DecidedVia != "card" || out.Reason != nil ||
		out.StartedAt == nil || out.FinishedAt == nil {
		t.Fatalf("approved: %+v", out)
	}
	mustContain(t, md, "Approved and recorded.", "done: Did the test action.")
	if got := <-f.executed; got != a.ID {
		t.Fatalf("executed %s", got)
	}
	f.c.Result("list_pending_approvals", nil, &list)
	if len(list.Approvals) != 0 {
		t.Fatalf("a done approval is still listed as pending: %+v", list)
	}
	// Deciding again is not taken and does not run it again.
	mustContain(t, f.c.Result("decide_approval", map[string]any{"approval": a.ID, "decision": "approve"}, &out), "Not recorded")
	select {
	case id := <-f.executed:
		t.Fatalf("executed twice: %s", id)
	case <-time.After(300 * time.Millisecond):
	}
}

func TestApprovalToolsAnnotationsAndPaging(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t)
	for tool, want := range map[string]string{
		"decide_approval":        `"readOnlyHint":false,"destructiveHint":true,"idempotentHint":true,"openWorldHint":true`,
		"list_pending_approvals": `"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false`,
		"order_sending_setup":    `"readOnlyHint":false,"destructiveHint":false,"idempotentHint":true,"openWorldHint":true`,
	} {
		var def struct {
			Annotations map[string]any `json:"annotations"`
		}
		if err := json.Unmarshal(f.c.Tool(tool), &def); err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(map[string]any{"readOnlyHint": def.Annotations["readOnlyHint"], "destructiveHint": def.Annotations["destructiveHint"],
			"idempotentHint": def.Annotations["idempotentHint"], "openWorldHint": def.Annotations["openWorldHint"]})
		// json.Marshal sorts keys; compare as sets of pairs.
		for _, pair := range strings.Split(want, ",") {
			if !strings.Contains(string(got), pair) {
				t.Errorf("%s annotations %s lack %s", tool, got, pair)
			}
		}
	}
	for i := range 3 {
		if _, _, err := f.approvals.Open(context.Background(), approvals.Request{
			WorkspaceID: f.ws.ID, Action: "test_action", Arguments: map[string]any{"n": i}, Summary: "Thing " + string(rune('A'+i)),
			Impact: approvals.Impact{What: "x", Who: "x", When: "x", Renewal: "x", Undo: "x",
				CostOnce: vibesell.NewMoney(0, "USD"), CostMonthly: vibesell.NewMoney(0, "USD")},
			DecideHere: true,
		}); err != nil {
			t.Fatal(err)
		}
		f.clock.Set(f.clock.Now().Add(time.Second))
	}
	var page approvalsOutput
	md := f.c.Result("list_pending_approvals", map[string]any{"limit": 2}, &page)
	if len(page.Approvals) != 2 || page.Approvals[0].Summary != "Thing C" || page.NextCursor == nil {
		t.Fatalf("first page: %+v", page)
	}
	mustContain(t, md, "cursor")
	f.c.Result("list_pending_approvals", map[string]any{"limit": 2, "cursor": *page.NextCursor}, &page)
	if len(page.Approvals) != 1 || page.Approvals[0].Summary != "Thing A" || page.NextCursor != nil {
		t.Fatalf("second page: %+v", page)
	}
	mustContain(t, f.c.Refusal("list_pending_approvals", map[string]any{"cursor": "nonsense"}), "not one this list gave")
	_ = vibesell.EINVALID
}

// list_pending_approvals with an approval id reads exactly that approval,
// however old and whatever its status, and only in its own workspace: what
// the card re-reads when it is shown again.
func TestListPendingApprovalsReadsOneApprovalByID(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t)
	ctx := context.Background()
	open := func(n int, ttl time.Duration) approvals.Approval {
		t.Helper()
		a, created, err := f.approvals.Open(ctx, approvals.Request{
			WorkspaceID: f.ws.ID, Action: "test_action", Arguments: map[string]any{"n": n}, Summary: fmt.Sprintf("Thing %d", n),
			Impact: approvals.Impact{What: "x", Who: "x", When: "x", Renewal: "x", Undo: "x",
				CostOnce: vibesell.NewMoney(0, "USD"), CostMonthly: vibesell.NewMoney(0, "USD")},
			DecideHere: true, TTL: ttl,
		})
		if err != nil || !created {
			t.Fatalf("open %d: %v (created %v)", n, err, created)
		}
		f.clock.Set(f.clock.Now().Add(time.Second))
		return a
	}
	// The oldest is rejected; 50 newer ones fill the largest first page.
	old := open(0, 0)
	if _, _, err := f.approvals.Decide(ctx, f.ws.ID, old.ID, approvals.Decision{Via: approvals.ViaConversation, By: "Ada", Reason: "Not now"}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 50; i++ {
		open(i, 0)
	}
	var page approvalsOutput
	f.c.Result("list_pending_approvals", map[string]any{"includeDecided": true, "limit": 50}, &page)
	if len(page.Approvals) != 50 || page.NextCursor == nil || slices.ContainsFunc(page.Approvals, func(a approvalData) bool { return a.Approval == old.ID }) {
		t.Fatalf("the first page of 50 should not reach the oldest approval: %d listed, next %v", len(page.Approvals), page.NextCursor)
	}

	// Without includeDecided, too: an id reads whatever the status.
	for _, args := range []map[string]any{
		{"approval": old.ID},
		{"approval": old.ID, "includeDecided": false, "limit": 1},
	} {
		var one approvalsOutput
		md := f.c.Result("list_pending_approvals", args, &one)
		if one.Kind != "approvals" || len(one.Approvals) != 1 || one.NextCursor != nil {
			t.Fatalf("read %v: %+v", args, one)
		}
		a := one.Approvals[0]
		if a.Approval != old.ID || a.Status != "rejected" || a.Summary != "Thing 0" || a.DecidedBy == nil || *a.DecidedBy != "Ada" ||
			a.Reason == nil || *a.Reason != "Not now" || a.DecidedAt == nil || a.FinishedAt == nil {
			t.Fatalf("read %v: %+v", args, a)
		}
		mustContain(t, md, old.ID, "Thing 0", "rejected")
	}

	// A pending one past its expiry reads as not done (expired), as in the list.
	due := open(51, time.Hour)
	f.clock.Set(f.clock.Now().Add(time.Hour))
	var one approvalsOutput
	f.c.Result("list_pending_approvals", map[string]any{"approval": due.ID}, &one)
	if len(one.Approvals) != 1 || one.Approvals[0].Status != "not_done" || one.Approvals[0].Outcome == nil || !strings.Contains(*one.Approvals[0].Outcome, "expired") {
		t.Fatalf("read of an expired approval: %+v", one)
	}

	// Another workspace's id, and an id no approval has, are not found.
	other := f.approvalClient(f.other)
	mustContain(t, other.Refusal("list_pending_approvals", map[string]any{"approval": old.ID}), "There is no approval "+old.ID+" in this workspace")
	mustContain(t, f.c.Refusal("list_pending_approvals", map[string]any{"approval": "ap_0123456789abcdef"}), "There is no approval ap_0123456789abcdef in this workspace")
	// Not an id at all: the argument is refused by its schema.
	mustContain(t, f.c.Refusal("list_pending_approvals", map[string]any{"approval": "ap_123"}), `"approval"`)
	// One approval has no pages.
	mustContain(t, f.c.Refusal("list_pending_approvals", map[string]any{"approval": old.ID, "cursor": *page.NextCursor}), "leave cursor out")

	// Paging without an id is as before: the oldest is on the next page.
	f.c.Result("list_pending_approvals", map[string]any{"includeDecided": true, "limit": 50, "cursor": *page.NextCursor}, &page)
	if len(page.Approvals) != 1 || page.Approvals[0].Approval != old.ID || page.NextCursor != nil {
		t.Fatalf("second page: %+v", page)
	}
}

// webClient is a cookie-keeping HTTP client that sends the Origin a
// browser would and does not follow redirects.
type webClient struct {
	t      *testing.T
	base   string
	client *http.Client
}

type webPage struct {
	status   int
	body     string
	location string
}

var csrfInput = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func (p webPage) csrf(t *testing.T) string {
	t.Helper()
	m := csrfInput.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no csrf field:\n%s", p.body)
	}
	return html.UnescapeString(m[1])
}

func newWebClient(t *testing.T, base string) *webClient {
	jar, _ := cookiejar.New(nil)
	return &webClient{t: t, base: base, client: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *webClient) do(req *http.Request) webPage {
	b.t.Helper()
	res, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return webPage{status: res.StatusCode, body: string(body), location: res.Header.Get("Location")}
}

func (b *webClient) get(u string) webPage {
	if strings.HasPrefix(u, "/") {
		u = b.base + u
	}
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	return b.do(req)
}

func (b *webClient) post(u string, form url.Values) webPage {
	if strings.HasPrefix(u, "/") {
		u = b.base + u
	}
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.base)
	return b.do(req)
}

func (b *webClient) signIn(email, signInPath string) {
	b.t.Helper()
	form := b.get(signInPath)
	next := regexp.MustCompile(`name="next" value="([^"]+)"`).FindStringSubmatch(form.body)
	r := b.post("/app/sign-in", url.Values{"csrf": {form.csrf(b.t)}, "email": {email}, "password": {approvalPassword}, "next": {html.UnescapeString(next[1])}})
	if r.status != http.StatusSeeOther {
		b.t.Fatalf("sign in: %d\n%s", r.status, r.body)
	}
}
