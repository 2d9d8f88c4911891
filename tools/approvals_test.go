package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/google/uuid"
	"github.com/mark3labs/mcp-go/mcp"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
	"vibesell/proof"
	"vibesell/toolkit/toolkittest"
	"vibesell/workspace"
)

// approvalFixture is the sending fixture with the approval tools. A decision
// relayed by decide_approval does not wait for its outcome here: the test
// carries the execution out itself (approvalstest), as a worker would.
type approvalFixture struct {
	*sendingFixture
	c        *toolkittest.Client // acts for ws, with the approval tools
	executed atomic.Int32        // test_action executions
}

// appURL is where the approvals' web app pages are said to be.
const appURL = "https://vibesell.example.test"

func newApprovalFixture(t *testing.T) *approvalFixture {
	t.Helper()
	f := &approvalFixture{sendingFixture: newSendingFixture(t, nil)}
	f.avail.all = true
	f.approvals.Register("test_action", approvals.ExecutorFuncs{ExecuteFunc: func(ctx context.Context, ex approvals.Execution) (string, error) {
		f.executed.Add(1)
		return "Did the test action.", nil
	}})
	f.c = f.approvalClient(f.ws)
	return f
}

func (f *approvalFixture) approvalClient(ws workspace.Workspace) *toolkittest.Client {
	d := Deps{Workspaces: f.workspaces, Sending: f.svc, Approvals: f.approvals, Cards: f.cards}
	return toolkittest.Connect(f.t, NewServer(d, nil), auth.Principal{WorkspaceID: ws.ID, WorkspaceSlug: ws.Slug})
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
		f.t.Fatalf("planned: a %s with %d addresses, want an email_step with 3", e.Kind, len(e.Addresses))
	}
}

func TestOrderSendingSetupListsEveryMissingStep(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t)
	msg := f.c.Refusal("order_sending_setup", nil)
	mustContain(t, msg, "cannot be ordered yet", "no sending source is chosen", "Call choose_sending_source.",
		"no sizing is confirmed", "Call size_sending_capacity.", "no domains are picked", "Call propose_domains.", "Call propose_warmed_domains.")
	if strings.Count(msg, "There is nothing to order") != 0 {
		t.Errorf("the refusal repeats itself:\n%s", msg)
	}

	// Domains picked but no addresses and no sizing: both are listed.
	var q sendingChoiceOutput
	f.c.Result("propose_domains", map[string]any{"companyDomain": "acme.com"}, &q)
	f.c.Result("propose_domains", map[string]any{"companyDomain": "acme.com", "answers": []any{ans(*q.Card, "getacme.com")}}, &q)
	msg = f.c.Refusal("order_sending_setup", nil)
	mustContain(t, msg, "no sending source is chosen", "no sizing is confirmed", "getacme.com has no addresses yet", "Call propose_email.")
	if strings.Count(msg, "getacme.com has no addresses") != 1 {
		t.Errorf("a blocker is listed twice:\n%s", msg)
	}
}

