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
	name    string
	what    string // what the approval is for, after "to"
	request func(ctx context.Context, ws uuid.UUID, id, requestedBy string) (approvals.Approval, bool, error)
}

func campaignAction(d Deps, s campaignActionSpec) toolkit.Tool {
	return define(d, toolkit.Spec[campaignActionInput, approvalOutput]{
		Name: s.name,
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
		name:    vibesell.ToolLaunchCampaign,
		what:    "launch the campaign",
		request: d.Campaigns.RequestLaunch,
	})
}

func stopCampaign(d Deps) toolkit.Tool {
	return campaignAction(d, campaignActionSpec{
		name:    vibesell.ToolStopCampaign,
		what:    "stop the campaign",
		request: d.Campaigns.RequestStop,
	})
}

func resumeCampaign(d Deps) toolkit.Tool {
	return campaignAction(d, campaignActionSpec{
		name:    vibesell.ToolResumeCampaign,
		what:    "resume the campaign",
		request: d.Campaigns.RequestResume,
	})
}
