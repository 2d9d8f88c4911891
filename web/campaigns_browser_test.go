package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"vibesell"
	"vibesell/approvals"
	"vibesell/approvals/approvalstest"
	"vibesell/campaigns"
	"vibesell/featuretest"
	"vibesell/web/webtest"
	"vibesell/workspace"
)

// A person launches a campaign from its approval, which shows the first
// email for one of its people and every step; then, from the campaigns
// page, sees its next emails, stops it, changes its schedule and resumes
// it, each through its approval: in a real browser, against the real
// services, with no JavaScript of ours.
func TestBrowserControlsACampaign(t *testing.T) {
	if testing.Short() {
		t.Skip("a browser test")
	}
	t.Parallel()
	ctx := context.Background()
	a, env, ws := campaignsWeb(t, true)
	acme := ws.Acme.ID
	addr, name := "Acme SA, 1 rue de Rivoli, 75001 Paris, France", "Ada Lovelace"
	if _, err := env.Workspaces.SetSender(ctx, acme, workspace.SenderChange{PostalAddress: &addr, Name: &name}, env.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	env.AddLeads(t, acme, vibesell.Lead{Email: "ana@alpha.test", FirstName: "Ana", Company: "Alpha"}, vibesell.Lead{Email: "bob@beta.test", FirstName: "Bob"})
	env.AddMailbox(t, acme, "sam@getacme.test", "Sam", featuretest.Warm)
	q, err := env.Campaigns.SaveSequence(ctx, acme, campaigns.SaveRequest{Name: "Lists", Steps: []campaigns.Step{
		{Subject: "Lists at {{company|your team}}", Body: "Hi {{first_name|there}}, we build prospect lists."},
		{Body: "A nudge, {{first_name|there}}.", WaitBusinessDays: 3, SameThread: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Campaigns.ApproveSequence(ctx, acme, q.Sequence.ID, 1, "ada@acme.test"); err != nil {
		t.Fatal(err)
	}
	sc, err := env.Campaigns.Stage(ctx, acme, campaigns.StageRequest{Name: "Heads of sales", Sequence: q.Sequence.ID, WindowStart: 540, WindowEnd: 1020,
		Days: []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday}, DailyCap: 20})
	if err != nil {
		t.Fatal(err)
	}
	id := sc.Campaign.ID
	launch, _, err := env.Campaigns.RequestLaunch(ctx, acme, id, "the assistant")
	if err != nil {
		t.Fatal(err)
	}

	tab := webtest.NewTab(t, webtest.Chromium(t))
	step, text := tab.Step, tab.Text
	step("open the launch's approval", chromedp.Navigate(a.srv.URL+approvals.AppPath(launch.ID)))
	step("wait for the sign-in form", chromedp.WaitVisible(chromedp.ID("email")))
	step("type the email", chromedp.SendKeys(chromedp.ID("email"), "ada@acme.test"))
	step("type the password", chromedp.SendKeys(chromedp.ID("password"), password))
	step("sign in", chromedp.Submit(chromedp.ID("password")))
	step("wait for the approval", chromedp.WaitVisible(chromedp.ID("emails")))
	// The first email as it goes to Ana, merge fields filled, and each
	// step as written.
	first := text("first-email")
	for _, want := range []string{"sam@getacme.test>", "Ana <ana@alpha.test>", "Lists at Alpha"} {
		if !strings.Contains(first, want) {
			t.Errorf("the launch's first email lacks %q: %s", want, first)
		}
	}
	if e := text("emails"); !strings.Contains(e, "Hi Ana, we build prospect lists.") || !strings.Contains(e, "1 rue de Rivoli") ||
		!strings.Contains(e, "3 business days later, same thread: “Re: Lists at {{company|your team}}”") || !strings.Contains(e, "A nudge, {{first_name|there}}.") {
		t.Errorf("the launch's emails: %s", e)
	}
	tab.Screenshot("campaign-1-launch")
	step("tick I understand", chromedp.Click(chromedp.CSS(`input[name="confirm"]`)))
	step("approve the launch", chromedp.Click(chromedp.ID("approve")))
	step("wait for it to be carried out", chromedp.WaitVisible(`//span[@id="status"][contains(., "being carried out")]`))
	approvalstest.Execute(t, a.pool, env.Approvals, launch.ID)

	// Tuesday 07:00 UTC: the window opens at 09:00 in each person's zone
	// (the workspace's, UTC), shown in the workspace's zone.
	step("open the campaigns", chromedp.Navigate(a.srv.URL+"/app/campaigns"))
	if s := text("status-" + id); s != "Scheduled" {
		t.Fatalf("status after the launch: %q", s)
	}
	if w := text("waiting-" + id); !strings.Contains(w, "Tue 1 Dec 2026, 09:00 UTC") {
		t.Errorf("the next email's time: %q", w)
	}
	if n := text("campaign-" + id); !strings.Contains(n, "From sam@getacme.test") || !strings.Contains(n, "email 1 to Ana (ana@alpha.test)") {
		t.Errorf("the next emails: %s", n)
	}
	step("open Ana's story", chromedp.Click(`//a[contains(., "Ana (ana@alpha.test)")]`))
	step("wait for her story", chromedp.WaitVisible(chromedp.ID("email")))
	if e := text("email"); e != "ana@alpha.test" {
		t.Errorf("the link led to the story of %q", e)
	}
	tab.Screenshot("campaign-2-scheduled")

	// Stop it: the same approval as the assistant's, decided here.
	decide := func(what string) {
		t.Helper()
		step("wait for the approval of "+what, chromedp.WaitVisible(chromedp.ID("approve")))
		ap := strings.TrimPrefix(tab.Location(), a.srv.URL+"/app/approvals/")
		step("approve "+what, chromedp.Click(chromedp.ID("approve")))
		step("wait for "+what+" to be carried out", chromedp.WaitVisible(`//span[@id="status"][contains(., "being carried out")]`))
		approvalstest.Execute(t, a.pool, env.Approvals, ap)
		step("back to the campaigns", chromedp.Navigate(a.srv.URL+"/app/campaigns"))
	}
	step("back to the campaigns", chromedp.Navigate(a.srv.URL+"/app/campaigns"))
	step("stop", chromedp.Click(chromedp.ID("stop-"+id)))
	if h := text("impact"); h != "What will happen" {
		t.Fatalf("stopping did not lead to its approval: %q", h)
	}
	decide("the stop")
	if s := text("status-" + id); s != "Paused" {
		t.Fatalf("status after the stop: %q", s)
	}
	tab.Screenshot("campaign-3-paused")

	// A new schedule while it is paused.
	step("open the schedule", chromedp.Click(chromedp.CSS(`#campaign-`+id+` details.schedule summary`)))
	step("clear the start", chromedp.Clear(chromedp.ID("start-"+id)))
	step("type the start", chromedp.SendKeys(chromedp.ID("start-"+id), "10:30"))
	step("untick Friday", chromedp.Click(chromedp.CSS(`#campaign-`+id+` input[value="friday"]`)))
	step("save the schedule", chromedp.Click(chromedp.ID("schedule-"+id)))
	step("wait for the saved schedule", chromedp.WaitVisible(`//div[contains(@class, "notice")][contains(., "Saved the new schedule")]`))
	if c := text("campaign-" + id); !strings.Contains(c, "10:30 to 17:00, Monday to Thursday") {
		t.Errorf("the schedule after the change: %s", c)
	}

	// Resume it, on the new schedule.
	step("resume", chromedp.Click(chromedp.ID("resume-"+id)))
	decide("the resume")
	if s := text("status-" + id); s != "Scheduled" {
		t.Fatalf("status after the resume: %q", s)
	}
	if w := text("waiting-" + id); !strings.Contains(w, "Tue 1 Dec 2026, 10:30 UTC") {
		t.Errorf("the next email's time on the new schedule: %q", w)
	}
	tab.Screenshot("campaign-4-resumed")

	// The workspace moves to Tokyo in its settings: its window (10:30 to
	// 17:00, in the workspace's zone for a lead whose own is unknown) has
	// closed for the day there, and the time reads in Tokyo's.
	step("open the settings", chromedp.Navigate(a.srv.URL+"/app/settings"))
	step("clear the time zone", chromedp.Clear(chromedp.ID("timeZone")))
	step("type Tokyo's zone", chromedp.SendKeys(chromedp.ID("timeZone"), "Asia/Tokyo"))
	step("save the settings", chromedp.Submit(chromedp.ID("timeZone")))
	// The save answers with the settings page again (?saved=1): leaving
	// before it has would cut the post short.
	step("wait for the save", chromedp.WaitReady(`//body[contains(., "Saved")]`))
	step("back to the campaigns", chromedp.Navigate(a.srv.URL+"/app/campaigns"))
	if w := text("waiting-" + id); !strings.Contains(w, "Wed 2 Dec 2026, 10:30 Asia/Tokyo") {
		t.Errorf("the next email's time once the workspace is in Tokyo: %q", w)
	}
}
