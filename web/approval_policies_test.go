package web_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
	"vibesell/web/webtest"
)

// staged signs up fin and cy in acme, sets through the policy form that
// importing leads takes sales (ada), then finance (fin), and opens such
// an approval, asked for by sam's assistant.
func (a *app) staged(t *testing.T, b browser) approvals.Approval {
	t.Helper()
	ctx := context.Background()
	for _, email := range []string{"fin@acme.test", "cy@acme.test"} {
		if _, err := a.accounts.CreateUser(ctx, auth.NewUser{WorkspaceID: a.acme.ID, Email: email, Password: password}); err != nil {
			t.Fatal(err)
		}
	}
	key := slices.IndexFunc(approvals.ActionLabels, func(l vibesell.Label) bool { return l.Value == vibesell.ToolImportLeads })
	path := "/app/approval-policies/" + strconv.Itoa(key)
	form := b.Get(path)
	if form.Status != http.StatusOK || !strings.Contains(form.Body, "Who approves: Import leads") {
		t.Fatalf("the policy form: %d\n%s", form.Status, form.Body)
	}
	bad := b.Post(path, url.Values{"csrf": {form.CSRF(t)}, "where": {"anywhere"}, "stage1_name": {"sales"},
		"stage1_approvers": {"ada@acme.test"}, "stage1_needed": {"2"}})
	if bad.Status != http.StatusUnprocessableEntity || !strings.Contains(bad.Body, "it could never be approved") {
		t.Fatalf("a stage needing more people than it names: %d", bad.Status)
	}
	saved := b.Post(path, url.Values{"csrf": {form.CSRF(t)}, "where": {"anywhere"},
		"stage1_name": {"sales"}, "stage1_approvers": {"ada@acme.test"}, "stage1_needed": {"1"},
		"stage2_name": {"finance"}, "stage2_approvers": {"fin@acme.test"}, "stage2_needed": {"1"},
		"reason_reject": {"yes"}, "ttl_hours": {"48"}})
	if saved.Status != http.StatusSeeOther {
		t.Fatalf("saving the policy: %d\n%s", saved.Status, saved.Body)
	}
	p, err := a.approvals.Policy(ctx, a.acme.ID, vibesell.ToolImportLeads)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Stages) != 2 || p.Stages[1].Approvers[0] != "fin@acme.test" || !p.ReasonToReject || p.TTL != 48*time.Hour {
		t.Fatalf("saved policy: %+v", p)
	}
	if list := b.Get("/app/approvals?saved=policy"); !strings.Contains(list.Body, "Sales: ada@acme.test. Then finance: fin@acme.test. A reason is needed to reject.") {
		t.Errorf("the approvals page does not say the policy:\n%s", list.Body)
	}
	ap, _, err := a.approvals.Open(ctx, approvals.Request{
		WorkspaceID: a.acme.ID, Action: vibesell.ToolImportLeads, Arguments: map[string]int{"count": 10},
		Summary: "Import 10 leads", RequestedBy: approvals.Person("sam@acme.test", "Claude"),
		Impact: approvals.Impact{What: "Imports 10 leads.", Who: "No one is contacted.", When: "At once.",
			CostOnce: mustMoney(t, "0.00"), CostMonthly: mustMoney(t, "0.00"), Renewal: "Nothing renews.", Undo: "They can be removed."},
		DecideHere: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return ap
}

// The policy form sets who approves; the approval page and the list say
// how many approved and whom it waits for; a delegate approves for the
// person away, recorded as such.
func TestPolicyFormProgressAndDelegation(t *testing.T) {
	t.Parallel()
	a := setup(t)
	b := a.browser(t)
	b.signIn("ada@acme.test")
	ap := a.staged(t, b)

	page := b.Get(approvals.AppPath(ap.ID))
	if !strings.Contains(page.Body, "0 of 2 approvals; waiting for sales") {
		t.Fatalf("the approval page before anyone approved lacks its progress:\n%s", page.Body)
	}
	done := b.Post(approvals.AppPath(ap.ID)+"/approve", url.Values{"csrf": {page.CSRF(t)}})
	if done.Status != http.StatusSeeOther {
		t.Fatalf("approving: %d\n%s", done.Status, done.Body)
	}
	after := b.Get(done.Location)
	for _, want := range []string{"Your approval is counted: 1 of 2 approvals; waiting for finance.", "Approved by ada@acme.test (sales)"} {
		if !strings.Contains(after.Body, want) {
			t.Errorf("after approving, the page lacks %q", want)
		}
	}
	if list := b.Get("/app/approvals"); !strings.Contains(list.Body, `<div class="muted small progress">1 of 2 approvals; waiting for finance</div>`) {
		t.Errorf("the list lacks the progress")
	}
	// A rejection without the reason the policy asks for is refused.
	if no := b.Post(approvals.AppPath(ap.ID)+"/reject", url.Values{"csrf": {page.CSRF(t)}}); !strings.Contains(no.Body, "asks for a reason to reject") {
		t.Errorf("a rejection without a reason: %d", no.Status)
	}

	// fin is away: cy decides in fin's place until tomorrow.
	fin := a.browser(t)
	fin.SignIn("fin@acme.test", password, "/app/approvals")
	list := fin.Get("/app/approvals")
	tomorrow := time.Now().In(mustZone(t, "Europe/Paris")).AddDate(0, 0, 1).Format(time.DateOnly)
	away := fin.Post("/app/approvals/away", url.Values{"csrf": {list.CSRF(t)}, "delegate": {"cy@acme.test"}, "until": {tomorrow}})
	if away.Status != http.StatusSeeOther {
		t.Fatalf("setting a delegate: %d\n%s", away.Status, away.Body)
	}
	if l := fin.Get("/app/approvals?saved=away"); !strings.Contains(l.Body, "cy@acme.test decides for fin@acme.test until") {
		t.Errorf("the delegation is not shown")
	}
	cy := a.browser(t)
	cy.SignIn("cy@acme.test", password, "/app/approvals")
	p := cy.Get(approvals.AppPath(ap.ID))
	cy.Post(approvals.AppPath(ap.ID)+"/approve", url.Values{"csrf": {p.CSRF(t)}})
	got, err := a.approvals.Find(context.Background(), a.acme.ID, ap.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != approvals.Approved || *got.DecidedBy != "cy@acme.test for fin@acme.test" {
		t.Fatalf("after cy: %s by %v", got.Status, deref(got.DecidedBy))
	}
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	l, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// In a real browser: the approval page and the list show the progress of
// an approval waiting for more people.
func TestBrowserShowsApprovalProgress(t *testing.T) {
	t.Parallel()
	a := setup(t)
	b := a.browser(t)
	b.signIn("ada@acme.test")
	ap := a.staged(t, b)
	if _, _, err := a.approvals.Decide(context.Background(), a.acme.ID, ap.ID,
		approvals.Decision{Approve: true, By: "ada@acme.test", Via: approvals.ViaWeb}); err != nil {
		t.Fatal(err)
	}

	ctx := webtest.Chromium(t)
	tab := webtest.NewTab(t, ctx)
	tab.Step("open the approval", chromedp.Navigate(ap.AppURL))
	tab.Step("sign in: email", chromedp.SendKeys(chromedp.ID("email"), "fin@acme.test"))
	tab.Step("sign in: password", chromedp.SendKeys(chromedp.ID("password"), password))
	tab.Step("sign in", chromedp.Submit(chromedp.ID("password")))
	tab.Step("wait for the progress", chromedp.WaitVisible(chromedp.ID("progress-text")))
	if got := tab.Text("progress-text"); got != "1 of 2 approvals; waiting for finance" {
		t.Fatalf("progress shown: %q", got)
	}
	tab.Screenshot("progress-1")
	tab.Step("approve", chromedp.Click(chromedp.ID("approve")))
	tab.Step("wait for approved", chromedp.WaitVisible(`//span[@id="status"][contains(., "being carried out")]`))
	if got := tab.Text("progress-text"); got != "2 of 2 approvals" {
		t.Fatalf("progress once approved: %q", got)
	}
	tab.Screenshot("progress-2")
}
