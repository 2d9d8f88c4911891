package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"vibesell/approvals"
	"vibesell/web/webtest"
)

// A person opens an approval from its appUrl, signs in, approves it, and
// sees it done: in a real browser, with no JavaScript of ours.
func TestBrowserApprovesFromTheAppURL(t *testing.T) {
	t.Parallel()
	a := setup(t)
	ap := a.order(t, a.acme, "rocket", true)

	ctx := webtest.Chromium(t)

	tab := webtest.NewTab(t, ctx)
	step, text, location := tab.Step, tab.Text, tab.Location

	step("open the appUrl", chromedp.Navigate(ap.AppURL))
	step("wait for the sign-in form", chromedp.WaitVisible(chromedp.ID("email")))
	if u := location(); !strings.Contains(u, "/app/sign-in?next=") {
		t.Fatalf("the appUrl of a signed-out browser led to %s, want the sign-in page", u)
	}
	step("type the email", chromedp.SendKeys(chromedp.ID("email"), "ada@acme.test"))
	step("type the password", chromedp.SendKeys(chromedp.ID("password"), password))
	tab.Screenshot("1-sign-in")
	step("sign in", chromedp.Submit(chromedp.ID("password")))
	step("wait for the approval page", chromedp.WaitVisible(chromedp.ID("approve")))
	if u := location(); u != ap.AppURL {
		t.Fatalf("after signing in the browser is at %s, want %s", u, ap.AppURL)
	}
	if s := text("status"); s != "Waiting for a decision" {
		t.Fatalf("status before deciding: %q", s)
	}
	tab.Screenshot("2-approval")
	step("tick I understand", chromedp.Click(chromedp.CSS(`input[name="confirm"]`)))
	step("approve", chromedp.Click(chromedp.ID("approve")))

	// The page says it is being carried out; the execution runs (as a
	// River worker would), and the page, refreshing itself (a meta
	// refresh, no script), shows the outcome.
	step("wait for the approved page", chromedp.WaitVisible(`//span[@id="status"][contains(., "being carried out")]`))
	a.execute(t, ap.ID)
	var status string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("status")))
		if err == nil {
			if status = strings.TrimSpace(s); status == "Done" {
				break
			}
		}
	}
	if status != "Done" {
		t.Fatalf("the page still says %q a minute after approving", status)
	}
	if outcome := text("outcome"); !strings.Contains(outcome, "Ordered the rocket.") {
		t.Fatalf("outcome shown: %q", outcome)
	}
	if trail := text("history"); !strings.Contains(trail, "ada@acme.test") || !strings.Contains(trail, "the web app") {
		t.Fatalf("history shown: %q", trail)
	}
	tab.Screenshot("3-done")
	step("open the list", chromedp.Navigate(a.srv.URL+"/app/approvals"))
	if list := text("past"); list != "Past decisions" {
		t.Fatalf("list heading: %q", list)
	}
	tab.Screenshot("4-list")
	got, err := a.approvals.Find(context.Background(), a.acme.ID, ap.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(decision{Status: approvals.Done, By: "ada@acme.test", Via: approvals.ViaWeb}, decisionOf(got)); d != "" {
		t.Fatalf("on record mismatch (-want +got):\n%s", d)
	}
}
