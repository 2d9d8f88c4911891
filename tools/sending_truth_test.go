package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
	"vibesell/toolkit/toolkittest"
)

// TestSendingResultsSayWhatIsTrueNow walks the setup from a sizing of 2
// mailboxes to an order made ready and warm, and holds every sending
// result read on the way to what is true when it is read: the sizing's
// numbers everywhere, the sandbox on the card as on the result, the
// source answered again after the order, the setup's next step in the
// workspace context with another feature's approval waiting, and a setup
// that falls short of a larger sizing.
func TestSendingResultsSayWhatIsTrueNow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newSendingFixture(t, nil)
	f.avail.all = true
	f.saveOffer(f.ws, "acme.com")
	// The context shows the approvals waiting, as the server wires it.
	c := toolkittest.Connect(t, NewServer(Deps{Workspaces: f.workspaces, Sending: f.svc, Approvals: f.approvals}, nil),
		auth.Principal{WorkspaceID: f.ws.ID, WorkspaceSlug: f.ws.Slug})

	var q sendingChoiceOutput
	c.Result(vibesell.ToolChooseSendingSource, nil, &q)
	source := map[string]any{"answers": []any{ans(*q.Card, "own_names")}}
	mustContain(t, c.Result(vibesell.ToolChooseSendingSource, source, nil), "Nothing is set up, reserved or billed yet.")

	// 60 emails a day: 2 mailboxes on 1 domain, and every later result
	// says 2 mailboxes and their price.
	sized := c.Result(vibesell.ToolConfirmSizing, map[string]any{"dailyVolume": 60}, nil)
	mustContain(t, sized, "- 2 mailboxes sending 30 emails a day each, on 1 domain, with new addresses under your brand.", "(USD 25.00 in all)")
	c.Result(vibesell.ToolProposeDomains, nil, &q)
	var picked sendingChoiceOutput
	md := c.Result(vibesell.ToolProposeDomains, map[string]any{"answers": []any{ans(*q.Card, "getacme.com")}}, &picked)
	mustContain(t, md, "2 mailboxes at USD 5.00 each per month", "(USD 25.00 in all)")
	if len(picked.Domains) != 1 || picked.Domains[0].Mailboxes != 2 {
		t.Errorf("the domain picked carries %+v, want the sizing's 2 mailboxes", picked.Domains)
	}
	names := map[string]any{"senderNames": []string{"Ada Lovelace"}}
	var e emailStepOutput
	c.Result(vibesell.ToolProposeEmail, names, &e)
	if e.Kind != "choice" || !e.Sandbox {
		t.Errorf("propose_email's card: kind %s, sandbox %v; in the sandbox, want true", e.Kind, e.Sandbox)
	}
	md = c.Result(vibesell.ToolProposeEmail, withAnswers(names, ans(*e.Card, "first_name")), &e)
	if len(e.Addresses) != 2 || !e.Sandbox {
		t.Errorf("planned %d addresses (sandbox %v), want the sizing's 2", len(e.Addresses), e.Sandbox)
	}
	mustContain(t, md, "USD 10.00 per month for 2 mailboxes", "(USD 25.00 in all)")

	// Ordered, then made ready and warm by the sandbox shortcut.
	if _, err := f.svc.PlaceOrder(ctx, f.ws.ID, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.SandboxReady(ctx, f.ws.ID); err != nil {
		t.Fatal(err)
	}
	t.Run("the source answered again reads the setup", func(t *testing.T) {
		md := c.Result(vibesell.ToolChooseSendingSource, source, nil)
		if strings.Contains(md, "Nothing is set up") || strings.Contains(md, "Call propose_domains") {
			t.Errorf("answered again once ordered and warm, the source still reads as new:\n%s", md)
		}
		mustContain(t, md, "Already ordered: 1 domain ready and 2 mailboxes warm", "The sending setup is ready")
	})
	t.Run("the setup says ready once", func(t *testing.T) {
		md := c.Result(vibesell.ToolGetSendingSetup, nil, nil)
		if strings.Contains(md, "ready, ready") {
			t.Errorf("the setup says ready twice:\n%s", md)
		}
		mustContain(t, md, "getacme.com** (new): ready since Fri 4 Dec 2026")
	})

	// Another feature's approval waits: the setup's own step is not it.
	f.approvals.Register(vibesell.ToolStopCampaign, approvals.ExecutorFuncs{
		ExecuteFunc: func(context.Context, approvals.Execution) (string, error) { return "Stopped.", nil },
	})
	zero := vibesell.NewMoney(0, "USD")
	stop, _, err := f.approvals.Open(ctx, approvals.Request{WorkspaceID: f.ws.ID, Action: vibesell.ToolStopCampaign, Arguments: map[string]string{"campaign": "cp_0123456789abcdef"},
		Summary: "Stop the campaign", Impact: approvals.Impact{What: "Stops it.", Who: "No one.", When: "Now.", CostOnce: zero, CostMonthly: zero, Renewal: "Nothing.", Undo: "It can be resumed."},
		DecideHere: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("the setup's next step names only its own approvals", func(t *testing.T) {
		var w workspaceOutput
		c.Result(vibesell.ToolGetWorkspaceContext, nil, &w)
		if got := w.SendingSetup.NextStep; strings.Contains(got.Why, stop.ID) || textOf(got.Tool) != "" {
			t.Errorf("the sending setup's next step points at another feature's approval: %s %q", textOf(got.Tool), got.Why)
		}
		if !strings.Contains(w.NextStep.Why, stop.ID) {
			t.Errorf("the workspace's own next step lost the waiting decision: %q", w.NextStep.Why)
		}
	})

	t.Run("a setup short of its sizing says so", func(t *testing.T) {
		c.Result(vibesell.ToolConfirmSizing, map[string]any{"dailyVolume": 360}, nil)
		md := c.Result(vibesell.ToolGetWorkspaceContext, nil, nil)
		mustContain(t, md, "- Next for the sending setup: The sending setup is ready: every address can send at full volume. "+
			"The ordered setup sends 60 of the 360 emails a day the confirmed sizing needs (2 mailboxes of the 12 sized): it falls short.")
	})
}

// A settled card keeps every answer given: the switch card's answer
// stays in the list once the switch is made, on the next card and on the
// settled result.
func TestASwitchCardsAnswerIsKept(t *testing.T) {
	t.Parallel()
	f := newSendingFixture(t, nil)
	c := f.c
	var q sendingChoiceOutput
	c.Result(vibesell.ToolChooseSendingSource, nil, &q)
	c.Result(vibesell.ToolChooseSendingSource, map[string]any{"answers": []any{ans(*q.Card, "own_names")}}, nil)
	var sw, pick, done sendingChoiceOutput
	c.Result(vibesell.ToolProposeWarmedDomains, nil, &sw)
	switched := ans(*sw.Card, "already_warmed")
	c.Result(vibesell.ToolProposeWarmedDomains, map[string]any{"answers": []any{switched}}, &pick)
	if pick.Kind != "choice" || pick.Choices == nil {
		t.Fatalf("after switching: %s, want the domain's card", pick.Kind)
	}
	want := []answerItem{{Card: *sw.Card, Answer: "already_warmed"}}
	if diff := cmp.Diff(want, pick.Answers); diff != "" {
		t.Errorf("the domain's card's answers (-want +got):\n%s", diff)
	}
	c.Result(vibesell.ToolProposeWarmedDomains, map[string]any{"answers": []any{switched, ans(*pick.Card, pick.Choices[0].ID)}}, &done)
	want = append(want, answerItem{Card: *pick.Card, Answer: pick.Choices[0].ID})
	if diff := cmp.Diff(want, done.Answers); diff != "" || done.Kind != "sending_choice" {
		t.Errorf("%s: the settled answers (-want +got):\n%s", done.Kind, diff)
	}
}
