package tools

import (
	"context"

	"github.com/google/uuid"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
	"vibesell/toolkit"
)

type campaignActionInput struct {
	Campaign string `json:"campaign" jsonschema:"the campaign id" example:"cp_8e1f2a3b4c5d6e7f" pattern:"^cp_[0-9a-f]{16}$"`
}

// campaignActionSpec is one of the three campaign actions: each asks for
// an approval with one campaigns method.
type campaignActionSpec struct {
	name, title, description string
	what                     string // what the approval is for, after "to"
	request                  func(ctx context.Context, ws uuid.UUID, id, requestedBy string) (approvals.Approval, bool, error)
}

// campaignAction defines one of the three. They share their hints and
// scope: each only asks for an approval (asking again returns the same
// one), which the approval's executor carries out, so the call itself
// changes nothing outside VibeSell; but what it asks for sets sending
// going or stops it, which is the act scope's.
func campaignAction(d Deps, s campaignActionSpec) toolkit.Tool {
	return define(d, toolkit.Spec[campaignActionInput, approvalOutput]{
		Name:        s.name,
		Title:       s.title,
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeAct},
		Description: s.description,
		Handler: func(ctx context.Context, p auth.Principal, in campaignActionInput) (toolkit.Result[approvalOutput], error) {
			a, created, err := s.request(ctx, p.WorkspaceID, in.Campaign, personOf(p))
			if err != nil {
				return toolkit.Result[approvalOutput]{}, err
			}
			return requestedApproval(ctx, a, created, requestLeads{
				asked:   "Nothing is done yet: this asks for the person's approval to " + s.what + ".",
				running: "This is already approved and being carried out; here is its approval.",
				waiting: "This is already waiting for a decision; here is the same approval. Nothing is done yet.",
			})
		},
	})
}

func launchCampaign(d Deps) toolkit.Tool {
	return campaignAction(d, campaignActionSpec{
		name:  vibesell.ToolLaunchCampaign,
		title: "Launch a campaign",
		description: `
			Asks for approval to start sending a staged campaign. It sends nothing itself: it
			returns an approval card (kind approval) whose impact gives the exact time of the first
			email, the volume per day, the number of people, and that sent email cannot be recalled.
			Launching is irreversible, so only a signed-in person in the web app at appUrl may
			approve it (decideHere false); give them the link. It refuses while anything blocks the
			launch, listing every blocker at once (no postal address, no sender name, the sequence
			version not approved, mailboxes not warm, no leads, a failing first-email check, the
			plan's daily limit). Calling it again while its approval is pending returns the same
			approval. Not for pausing (stop_campaign).
		`,
		what:    "launch the campaign",
		request: d.Campaigns.RequestLaunch,
	})
}

func stopCampaign(d Deps) toolkit.Tool {
	return campaignAction(d, campaignActionSpec{
		name:  vibesell.ToolStopCampaign,
		title: "Stop a campaign",
		description: `
			Asks for approval to pause a scheduled or sending campaign: once approved, no further
			email of it goes out, on any server, before its next send. The person may decide in the
			card or by telling you (decide_approval, decideHere true). Emails already sent stay
			sent; resume_campaign carries on later. Calling it again while its approval is pending
			returns the same approval. It refuses for a campaign that is not running.
		`,
		what:    "stop the campaign",
		request: d.Campaigns.RequestStop,
	})
}

func resumeCampaign(d Deps) toolkit.Tool {
	return campaignAction(d, campaignActionSpec{
		name:  vibesell.ToolResumeCampaign,
		title: "Resume a campaign",
		description: `
			Asks for approval to resume a paused campaign, from the next time its window opens.
			After a pause the person asked for, they may decide in the card or by telling you
			(decideHere true); after VibeSell paused it for deliverability (bounces, complaints),
			only a signed-in person in the web app may approve it, and the impact says why it was
			paused. Calling it again while its approval is pending returns the same approval. It
			refuses for a campaign that is not paused.
		`,
		what:    "resume the campaign",
		request: d.Campaigns.RequestResume,
	})
}
