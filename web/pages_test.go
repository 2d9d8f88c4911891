package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"vibesell"
	"vibesell/approvals"
)

// toolNames are the names the assistant calls tools by: a page for a
// person never shows one.
var toolNames = []string{
	vibesell.ToolGetWorkspaceContext, vibesell.ToolRemember, vibesell.ToolSaveOffer, vibesell.ToolSavePlaybook, vibesell.ToolContactSupport,
	vibesell.ToolChooseSendingSource, vibesell.ToolProposeDomains, vibesell.ToolProposeWarmedDomains, vibesell.ToolProposeEmail,
	vibesell.ToolCheckDomains, vibesell.ToolListWarmedDomains, vibesell.ToolSizeSendingCapacity, vibesell.ToolConfirmSizing,
	vibesell.ToolGetSendingSetup, vibesell.ToolStartWarmup, vibesell.ToolOrderSendingSetup, vibesell.ToolDecideApproval, vibesell.ToolListPendingApprovals,
}

func mustNotNameTools(t *testing.T, page string) {
	t.Helper()
	for _, name := range toolNames {
		if strings.Contains(page, name) {
			t.Errorf("the page names the tool %s", name)
		}
	}
}

// The support page shows the workspace's tickets, and only its own.
func TestSupportPageListsTheWorkspacesTickets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := setup(t)
	mine, err := a.workspaces.OpenTicket(ctx, a.acme.ID, "bug", "The card stays blank after I click Approve", "ada@acme.test")
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := a.workspaces.OpenTicket(ctx, a.globex.ID, "billing", "Where is the invoice?", "")
	if err != nil {
		t.Fatal(err)
	}

	t.Run("signed out", func(t *testing.T) {
		if p := a.browser(t).Get("/app/support"); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/app/sign-in?next=") {
			t.Errorf("signed out: %d %s", p.Status, p.Location)
		}
	})
	t.Run("signed in", func(t *testing.T) {
		b := a.browser(t)
		b.signIn("ada@acme.test")
		p := b.Get("/app/support")
		if p.Status != http.StatusOK {
			t.Fatalf("support page: %d", p.Status)
		}
		for _, want := range []string{mine.Reference(), "The card stays blank after I click Approve", "ada@acme.test", "Open",
			"the people who run it read and answer them"} {
			if !strings.Contains(p.Body, want) {
				t.Errorf("the support page lacks %q", want)
			}
		}
		if strings.Contains(p.Body, theirs.Reference()) || strings.Contains(p.Body, "Where is the invoice?") {
			t.Error("the support page shows another workspace's ticket")
		}
		mustNotNameTools(t, p.Body)
	})
}

// An approval's page speaks of who did what in a person's words: the
// assistant asked and tried to approve, the person decided in the
// conversation. No connector, no tool names.
func TestApprovalPagesSpeakToAPerson(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := setup(t)
	paid := a.order(t, a.acme, "rocket", true)
	if _, err := a.approvals.Relay(ctx, a.acme.ID, paid.ID, approvals.Relayed{Approve: true}); vibesell.ErrorCode(err) != vibesell.EINVALID {
		t.Fatalf("approving a paid action in the conversation: %v", err)
	}
	if _, err := a.approvals.Relay(ctx, a.acme.ID, paid.ID, approvals.Relayed{Approve: false, Reason: "Not this month"}); err != nil {
		t.Fatal(err)
	}
	b := a.browser(t)
	b.signIn("ada@acme.test")

	p := b.Get(approvals.AppPath(paid.ID))
	for _, want := range []string{
		"Rejected by the person in the conversation with the assistant",
		"<td>Asked for a decision</td><td>the assistant</td>",
		"<td>Approval refused here (needs the web app)</td><td>the assistant</td>",
		"Rejected by the person: Not this month",
	} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("the approval page lacks %q", want)
		}
	}
	if strings.Contains(p.Body, "connector") {
		t.Error("the approval page speaks of a connector")
	}
	mustNotNameTools(t, p.Body)
	mustNotNameTools(t, b.Get("/app/approvals").Body)
}
