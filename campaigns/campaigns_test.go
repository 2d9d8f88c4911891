package campaigns_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/approvals"
	"vibesell/billing"
	"vibesell/campaigns"
	"vibesell/featuretest"
	"vibesell/store/storetest"
	"vibesell/toolkit"
	"vibesell/workspace"
	"vibesell/workspace/workspacetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

type bundle struct {
	*featuretest.Env
	ws workspacetest.Pair
}

// Tue 1 Dec 2026, 07:00 UTC: 08:00 in Berlin, before its 09:00 window.
var now = time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC)

func setup(t *testing.T, cfg campaigns.Config) bundle {
	t.Helper()
	pool := storetest.New(t)
	b := bundle{Env: featuretest.New(t, pool, now, cfg), ws: workspacetest.Two(t, pool)}
	return b
}

var (
	ana  = vibesell.Lead{Email: "ana@alpha.test", FirstName: "Ana", LastName: "Silva", Company: "Alpha", CompanyDomain: "alpha.test", Country: "DE", TimeZone: "Europe/Berlin"}
	ben  = vibesell.Lead{Email: "ben@beta.test", FirstName: "", LastName: "Berg", Company: "Beta", CompanyDomain: "beta.test", Country: "US", TimeZone: "America/New_York"}
	yuki = vibesell.Lead{Email: "yuki@gamma.test", FirstName: "由紀", LastName: "", Company: "", CompanyDomain: "gamma.test", Country: "JP", TimeZone: ""}
)

var goodSteps = []campaigns.Step{
	{Subject: "Lists at {{company|your team}}", Body: "Hi {{first_name|there}},\n\nYour reps build prospect lists by hand. We do it for them, checked and ready each Monday.\n\nTeams like yours save about six hours a week per rep. Worth a short call next week to see if it fits?\n\nSam"},
	{Body: "Hi {{first_name|there}}, a quick nudge on my note below. Would a ten-minute call help?", WaitBusinessDays: 3, SameThread: true},
}

