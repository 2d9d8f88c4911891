package billing

import (
	"context"
	"fmt"

	"vibesell"
	"vibesell/workspace"
)

// ContextPart is billing's part of the workspace context: the plan and
// its status, and while a payment is failing, the step to fix it, before
// anything else (sending and limits depend on the plan being paid).
func (s *Service) ContextPart() workspace.Part {
	return workspace.NewPart(s.QueueSummary, func(ctx context.Context, sum Summary) (Summary, *workspace.NextStep) {
		if sum.PaymentFailedAt == nil {
			return sum, nil
		}
		return sum, &workspace.NextStep{
			Why: fmt.Sprintf("A payment for the %s plan failed on %s and is still unpaid (Stripe is retrying; if it keeps failing the workspace falls back to the %s plan's limits).",
				sum.Plan.Name, vibesell.FormatTimeFor(ctx, *sum.PaymentFailedAt), s.freePlan().Name),
			Next:     []vibesell.Next{{Do: "Give the person the link to the billing portal to update their card; only they open it.", Tool: vibesell.ToolOpenBillingPortal}},
			Pressing: true,
		}
	})
}
