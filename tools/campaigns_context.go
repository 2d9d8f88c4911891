package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"vibesell"
	"vibesell/campaigns"
	"vibesell/workspace"
)

// The campaigns' share of get_workspace_context (campaigns/context.go).

type campaignSummaryData struct {
	Campaign            string     `json:"campaign" jsonschema:"the campaign id, for get_campaign" pattern:"^cp_[0-9a-f]{16}$"`
	Name                string     `json:"name" jsonschema:"the campaign's name"`
	Status              string     `json:"status" enum:"staged,scheduled,sending,paused,finished" jsonschema:"staged: not launched yet; scheduled: launched, first email due at firstSendAt; sending; paused (pausedReason says why); finished"`
	PausedReason        *string    `json:"pausedReason" jsonschema:"why it is paused; null unless paused"`
	PausedAutomatically bool       `json:"pausedAutomatically" jsonschema:"true when VibeSell paused it for deliverability (only the person may resume it, in the web app)"`
	Leads               int        `json:"leads" jsonschema:"the people it writes to"`
	FirstSendAt         *time.Time `json:"firstSendAt" jsonschema:"when its first email is due; null until launched"`
}

type campaignsSummaryData struct {
	Campaigns []campaignSummaryData `json:"campaigns" jsonschema:"the newest campaigns, newest first (at most 20; total counts them all)"`
	Total     int                   `json:"total" jsonschema:"how many campaigns the workspace has"`
	NextStep  nextStepData          `json:"nextStep" jsonschema:"what the campaigns need next (a person's decision waiting comes first)"`
}

func toCampaignsSummary(ctx context.Context, r campaigns.ContextRows, c workspace.Context) *campaignsSummaryData {
	out := &campaignsSummaryData{Campaigns: []campaignSummaryData{}, Total: r.Total}
	for _, cp := range r.Campaigns {
		out.Campaigns = append(out.Campaigns, campaignSummaryData{Campaign: cp.ID, Name: cp.Name, Status: cp.Status,
			PausedReason: cp.PausedReason, PausedAutomatically: cp.PausedAutomatically, Leads: cp.Leads, FirstSendAt: cp.FirstSendAt})
	}
	var own workspace.NextStep
	if next := r.NextStep(ctx); next != nil {
		own = *next
	}
	out.NextStep = toNextStepData(c.StepOf(own))
	return out
}

func campaignsSummaryMarkdown(ctx context.Context, s *campaignsSummaryData) string {
	if s == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("### Campaigns\n")
	if s.Total == 0 {
		b.WriteString("None yet.\n")
	}
	for _, c := range s.Campaigns {
		status := campaigns.CampaignStatusText(ctx, campaigns.Campaign{Status: c.Status, PausedReason: c.PausedReason, FirstSendAt: c.FirstSendAt})
		fmt.Fprintf(&b, "- %s %q: %s; %s\n", c.Campaign, c.Name, status, vibesell.Plural(c.Leads, "person", "people"))
	}
	if s.Total > len(s.Campaigns) {
		fmt.Fprintf(&b, "- and %s older\n", vibesell.Count(s.Total-len(s.Campaigns)))
	}
	b.WriteString("\n")
	return b.String()
}