func TestOrderSendingSetupIsRejectedThroughDecideApproval(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t)
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
	// The outcome quotes the reason.
	want := decided{Status: "rejected", DecidedBy: approvals.ActorPerson, DecidedVia: "conversation"}
	if d := cmp.Diff(want, decidedOf(r.approvalData), cmpopts.IgnoreFields(decided{}, "Outcome")); d != "" {
		t.Fatalf("rejected mismatch (-want +got):\n%s", d)
	}
	if textOf(r.Reason) != "Too expensive for now" || r.DecidedAt == nil || !strings.Contains(textOf(r.Outcome), "Too expensive for now") {
		t.Fatalf("rejected for %q (time recorded %v), outcome %q; want the reason, the time and the outcome quoting it", textOf(r.Reason), r.DecidedAt != nil, textOf(r.Outcome))
	}
	mustContain(t, md, "Rejected and recorded. Nothing will be done.")

	var setup sendingSetupOutput
	f.c.Result("get_sending_setup", nil, &setup)
	if d := cmp.Diff(setupStatuses{Domains: []string{"chosen"}, Mailboxes: []string{"planned", "planned", "planned"}}, statusesOf(setup)); d != "" {
		t.Fatalf("a rejected order was placed: mismatch (-want +got):\n%s", d)
	}
	// The same order can be asked for again: a new approval.
	var next approvalOutput
	f.c.Result("order_sending_setup", nil, &next)
	if next.Approval == ap.Approval || next.Status != "pending" {
		t.Fatalf("after a rejection, asked again: %s, %s; want a new approval, not %s, pending", next.Approval, next.Status, ap.Approval)
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

	if a := f.execute(ap.Approval); a.Status != approvals.NotDone || !strings.Contains(*a.Outcome, "the sending setup changed after this was approved") {
		t.Fatalf("after the change: %s %v", a.Status, a.Outcome)
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
		t.Fatalf("after the change: %s ordering %q; want a new approval, not %s, ordering grace.hopper@getacme.com", second.Approval, second.Impact.Items, first.Approval)
	}
	var list approvalsOutput
	md := f.c.Result("list_pending_approvals", map[string]any{"includeDecided": true}, &list)
	type listed struct{ Approval, Status string }
	var got []listed
	for _, a := range list.Approvals {
		got = append(got, listed{a.Approval, a.Status})
	}
	if d := cmp.Diff([]listed{{second.Approval, "pending"}, {first.Approval, "not_done"}}, got); d != "" {
		t.Fatalf("list mismatch (-want +got):\n%s", d)
	}
	if outcome := textOf(list.Approvals[1].Outcome); !strings.Contains(outcome, "replaced by "+second.Approval) {
		t.Fatalf("the first's outcome %q does not say it was replaced by %s", outcome, second.Approval)
	}
	mustContain(t, md, second.Approval, "Only a signed-in person can approve it")
}

// openTestAction opens an approval of the test action in the fixture's
// workspace: decidable in the conversation, costing nothing.
func (f *approvalFixture) openTestAction(n int) approvals.Approval {
	f.t.Helper()
	a, created, err := f.approvals.Open(context.Background(), approvals.Request{
		WorkspaceID: f.ws.ID, Action: "test_action", Arguments: map[string]any{"n": n}, Summary: fmt.Sprintf("Pause campaign %d", n),
		Impact: approvals.Impact{What: "Stops sending the campaign.", Items: []string{"Spring"}, Who: "42 leads stop receiving emails.",
			When: "At once.", CostOnce: vibesell.NewMoney(0, "USD"), CostMonthly: vibesell.NewMoney(0, "USD"),
			Renewal: "Nothing renews.", Undo: "Resume it at any time."},
		DecideHere: true,
	})
	if err != nil || !created {
		f.t.Fatalf("open %d: %v (created %v)", n, err, created)
	}
	f.clock.Advance(time.Second)
	return a
}

// decided is what a test reads of an approval's decision and outcome.
type decided struct {
	Status     string
	DecidedBy  string
	DecidedVia string
	Outcome    string
}

func decidedOf(a approvalData) decided {
	return decided{Status: a.Status, DecidedBy: textOf(a.DecidedBy), DecidedVia: textOf(a.DecidedVia), Outcome: textOf(a.Outcome)}
}

