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
		Name:        vibesell.ToolOrderSendingSetup,
		Title:       "Order the sending setup",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.Yes},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeAct},
		Description: `
			Asks for approval to order the sending setup the person chose: register the picked new
			domains (or take the picked already-warmed ones off the shelf) and create the planned
			mailboxes on them. It orders nothing itself: it returns an approval card (kind approval,
			status pending) stating exactly each domain and each address with its price, the
			one-time cost (the domains' first year, e.g. [[.DomainPrice]] per domain), the monthly
			cost ([[.MailboxPrice]] per new mailbox, [[.WarmedPrice]] per already-warmed one), when
			they will be ready, and that they renew until cancelled. Ordering costs money and cannot
			be undone, so only a signed-in person in the web app can approve it (decideHere false):
			give the person appUrl; rejecting is allowed here with decide_approval. When the picks
			fall short of (or exceed) the confirmed sizing, the approval says so; the person may
			still approve. Once approved it is ordered once, through the configured provider (the
			sandbox unless configured otherwise: then nothing real is registered or billed), and
			get_sending_setup shows the domains and addresses in preparation; their warmup starts by
			itself once they are ready. Calling it again while its approval is pending returns the
			same approval; if the picks or prices changed meanwhile, the old approval is replaced by
			a new one. It refuses, listing every missing step at once, when no sending source is
			chosen, no sizing is confirmed, no domains are picked, a picked domain has no addresses,
			or a name is no longer available. Use it after propose_email settled. Not for seeing
			what is set up (get_sending_setup) or for deciding (decide_approval, the web app).
		`,
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