func TestSequenceVersions(t *testing.T) {
	t.Parallel()
	b := setup(t, campaigns.Config{})
	ctx := t.Context()
	acme := b.ws.Acme.ID
	b.AddLeads(t, acme, ana, ben, yuki)

	saved, err := b.Campaigns.SaveSequence(ctx, acme, campaigns.SaveRequest{Name: "Lists", Steps: []campaigns.Step{
		{Subject: "Hi {{first_name}}", Body: "At {{company|your company}} …"}}})
	if err != nil {
		t.Fatal(err)
	}
	id := saved.Sequence.ID
	there := "your company"
	wantFields := []campaigns.FieldReport{
		{Field: "first_name", Steps: []int{1}, Lacking: 1, Receives: "nothing: the email cannot be sent to them until the field has a fallback, such as {{first_name|…}}"},
		{Field: "company", Steps: []int{1}, Lacking: 1, Fallback: &there, Receives: `"your company" in its place`},
	}
	if d := cmp.Diff(wantFields, saved.Fields); d != "" || saved.Leads != 3 || saved.Sequence.Version != 1 || saved.Sequence.Approved() {
		t.Errorf("saved %d leads, version %d, approved %v; fields mismatch (-want +got):\n%s", saved.Leads, saved.Sequence.Version, saved.Sequence.Approved(), d)
	}

	t.Run("saving the same steps again makes no new version", func(t *testing.T) {
		again, err := b.Campaigns.SaveSequence(ctx, acme, campaigns.SaveRequest{Sequence: id, Steps: []campaigns.Step{
			{Subject: " Hi {{first_name}}", Body: "At {{company|your company}} …\n"}}})
		if err != nil || again.Changed || again.Sequence.Version != 1 {
			t.Errorf("again: changed %v version %d, %v", again.Changed, again.Sequence.Version, err)
		}
	})

	t.Run("approve exactly one version; an edit needs its own approval", func(t *testing.T) {
		ap, err := b.Campaigns.ApproveSequence(ctx, acme, id, 1, "ada")
		if err != nil || !ap.Sequence.Approved() || !ap.Changed {
			t.Fatalf("approve v1: version %d approved %v, changed %v, %v; want approved and changed", ap.Sequence.Version, ap.Sequence.Approved(), ap.Changed, err)
		}
		edited, err := b.Campaigns.SaveSequence(ctx, acme, campaigns.SaveRequest{Sequence: id, Steps: goodSteps})
		if err != nil || edited.Sequence.Version != 2 || edited.Sequence.Approved() {
			t.Fatalf("edit: version %d approved %v, %v", edited.Sequence.Version, edited.Sequence.Approved(), err)
		}
		v1, err := b.Campaigns.Sequence(ctx, acme, id, 1)
		if err != nil || !v1.Approved() || v1.LatestVersion != 2 {
			t.Errorf("version 1 after the edit: approved %v latest %d, %v", v1.Approved(), v1.LatestVersion, err)
		}
		_, err = b.Campaigns.ApproveSequence(ctx, acme, id, 1, "ada")
		if vibesell.ErrorCode(err) != vibesell.ECONFLICT || !strings.Contains(err.Error(), "version 2 is the latest") {
			t.Errorf("approving the old version: %v", err)
		}
		if _, err := b.Campaigns.ApproveSequence(ctx, acme, id, 3, "ada"); vibesell.ErrorCode(err) != vibesell.ENOTFOUND {
			t.Errorf("approving a version that does not exist: %v", err)
		}
		v2, err := b.Campaigns.ApproveSequence(ctx, acme, id, 2, "ada")
		if err != nil || !v2.Sequence.Approved() {
			t.Fatalf("approve v2: %v", err)
		}
		twice, err := b.Campaigns.ApproveSequence(ctx, acme, id, 2, "bob")
		if err != nil || twice.Changed || *twice.Sequence.ApprovedBy != "ada" {
			t.Errorf("approving again: changed %v by %v, %v", twice.Changed, twice.Sequence.ApprovedBy, err)
		}
	})

	t.Run("another workspace sees none of it", func(t *testing.T) {
		if _, err := b.Campaigns.Sequence(ctx, b.ws.Globex.ID, id, 0); vibesell.ErrorCode(err) != vibesell.ENOTFOUND {
			t.Errorf("globex read acme's sequence: %v", err)
		}
		if _, err := b.Campaigns.ApproveSequence(ctx, b.ws.Globex.ID, id, 2, "eve"); vibesell.ErrorCode(err) != vibesell.ENOTFOUND {
			t.Errorf("globex approved acme's sequence: %v", err)
		}
	})

	t.Run("steps that break a rule", func(t *testing.T) {
		for _, tt := range []struct {
			steps []campaigns.Step
			want  string
		}{
			{nil, "1 to 7 steps"},
			{[]campaigns.Step{{Subject: "x", Body: "Hi {{nickname}}"}}, "Step 1's body: {{nickname}} is not a merge field we know"},
			{[]campaigns.Step{{Subject: "x", Body: "y"}, {Subject: "z", Body: "w", WaitBusinessDays: 2, SameThread: true}}, "leave its subject empty"},
			{[]campaigns.Step{{Subject: "x", Body: "y"}, {Body: "w", WaitBusinessDays: 0}}, "waits 0 business days"},
		} {
			_, err := b.Campaigns.SaveSequence(ctx, acme, campaigns.SaveRequest{Steps: tt.steps})
			if vibesell.ErrorCode(err) != vibesell.EINVALID || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%v: %v, want %q", tt.steps, err, tt.want)
			}
		}
	})
}

func stage(t *testing.T, b bundle, ws workspace.Workspace, r campaigns.StageRequest) campaigns.StagedCampaign {
	t.Helper()
	if r.Name == "" {
		r.Name = "Heads of sales"
	}
	if r.WindowEnd == 0 {
		r.WindowStart, r.WindowEnd = 9*60, 17*60
	}
	if r.Days == nil {
		r.Days = []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday}
	}
	c, err := b.Campaigns.Stage(t.Context(), ws.ID, r)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Every blocker is listed in one refusal, and each goes away when fixed.
