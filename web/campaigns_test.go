package web_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/approvals"
	"vibesell/audit"
	"vibesell/auth"
	"vibesell/campaigns"
	"vibesell/delivery"
	"vibesell/featuretest"
	"vibesell/store/storetest"
	"vibesell/web"
	"vibesell/web/webtest"
	"vibesell/workspace"
	"vibesell/workspace/workspacetest"
)

// The settings page sets who the emails come from; the campaigns page
// shows each campaign of the signed-in person's workspace only.
func TestCampaignsAndSettingsPages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, env, ws := campaignsWeb(t, false)
	pool := a.pool
	ada := a.browser(t)
	ada.signIn("ada@acme.test")

	t.Run("settings", func(t *testing.T) {
		form := ada.Get("/app/settings")
		if form.Status != http.StatusOK || !strings.Contains(form.Body, `value="UTC"`) {
			t.Fatalf("settings: %d\n%s", form.Status, form.Body)
		}
		// The zone is picked from the list, found by its city, with its
		// offset on the day (the test's clock says December).
		if !strings.Contains(form.Body, `list="zones"`) || !strings.Contains(form.Body, `<option value="America/Los_Angeles" label="Los Angeles (America), UTC−08:00">`) {
			t.Errorf("the time zone is not picked from the list of zones with their offsets:\n%s", form.Body)
		}
		bad := ada.Post("/app/settings", url.Values{"csrf": {form.CSRF(t)}, "senderName": {"Ada Lovelace"}, "postalAddress": {"Acme SA, 1 rue de Rivoli, 75001 Paris, France"}, "timeZone": {"Paris"}})
		if bad.Status != http.StatusUnprocessableEntity || !strings.Contains(bad.Body, "The time zone &#34;Paris&#34; is not one we know. Did you mean Europe/Paris") || !strings.Contains(bad.Body, "1 rue de Rivoli") {
			t.Errorf("a bad time zone: %d\n%s", bad.Status, bad.Body)
		}
		ok := ada.Post("/app/settings", url.Values{"csrf": {form.CSRF(t)}, "senderName": {"Ada Lovelace"}, "postalAddress": {"Acme SA, 1 rue de Rivoli, 75001 Paris, France"}, "timeZone": {"Europe/Paris"}})
		if ok.Status != http.StatusSeeOther || ok.Location != "/app/settings?saved=1" {
			t.Fatalf("save: %d %s\n%s", ok.Status, ok.Location, ok.Body)
		}
		s, err := env.Workspaces.Sender(ctx, ws.Acme.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := workspace.Sender{Name: "Ada Lovelace", TimeZone: "Europe/Paris", PostalAddress: "Acme SA, 1 rue de Rivoli, 75001 Paris, France"}
		if d := cmp.Diff(want, s); d != "" {
			t.Errorf("saved sender mismatch (-want +got):\n%s", d)
		}
		if g, _ := env.Workspaces.Sender(ctx, ws.Globex.ID); g.Name != "" {
			t.Errorf("globex got acme's sender: %q", g.Name)
		}
		if p := ada.Get("/app/settings?saved=1"); !strings.Contains(p.Body, "Saved.") || !strings.Contains(p.Body, `value="Ada Lovelace"`) {
			t.Errorf("after saving:\n%s", p.Body)
		}
	})

	t.Run("campaigns", func(t *testing.T) {
		if p := ada.Get("/app/campaigns"); !strings.Contains(p.Body, "No campaign yet.") {
			t.Errorf("empty:\n%s", p.Body)
		}
		env.AddLeads(t, ws.Acme.ID, vibesell.Lead{Email: "ana@alpha.test", FirstName: "Ana", Company: "Alpha"})
		env.AddMailbox(t, ws.Acme.ID, "sam@getacme.test", "Sam", featuretest.Warm)
		q, err := env.Campaigns.SaveSequence(ctx, ws.Acme.ID, campaigns.SaveRequest{Name: "Lists", Steps: []campaigns.Step{
			{Subject: "Lists at {{company|your team}}", Body: "Hi {{first_name|there}}"},
			{Body: "A nudge", WaitBusinessDays: 3, SameThread: true}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := env.Campaigns.Stage(ctx, ws.Acme.ID, campaigns.StageRequest{Name: "Heads of <sales>", Sequence: q.Sequence.ID, WindowStart: 540, WindowEnd: 1020,
			Days: []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday}, DailyCap: 25}); err != nil {
			t.Fatal(err)
		}
		p := ada.Get("/app/campaigns")
		for _, want := range []string{"Heads of &lt;sales&gt;", "Not launched yet", "Lists, version 1 <strong>(not approved yet)</strong>",
			"First email: “Lists at {{company|your team}}”", "3 business days later, same thread: “Re: Lists at {{company|your team}}”",
			"1 person", "sam@getacme.test", "09:00 to 17:00, Monday to Friday, in each person&#39;s own time zone; at most 25 emails per mailbox a day",
			"0 sent, 0 delivered, 0 replied (0 interested), 0 bounced, 0 unsubscribed."} {
			if !strings.Contains(p.Body, want) {
				t.Errorf("the page lacks %q:\n%s", want, p.Body)
			}
		}

		// Launched and sending: the results come from the ledger and the
		// replies, read as the page is.
		var id string
		var lead int64
		if err := pool.QueryRow(ctx, `UPDATE campaigns SET status = 'sending', launched_at = now(), first_send_at = now() WHERE workspace_id = $1 RETURNING id`, ws.Acme.ID).Scan(&id); err != nil {
			t.Fatal(err)
		}
		if err := pool.QueryRow(ctx, `SELECT lead_id FROM campaign_leads WHERE campaign_id = $1`, id).Scan(&lead); err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `INSERT INTO mail_sends (workspace_id, campaign_id, lead_id, step, message_id, mailbox, recipient, status, claimed_at, settled_at)
			VALUES ($1, $2, $3, 1, '<m1@getacme.test>', 'sam@getacme.test', 'ana@alpha.test', 'sent', now(), now())`, ws.Acme.ID, id, lead); err != nil {
			t.Fatal(err)
		}
		if p := ada.Get("/app/campaigns"); !strings.Contains(p.Body, "1 sent, 1 delivered, 0 replied (0 interested), 0 bounced, 0 unsubscribed.") ||
			!strings.Contains(p.Body, "Email 2: 0 sent") {
			t.Errorf("the page lacks the results:\n%s", p.Body)
		}
		if _, err := pool.Exec(ctx, `INSERT INTO mail_replies (workspace_id, mailbox, message_id, from_address, subject, received_at, campaign_id, lead_id, step, matched_by, classification, rule, excerpt)
			VALUES ($1, 'sam@getacme.test', '<r1@alpha.test>', 'ana@alpha.test', 'Re: Lists', now(), $2, $3, 1, 'thread', 'interested', 'says interested', 'Interested!')`, ws.Acme.ID, id, lead); err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `UPDATE campaigns SET status = 'paused', paused_automatically = true, paused_at = now(), paused_reason = 'VibeSell paused the campaign for its bounce rate.' WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
		p = ada.Get("/app/campaigns")
		for _, want := range []string{"1 sent, 1 delivered, 1 replied (1 interested), 0 bounced, 0 unsubscribed.", "Email 1: 1 sent, 1 delivered, 1 replied (1 interested)",
			"VibeSell paused the campaign for its bounce rate. VibeSell paused it by itself, to protect your mailboxes and your plan: once the cause is dealt with, resume it here. Only a person can, in this app."} {
			if !strings.Contains(p.Body, want) {
				t.Errorf("the page lacks %q:\n%s", want, p.Body)
			}
		}

		bob := a.browser(t)
		bob.signIn("bob@globex.test")
		if p := bob.Get("/app/campaigns"); strings.Contains(p.Body, "Heads of") || !strings.Contains(p.Body, "No campaign yet.") {
			t.Errorf("globex sees acme's campaign:\n%s", p.Body)
		}
	})
}

// campaignsWeb is the web app over featuretest's services on a fresh
// database, with Ada (Acme, her account in Europe/Paris) and Bob (Globex)
// signed up; with the leads pages when withLeads.
func campaignsWeb(t *testing.T, withLeads bool) (*app, *featuretest.Env, workspacetest.Pair) {
	t.Helper()
	ctx := context.Background()
	pool := storetest.New(t)
	env := featuretest.New(t, pool, time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC), campaigns.Config{})
	ws := workspacetest.Two(t, pool)
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	accounts := auth.NewAccounts(auth.AccountsDeps{DB: pool})
	for _, u := range []auth.NewUser{
		{WorkspaceID: ws.Acme.ID, Email: "ada@acme.test", Password: password, TimeZone: "Europe/Paris"},
		{WorkspaceID: ws.Globex.ID, Email: "bob@globex.test", Password: password},
	} {
		if _, err := accounts.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	cfg := web.Deps{PublicURL: srv.URL, Accounts: accounts, Approvals: env.Approvals, Audit: audit.New(audit.Deps{DB: pool}), Workspaces: env.Workspaces, Campaigns: env.Campaigns,
		Upcoming: delivery.NewUpcoming(delivery.UpcomingDeps{DB: pool, Campaigns: env.Campaigns, Clock: env.Clock}), Clock: env.Clock, Logger: slog.New(slog.DiscardHandler)}
	if withLeads {
		cfg.Audience = env.Audience
	}
	h = web.New(cfg)
	return &app{srv: srv, pool: pool}, env, ws
}

// The campaigns page's controls refuse what the campaign's status does
// not allow, in a person's words, and another workspace's campaign is not
// found; a schedule that does not read is shown back with why.
func TestCampaignControlsRefuse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, env, ws := campaignsWeb(t, false)
	env.AddLeads(t, ws.Acme.ID, vibesell.Lead{Email: "ana@alpha.test", FirstName: "Ana"})
	env.AddMailbox(t, ws.Acme.ID, "sam@getacme.test", "Sam", featuretest.Warm)
	q, err := env.Campaigns.SaveSequence(ctx, ws.Acme.ID, campaigns.SaveRequest{Name: "Lists", Steps: []campaigns.Step{{Subject: "Lists", Body: "Hi {{first_name|there}}"}}})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := env.Campaigns.Stage(ctx, ws.Acme.ID, campaigns.StageRequest{Name: "Heads of sales", Sequence: q.Sequence.ID, WindowStart: 540, WindowEnd: 1020,
		Days: []time.Weekday{time.Monday}, DailyCap: 25})
	if err != nil {
		t.Fatal(err)
	}
	id := sc.Campaign.ID
	ada := a.browser(t)
	ada.signIn("ada@acme.test")
	csrf := ada.Get("/app/campaigns").CSRF(t)

	if p := ada.Post("/app/campaigns/"+id+"/stop", url.Values{"csrf": {csrf}}); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "This campaign is not sending any more, so there is nothing to stop") {
		t.Errorf("stopping a staged campaign: %d\n%s", p.Status, p.Body)
	}
	bad := ada.Post("/app/campaigns/"+id+"/schedule", url.Values{"csrf": {csrf}, "windowStart": {"9am"}, "windowEnd": {"17:00"}, "dailyCap": {"500"}})
	if bad.Status != http.StatusUnprocessableEntity || !strings.Contains(bad.Body, "The window&#39;s start is not a time of day") {
		t.Errorf("a schedule that does not read: %d\n%s", bad.Status, bad.Body)
	}
	over := ada.Post("/app/campaigns/"+id+"/schedule", url.Values{"csrf": {csrf}, "windowStart": {"09:00"}, "windowEnd": {"17:00"}, "days": {"monday"}, "dailyCap": {"5000"}})
	if over.Status != http.StatusUnprocessableEntity || !strings.Contains(over.Body, "A daily cap of 5000 emails per mailbox is out of range") {
		t.Errorf("a cap over the mailboxes' volume: %d\n%s", over.Status, over.Body)
	}
	if _, err := a.pool.Exec(ctx, `UPDATE campaigns SET status = 'sending', launched_at = now(), first_send_at = now() WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if p := ada.Post("/app/campaigns/"+id+"/schedule", url.Values{"csrf": {csrf}, "windowStart": {"10:00"}, "windowEnd": {"17:00"}, "days": {"monday"}, "dailyCap": {"5"}}); p.Status != http.StatusUnprocessableEntity ||
		!strings.Contains(p.Body, "Stop it first, change the schedule, then resume it.") {
		t.Errorf("a new schedule for a sending campaign: %d\n%s", p.Status, p.Body)
	}
	if p := ada.Post("/app/campaigns/"+id+"/schedule", url.Values{"windowStart": {"10:00"}}); p.Status != http.StatusForbidden {
		t.Errorf("a schedule without the form's token: %d", p.Status)
	}
	bob := a.browser(t)
	bob.signIn("bob@globex.test")
	bobCSRF := bob.Get("/app/campaigns").CSRF(t)
	if p := bob.Post("/app/campaigns/"+id+"/stop", url.Values{"csrf": {bobCSRF}}); p.Status != http.StatusNotFound {
		t.Errorf("stopping another workspace's campaign: %d\n%s", p.Status, p.Body)
	}
}

var shownField = regexp.MustCompile(`name="shown" value="([0-9a-f]{64})"`)

// shownOn is the version of what the approval page shows, as its forms
// send it back.
func shownOn(t *testing.T, body string) string {
	t.Helper()
	m := shownField.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no shown field in the page:\n%s", body)
	}
	return m[1]
}

// A launch approved on its page after its campaign's schedule changed in
// another tab is refused, naming the change, and the page shows the
// launch as it is now; approved on that, it is taken. The approvals page
// shows the audit chain's head, which moved with each step.
func TestLaunchApprovedAfterItsCampaignChangedIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, env, ws := campaignsWeb(t, false)
	env.AddLeads(t, ws.Acme.ID, vibesell.Lead{Email: "ana@alpha.test", FirstName: "Ana"}, vibesell.Lead{Email: "ben@beta.test", FirstName: "Ben"})
	env.AddMailbox(t, ws.Acme.ID, "sam@getacme.test", "Sam", featuretest.Warm)
	q, err := env.Campaigns.SaveSequence(ctx, ws.Acme.ID, campaigns.SaveRequest{Name: "Lists", Steps: []campaigns.Step{{Subject: "Lists", Body: "Hi there"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Campaigns.ApproveSequence(ctx, ws.Acme.ID, q.Sequence.ID, 1, "ada"); err != nil {
		t.Fatal(err)
	}
	addr := "Acme GmbH, Torstraße 1, 10119 Berlin, Germany"
	sc, err := env.Campaigns.Stage(ctx, ws.Acme.ID, campaigns.StageRequest{Name: "Heads of sales", Sequence: q.Sequence.ID, WindowStart: 540, WindowEnd: 1020,
		Days: []time.Weekday{time.Monday, time.Tuesday}, DailyCap: 25, Sender: workspace.SenderChange{PostalAddress: &addr}})
	if err != nil {
		t.Fatal(err)
	}
	launch, _, err := env.Campaigns.RequestLaunch(ctx, ws.Acme.ID, sc.Campaign.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	// The launch's page shows a merge field as the person will see it in
	// their emails, which the proofreading of every page flags; only that
	// is let pass.
	ada := browser{webtest.New(mergeFieldShown{t}, a.srv.URL)}
	ada.signIn("ada@acme.test")
	page := ada.Get(approvals.AppPath(launch.ID))
	seen := shownOn(t, page.Body)
	if seen != launch.ShownHash() {
		t.Fatalf("the page's shown %s is not the approval's %s", seen, launch.ShownHash())
	}
	headBefore := ada.Get("/app/approvals")

	// Another tab changes the campaign's schedule while the page is open.
	if p := ada.Post("/app/campaigns/"+sc.Campaign.ID+"/schedule", url.Values{"csrf": {page.CSRF(t)}, "windowStart": {"10:00"}, "windowEnd": {"17:00"},
		"days": {"monday", "tuesday"}, "dailyCap": {"1"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("change the schedule: %d\n%s", p.Status, p.Body)
	}
	refused := ada.Post(approvals.AppPath(launch.ID)+"/approve", url.Values{"csrf": {page.CSRF(t)}, "confirm": {"yes"}, "shown": {seen}})
	if refused.Status != http.StatusConflict {
		t.Fatalf("approve what changed: %d\n%s", refused.Status, refused.Body)
	}
	for _, want := range []string{"This changed since you saw it", "no longer listed: “First email: Tue 1 Dec 2026, 09:00 UTC”", "“Window: 10:00 to 17:00, Monday and Tuesday"} {
		if !strings.Contains(refused.Body, want) {
			t.Errorf("the refusal lacks %q:\n%s", want, refused.Body)
		}
	}
	now := shownOn(t, refused.Body)
	if now == seen {
		t.Fatal("the page shown again still sends the old version")
	}
	if cur, _ := env.Approvals.Find(ctx, ws.Acme.ID, launch.ID); cur.Status != approvals.Pending {
		t.Fatalf("after the refusal: %s", cur.Status)
	}
	taken := ada.Post(approvals.AppPath(launch.ID)+"/approve", url.Values{"csrf": {page.CSRF(t)}, "confirm": {"yes"}, "shown": {now}})
	if taken.Status != http.StatusSeeOther || taken.Location != approvals.AppPath(launch.ID)+"?done=approved" {
		t.Fatalf("approve what it shows now: %d %s\n%s", taken.Status, taken.Location, taken.Body)
	}
	var recorded string
	if err := a.pool.QueryRow(ctx, `SELECT shown FROM approval_events WHERE approval_id = $1 AND event = 'approved'`, launch.ID).Scan(&recorded); err != nil || recorded != now {
		t.Errorf("recorded version %q, %v; want %q", recorded, err, now)
	}

	head := regexp.MustCompile(`id="record-seq">(\d+)</strong>, fingerprint <code id="record-hash" class="small">([0-9a-f]{64})</code>`)
	before, after := head.FindStringSubmatch(headBefore.Body), head.FindStringSubmatch(ada.Get("/app/approvals").Body)
	if before == nil || after == nil || before[1] == after[1] || before[2] == after[2] {
		t.Errorf("the chain's head on the approvals page: before %q, after %q; want shown, and moved", before, after)
	}
	if rep, err := audit.New(audit.Deps{DB: a.pool}).VerifyDB(ctx, ws.Acme.ID); err != nil || rep.Problem != nil || rep.Last.Hash != after[2] {
		t.Errorf("the chain: %+v, %v; want sound, ending at the head shown", rep, err)
	}
}

// mergeFieldShown lets pass the one finding of the proofreading that a
// launch's approval page has: the note on merge fields shows one as
// written, which is what the person will find in their sequence.
type mergeFieldShown struct{ testing.TB }

func (c mergeFieldShown) Errorf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if !strings.Contains(msg, "such as {{first_name|there}}, are filled in") {
		c.TB.Helper()
		c.TB.Errorf("%s", msg)
	}
}
