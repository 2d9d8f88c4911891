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
		Name:        vibesell.ToolUpgradePlan,
		Title:       "Change the plan",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.Yes},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeAct},
		Description: `
			Asks for approval to move a subscribed workspace to another plan. It changes nothing
			itself: it returns an approval card (kind approval, status pending) stating the new
			monthly price and limits and, for a dearer plan, the amount Stripe charges now for the
			rest of the current period (prorated, as Stripe previews it) and the date; a cheaper
			plan takes effect when the period ends and says what stops working if usage is above its
			limits; plan free ends the subscription at the period's end. It costs money, so only a
			signed-in person in the web app can approve it (decideHere false): give the person
			appUrl; rejecting is allowed here with decide_approval. Once approved it is carried out
			once. It is not final: the plan can be changed again later with upgrade_plan, but an
			amount Stripe charged is not refunded. Calling it again for the same plan while its
			approval is pending returns the same approval. Refuses a workspace without a paid
			subscription (use start_checkout), the current plan, or when billing is not configured
			on this server.
		`,
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