func TestLaunchBlockersAllAtOnce(t *testing.T) {
	t.Parallel()
	b := setup(t, campaigns.Config{MaxDailyEmails: 20})
	ctx := t.Context()
	acme := b.ws.Acme.ID
	b.AddLeads(t, acme, ana, ben, yuki)
	b.AddMailbox(t, acme, "sam@getacme.test", "", featuretest.Warming)
	b.AddMailbox(t, acme, "kim@getacme.test", "", featuretest.Warm)
	saved, err := b.Campaigns.SaveSequence(ctx, acme, campaigns.SaveRequest{Steps: []campaigns.Step{
		{Subject: "FREE LISTS!!!", Body: "Hi {{first_name}}, get guaranteed cash now: click here https://bit.ly/x"}}})
	if err != nil {
		t.Fatal(err)
	}
	c := stage(t, b, b.ws.Acme, campaigns.StageRequest{Sequence: saved.Sequence.ID, DailyCap: 30})

	_, _, err = b.Campaigns.RequestLaunch(ctx, acme, c.Campaign.ID, "")
	want := []string{
		"cannot launch yet (7 things to fix)",
		"(1) The workspace has no postal address",
		"(2) No sender name for kim@getacme.test and sam@getacme.test",
		"(3) Sequence " + saved.Sequence.ID + " version 1 is not approved",
		"(4) Not warm yet: sam@getacme.test (warming).",
		"(5) {{first_name}} has no fallback, and 1 of 3 leads have no value for it",
		`(6) The first-email check fails: Spam-trigger phrases: "cash", "click here", "free" and "guaranteed"`,
		// The steps follow, for the assistant as the calls that take them.
		"- See the first-email check and what fixes each finding. Call check_first_email with sequence " + saved.Sequence.ID + " and version 1.",
		"1 link, including the link shortener bit.ly",
		`The subject "FREE LISTS!!!" is mostly capitals`,
		"(7) A workspace may schedule at most 20 emails a day across its campaigns on this installation; this one would bring it to 60",
	}
	if vibesell.ErrorCode(err) != vibesell.EINVALID {
		t.Fatalf("launch: %v", err)
	}
	for _, w := range want {
		if !strings.Contains(toolkit.ForAssistant(err), w) {
			t.Errorf("the refusal lacks %q:\n%s", w, toolkit.ForAssistant(err))
		}
	}
	if len(c.Blockers) != 7 {
		t.Errorf("staging listed %d blockers, want 7: %q", len(c.Blockers), c.Blockers)
	}

	t.Run("no leads", func(t *testing.T) {
		globex := b.ws.Globex.ID
		b.AddMailbox(t, globex, "eve@getglobex.test", "Eve", featuretest.Warm)
		q, err := b.Campaigns.SaveSequence(ctx, globex, campaigns.SaveRequest{Steps: goodSteps})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Campaigns.ApproveSequence(ctx, globex, q.Sequence.ID, 1, "eve"); err != nil {
			t.Fatal(err)
		}
		addr := "Globex Ltd, 1 Main Street, Springfield, USA"
		g := stage(t, b, b.ws.Globex, campaigns.StageRequest{Sequence: q.Sequence.ID, DailyCap: 10, Sender: workspace.SenderChange{PostalAddress: &addr}})
		want := []vibesell.Blocker{{What: "The campaign has no leads.", Next: []vibesell.Next{
			{Do: "Import leads.", Tool: vibesell.ToolImportLeads},
			{Do: "Then stage the campaign again.", Tool: vibesell.ToolStageCampaign, Args: map[string]any{"campaign": g.Campaign.ID}},
		}}}
		if d := cmp.Diff(want, g.Blockers); d != "" {
			t.Errorf("blockers mismatch (-want +got):\n%s", d)
		}
	})
}

// A campaign staged with a version edited since is never sent to
// approve a version approve_sequence refuses: the blocker names the
// latest version and staging again, and following it clears it.
func TestLaunchBlockerOfAnOlderVersionGetsOut(t *testing.T) {
	t.Parallel()
	b := setup(t, campaigns.Config{})
	ctx := t.Context()
	acme := b.ws.Acme.ID
	b.AddLeads(t, acme, ana, ben, yuki)
	b.AddMailbox(t, acme, "sam@getacme.test", "Sam Lee", featuretest.Warm)
	q, err := b.Campaigns.SaveSequence(ctx, acme, campaigns.SaveRequest{Steps: goodSteps})
	if err != nil {
		t.Fatal(err)
	}
	addr, zone := "Acme GmbH, Torstraße 1, 10119 Berlin, Germany", "Europe/Berlin"
	r := campaigns.StageRequest{Sequence: q.Sequence.ID, DailyCap: 20, Sender: workspace.SenderChange{PostalAddress: &addr, TimeZone: &zone}}
	c := stage(t, b, b.ws.Acme, r)
	if _, err := b.Campaigns.SaveSequence(ctx, acme, campaigns.SaveRequest{Sequence: q.Sequence.ID, Steps: goodSteps[:1]}); err != nil {
		t.Fatal(err)
	}
	blocker := func() string {
		t.Helper()
		_, _, err := b.Campaigns.RequestLaunch(ctx, acme, c.Campaign.ID, "")
		if vibesell.ErrorCode(err) != vibesell.EINVALID {
			t.Fatalf("launch: %v", err)
		}
		return toolkit.ForAssistant(err)
	}
	for _, w := range []string{"sends sequence " + q.Sequence.ID + " version 1, which is not approved, and only the latest version (2) can be approved now",
		"approve it once they agree. Call approve_sequence with sequence " + q.Sequence.ID + " and version 2.\n- Stage the campaign again with the same settings, leaving sequenceVersion out (it takes the latest version). Call stage_campaign with campaign " + c.Campaign.ID + "."} {
		if msg := blocker(); !strings.Contains(msg, w) || strings.Contains(msg, "and version 1.") {
			t.Errorf("the refusal lacks %q (or loops):\n%s", w, msg)
		}
	}
	// approve_sequence refuses version 1, as the old text asked.
	if _, err := b.Campaigns.ApproveSequence(ctx, acme, q.Sequence.ID, 1, "ada"); vibesell.ErrorCode(err) != vibesell.ECONFLICT {
		t.Fatalf("approving version 1: %v", err)
	}
	if _, err := b.Campaigns.ApproveSequence(ctx, acme, q.Sequence.ID, 2, "ada"); err != nil {
		t.Fatal(err)
	}
	if msg, w := blocker(), "version 2 is the latest and is approved."; !strings.Contains(msg, w) || !strings.Contains(msg, "Call stage_campaign with campaign "+c.Campaign.ID+".") {
		t.Errorf("the refusal lacks %q:\n%s", w, msg)
	}
	r.Campaign = c.Campaign.ID
	if again := stage(t, b, b.ws.Acme, r); len(again.Blockers) != 0 || again.Campaign.SequenceVersion != 2 {
		t.Errorf("staged again: version %d, blockers %q; want version 2, none", again.Campaign.SequenceVersion, again.Blockers)
	}
}

