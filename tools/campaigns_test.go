package tools

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/riverqueue/river"

	"vibesell"
	"vibesell/approvals"
	"vibesell/campaigns"
	"vibesell/featuretest"
	"vibesell/store/storetest"
	"vibesell/toolkit/toolkittest"
	"vibesell/workspace/workspacetest"
)

type campaignsBundle struct {
	env    *featuretest.Env
	ws     workspacetest.Pair
	acme   *toolkittest.Client
	globex *toolkittest.Client
}

func newCampaignsBundle(t *testing.T) *campaignsBundle {
	t.Helper()
	pool := storetest.New(t)
	// Tue 1 Dec 2026, 07:00 UTC: 08:00 in Berlin.
	env := featuretest.New(t, pool, time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC), campaigns.Config{})
	b := &campaignsBundle{env: env, ws: workspacetest.Two(t, pool)}
	deps := Deps{Workspaces: env.Workspaces, Sending: env.Sending, Approvals: env.Approvals, Audience: env.Audience, Campaigns: env.Campaigns}
	b.acme = toolkittest.Connect(t, NewServer(deps, nil), workspacetest.Principal(b.ws.Acme))
	b.globex = toolkittest.Connect(t, NewServer(deps, nil), workspacetest.Principal(b.ws.Globex))
	workers := river.NewWorkers()
	storetest.StartRiver(t, pool, &river.Config{Workers: workers, PeriodicJobs: approvals.AddWorkers(workers, env.Approvals)})
	return b
}

// asked is what a test reads of an approval as it is asked: the action,
// its status, whether it may be decided in the conversation, and whether
// it can be undone.
type asked struct {
	Action       string
	Status       string
	DecideHere   bool
	Irreversible bool
}

func askedOf(a approvalData) asked {
	return asked{Action: a.Action, Status: a.Status, DecideHere: a.DecideHere, Irreversible: a.Irreversible}
}

var workdays = []string{"monday", "tuesday", "wednesday", "thursday", "friday"}

