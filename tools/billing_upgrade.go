package tools

import (
	"context"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
	"vibesell/toolkit"
)

func upgradePlan(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[planInput, approvalOutput]{
		Name: vibesell.ToolUpgradePlan,
		Handler: func(ctx context.Context, p auth.Principal, in planInput) (toolkit.Result[approvalOutput], error) {
			a, created, err := d.Billing.RequestChange(ctx, p.WorkspaceID, in.Plan, "the assistant, via the connector of workspace "+p.WorkspaceSlug)
			if err != nil {
				return toolkit.Result[approvalOutput]{}, err
			}
			lead := "Nothing is changed yet: this asks for the person's approval."
			switch {
			case !created && a.Status == approvals.Approved:
				lead = "This change is already approved and being made now; here is its approval."
			case !created:
				lead = "This change is already waiting for a decision; here is the same approval. Nothing is changed yet."
			}
			return toolkit.Result[approvalOutput]{Markdown: approvalMarkdown(ctx, a, lead), Data: approvalOutput{approvalData: toApprovalData(a)}}, nil
		},
	})
}
