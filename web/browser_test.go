package web_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

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

	step := func(what string, a chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, a); err != nil {
			t.Fatalf("browser: %s: %v", what, err)
		}
	}
	text := func(id string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID(id)))
		if err != nil {
			t.Fatalf("browser: read #%s: %v", id, err)
		}
		return strings.TrimSpace(s)
	}
	location := func() string {
		t.Helper()
		u, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil {
			t.Fatalf("browser: location: %v", err)
		}
		return u
	}

	step("open the appUrl", chromedp.Navigate(ap.AppURL))
	step("wait for the sign-in form", chromedp.WaitVisible(chromedp.ID("email")))
	if u := location(); !strings.Contains(u, "/app/sign-in?next=") {
		t.Fatalf("the appUrl of a signed-out browser led to %s, want the sign-in page", u)
	}
	step("type the email", chromedp.SendKeys(chromedp.ID("email"), "ada@acme.test"))
	step("type the password", chromedp.SendKeys(chromedp.ID("password"), password))
	screenshot(t, ctx, "1-sign-in")
	step("sign in", chromedp.Submit(chromedp.ID("password")))
	step("wait for the approval page", chromedp.WaitVisible(chromedp.ID("approve")))
	if u := location(); u != ap.AppURL {
		t.Fatalf("after signing in the browser is at %s, want %s", u, ap.AppURL)
	}
	if s := text("status"); s != "Waiting for a decision" {
		t.Fatalf("status before deciding: %q", s)
	}
	screenshot(t, ctx, "2-approval")
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
	screenshot(t, ctx, "3-done")
	step("open the list", chromedp.Navigate(a.srv.URL+"/app/approvals"))
	if list := text("past"); list != "Past decisions" {
		t.Fatalf("list heading: %q", list)
	}
	screenshot(t, ctx, "4-list")
	got, err := a.approvals.Find(context.Background(), a.acme.ID, ap.ID)
	if err != nil || got.Status != approvals.Done || *got.DecidedBy != "ada@acme.test" || *got.DecidedVia != approvals.ViaWeb {
		t.Fatalf("on record: %+v %v", got, err)
	}
}

// screenshot saves the page to $SCREENSHOT_DIR when it is set, to look at
// the pages as a person sees them.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("SCREENSHOT_DIR")
	if dir == "" {
		return
	}
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
}
