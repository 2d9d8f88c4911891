package tools

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"vibesell"
	"vibesell/approvals"
	"vibesell/featuretest"
)

// get_workspace_context shows the campaigns, each with its status (and
// why it is paused), and what they need next, from the first sequence to
// a pause VibeSell made, which comes before anything else.
func TestCampaignsInTheWorkspaceContext(t *testing.T) {
	t.Parallel()
	b := newCampaignsBundle(t)
	c := b.acme
	acme := b.ws.Acme.ID
	b.env.AddLeads(t, acme, vibesell.Lead{Email: "ana@alpha.test", FirstName: "Ana", Company: "Alpha", TimeZone: "Europe/Berlin"})
	b.env.AddMailbox(t, acme, "sam@getacme.test", "Sam Lee", featuretest.Warm)
	read := func(t *testing.T) (workspaceOutput, string) {
		t.Helper()
		var out workspaceOutput
		md := c.Result(vibesell.ToolGetWorkspaceContext, nil, &out)
		if out.Campaigns == nil {
			t.Fatal("no campaigns in the context")
		}
		return out, md
	}
	nextTool := func(t *testing.T, s nextStepData, want string) {
		t.Helper()
		if s.Tool == nil || *s.Tool != want {
			t.Errorf("next step %q (%s), want %s", textOf(s.Tool), s.Why, want)
		}
	}

	t.Run("no campaign: write the emails first", func(t *testing.T) {
		out, md := read(t)
		if d := cmp.Diff(campaignsSummaryData{Campaigns: []campaignSummaryData{}, NextStep: out.Campaigns.NextStep}, *out.Campaigns); d != "" {
			t.Errorf("campaigns mismatch (-want +got):\n%s", d)
		}
		nextTool(t, out.Campaigns.NextStep, vibesell.ToolSaveSequence)
		mustContain(t, md, "### Campaigns\nNone yet.\n")
	})

	steps := []map[string]any{{"subject": "Lists at {{company|your team}}", "body": "Hi {{first_name|there}},\n\nYour reps build prospect lists by hand. We do it for them, checked and ready each Monday.\n\nWorth a short call next week?\n\nSam"}}
	var seq sequenceOutput
	c.Result(vibesell.ToolSaveSequence, map[string]any{"name": "Lists", "steps": steps}, &seq)
	t.Run("a sequence not approved: the person reads it first", func(t *testing.T) {
		out, _ := read(t)
		nextTool(t, out.Campaigns.NextStep, vibesell.ToolApproveSequence)
		mustContain(t, out.Campaigns.NextStep.Why, "Sequence "+seq.Sequence.Sequence+" version 1 is not approved yet")
	})
	c.Result(vibesell.ToolApproveSequence, map[string]any{"sequence": seq.Sequence.Sequence, "version": 1}, nil)
	t.Run("an approved sequence: stage the campaign", func(t *testing.T) {
		out, _ := read(t)
		nextTool(t, out.Campaigns.NextStep, vibesell.ToolStageCampaign)
	})

	var staged campaignOutput
	c.Result(vibesell.ToolStageCampaign, map[string]any{"name": "Heads of sales", "sequence": seq.Sequence.Sequence,
		"windowStart": "09:00", "windowEnd": "17:00", "days": workdays, "dailyCap": 20,
		"postalAddress": "Acme GmbH, Torstraße 1, 10119 Berlin, Germany", "timeZone": "Europe/Berlin"}, &staged)
	id := staged.Campaign.Campaign
	t.Run("a staged campaign: launch it", func(t *testing.T) {
		out, md := read(t)
		want := campaignsSummaryData{Campaigns: []campaignSummaryData{{Campaign: id, Name: "Heads of sales", Status: "staged", Leads: 1}},
			Total: 1, NextStep: out.Campaigns.NextStep}
		if d := cmp.Diff(want, *out.Campaigns); d != "" {
			t.Errorf("campaigns mismatch (-want +got):\n%s", d)
		}
		nextTool(t, out.Campaigns.NextStep, vibesell.ToolLaunchCampaign)
		mustContain(t, md, "### Campaigns\n- "+id+` "Heads of sales": staged; 1 person`)
	})

	var launch approvalOutput
	c.Result(vibesell.ToolLaunchCampaign, map[string]any{"campaign": id}, &launch)
	if done := b.env.Decide(t, acme, launch.Approval, true, approvals.ViaWeb); done.Status != approvals.Done {
		t.Fatalf("launch: %s, %q; want done", done.Status, textOf(done.Outcome))
	}
	why := "Bounces reached 6% of the last 50 emails, above the 5% that puts the mailboxes at risk."
	if _, err := b.env.Campaigns.Pause(t.Context(), acme, id, why, true); err != nil {
		t.Fatal(err)
	}
	t.Run("a campaign VibeSell paused comes first, with why", func(t *testing.T) {
		out, md := read(t)
		want := campaignSummaryData{Campaign: id, Name: "Heads of sales", Status: "paused", PausedReason: &why, PausedAutomatically: true, Leads: 1}
		if d := cmp.Diff(want, out.Campaigns.Campaigns[0], cmpopts.IgnoreFields(campaignSummaryData{}, "FirstSendAt")); d != "" {
			t.Errorf("paused campaign mismatch (-want +got):\n%s", d)
		}
		nextTool(t, out.NextStep, vibesell.ToolResumeCampaign)
		mustContain(t, out.NextStep.Why, "VibeSell paused campaign "+id, why, "only they can approve, in the web app")
		mustContain(t, md, "- "+id+` "Heads of sales": paused: `+strings.TrimSuffix(why, ".")+"; ")
	})

	t.Run("another workspace sees none of it", func(t *testing.T) {
		var out workspaceOutput
		b.globex.Result(vibesell.ToolGetWorkspaceContext, nil, &out)
		if out.Campaigns == nil {
			t.Fatal("no campaigns in globex's context")
		}
		if d := cmp.Diff(campaignsSummaryData{Campaigns: []campaignSummaryData{}, NextStep: out.Campaigns.NextStep}, *out.Campaigns); d != "" {
			t.Errorf("globex sees campaigns mismatch (-want +got):\n%s", d)
		}
	})
}