type launched struct {
	campaign campaigns.StagedCampaign
	launch   approvals.Approval
}

// launchable stages a campaign in Acme that nothing blocks and launches it.
func launchable(t *testing.T, b bundle) launched {
	t.Helper()
	ctx := t.Context()
	acme := b.ws.Acme.ID
	b.AddLeads(t, acme, ana, ben, yuki)
	b.AddMailbox(t, acme, "sam@getacme.test", "Sam Lee", featuretest.Warm)
	q, err := b.Campaigns.SaveSequence(ctx, acme, campaigns.SaveRequest{Steps: goodSteps})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Campaigns.ApproveSequence(ctx, acme, q.Sequence.ID, 1, "ada"); err != nil {
		t.Fatal(err)
	}
	addr, zone := "Acme GmbH, Torstraße 1, 10119 Berlin, Germany", "Europe/Berlin"
	c := stage(t, b, b.ws.Acme, campaigns.StageRequest{Sequence: q.Sequence.ID, DailyCap: 20,
		Sender: workspace.SenderChange{PostalAddress: &addr, TimeZone: &zone}})
	if len(c.Blockers) != 0 {
		t.Fatalf("blockers: %q", c.Blockers)
	}
	a, created, err := b.Campaigns.RequestLaunch(ctx, acme, c.Campaign.ID, "")
	if err != nil || !created {
		t.Fatalf("launch: %v", err)
	}
	speaksToAPerson(t, a)
	return launched{c, a}
}