func TestCampaignTools(t *testing.T) {
	t.Parallel()
	b := newCampaignsBundle(t)
	c := b.acme
	acme := b.ws.Acme.ID
	b.env.AddLeads(t, acme,
		vibesell.Lead{Email: "ana@alpha.test", FirstName: "Ana", Company: "Alpha", TimeZone: "Europe/Berlin"},
		vibesell.Lead{Email: "yuki@gamma.test", FirstName: "由紀", Company: "<b>Gamma</b> & Co", TimeZone: "Asia/Tokyo"},
		vibesell.Lead{Email: "lee@delta.test", Company: "Delta", TimeZone: "America/New_York"})
	b.env.AddMailbox(t, acme, "sam@getacme.test", "Sam Lee", featuretest.Warm)

	steps := []map[string]any{
		{"subject": "Lists at {{company|your team}}", "body": "Hi {{first_name|there}},\n\nYour reps at {{company}} build prospect lists by hand. We do it for them, checked and ready each Monday, so they spend the week selling.\n\nTeams like yours save about six hours a week per rep. Worth a short call next week?\n\nSam"},
		{"body": "Hi {{first_name|there}}, a quick nudge on my note below. Would a ten-minute call help?", "waitBusinessDays": 3, "sameThread": true},
	}
	var seq sequenceOutput
	t.Run("save_sequence", func(t *testing.T) {
		md := c.Result(vibesell.ToolSaveSequence, map[string]any{"name": "Lists", "steps": steps}, &seq)
		there := "there"
		want := []mergeFieldData{
			{Field: "company", Steps: []int{1}, LeadsLacking: 0, Receives: "nothing: the email cannot be sent to them until the field has a fallback, such as {{company|…}}"},
			{Field: "first_name", Steps: []int{1, 2}, LeadsLacking: 1, Fallback: &there, Receives: `"there" in its place`},
		}
		if d := cmp.Diff(want, seq.Sequence.MergeFields); d != "" {
			t.Errorf("merge fields mismatch (-want +got):\n%s", d)
		}
		if got := seq.Sequence; got.Version != 1 || got.Approved || len(got.Steps) != 2 {
			t.Fatalf("sequence version %d, approved %v, with %d steps; want version 1, not approved, with 2", got.Version, got.Approved, len(got.Steps))
		}
		if got, want := seq.Sequence.Steps[1].Subject, "Re: Lists at {{company|your team}}"; got != want {
			t.Errorf("step 2's subject %q, want %q", got, want)
		}
		mustContain(t, md, "Saved version 1 of the sequence.", "- {{first_name}}: 1 lead has no value for it and would get \"there\" in its place.",
			"### Step 2 (3 business days after step 1, in the same thread)", `call approve_sequence with sequence "`+seq.Sequence.Sequence+`" and version 1`)
		msg := c.Refusal(vibesell.ToolSaveSequence, map[string]any{"steps": []map[string]any{{"subject": "Hi", "body": "Hi {{firstname}}"}}})
		mustContain(t, msg, "Step 1's body: {{firstname}} is not a merge field we know; the fields are {{first_name}}")
	})

	t.Run("approve_sequence", func(t *testing.T) {
		var out sequenceOutput
		md := c.Result(vibesell.ToolApproveSequence, map[string]any{"sequence": seq.Sequence.Sequence, "version": 1}, &out)
		// The assistant passed the person's yes on: recorded in the words
		// decide_approval uses for a relayed decision, not as the
		// person's own act.
		via := approvals.ViaConversation
		relayed := "the person (" + viaText(&via) + ")"
		if !out.Sequence.Approved || textOf(out.Sequence.ApprovedBy) != relayed || !out.Changed {
			t.Errorf("approve: approved %v by %q, changed %v; want approved by %q, changed", out.Sequence.Approved, textOf(out.Sequence.ApprovedBy), out.Changed, relayed)
		}
		mustContain(t, md, "Approved version 1.", "Approved by the person (relayed by the assistant) on ")
		var edited sequenceOutput
		c.Result(vibesell.ToolSaveSequence, map[string]any{"sequence": seq.Sequence.Sequence, "steps": steps[:1]}, &edited)
		if edited.Sequence.Version != 2 || edited.Sequence.Approved {
			t.Errorf("edited: version %d, approved %v; want version 2, not approved", edited.Sequence.Version, edited.Sequence.Approved)
		}
		msg := c.Refusal(vibesell.ToolApproveSequence, map[string]any{"sequence": seq.Sequence.Sequence, "version": 1})
		mustContain(t, msg, "Version 1 of sequence "+seq.Sequence.Sequence+" was edited since: version 2 is the latest.")
		c.Result(vibesell.ToolApproveSequence, map[string]any{"sequence": seq.Sequence.Sequence, "version": 2}, &out)
	})

	t.Run("check_first_email", func(t *testing.T) {
		var out firstEmailOutput
		md := c.Result(vibesell.ToolCheckFirstEmail, map[string]any{"sequence": seq.Sequence.Sequence, "lead": "YUKI@gamma.test"}, &out)
		if out.Subject != "Lists at <b>Gamma</b> & Co" || !strings.HasPrefix(out.Text, "Hi 由紀,") || !strings.Contains(out.HTML, "at &lt;b&gt;Gamma&lt;/b&gt; &amp; Co build") {
			t.Errorf("rendered: %q\n%q\n%q", out.Subject, out.Text, out.HTML)
		}
		statuses := map[string]string{}
		for _, f := range out.Findings {
			statuses[f.Check] = f.Status
		}
		want := map[string]string{"merge_fields": "pass", "spam_phrases": "pass", "links": "pass", "images": "pass", "length": "pass",
			"personalisation": "warn", "subject": "pass", "unsubscribe_and_address": "fail", "mailbox": "pass"}
		if d := cmp.Diff(want, statuses); d != "" {
			t.Errorf("findings mismatch (-want +got):\n%s", d)
		}
		if out.Verdict != "fail" || out.Version != 2 {
			t.Errorf("verdict %s on version %d, want fail on version 2", out.Verdict, out.Version)
		}
		// The email is shown as composed for sending: both parts, and the
		// From line; each check names what it read.
		if out.From != "Sam Lee <sam@getacme.test>" || !strings.Contains(out.Text, "Not interested? Unsubscribe with one click") || !strings.Contains(out.HTML, "<a href=") {
			t.Errorf("composed: from %q\n%q\n%q", out.From, out.Text, out.HTML)
		}
		mustContain(t, md, "```text\n由紀, <b>Gamma</b> & Co\n```\n", "for that lead (yuki@gamma.test), as it goes out", "From: Sam Lee <sam@getacme.test>", "### Text part (text/plain)", "### HTML part (text/html)",
			"FAIL, unsubscribe and address (checked: the From line and the footers of the text part and of the HTML part, as composed for sending): The workspace has no postal address",
			"Fix: Ask the person for their postal address, and stage the campaign with postalAddress (it is saved for the whole workspace). Call stage_campaign.", "Verdict: fail.")
		msg := c.Refusal(vibesell.ToolCheckFirstEmail, map[string]any{"sequence": seq.Sequence.Sequence, "lead": "nobody@else.test"})
		mustContain(t, msg, "nobody@else.test is not one of the workspace's imported leads")
	})

	var staged campaignOutput
	t.Run("stage_campaign", func(t *testing.T) {
		md := c.Result(vibesell.ToolStageCampaign, map[string]any{"name": "Heads of sales", "sequence": seq.Sequence.Sequence,
			"windowStart": "09:00", "windowEnd": "17:00", "days": workdays, "dailyCap": 20, "stopForCompany": true}, &staged)
		cp := staged.Campaign
		want := campaignData{Campaign: cp.Campaign, Name: "Heads of sales", Status: "staged", Sequence: seq.Sequence.Sequence, SequenceVersion: 2, SequenceApproved: true,
			Steps: 1, Leads: 3, Mailboxes: []string{"sam@getacme.test"}, MailboxesTotal: 1, Schedule: scheduleData{WindowStart: "09:00", WindowEnd: "17:00", Days: workdays, DailyCap: 20, StopForCompany: true}}
		// The blocker is read in the text below, the metrics after.
		if d := cmp.Diff(want, cp, cmpopts.IgnoreFields(campaignData{}, "Blockers", "CreatedAt", "Metrics")); d != "" {
			t.Errorf("staged mismatch (-want +got):\n%s", d)
		}
		if len(cp.Blockers) != 1 {
			t.Errorf("blockers %q, want one", cp.Blockers)
		}
		// Known is not null: a staged campaign has sent nothing, and
		// each count says 0; only opens, which are not measured, are null.
		zero := countWithWhy{Value: new(0)}
		zeros := countsData{Sent: zero, Delivered: zero, Replied: zero, PositiveReplies: zero, Bounced: zero, Unsubscribed: zero, NotSentUnknown: zero}
		wantMetrics := metricsData{countsData: zeros, Steps: []stepMetricsData{{Step: 1, countsData: zeros}}}
		if d := cmp.Diff(wantMetrics, cp.Metrics, cmp.AllowUnexported(metricsData{}, stepMetricsData{}), cmpopts.IgnoreFields(metricsData{}, "Opens")); d != "" || cp.Metrics.Opens.Value != nil || cp.Metrics.Opens.Why == "" {
			t.Errorf("metrics of a staged campaign (-want +got):\n%s\nopens %v, why %q", d, cp.Metrics.Opens.Value, cp.Metrics.Opens.Why)
		}
		mustNotContain(t, md, "null")
		mustContain(t, md, "Metrics: nothing sent yet, since it is not launched: 0 sent, 0 delivered", "Opens: not measured. Open tracking is off",
			"Staged the campaign. Nothing is sent", "Schedule: 09:00 to 17:00, Monday to Friday, in each person's own time zone; at most 20 emails per mailbox a day; a reply stops everyone at that person's company.",
			"Before it can launch (1 thing):", "The workspace has no postal address")
		msg := c.Refusal(vibesell.ToolStageCampaign, map[string]any{"name": "x", "sequence": seq.Sequence.Sequence, "windowStart": "17:00", "windowEnd": "09:00", "days": workdays})
		mustContain(t, msg, "The sending window 17:00 to 09:00 is empty")
	})

	t.Run("launch_campaign lists every blocker, then asks the web app", func(t *testing.T) {
		msg := c.Refusal(vibesell.ToolLaunchCampaign, map[string]any{"campaign": staged.Campaign.Campaign})
		mustContain(t, msg, "cannot launch yet (1 thing to fix): (1) The workspace has no postal address")
		c.Result(vibesell.ToolStageCampaign, map[string]any{"campaign": staged.Campaign.Campaign, "name": "Heads of sales", "sequence": seq.Sequence.Sequence,
			"windowStart": "09:00", "windowEnd": "17:00", "days": workdays, "dailyCap": 20, "stopForCompany": true,
			"postalAddress": "Acme GmbH, Torstraße 1, 10119 Berlin, Germany", "timeZone": "Europe/Berlin"}, &staged)
		var ap approvalOutput
		md := c.Result(vibesell.ToolLaunchCampaign, map[string]any{"campaign": staged.Campaign.Campaign}, &ap)
		if d := cmp.Diff(asked{Action: vibesell.ToolLaunchCampaign, Status: "pending", Irreversible: true}, askedOf(ap.approvalData)); d != "" {
			t.Errorf("launch approval mismatch (-want +got):\n%s", d)
		}
		mustContain(t, md, "First email: Tue 1 Dec 2026, 16:00 Asia/Tokyo (07:00 UTC)", "Volume: up to 3 emails a day (20 per mailbox, 1 mailbox)",
			"Sent email cannot be recalled.", "Only a signed-in person can approve this, in the VibeSell web app")
		msg = c.Refusal(vibesell.ToolDecideApproval, map[string]any{"approval": ap.Approval, "decision": "approve"})
		mustContain(t, msg, ap.AppURL)
		if done := b.env.Decide(t, acme, ap.Approval, true, approvals.ViaWeb); done.Status != approvals.Done {
			t.Fatalf("launch: %s, %q; want done", done.Status, textOf(done.Outcome))
		}
	})

	t.Run("get_campaign and estimate_campaign_plan", func(t *testing.T) {
		var out campaignOutput
		md := c.Result(vibesell.ToolGetCampaign, nil, &out)
		if out.Campaign.Status != "scheduled" || out.Campaign.FirstSendAt == nil {
			t.Errorf("after launch: %s, with a first email due %v; want scheduled, with one", out.Campaign.Status, out.Campaign.FirstSendAt != nil)
		}
		mustContain(t, md, "Status: scheduled, first email due Tue 1 Dec 2026, 08:00 Europe/Berlin (07:00 UTC).",
			"Metrics, counted now: 0 sent, 0 delivered, 0 replied (0 positive), 0 bounced, 0 unsubscribed.\n- step 1: 0 sent",
			"Next: list_replies shows the replies as they come in (call it again later); stop_campaign with campaign "+out.Campaign.Campaign+" asks the person's approval to stop it.")
		// Each count is known, and 0; opens are not tracked.
		zero := countWithWhy{Value: new(0)}
		zeros := countsData{Sent: zero, Delivered: zero, Replied: zero, PositiveReplies: zero, Bounced: zero, Unsubscribed: zero, NotSentUnknown: zero}
		want := metricsData{countsData: zeros, Steps: []stepMetricsData{{Step: 1, countsData: zeros}}}
		if d := cmp.Diff(want, out.Campaign.Metrics, cmp.AllowUnexported(metricsData{}, stepMetricsData{}), cmpopts.IgnoreFields(metricsData{}, "Opens.Why")); d != "" {
			t.Errorf("metrics after launch mismatch (-want +got):\n%s", d)
		}
		msg := b.globex.Refusal(vibesell.ToolGetCampaign, map[string]any{"campaign": staged.Campaign.Campaign})
		mustContain(t, msg, "There is no campaign "+staged.Campaign.Campaign+" in this workspace.")

		var e campaignEstimateOutput
		md = c.Result(vibesell.ToolEstimateCampaignPlan, map[string]any{"campaign": staged.Campaign.Campaign}, &e)
		// estimate is what is checked here; the text below has the rest.
		type estimate struct {
			PerDay      int
			Days        *int
			TimeZone    string
			RepliesHigh int
		}
		if d := cmp.Diff(estimate{20, new(1), "Europe/Berlin", 0}, estimate{e.PerDay, e.Days, e.TimeZone, e.RepliesHigh}); d != "" {
			t.Errorf("estimate mismatch (-want +got):\n%s", d)
		}
		mustContain(t, md, "3 people, 1 email each, from 1 mailbox at 20 a day each: 20 emails a sending day.",
			"Every person has the first email after 1 sending day, on Tue 1 Dec 2026; the last email goes on Tue 1 Dec 2026 (dates in Europe/Berlin).", "assume 1% to 3% of the people written to reply")
		b.globex.Refusal(vibesell.ToolEstimateCampaignPlan, map[string]any{"campaign": staged.Campaign.Campaign})
	})

	t.Run("stop_campaign and resume_campaign are decided in the conversation", func(t *testing.T) {
		msg := c.Refusal(vibesell.ToolResumeCampaign, map[string]any{"campaign": staged.Campaign.Campaign})
		mustContain(t, msg, "is scheduled, not paused")
		var stop approvalOutput
		c.Result(vibesell.ToolStopCampaign, map[string]any{"campaign": staged.Campaign.Campaign}, &stop)
		if d := cmp.Diff(asked{Action: vibesell.ToolStopCampaign, Status: "pending", DecideHere: true}, askedOf(stop.approvalData)); d != "" {
			t.Errorf("stop mismatch (-want +got):\n%s", d)
		}
		var decided approvalOutput
		stopped := c.Result(vibesell.ToolDecideApproval, map[string]any{"approval": stop.Approval, "decision": "approve"}, &decided)
		if decided.Status != "done" {
			t.Fatalf("stop decided: %s, %q; want done", decided.Status, textOf(decided.Outcome))
		}
		// A stored sentence inside another ends it once: the outcome in
		// the approval's status, the reason in the campaign's.
		mustNotContain(t, stopped, "..")
		var out campaignOutput
		md := c.Result(vibesell.ToolGetCampaign, map[string]any{"campaign": staged.Campaign.Campaign}, &out)
		mustNotContain(t, md, "..")
		mustContain(t, md, "Next: resume_campaign with campaign "+staged.Campaign.Campaign)
		if out.Campaign.Status != "paused" || out.Campaign.PausedReason == nil {
			t.Errorf("after stop: %s, paused because %q; want paused, with why", out.Campaign.Status, textOf(out.Campaign.PausedReason))
		}
		msg = c.Refusal(vibesell.ToolStopCampaign, map[string]any{"campaign": staged.Campaign.Campaign})
		mustContain(t, msg, "is paused: only a scheduled or sending campaign can be stopped")
		var resume approvalOutput
		c.Result(vibesell.ToolResumeCampaign, map[string]any{"campaign": staged.Campaign.Campaign}, &resume)
		if d := cmp.Diff(asked{Action: vibesell.ToolResumeCampaign, Status: "pending", DecideHere: true}, askedOf(resume.approvalData)); d != "" {
			t.Errorf("resume mismatch (-want +got):\n%s", d)
		}
	})

	t.Run("get_campaign says why VibeSell paused a campaign and what to do", func(t *testing.T) {
		if _, err := b.env.Pool.Exec(t.Context(), `UPDATE campaigns SET status = 'paused', paused_automatically = true, paused_at = now(),
			paused_reason = 'VibeSell paused the campaign for its bounce rate: 3 of the last 100 emails of this campaign bounced for good.' WHERE id = $1`, staged.Campaign.Campaign); err != nil {
			t.Fatal(err)
		}
		md := c.Result(vibesell.ToolGetCampaign, map[string]any{"campaign": staged.Campaign.Campaign}, nil)
		mustContain(t, md, "3 of the last 100 emails of this campaign bounced for good.",
			"VibeSell paused it itself. Tell the person why; once they have dealt with the cause, resume_campaign with campaign "+staged.Campaign.Campaign+" asks to resume it, which only a signed-in person in the web app can approve.")
	})
}

// get_campaign says how many emails may have been lost in a crash, apart
// from those sent: they are in neither sent nor delivered.
func TestMetricsLineSaysWhatMayHaveBeenLost(t *testing.T) {
	n := func(v int) *int { return &v }
	counts := campaigns.Counts{Sent: n(4), Delivered: n(4), Replied: n(1), PositiveReplies: n(1), Bounced: n(0), Unsubscribed: n(0)}
	if got, want := metricsLine(counts), "4 sent, 4 delivered, 1 replied (1 positive), 0 bounced, 0 unsubscribed"; got != want {
		t.Errorf("with none lost:\n got %s\nwant %s", got, want)
	}
	counts.NotSentUnknown = n(1)
	want := "4 sent, 4 delivered, 1 replied (1 positive), 0 bounced, 0 unsubscribed, 1 not sent (unknown: the server stopped while sending it, so whether it left is not known; never sent again, and not counted as sent or delivered)"
	if got := metricsLine(counts); got != want {
		t.Errorf("with one lost:\n got %s\nwant %s", got, want)
	}
}
