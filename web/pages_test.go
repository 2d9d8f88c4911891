package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"vibesell"
	"vibesell/approvals"
	"vibesell/web"
	"vibesell/workspace"
)

// toolNames are the names the assistant calls tools by: a page for a
// person never shows one.
var toolNames = []string{
	vibesell.ToolGetWorkspaceContext, vibesell.ToolRemember, vibesell.ToolSaveOffer, vibesell.ToolSavePlaybook, vibesell.ToolContactSupport,
	vibesell.ToolChooseSendingSource, vibesell.ToolProposeDomains, vibesell.ToolProposeWarmedDomains, vibesell.ToolProposeEmail,
	vibesell.ToolCheckDomains, vibesell.ToolListWarmedDomains, vibesell.ToolSizeSendingCapacity, vibesell.ToolConfirmSizing,
	vibesell.ToolGetSendingSetup, vibesell.ToolStartWarmup, vibesell.ToolOrderSendingSetup, vibesell.ToolDecideApproval, vibesell.ToolListPendingApprovals, vibesell.ToolDecideInCard,
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
		// Anyone may read how to reach the operator; no workspace's
		// tickets show.
		p := a.browser(t).Get("/app/support")
		if p.Status != http.StatusOK || strings.Contains(p.Body, mine.Reference()) || strings.Contains(p.Body, theirs.Reference()) {
			t.Errorf("signed out: %d", p.Status)
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
		"Rejected by the person in the conversation, relayed by the assistant",
		"<td>Asked for a decision</td><td>the assistant</td>",
		"<td>Approval refused here (the reason says where it can be approved)</td><td>the assistant</td>",
		"Only a signed-in person in the web app may approve this.",
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

// Where each decision came from reads on the approval's page and in the
// list: a click in the card (with whether the app said it shows cards),
// the assistant relaying, or the web app. The approvals page sets which
// actions only the person's own click or the web app may approve.
func TestDecisionProvenanceAndRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := setup(t)
	clicked := a.order(t, a.acme, "kite", false)
	tokens, err := a.approvals.Tokens(ctx, a.acme.ID, clicked)
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	if _, err := a.approvals.Click(ctx, a.acme.ID, clicked.ID, approvals.Clicked{Approve: false, Token: tokens[clicked.ID], HostApps: &yes}); err != nil {
		t.Fatal(err)
	}
	b := a.browser(t)
	b.signIn("ada@acme.test")
	p := b.Get(approvals.AppPath(clicked.ID))
	for _, want := range []string{
		"Rejected by the person in the card in the conversation, by a click (the app said it shows cards)",
		"<td class=\"small\">the card in the conversation, by a click (the app said it shows cards)</td>",
	} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("the approval page lacks %q", want)
		}
	}
	list := b.Get("/app/approvals")
	if !strings.Contains(list.Body, "Decided in the card in the conversation, by a click") || !strings.Contains(list.Body, "Who may approve") {
		t.Errorf("the approvals page lacks the decision's place or the rules")
	}
	// Paid or irreversible actions are always approved here: no rule is
	// offered for them.
	for _, always := range []string{"Order the sending setup", "Launch a campaign", "Change the plan"} {
		if strings.Contains(list.Body, always+": only by a click or here") {
			t.Errorf("the rules offer %q, which is always approved here", always)
		}
	}
	// Stopping campaigns: only by a click or here.
	key := -1
	for i, l := range approvals.ActionLabels {
		if l.Value == vibesell.ToolStopCampaign {
			key = i
		}
	}
	saved := b.Post("/app/approvals/rules", url.Values{"csrf": {list.CSRF(t)}, "clicked": {strconv.Itoa(key)}})
	if saved.Status != http.StatusSeeOther {
		t.Fatalf("saving the rules: %d", saved.Status)
	}
	policies, err := a.approvals.Policies(ctx, a.acme.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range policies {
		if p.ClickedOnly != (p.Action == vibesell.ToolStopCampaign) {
			t.Errorf("%s: clicked only %v", p.Action, p.ClickedOnly)
		}
	}
	if !strings.Contains(b.Get("/app/approvals?saved=rules").Body, `value="`+strconv.Itoa(key)+`" checked`) {
		t.Error("the saved rule is not shown ticked")
	}
	other, err := a.approvals.Policies(ctx, a.globex.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range other {
		if p.ClickedOnly {
			t.Errorf("another workspace's rule for %s was set", p.Action)
		}
	}
}

// Every date the app shows is in the workspace's time zone, the one its
// settings set, whatever zone the person's account was made with.
func TestDatesAreInTheWorkspacesTimeZone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := setup(t)
	ap := a.order(t, a.acme, "kettle", false)
	b := a.browser(t)
	b.signIn("ada@acme.test") // her account says Europe/Paris

	la := "America/Los_Angeles"
	if _, err := a.workspaces.SetSender(ctx, a.acme.ID, workspace.SenderChange{TimeZone: &la}, time.Now()); err != nil {
		t.Fatal(err)
	}
	loc, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Fatal(err)
	}
	asked := vibesell.FormatTimeIn(ap.CreatedAt, loc)
	for _, path := range []string{approvals.AppPath(ap.ID), "/app/approvals"} {
		page := html.UnescapeString(b.Get(path).Body)
		if !strings.Contains(page, asked) || strings.Contains(page, "Europe/Paris") {
			t.Errorf("%s does not show %q (the workspace's zone), or shows the account's:\n%s", path, asked, page)
		}
	}
}

// The app has an icon: every page links it, and it is served to anyone,
// signed in or not, so that no page's visit asks for an icon in vain.
func TestFaviconIsServedAndLinked(t *testing.T) {
	t.Parallel()
	a := setup(t)
	b := a.browser(t)
	icon := b.Get(web.FaviconPath)
	if icon.Status != http.StatusOK || icon.Header.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(icon.Body, "<svg") {
		t.Fatalf("the icon: %d %q\n%s", icon.Status, icon.Header.Get("Content-Type"), icon.Body)
	}
	link := `<link rel="icon" href="` + web.FaviconPath + `" type="image/svg+xml">`
	if p := b.Get("/app/sign-in"); !strings.Contains(p.Body, link) {
		t.Errorf("the sign-in page does not link the icon:\n%s", p.Body)
	}
	b.signIn("ada@acme.test")
	for _, path := range []string{"/app/approvals", "/app/leads", "/app/support", "/app/no-such-page"} {
		if p := b.Get(path); !strings.Contains(p.Body, link) {
			t.Errorf("%s does not link the icon", path)
		}
	}
}
