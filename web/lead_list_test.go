package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/campaigns"
	"vibesell/delivery"
	"vibesell/featuretest"
	"vibesell/mail"
	"vibesell/replies"
	"vibesell/sandboxmail"
	"vibesell/sandboxmail/sandboxmailtest"
	"vibesell/web/webtest"
	"vibesell/workspace"
	"vibesell/workspace/workspacetest"
)

// leadsApp is the web app with leads in Acme's workspace (60 of them,
// lead00@… to lead59@…, the first ten at Initech) and a campaign staged
// with all of them, not launched.
type leadsApp struct {
	*app
	env      *featuretest.Env
	ws       workspacetest.Pair
	campaign string
}

func leadsSetup(t *testing.T) *leadsApp {
	t.Helper()
	ctx := context.Background()
	a, env, ws := campaignsWeb(t, true)
	var leads []vibesell.Lead
	for i := range 60 {
		company := "Hooli"
		if i < 10 {
			company = "Initech"
		}
		leads = append(leads, vibesell.Lead{Email: fmt.Sprintf("lead%02d@%s.test", i, strings.ToLower(company)), FirstName: fmt.Sprintf("Person%02d", i),
			LastName: "Example", Company: company, Title: "Head of sales"})
	}
	env.AddLeads(t, ws.Acme.ID, leads...)
	env.AddLeads(t, ws.Globex.ID, vibesell.Lead{Email: "zed@globex-lead.test", FirstName: "Zed", Company: "Elsewhere"})
	env.AddMailbox(t, ws.Acme.ID, "sam@getacme.test", "Sam Lee", featuretest.Warm)
	q, err := env.Campaigns.SaveSequence(ctx, ws.Acme.ID, campaigns.SaveRequest{Steps: []campaigns.Step{
		{Subject: "Lists at {{company|your team}}", Body: "Hi {{first_name|there}},\n\nWe build prospect lists.\n\nSam"},
		{Body: "Hi {{first_name|there}}, a quick nudge.", WaitBusinessDays: 2, SameThread: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Campaigns.ApproveSequence(ctx, ws.Acme.ID, q.Sequence.ID, 1, "ada"); err != nil {
		t.Fatal(err)
	}
	c, err := env.Campaigns.Stage(ctx, ws.Acme.ID, campaigns.StageRequest{Name: "Heads of sales", Sequence: q.Sequence.ID,
		WindowStart: 9 * 60, WindowEnd: 17 * 60, Days: []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday},
		DailyCap: 20, Mailboxes: []string{"sam@getacme.test"}, Sender: workspace.SenderChange{}})
	if err != nil {
		t.Fatal(err)
	}
	return &leadsApp{app: a, env: env, ws: ws, campaign: c.Campaign.ID}
}

var (
	leadRow  = regexp.MustCompile(`<a href="/app/leads/(\d+)">([^<]+)</a>`)
	nextPage = regexp.MustCompile(`id="next-page" href="([^"]+)"`)
)

// names are the leads a list page shows, by name.
func names(p webtest.Page) []string {
	var out []string
	for _, m := range leadRow.FindAllStringSubmatch(p.Body, -1) {
		out = append(out, m[2])
	}
	return out
}

// The leads list over HTTP: every lead, 25 a page, newest first, with a
// link to the older ones; searched and filtered; a lead's page tells its
// story; removing it (ticked, not otherwise) takes it out of the campaign
// and is recorded; another workspace's lead is not found.
func TestLeadsListAndStory(t *testing.T) {
	t.Parallel()
	a := leadsSetup(t)
	ada := a.browser(t)
	ada.signIn("ada@acme.test")

	first := ada.Get("/app/leads")
	if first.Status != http.StatusOK {
		t.Fatalf("leads page: %d\n%s", first.Status, first.Body)
	}
	got := names(first)
	if len(got) != 25 || got[0] != "Person59 Example" || got[24] != "Person35 Example" {
		t.Fatalf("first page: %d leads, from %q to %q; want 25, from Person59 to Person35", len(got), got[0], got[len(got)-1])
	}
	m := nextPage.FindStringSubmatch(first.Body)
	if m == nil {
		t.Fatal("no link to the older leads")
	}
	second := ada.Get(strings.ReplaceAll(m[1], "&amp;", "&"))
	if got := names(second); len(got) != 25 || got[0] != "Person34 Example" || !strings.Contains(second.Body, `id="first-page"`) {
		t.Errorf("second page: %q; want Person34 to Person10 and a link back to the newest", got)
	}
	m = nextPage.FindStringSubmatch(second.Body)
	if m == nil {
		t.Fatal("no link from the second page to the older leads")
	}
	third := ada.Get(strings.ReplaceAll(m[1], "&amp;", "&"))
	if got := names(third); len(got) != 10 || got[0] != "Person09 Example" || strings.Contains(third.Body, `id="next-page"`) {
		t.Errorf("third page: %q; want the 10 oldest and no next page", got)
	}

	t.Run("search and filters", func(t *testing.T) {
		for _, c := range []struct {
			query string
			want  int
		}{
			{"q=initech", 10},
			{"q=PERSON07", 1},
			{"q=lead42%40hooli", 1},
			{"status=not_emailed", 25},
			{"status=replied", 0},
			{"campaign=" + a.campaign, 25},
			{"campaign=" + a.campaign + "&q=initech&status=not_emailed", 10},
		} {
			p := ada.Get("/app/leads?" + c.query)
			if n := len(names(p)); n != c.want {
				t.Errorf("%s: %d leads, want %d", c.query, n, c.want)
			}
		}
		if p := ada.Get("/app/leads?q=nobody"); !strings.Contains(p.Body, "No lead matches this search.") {
			t.Errorf("an empty search does not say so:\n%s", p.Body)
		}
	})

	id := leadRow.FindStringSubmatch(ada.Get("/app/leads?q=PERSON07").Body)[1]
	path := "/app/leads/" + id
	t.Run("a lead's story", func(t *testing.T) {
		p := ada.Get(path)
		if p.Status != http.StatusOK {
			t.Fatalf("%d\n%s", p.Status, p.Body)
		}
		for _, want := range []string{"Person07 Example", "lead07@initech.test", "Not emailed yet", "from the lead directory",
			"Heads of sales", "Nothing sent yet.", "Email 1 of 2 goes out once the campaign is launched.", "No replies."} {
			if !strings.Contains(p.Body, want) {
				t.Errorf("the story does not say %q:\n%s", want, p.Body)
			}
		}
	})
	t.Run("a story with an email sent and a reply", func(t *testing.T) {
		ctx := t.Context()
		st, err := a.env.Audience.Story(ctx, a.ws.Acme.ID, "lead08@initech.test")
		if err != nil {
			t.Fatal(err)
		}
		sandbox, mb := sandboxmailtest.Sandbox(t, mail.Address{Name: "Sam Lee", Email: "sam@getacme.test"}, sandboxmail.Config{Clock: a.env.Clock})
		secret := sandboxmailtest.Secret(t)
		suppressions := a.env.Audience.MailSuppressions()
		res, err := delivery.NewDispatcher(a.pool, mail.NewKeys(a.pool, secret, a.env.Clock), suppressions, a.env.Clock).Send(ctx, delivery.Outgoing{
			Step:    delivery.Step{WorkspaceID: a.ws.Acme.ID, CampaignID: a.campaign, LeadID: st.Lead.ID, Step: 1},
			Mailbox: mb,
			Message: mail.Message{To: mail.Address{Email: st.Lead.Email}, Subject: "Lists at Initech", Body: "Hi,\n\nWe build prospect lists.\n\nSam",
				UnsubscribeURL: secret.UnsubscribeURL(a.srv.URL, a.ws.Acme.ID, st.Lead.Email), PostalAddress: "1 Market St, San Francisco"},
		})
		if err != nil {
			t.Fatal(err)
		}
		reply := fmt.Sprintf("From: lead08@initech.test\r\nTo: sam@getacme.test\r\nSubject: Re: Lists at Initech\r\nDate: Tue, 1 Dec 2026 10:00:00 +0000\r\nMessage-ID: <r8@initech.test>\r\nIn-Reply-To: %s\r\n\r\nNot now, maybe next quarter.\r\n", res.MessageID)
		if err := sandbox.DeliverReply(mb.Address.Email, []byte(reply)); err != nil {
			t.Fatal(err)
		}
		if _, err := replies.NewPoller(replies.PollerDeps{DB: a.pool, Suppressor: suppressions, Clock: a.env.Clock}).Poll(ctx, a.ws.Acme.ID, mb); err != nil {
			t.Fatal(err)
		}
		p := ada.Get(fmt.Sprintf("/app/leads/%d", st.Lead.ID))
		for _, want := range []string{"Replied", "sam@getacme.test</td><td>Delivered", "Stopped:</strong> They replied (lead08@initech.test), Tue 1 Dec 2026, 10:00 UTC.",
			"Not now</strong>, from lead08@initech.test", "Not now, maybe next quarter."} {
			if !strings.Contains(p.Body, want) {
				t.Errorf("the story does not say %q:\n%s", want, p.Body)
			}
		}
		if got := names(ada.Get("/app/leads?status=replied")); !cmp.Equal(got, []string{"Person08 Example"}) {
			t.Errorf("replied leads: %q", got)
		}
	})
	t.Run("removing", func(t *testing.T) {
		p := ada.Get(path)
		unticked := ada.Post(path+"/remove", url.Values{"csrf": {p.CSRF(t)}})
		if unticked.Status != http.StatusUnprocessableEntity {
			t.Errorf("removing without ticking the box: %d, want 422", unticked.Status)
		}
		done := ada.Post(path+"/remove", url.Values{"csrf": {p.CSRF(t)}, "confirm": {"yes"}})
		if done.Status != http.StatusSeeOther || done.Location != path+"?removed=1" {
			t.Fatalf("remove: %d %s\n%s", done.Status, done.Location, done.Body)
		}
		after := ada.Get(done.Location)
		for _, want := range []string{"Removed. Nothing more is sent to this person, in any campaign.", "Removed by ada@acme.test",
			"Stopped:</strong> Removed from the leads"} {
			if !strings.Contains(after.Body, want) {
				t.Errorf("after removal the page does not say %q:\n%s", want, after.Body)
			}
		}
		if strings.Contains(after.Body, `id="remove"`) {
			t.Error("a removed lead can be removed again")
		}
		if got := names(ada.Get("/app/leads?status=removed")); !cmp.Equal(got, []string{"Person07 Example"}) {
			t.Errorf("removed leads: %q", got)
		}
	})
	t.Run("another workspace's lead is not found", func(t *testing.T) {
		bob := a.browser(t)
		bob.SignIn("bob@globex.test", password, "/app/approvals")
		if p := bob.Get(path); p.Status != http.StatusNotFound {
			t.Errorf("Bob opened Acme's lead: %d", p.Status)
		}
		if p := bob.Post(path+"/remove", url.Values{"csrf": {bob.Get("/app/leads").CSRF(t)}, "confirm": {"yes"}}); p.Status != http.StatusNotFound {
			t.Errorf("Bob removed Acme's lead: %d", p.Status)
		}
		if got := names(bob.Get("/app/leads")); !cmp.Equal(got, []string{"Zed"}) {
			t.Errorf("Bob's list: %q", got)
		}
	})
}

// A person finds a lead in a real browser, without JavaScript of ours:
// searches, opens its page, reads its story, removes it.
func TestBrowserFindsAndRemovesALead(t *testing.T) {
	t.Parallel()
	a := leadsSetup(t)
	ctx := webtest.Chromium(t)
	tab := webtest.NewTab(t, ctx)
	step, text := tab.Step, tab.Text

	step("open the leads page", chromedp.Navigate(a.srv.URL+"/app/leads"))
	step("wait for the sign-in form", chromedp.WaitVisible(chromedp.ID("email")))
	step("type the email", chromedp.SendKeys(chromedp.ID("email"), "ada@acme.test"))
	step("type the password", chromedp.SendKeys(chromedp.ID("password"), password))
	step("sign in", chromedp.Submit(chromedp.ID("password")))
	step("wait for the list", chromedp.WaitVisible(chromedp.ID("leads")))
	tab.Screenshot("leads-1-list")
	step("search", chromedp.SendKeys(chromedp.ID("q"), "person42"))
	// The list before the search may show the lead too: the search's page
	// is told from it by its search field's value, which the server writes
	// (typing changes the field's property, not its attribute).
	step("show", chromedp.Click(chromedp.ID("show")))
	step("wait for the search's page", chromedp.WaitVisible(`//input[@id="q"][@value="person42"]`))
	step("wait for the result", chromedp.WaitVisible(`//table[@id="leads"]//a[contains(., "Person42")]`))
	step("open the lead", chromedp.Click(`//table[@id="leads"]//a[contains(., "Person42")]`))
	step("wait for its page", chromedp.WaitVisible(chromedp.ID("name")))
	if got := text("email"); got != "lead42@hooli.test" {
		t.Fatalf("the page is of %q", got)
	}
	if got := text("campaign-0"); !strings.Contains(got, "Email 1 of 2 goes out once the campaign is launched.") {
		t.Errorf("the campaign's part: %q", got)
	}
	tab.Screenshot("leads-2-story")
	step("tick I understand", chromedp.Click(chromedp.ID("confirm")))
	step("remove", chromedp.Click(chromedp.ID("remove")))
	step("wait for the removed page", chromedp.WaitVisible(chromedp.ID("removed")))
	if got := text("status"); got != "Removed" {
		t.Errorf("status after removal: %q", got)
	}
	if got := text("campaign-0"); !strings.Contains(got, "Removed from the leads") {
		t.Errorf("the campaign's part after removal: %q", got)
	}
	tab.Screenshot("leads-3-removed")
	st, err := a.env.Audience.Story(context.Background(), a.ws.Acme.ID, "lead42@hooli.test")
	if err != nil {
		t.Fatal(err)
	}
	if st.RemovedAt == nil || st.RemovedBy != "ada@acme.test" || st.Campaigns[0].Stop == nil {
		t.Errorf("on record: removed at %v by %q, campaign stop %+v", st.RemovedAt, st.RemovedBy, st.Campaigns[0].Stop)
	}
}