// decide_approval records the person's decision as relayed, says what was
// recorded and what to do next; a late decision is not recorded.
func TestDecideApproval(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t)
	a := f.openTestAction(1)

	t.Run("approved, relayed by the assistant", func(t *testing.T) {
		// There is no saying otherwise: via is not an argument any more.
		mustContain(t, f.c.Refusal("decide_approval", map[string]any{"approval": a.ID, "decision": "approve", "via": "card"}), "via")
		var out approvalOutput
		md := f.c.Result("decide_approval", map[string]any{"approval": a.ID, "decision": "approve"}, &out)
		want := decided{Status: "approved", DecidedBy: "the person", DecidedVia: "conversation"}
		if diff := cmp.Diff(want, decidedOf(out.approvalData)); diff != "" {
			t.Errorf("decision (-want +got):\n%s", diff)
		}
		if out.DecidedHostApps == nil || *out.DecidedHostApps {
			t.Errorf("decidedHostApps %v: the test client declared no MCP Apps extension", out.DecidedHostApps)
		}
		mustContain(t, md, "Approved and recorded.", "approved by the person (relayed by the assistant)", "Nothing to do: it runs in the background")
	})
	t.Run("carried out, then read", func(t *testing.T) {
		f.execute(a.ID)
		var one approvalsOutput
		md := f.c.Result("list_pending_approvals", map[string]any{"approval": a.ID}, &one)
		want := decided{Status: "done", DecidedBy: "the person", DecidedVia: "conversation", Outcome: "Did the test action."}
		if diff := cmp.Diff(want, decidedOf(one.Approvals[0])); diff != "" {
			t.Errorf("after the execution (-want +got):\n%s", diff)
		}
		mustContain(t, md, "done: Did the test action.", "Tell the person it is done.")
	})
	t.Run("a late decision is a refusal", func(t *testing.T) {
		// Nothing was recorded: a refusal, with its code and the call that
		// reads the decision that stands (never a success saying no).
		res := f.c.Call("decide_approval", map[string]any{"approval": a.ID, "decision": "reject"})
		if !res.IsError || res.Meta == nil || res.Meta.AdditionalFields["vibesell/refusal"] != vibesell.ECONFLICT {
			t.Fatalf("a late decision: isError %v, meta %v; want a conflict refusal", res.IsError, res.Meta)
		}
		mustContain(t, toolkittest.TextOf(res), "Not recorded: approval "+a.ID+" was already approved by the person (the conversation, relayed by the assistant)",
			"it is done now", "Call list_pending_approvals with approval "+a.ID+".")
		if f.executed.Load() != 1 {
			t.Errorf("after a late decision: executed %d times", f.executed.Load())
		}
	})
	t.Run("refusals", func(t *testing.T) {
		mustContain(t, f.c.Refusal("decide_approval", map[string]any{"approval": a.ID, "decision": "maybe"}), `"decision"`, "approve", "reject")
		other := f.approvalClient(f.other)
		mustContain(t, other.Refusal("decide_approval", map[string]any{"approval": a.ID, "decision": "reject"}),
			"There is no approval "+a.ID+" in this workspace.", "Call list_pending_approvals.")
	})
}

// tokensOf returns the card's decision tokens a result carries in its
// _meta, after checking that neither its text nor its structuredContent
// holds any of them.
func tokensOf(t *testing.T, res *mcp.CallToolResult) map[string]string {
	t.Helper()
	tokens := map[string]string{}
	if res.Meta != nil {
		if m, ok := res.Meta.AdditionalFields[proof.MetaKey].(map[string]any); ok {
			for k, v := range m {
				tokens[k], _ = v.(string)
			}
		}
	}
	structured, _ := json.Marshal(res.StructuredContent)
	for _, tok := range tokens {
		if strings.Contains(toolkittest.TextOf(res), tok) || strings.Contains(string(structured), tok) {
			t.Errorf("a decision token is in what the model reads")
		}
	}
	return tokens
}