func TestLaunchStopResume(t *testing.T) {
	t.Parallel()
	b := setup(t, campaigns.Config{})
	ctx := t.Context()
	acme := b.ws.Acme.ID
	l := launchable(t, b)
	id := l.campaign.Campaign.ID

	// Berlin opens first: 09:00 CET is 08:00 UTC; New York and Yuki (the
	// workspace's zone, Berlin) later or the same.
	if !l.launch.Irreversible || l.launch.DecideHere || l.launch.Status != approvals.Pending {
		t.Errorf("launch approval: irreversible %v decideHere %v status %s", l.launch.Irreversible, l.launch.DecideHere, l.launch.Status)
	}
	wantItems := []string{
		"First email: Tue 1 Dec 2026, 09:00 Europe/Berlin (08:00 UTC)",
		"Volume: up to 3 emails a day (20 per mailbox, 1 mailbox)",
		"Window: 09:00 to 17:00, Monday to Friday, in each person's own time zone",
		"Stops for a person when they reply",
	}
	if d := cmp.Diff(wantItems, l.launch.Impact.Items); d != "" {
		t.Errorf("impact items mismatch (-want +got):\n%s", d)
	}
	if !strings.Contains(l.launch.Impact.Undo, "Sent email cannot be recalled") || !strings.Contains(l.launch.Impact.Who, "3 people") {
		t.Errorf("impact: undo %q, who %q; want sent email cannot be recalled, 3 people", l.launch.Impact.Undo, l.launch.Impact.Who)
	}
	if _, created, err := b.Campaigns.RequestLaunch(ctx, acme, id, ""); err != nil || created {
		t.Errorf("asking again opened a second approval: %v", err)
	}

	done := b.Decide(t, acme, l.launch.ID, true, approvals.ViaWeb)
	if done.Status != approvals.Done {
		t.Fatalf("launch: %s %v", done.Status, done.Outcome)
	}
	c, err := b.Campaigns.Campaign(ctx, acme, id)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(state{Status: campaigns.Scheduled, FirstSendAt: time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)}, stateOf(c.Campaign)); d != "" {
		t.Fatalf("after launch mismatch (-want +got):\n%s", d)
	}

	// A second pool is another replica.
	replica := replicaOf(t, b.Pool)
	allowed := func(db *pgxpool.Pool) bool {
		t.Helper()
		var ok bool
		err := pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
			var err error
			ok, err = campaigns.SendAllowed(ctx, tx, acme, id)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !allowed(replica) {
		t.Fatal("a launched campaign may not send")
	}
	if ok, err := func() (bool, error) {
		var ok bool
		err := pgx.BeginFunc(ctx, b.Pool, func(tx pgx.Tx) error {
			var err error
			ok, err = campaigns.SendAllowed(ctx, tx, b.ws.Globex.ID, id)
			return err
		})
		return ok, err
	}(); ok || err != nil {
		t.Errorf("globex may send acme's campaign: %v %v", ok, err)
	}

	t.Run("stop waits for a send in flight, and every send after it sees the stop", func(t *testing.T) {
		stop, _, err := b.Campaigns.RequestStop(ctx, acme, id, "")
		if err != nil || !stop.DecideHere || stop.Irreversible {
			t.Fatalf("stop: decided here %v, irreversible %v, %v; want decided here, reversible", stop.DecideHere, stop.Irreversible, err)
		}
		speaksToAPerson(t, stop)
		if _, _, err := b.Approvals.Decide(ctx, acme, stop.ID, approvals.Decision{Approve: true, By: "ada", Via: approvals.ViaConversation}); err != nil {
			t.Fatal(err)
		}
		// Half a second before the first send is due, a sender on the
		// other replica holds the campaign in its transaction.
		b.Clock.Set(c.Campaign.FirstSendAt.Add(-500 * time.Millisecond))
		send, err := replica.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer send.Rollback(context.Background())
		if ok, err := campaigns.SendAllowed(ctx, send, acme, id); !ok || err != nil {
			t.Fatalf("the due send: %v %v", ok, err)
		}
		stopped := make(chan error, 1)
		go func() { stopped <- b.Approvals.Execute(ctx, acme, stop.ID, 1, approvals.MaxExecutionAttempts) }()
		waitForLockWait(t, b.Pool)
		select {
		case err := <-stopped:
			t.Fatalf("the stop did not wait for the send in flight: %v", err)
		default:
		}
		if err := send.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-stopped; err != nil {
			t.Fatal(err)
		}
		if allowed(replica) || allowed(b.Pool) {
			t.Error("a send after the stop was allowed")
		}
		c, err := b.Campaigns.Campaign(ctx, acme, id)
		if st := stateOf(c.Campaign); err != nil || st.Status != campaigns.Paused || !strings.HasPrefix(st.PausedReason, "Stopped by ada") {
			t.Errorf("after stop: %s, %q, %v; want paused, stopped by ada", st.Status, st.PausedReason, err)
		}
	})

	t.Run("resume after a stop is decided in the conversation", func(t *testing.T) {
		a, _, err := b.Campaigns.RequestResume(ctx, acme, id, "")
		if err != nil || !a.DecideHere {
			t.Fatalf("resume: decided here %v, %v; want decided here", a.DecideHere, err)
		}
		speaksToAPerson(t, a)
		if done := b.Decide(t, acme, a.ID, true, approvals.ViaConversation); done.Status != approvals.Done || !allowed(b.Pool) {
			t.Errorf("resumed: %s %v", done.Status, done.Outcome)
		}
	})

	t.Run("resume after an automatic pause needs the web app and says why", func(t *testing.T) {
		if ok, err := b.Campaigns.Pause(ctx, acme, id, "2.4% of its emails bounced today, above the 2% limit.", true); !ok || err != nil {
			t.Fatalf("pause: %v %v", ok, err)
		}
		a, _, err := b.Campaigns.RequestResume(ctx, acme, id, "")
		if err != nil || a.DecideHere || !strings.Contains(a.Impact.Undo, "2.4% of its emails bounced") {
			t.Errorf("resume: decided here %v, undo %q, %v; want only in the web app, saying 2.4%% of its emails bounced", a.DecideHere, a.Impact.Undo, err)
		}
	})

	t.Run("another workspace can neither see nor stop it", func(t *testing.T) {
		if _, err := b.Campaigns.Campaign(ctx, b.ws.Globex.ID, id); vibesell.ErrorCode(err) != vibesell.ENOTFOUND {
			t.Errorf("get: %v", err)
		}
		if _, _, err := b.Campaigns.RequestStop(ctx, b.ws.Globex.ID, id, "eve"); vibesell.ErrorCode(err) != vibesell.ENOTFOUND {
			t.Errorf("stop: %v", err)
		}
	})
}

