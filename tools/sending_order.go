package tools

import (
	"context"

	"vibesell"
	"vibesell/auth"
	"vibesell/toolkit"
)

// order_sending_setup

func orderSendingSetup(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[struct{}, approvalOutput]{
		Name: vibesell.ToolOrderSendingSetup,
		Handler: func(ctx context.Context, p auth.Principal, _ struct{}) (toolkit.Result[approvalOutput], error) {
			a, created, err := d.Sending.RequestOrder(ctx, p.WorkspaceID, personOf(p))
			if err != nil {
				return toolkit.Result[approvalOutput]{}, err
			}
			return requestedApproval(ctx, a, created, requestLeads{
				asked:   "Nothing is ordered yet: this asks for the person's approval.",
				running: "This order is already approved and being placed now; here is its approval.",
				waiting: "This order is already waiting for a decision; here is the same approval. Nothing is ordered yet.",
			})
		},
	})
}