// decide_in_card is the card's own tool: listed for the app only, it
// decides with the token its result gave the card, once, over any session
// of the workspace; decisions through it are recorded as clicked.
func TestDecideInCard(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t)

	t.Run("listed for the app only", func(t *testing.T) {
		var def struct {
			Meta struct {
				UI struct {
					Visibility []string `json:"visibility"`
				} `json:"ui"`
			} `json:"_meta"`
		}
		if err := json.Unmarshal(f.c.Tool("decide_in_card"), &def); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"app"}, def.Meta.UI.Visibility); diff != "" {
			t.Errorf("visibility (-want +got):\n%s", diff)
		}
		var model struct {
			Meta struct {
				UI map[string]any `json:"ui"`
			} `json:"_meta"`
		}
		if err := json.Unmarshal(f.c.Tool("decide_approval"), &model); err != nil || model.Meta.UI["visibility"] != nil {
			t.Errorf("decide_approval's ui %v, want the default visibility (model and app)", model.Meta.UI)
		}
	})

	a := f.openTestAction(1)
	res := f.c.Call("list_pending_approvals", map[string]any{"approval": a.ID})
	tokens := tokensOf(t, res)
	if tokens[a.ID] == "" {
		t.Fatalf("no token for %s in the result's _meta: %v", a.ID, res.Meta)
	}

	t.Run("refused without a token", func(t *testing.T) {
		mustContain(t, f.c.Refusal("decide_in_card", map[string]any{"approval": a.ID, "decision": "approve"}), "token")
		mustContain(t, f.c.Refusal("decide_in_card", map[string]any{"approval": a.ID, "decision": "approve", "token": "vsd_made-up"}), "out of date")
	})
	t.Run("another workspace cannot use it", func(t *testing.T) {
		other := f.approvalClient(f.other)
		other.Refusal("decide_in_card", map[string]any{"approval": a.ID, "decision": "approve", "token": tokens[a.ID]})
	})
	t.Run("clicked, over another session of the workspace", func(t *testing.T) {
		card := f.approvalClient(f.ws) // a host sends the card's calls over a session of its own
		var out cardDecisionOutput
		md := card.Result("decide_in_card", map[string]any{"approval": a.ID, "decision": "approve", "token": tokens[a.ID]}, &out)
		if out.Approval == nil {
			t.Fatalf("no approval in the %s result:\n%s", out.Kind, md)
		}
		want := decided{Status: "approved", DecidedBy: "the person", DecidedVia: "card"}
		if diff := cmp.Diff(want, decidedOf(*out.Approval)); diff != "" {
			t.Errorf("decision (-want +got):\n%s", diff)
		}
		mustContain(t, md, "approved it with a click in the card")
	})
	t.Run("used once", func(t *testing.T) {
		mustContain(t, f.c.Refusal("decide_in_card", map[string]any{"approval": a.ID, "decision": "reject", "token": tokens[a.ID]}), "out of date")
	})
	t.Run("a decided approval carries no token", func(t *testing.T) {
		if got := tokensOf(t, f.c.Call("list_pending_approvals", map[string]any{"approval": a.ID})); len(got) != 0 {
			t.Errorf("tokens for a decided approval: %v", got)
		}
	})

	t.Run("a choice answered by a click, then relayed", func(t *testing.T) {
		f.saveOffer(f.ws, "acme.com")
		res := f.c.Call("choose_sending_source", map[string]any{})
		var q sendingChoiceOutput
		f.c.Result("choose_sending_source", map[string]any{}, &q)
		token := tokensOf(t, res)[*q.Card]
		if token == "" {
			t.Fatalf("no token for card %s: %v", *q.Card, res.Meta)
		}
		card := f.approvalClient(f.ws)
		var clicked cardDecisionOutput
		card.Result("decide_in_card", map[string]any{"card": *q.Card, "answer": "own_names", "token": token}, &clicked)
		if clicked.Sending == nil || clicked.Sending.Kind != "sending_choice" {
			t.Fatalf("the click returned %+v, want the sending_choice", clicked)
		}
		var settled sendingChoiceOutput
		card.Result("choose_sending_source", map[string]any{"answers": []any{ans(*q.Card, "own_names")}}, &settled)
		if diff := cmp.Diff([]string{*q.Card}, settled.Clicked); diff != "" {
			t.Errorf("clicked cards (-want +got):\n%s", diff)
		}
		// The same question for other arguments, answered through the
		// model only: relayed.
		var other sendingChoiceOutput
		f.c.Result("choose_sending_source", map[string]any{"answers": []any{}}, &other)
		if other.Card != nil {
			f.c.Result("choose_sending_source", map[string]any{"answers": []any{ans(*other.Card, "already_warmed")}}, &settled)
			if len(settled.Clicked) != 0 {
				t.Errorf("a relayed answer is listed as clicked: %v", settled.Clicked)
			}
		}
	})
}