func TestEstimate(t *testing.T) {
	t.Parallel()
	b := setup(t, campaigns.Config{ReplyRateLow: 1, ReplyRateHigh: 3})
	acme := b.ws.Acme.ID
	l := launchable(t, b)
	// Three leads, one mailbox at 2 a day: Tue 1 Dec 2 first emails, Wed 1
	// more; their follow-ups 3 business days later: Fri 4 Dec (2) and
	// Mon 7 Dec (1).
	two := 2
	c := stage(t, b, b.ws.Acme, campaigns.StageRequest{Campaign: l.campaign.Campaign.ID, Sequence: l.campaign.Sequence.ID, DailyCap: two})
	e, err := b.Campaigns.EstimatePlan(t.Context(), acme, c.Campaign.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{vibesell.FormatDate(*e.FirstSendOn), vibesell.FormatDate(*e.LastFirstTouchOn), vibesell.FormatDate(*e.LastSendOn)}
	if d := cmp.Diff([]string{"Tue 1 Dec 2026", "Wed 2 Dec 2026", "Mon 7 Dec 2026"}, got); d != "" || *e.Days != 2 || e.PerDay != 2 || e.PerMailboxPerDay != 2 {
		t.Errorf("days %d per day %d; dates mismatch (-want +got):\n%s", *e.Days, e.PerDay, d)
	}
	if e.RepliesLow != 0 || e.RepliesHigh != 0 || !strings.Contains(e.Assumption, "1% to 3%") || e.Zone != "Europe/Berlin" {
		t.Errorf("replies %d–%d, zone %s: %s", e.RepliesLow, e.RepliesHigh, e.Zone, e.Assumption)
	}
}

// replicaOf opens a second pool on the same database: what another server
// replica has.
func replicaOf(t *testing.T, pool *pgxpool.Pool) *pgxpool.Pool {
	t.Helper()
	r, err := pgxpool.NewWithConfig(t.Context(), pool.Config().Copy())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// waitForLockWait returns once a session of the database waits for a row
// lock, polling a bounded number of times.
func waitForLockWait(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	for range 500 {
		var waiting bool
		if err := pool.QueryRow(t.Context(), `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock')`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no session waited for a lock within 5 seconds")
}

// A launch approved for one staging does not launch the campaign staged
// again since.
// Two launches approved while one running campaign was left: exactly one
// runs, the other is not done and says why; asking for another launch
// is refused with the limit, the usage and the way up.
func TestLaunchHeldToPlan(t *testing.T) {
	t.Parallel()
	pool := storetest.New(t)
	env, _ := featuretest.NewHeldToPlans(t, pool, now, campaigns.Config{}, billing.Limits{Mailboxes: 3, LeadsPerMonth: 250, ActiveCampaigns: 1, EmailsPerMonth: 1000})
	b := bundle{Env: env, ws: workspacetest.Two(t, pool)}
	ctx, acme := t.Context(), b.ws.Acme.ID
	first := launchable(t, b)
	second := stage(t, b, b.ws.Acme, campaigns.StageRequest{Name: "Heads of sales, again", Sequence: first.campaign.Campaign.SequenceID, DailyCap: 20})
	a2, _, err := b.Campaigns.RequestLaunch(ctx, acme, second.Campaign.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{first.launch.ID, a2.ID}
	for _, id := range ids {
		if _, _, err := b.Approvals.Decide(ctx, acme, id, approvals.Decision{Approve: true, By: "ada@acme.test", Via: approvals.ViaWeb}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() {
			if err := b.Approvals.Execute(context.Background(), acme, id, 1, approvals.MaxExecutionAttempts); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	var statuses []approvals.Status
	var refused string
	for _, id := range ids {
		a, err := b.Approvals.Find(ctx, acme, id)
		if err != nil {
			t.Fatal(err)
		}
		statuses = append(statuses, a.Status)
		if a.Status == approvals.NotDone && a.Outcome != nil {
			refused = *a.Outcome
		}
	}
	slices.Sort(statuses)
	if d := cmp.Diff([]approvals.Status{approvals.Done, approvals.NotDone}, statuses); d != "" {
		t.Fatalf("launches mismatch (-want +got):\n%s", d)
	}
	want := "Not carried out: The Free plan allows 1 active campaign; 1 in use, so 1 more would go over. The Starter plan allows 5 active campaigns for USD 49.00 per month. Subscribe to the Starter plan."
	if refused != want {
		t.Errorf("outcome of the launch over the plan:\n got %q\nwant %q", refused, want)
	}
	running, err := campaigns.Running(ctx, b.Pool, acme)
	if err != nil || running != 1 {
		t.Errorf("%d campaigns running, %v; want 1", running, err)
	}

	t.Run("asking for another launch is refused for the plan", func(t *testing.T) {
		third := stage(t, b, b.ws.Acme, campaigns.StageRequest{Name: "Third", Sequence: first.campaign.Campaign.SequenceID, DailyCap: 20})
		_, _, err := b.Campaigns.RequestLaunch(ctx, acme, third.Campaign.ID, "")
		want := "The Free plan allows 1 active campaign; 1 in use, so 1 more would go over. The Starter plan allows 5 active campaigns for USD 49.00 per month.\n\nNext:\n- Subscribe to the Starter plan. Call start_checkout with plan starter."
		if d := cmp.Diff([]string{vibesell.EPAYMENTREQUIRED, want}, []string{vibesell.ErrorCode(err), toolkit.ForAssistant(err)}); d != "" {
			t.Errorf("refusal mismatch (-want +got):\n%s", d)
		}
		plan := vibesell.Blocker{What: vibesell.ErrorMessage(err), Next: vibesell.ErrorNext(err)}
		got, err := b.Campaigns.Campaign(ctx, acme, third.Campaign.ID)
		if err != nil || !slices.ContainsFunc(got.Blockers, func(b vibesell.Blocker) bool { return cmp.Equal(b, plan) }) {
			t.Errorf("the campaign's blockers do not name the plan: %q %v", got.Blockers, err)
		}
	})

	t.Run("a paused campaign resumes only within the plan", func(t *testing.T) {
		var runningID, stagedID string
		for i, id := range ids {
			a, _ := b.Approvals.Find(ctx, acme, id)
			campaign := []string{first.campaign.Campaign.ID, second.Campaign.ID}[i]
			if a.Status == approvals.Done {
				runningID = campaign
			} else {
				stagedID = campaign
			}
		}
		if _, err := b.Campaigns.Pause(ctx, acme, runningID, "Stopped by ada@acme.test.", false); err != nil {
			t.Fatal(err)
		}
		launch, _, err := b.Campaigns.RequestLaunch(ctx, acme, stagedID, "")
		if err != nil {
			t.Fatal(err)
		}
		if a := b.Decide(t, acme, launch.ID, true, approvals.ViaWeb); a.Status != approvals.Done {
			t.Fatalf("launch while the other is paused: %s %v", a.Status, a.Outcome)
		}
		_, _, err = b.Campaigns.RequestResume(ctx, acme, runningID, "")
		if vibesell.ErrorCode(err) != vibesell.EPAYMENTREQUIRED || !strings.HasPrefix(vibesell.ErrorMessage(err), "The Free plan allows 1 active campaign; 1 in use, so 1 more would go over.") {
			t.Errorf("resume over the plan: %v", err)
		}
	})
}

func TestLaunchOfAnotherStaging(t *testing.T) {
	t.Parallel()
	b := setup(t, campaigns.Config{})
	ctx := t.Context()
	acme := b.ws.Acme.ID
	l := launchable(t, b)
	c := l.campaign.Campaign
	seen := l.launch.ShownHash()

	// Staged again while its launch waits: what the approval shows now is
	// the new staging, and a decision on what was shown before is refused,
	// naming what changed.
	stage(t, b, b.ws.Acme, campaigns.StageRequest{Campaign: c.ID, Sequence: c.SequenceID, DailyCap: 1})
	for _, approve := range []bool{true, false} {
		_, taken, err := b.Approvals.Decide(ctx, acme, l.launch.ID, approvals.Decision{Approve: approve, By: "ada@acme.test", Via: approvals.ViaWeb, Shown: seen})
		if taken || !approvals.IsChanged(err) {
			t.Fatalf("decision (approve %v) on what was shown before: taken %v, %v; want refused as changed", approve, taken, err)
		}
		want := "no longer listed: “Volume: up to 3 emails a day (20 per mailbox, 1 mailbox)”; newly listed: “Volume: up to 1 email a day (1 per mailbox, 1 mailbox)”"
		if !strings.Contains(vibesell.ErrorMessage(err), want) {
			t.Errorf("refusal does not name the change %q: %s", want, vibesell.ErrorMessage(err))
		}
	}
	now, err := b.Approvals.Current(ctx, acme, l.launch.ID)
	if err != nil || now.Status != approvals.Pending || now.ShownHash() == seen {
		t.Fatalf("approval after the refusals: %s, shown %s (before %s), %v; want pending, revised", now.Status, now.ShownHash(), seen, err)
	}
	if n, err := b.Approvals.ShownVersions(ctx, acme, l.launch.ID); err != nil || n != 2 {
		t.Errorf("versions kept: %d, %v; want 2", n, err)
	}

	// Shown again, decided on what it shows now: taken, recorded with that
	// version, and the new staging launches.
	if _, taken, err := b.Approvals.Decide(ctx, acme, l.launch.ID, approvals.Decision{Approve: true, By: "ada@acme.test", Via: approvals.ViaWeb, Shown: now.ShownHash()}); err != nil || !taken {
		t.Fatalf("decision on what it shows now: taken %v, %v", taken, err)
	}
	var recorded string
	if err := b.Pool.QueryRow(ctx, `SELECT shown FROM approval_events WHERE workspace_id = $1 AND approval_id = $2 AND event = 'approved'`, acme, l.launch.ID).Scan(&recorded); err != nil || recorded != now.ShownHash() {
		t.Errorf("recorded version %q, %v; want %q", recorded, err, now.ShownHash())
	}
	if err := b.Approvals.Execute(ctx, acme, l.launch.ID, 1, approvals.MaxExecutionAttempts); err != nil {
		t.Fatal(err)
	}
	if a, _ := b.Approvals.Find(ctx, acme, l.launch.ID); a.Status != approvals.Done {
		t.Errorf("launch of the revised staging: %s %v", a.Status, a.Outcome)
	}
}

func TestLaunchStagedAgainAfterItWasApproved(t *testing.T) {
	t.Parallel()
	b := setup(t, campaigns.Config{})
	l := launchable(t, b)
	c := l.campaign.Campaign
	acme := b.ws.Acme.ID
	if _, _, err := b.Approvals.Decide(t.Context(), acme, l.launch.ID, approvals.Decision{Approve: true, By: "ada@acme.test", Via: approvals.ViaWeb, Shown: l.launch.ShownHash()}); err != nil {
		t.Fatal(err)
	}
	stage(t, b, b.ws.Acme, campaigns.StageRequest{Campaign: c.ID, Sequence: c.SequenceID, DailyCap: 5})
	if err := b.Approvals.Execute(t.Context(), acme, l.launch.ID, 1, approvals.MaxExecutionAttempts); err != nil {
		t.Fatal(err)
	}
	a, _ := b.Approvals.Find(t.Context(), acme, l.launch.ID)
	if a.Status != approvals.NotDone || a.Outcome == nil || !strings.Contains(*a.Outcome, "was staged again after this launch was approved") {
		t.Errorf("launch of the old staging: %s %v", a.Status, a.Outcome)
	}
	got, err := b.Campaigns.Campaign(t.Context(), acme, c.ID)
	if err != nil || got.Campaign.Status != campaigns.Staged {
		t.Errorf("campaign: %s, %v; want staged", got.Campaign.Status, err)
	}
}

// BenchmarkSendAllowed measures what checking the campaign's status costs
// a send's transaction, against the same transaction with a bare SELECT.
func BenchmarkSendAllowed(b *testing.B) {
	pool := storetest.New(b)
	env := featuretest.New(b, pool, now, campaigns.Config{})
	ws := workspacetest.Two(b, pool)
	env.AddMailbox(b, ws.Acme.ID, "sam@getacme.test", "Sam", featuretest.Warm)
	q, err := env.Campaigns.SaveSequence(b.Context(), ws.Acme.ID, campaigns.SaveRequest{Steps: goodSteps})
	if err != nil {
		b.Fatal(err)
	}
	c, err := env.Campaigns.Stage(b.Context(), ws.Acme.ID, campaigns.StageRequest{Name: "x", Sequence: q.Sequence.ID, WindowStart: 0, WindowEnd: 1440,
		Days: []time.Weekday{time.Monday}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	b.Run("baseline: a transaction with SELECT 1", func(b *testing.B) {
		for b.Loop() {
			if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return tx.QueryRow(ctx, `SELECT 1`).Scan(new(int)) }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("a transaction with SendAllowed", func(b *testing.B) {
		for b.Loop() {
			if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
				_, err := campaigns.SendAllowed(ctx, tx, ws.Acme.ID, c.Campaign.ID)
				return err
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// speaksToAPerson fails the test when an approval's impact, which the web
// app shows to a person, names a tool: that is the assistant's word.
// state is what a test checks of a campaign: its status, why it is
// paused ("" when it is not) and when its first email is due (zero until
// it is launched).
type state struct {
	Status       string
	PausedReason string
	FirstSendAt  time.Time
}

func stateOf(c campaigns.Campaign) state {
	s := state{Status: c.Status}
	if c.PausedReason != nil {
		s.PausedReason = *c.PausedReason
	}
	if c.FirstSendAt != nil {
		s.FirstSendAt = *c.FirstSendAt
	}
	return s
}

func speaksToAPerson(t *testing.T, a approvals.Approval) {
	t.Helper()
	im := a.Impact
	text := strings.Join(append([]string{im.What, im.Who, im.When, im.Renewal, im.Undo, im.Charged, im.PersonOnly}, im.Items...), "\n")
	for _, tool := range []string{vibesell.ToolLaunchCampaign, vibesell.ToolStopCampaign, vibesell.ToolResumeCampaign, vibesell.ToolGetCampaign, vibesell.ToolStageCampaign} {
		if strings.Contains(text, tool) {
			t.Errorf("the %s approval's impact names %s, a tool, to a person:\n%s", a.Action, tool, text)
		}
	}
}