// structuredOf returns a result's structuredContent as JSON.
func structuredOf(t *testing.T, res *mcp.CallToolResult) []byte {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A click on a choice is the person's answer: decide_in_card binds it in
// one call and returns what the card's tool returns with it (the settled
// kind, or the flow's next question with its own token), recorded as
// clicked. The assistant relaying the same answer later changes nothing
// and still reads as clicked; another answer is refused, naming the
// clicked one.
func TestClickBindsTheAnswer(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t)
	f.saveOffer(f.ws, "acme.com")
	card := f.approvalClient(f.ws)
	// click answers a choice result the model received, in one call of the
	// card's own tool, with the token that result gave the card.
	click := func(t *testing.T, res *mcp.CallToolResult, q choiceFields, answer string) (*mcp.CallToolResult, cardDecisionOutput) {
		t.Helper()
		token := tokensOf(t, res)[*q.Card]
		if token == "" {
			t.Fatalf("no token for card %s", *q.Card)
		}
		var out cardDecisionOutput
		r := card.Call("decide_in_card", map[string]any{"card": *q.Card, "answer": answer, "token": token})
		if r.IsError {
			t.Fatalf("the click was refused: %s", toolkittest.TextOf(r))
		}
		if err := json.Unmarshal(structuredOf(t, r), &out); err != nil {
			t.Fatal(err)
		}
		return r, out
	}

	t.Run("choose_sending_source", func(t *testing.T) {
		var q sendingChoiceOutput
		res := f.c.Call("choose_sending_source", map[string]any{})
		if err := json.Unmarshal(structuredOf(t, res), &q); err != nil || q.Card == nil {
			t.Fatalf("no question: %v", err)
		}
		r, out := click(t, res, q.choiceFields, "own_names")
		if out.Sending == nil || out.Sending.Kind != "sending_choice" {
			t.Fatalf("the click returned %+v, want the sending_choice", out)
		}
		// The settled result, as the tool itself returns it.
		var model sendingChoiceOutput
		md := f.c.Result("choose_sending_source", map[string]any{"answers": []any{ans(*q.Card, "own_names")}}, &model)
		if diff := cmp.Diff(model, *out.Sending, cmp.AllowUnexported(sendingChoiceOutput{})); diff != "" {
			t.Errorf("the click's result differs from the tool's (-tool +click):\n%s", diff)
		}
		if diff := cmp.Diff(md, toolkittest.TextOf(r)); diff != "" {
			t.Errorf("the click's Markdown differs from the tool's (-tool +click):\n%s", diff)
		}
		if diff := cmp.Diff([]string{*q.Card}, model.Clicked); diff != "" {
			t.Errorf("the same answer relayed: clicked cards (-want +got):\n%s", diff)
		}
		mustContain(t, f.c.Refusal("choose_sending_source", map[string]any{"answers": []any{ans(*q.Card, "already_warmed")}}),
			"Card "+*q.Card+` already has the answer "own_names" (Send under my brand), which the person clicked in the card`)
		var setup sendingSetupOutput
		f.c.Result("get_sending_setup", map[string]any{}, &setup)
		if setup.Source == nil || setup.Source.ID != "own_names" {
			t.Errorf("the workspace's source is %+v after the refused answer, want the clicked own_names", setup.Source)
		}
	})

	t.Run("propose_domains, one card after the other", func(t *testing.T) {
		var q sendingChoiceOutput
		res := f.c.Call("propose_domains", map[string]any{"count": 2})
		if err := json.Unmarshal(structuredOf(t, res), &q); err != nil || q.Card == nil {
			t.Fatalf("no question: %v", err)
		}
		first := *q.Card
		r, out := click(t, res, q.choiceFields, q.Choices[0].ID)
		if out.Sending == nil || out.Sending.Kind != "choice" || out.Sending.Card == nil {
			t.Fatalf("the first click returned %+v, want the second question", out)
		}
		_, out = click(t, r, out.Sending.choiceFields, out.Sending.Choices[0].ID)
		if out.Sending == nil || out.Sending.Kind != "sending_choice" {
			t.Fatalf("the second click returned %+v, want the sending_choice", out)
		}
		if len(out.Sending.Domains) != 2 || len(out.Sending.Clicked) != 2 || out.Sending.Clicked[0] != first {
			t.Errorf("settled with domains %v, clicked %v; want 2 domains, both clicked", out.Sending.Domains, out.Sending.Clicked)
		}
	})

	t.Run("refused tokens bind nothing", func(t *testing.T) {
		names := map[string]any{"senderNames": []string{"Ada Lovelace"}}
		var q emailStepOutput
		f.c.Result("propose_email", names, &q)
		mustContain(t, card.Refusal("decide_in_card", map[string]any{"card": *q.Card, "answer": "first_name", "token": "vsd_made-up"}), "out of date")
		mustContain(t, card.Refusal("decide_in_card", map[string]any{"card": "00000000000000ff", "answer": "first_name", "token": "vsd_made-up"}), "no such question")
		f.c.Result("propose_email", withAnswers(names, ans(*q.Card, "first_name")), &q)
		if q.Kind != "email_step" || len(q.Clicked) != 0 {
			t.Errorf("relayed after refused clicks: %s, clicked %v; want an email_step, relayed", q.Kind, q.Clicked)
		}
	})

	t.Run("an approval: the click decides", func(t *testing.T) {
		a := f.openTestAction(7)
		tokens := tokensOf(t, f.c.Call("list_pending_approvals", map[string]any{"approval": a.ID}))
		var out cardDecisionOutput
		card.Result("decide_in_card", map[string]any{"approval": a.ID, "decision": "approve", "token": tokens[a.ID]}, &out)
		// A different decision through the model is refused, naming the
		// click on record.
		msg := f.c.Refusal("decide_approval", map[string]any{"approval": a.ID, "decision": "reject"})
		mustContain(t, msg, "Not recorded: approval "+a.ID+" was already approved by the person (the card in the conversation, by a click)", "that first decision stands")
		var after approvalsOutput
		f.c.Result("list_pending_approvals", map[string]any{"approval": a.ID}, &after)
		if len(after.Approvals) != 1 {
			t.Fatalf("read %d approvals, want the one", len(after.Approvals))
		}
		if got := after.Approvals[0]; got.Status == "rejected" || textOf(got.DecidedVia) != "card" {
			t.Errorf("after the relayed reject: %s via %s, want the click's approval", got.Status, textOf(got.DecidedVia))
		}
	})
}

// list_pending_approvals pages the workspace's approvals, or reads one by
// its id; the paging and expiry rules are the approvals' (approvals tests).
func TestListPendingApprovals(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t)
	first, second := f.openTestAction(1), f.openTestAction(2)

	t.Run("a page", func(t *testing.T) {
		var page approvalsOutput
		md := f.c.Result("list_pending_approvals", map[string]any{"limit": 1}, &page)
		if d := cmp.Diff(approvalPage{[]string{second.ID}, true}, approvalPageOf(page)); d != "" {
			t.Fatalf("first page mismatch (-want +got):\n%s", d)
		}
		mustContain(t, md, second.ID, "Pause campaign 2", "The person can decide in the card, in the conversation (decide_approval) or at "+second.AppURL,
			fmt.Sprintf("call list_pending_approvals with cursor %q", *page.NextCursor))
		f.c.Result("list_pending_approvals", map[string]any{"limit": 1, "cursor": *page.NextCursor}, &page)
		if d := cmp.Diff(approvalPage{[]string{first.ID}, false}, approvalPageOf(page)); d != "" {
			t.Errorf("second page mismatch (-want +got):\n%s", d)
		}
	})
	t.Run("one by its id", func(t *testing.T) {
		var one approvalsOutput
		md := f.c.Result("list_pending_approvals", map[string]any{"approval": first.ID}, &one)
		if d := cmp.Diff(approvalPage{[]string{first.ID}, false}, approvalPageOf(one)); d != "" {
			t.Errorf("read by id mismatch (-want +got):\n%s", d)
		}
		mustContain(t, md, "## Approval "+first.ID+": Pause campaign 1", "Status: pending, waiting for the person's decision.")
	})
	t.Run("refusals", func(t *testing.T) {
		mustContain(t, f.c.Refusal("list_pending_approvals", map[string]any{"approval": first.ID, "cursor": "x"}), "leave cursor out")
		mustContain(t, f.approvalClient(f.other).Refusal("list_pending_approvals", map[string]any{"approval": first.ID}),
			"There is no approval "+first.ID+" in this workspace")
	})
}

// In the sandbox the order's approval says what a real order would charge
// when, and that nothing is charged; it is not marked irreversible, as
// nothing real is registered.
func TestSandboxOrderApprovalSaysNothingIsCharged(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t)
	f.planSetup(f.c)
	var ap approvalOutput
	md := f.c.Result("order_sending_setup", nil, &ap)
	if ap.Irreversible || !ap.Impact.Sandbox || ap.Impact.Charged == nil {
		t.Fatalf("irreversible %v, sandbox %v, charged %v", ap.Irreversible, ap.Impact.Sandbox, ap.Impact.Charged)
	}
	once, monthly := "USD "+ap.Impact.CostOnce.Amount, "USD "+ap.Impact.CostMonthly.Amount
	// The cost now is the charge on ordering, the one figure the words
	// name: the domain's first year and the mailboxes' first month.
	mustContain(t, md, "Cost: Nothing: this is the sandbox, and every amount here is a sandbox amount that is never charged. A real order would charge "+once+
		" when it is ordered (the domain's first year, USD 15.00, and the mailboxes' first month, "+monthly+"), then "+monthly+" per month for the mailboxes and USD 15.00 per year for the domain.")
	if strings.Contains(md, " once, then ") {
		t.Errorf("the Markdown still calls the domains' yearly price a one-off cost:\n%s", md)
	}
	var list approvalsOutput
	listed := f.c.Result("list_pending_approvals", nil, &list)
	mustContain(t, listed, "Cost: Nothing: this is the sandbox")
}

// A person signed in through an OAuth connection is named in the record:
// the approval the assistant opened for them, and the decision it relayed.
// A workspace token names no one and keeps "the assistant" and "the
// person" (TestOrderSendingSetupIsRejectedThroughDecideApproval).
func TestApprovalsRecordThePersonOfAnOAuthConnection(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t)
	d := Deps{Workspaces: f.workspaces, Sending: f.svc, Approvals: f.approvals}
	c := toolkittest.Connect(t, NewServer(d, nil), auth.Principal{WorkspaceID: f.ws.ID, WorkspaceSlug: f.ws.Slug,
		UserID: uuid.New(), UserEmail: "ada@acme.test", ClientName: "Claude", Scopes: []string{vibesell.ScopeAct}})
	f.planSetup(c)
	var ap approvalOutput
	c.Result("order_sending_setup", nil, &ap)
	var r approvalOutput
	c.Result("decide_approval", map[string]any{"approval": ap.Approval, "decision": "reject", "reason": "Not now"}, &r)
	if r.DecidedBy == nil || *r.DecidedBy != "ada@acme.test, through Claude" {
		t.Errorf("decidedBy %v, want ada@acme.test, through Claude", r.DecidedBy)
	}
	events, err := f.approvals.Events(t.Context(), f.ws.ID, ap.Approval)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range events {
		got = append(got, e.Event+": "+e.Actor)
	}
	want := []string{"opened: the assistant for ada@acme.test, through Claude", "rejected: ada@acme.test, through Claude"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("trail (-want +got):\n%s", diff)
	}
	var list approvalsOutput
	md := c.Result("list_pending_approvals", map[string]any{"approval": ap.Approval}, &list)
	if len(list.Approvals) != 1 || list.Approvals[0].DecidedBy == nil || *list.Approvals[0].DecidedBy != "ada@acme.test, through Claude" {
		t.Errorf("list_pending_approvals: %s", md)
	}
}

// setupStatuses are the statuses of a sending setup's domains and
// mailboxes, in order.
type setupStatuses struct{ Domains, Mailboxes []string }

func statusesOf(s sendingSetupOutput) setupStatuses {
	var st setupStatuses
	for _, d := range s.Domains {
		st.Domains = append(st.Domains, d.Status)
	}
	for _, m := range s.Mailboxes {
		st.Mailboxes = append(st.Mailboxes, m.Status)
	}
	return st
}

// approvalPage is a page of approvals in short: their ids, and whether a
// next page follows.
type approvalPage struct {
	Approvals []string
	More      bool
}

func approvalPageOf(out approvalsOutput) approvalPage {
	p := approvalPage{More: out.NextCursor != nil}
	for _, a := range out.Approvals {
		p.Approvals = append(p.Approvals, a.Approval)
	}
	return p
}

// An approval the workspace's policy gives two approvers says how far it
// is, in its structuredContent and its text, in decide_approval's answer
// and in list_pending_approvals.
func TestApprovalProgressIsShown(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t)
	ctx := t.Context()
	f.approvals.Register(vibesell.ToolResumeCampaign, approvals.ExecutorFuncs{})
	if err := f.approvals.SavePolicy(ctx, f.ws.ID, approvals.Policy{Action: vibesell.ToolResumeCampaign, Stages: []approvals.Stage{
		{Name: "sales", Approvers: []string{"ada@acme.test"}},
		{Name: "finance", Approvers: []string{"fin@acme.test"}},
	}}, "ada@acme.test"); err != nil {
		t.Fatal(err)
	}
	a, _, err := f.approvals.Open(ctx, approvals.Request{
		WorkspaceID: f.ws.ID, Action: vibesell.ToolResumeCampaign, Arguments: map[string]any{"n": 1}, Summary: "Resume campaign 1",
		Impact: approvals.Impact{What: "Resumes sending the campaign.", Who: "42 leads get emails again.",
			When: "At once.", CostOnce: vibesell.NewMoney(0, "USD"), CostMonthly: vibesell.NewMoney(0, "USD"),
			Renewal: "Nothing renews.", Undo: "Stop it at any time."},
		DecideHere: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	c := toolkittest.Connect(t, NewServer(Deps{Workspaces: f.workspaces, Sending: f.svc, Approvals: f.approvals}, nil), auth.Principal{
		WorkspaceID: f.ws.ID, WorkspaceSlug: f.ws.Slug, UserID: uuid.New(), UserEmail: "ada@acme.test", ClientName: "Claude",
		Scopes: []string{vibesell.ScopeAct}})
	var out approvalOutput
	md := c.Result("decide_approval", map[string]any{"approval": a.ID, "decision": "approve"}, &out)
	want := &approvalProgress{Approvals: 1, Needed: 2, WaitingFor: strPtr("finance"), Text: "1 of 2 approvals; waiting for finance"}
	if diff := cmp.Diff(want, out.Progress); diff != "" || out.Status != "pending" {
		t.Errorf("after ada's approval, status %s, progress (-want +got):\n%s", out.Status, diff)
	}
	mustContain(t, md, "Approval counted and recorded: 1 of 2 approvals; waiting for finance.", "Status: pending, 1 of 2 approvals; waiting for finance.")
	var list approvalsOutput
	listed := c.Result("list_pending_approvals", nil, &list)
	mustContain(t, listed, "Status: pending, 1 of 2 approvals; waiting for finance.")
	if len(list.Approvals) != 1 || list.Approvals[0].Progress == nil || list.Approvals[0].Progress.Text != want.Text {
		t.Errorf("listed: %+v", list.Approvals)
	}
}
