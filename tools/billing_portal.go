package tools

import (
	"context"
	"fmt"

	"vibesell"
	"vibesell/auth"
	"vibesell/toolkit"
)

type portalOutput struct {
	Kind        string `json:"kind" enum:"portal"`
	URL         string `json:"url" jsonschema:"Stripe's billing portal for this workspace, for the person to open; only the person opens it" format:"uri"`
	CurrentPlan string `json:"currentPlan" jsonschema:"the id of the plan the workspace is on"`
}

func openBillingPortal(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[struct{}, portalOutput]{
		Name:        vibesell.ToolOpenBillingPortal,
		Title:       "Open the billing portal",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.Yes},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeAct},
		Description: `
			Gives a link to Stripe's billing portal for this workspace, where the person changes the
			card, downloads invoices or cancels the subscription. Only the person opens it; the link
			works for a short while, so make a new one when needed. It changes nothing itself and
			costs nothing. Refuses when billing is not configured on this server. Not for
			subscribing (start_checkout) or for changing plan (upgrade_plan, which the person
			approves in the web app).
		`,
		Handler: func(ctx context.Context, p auth.Principal, _ struct{}) (toolkit.Result[portalOutput], error) {
			portal, err := d.Billing.OpenPortal(ctx, p.WorkspaceID)
			if err != nil {
				return toolkit.Result[portalOutput]{}, err
			}
			md := fmt.Sprintf("Billing portal for this workspace (on the %s plan): %s\n\nGive the person this link; only they open it. There they can change the card, download invoices or cancel. The link works for a short while; call %s again for a fresh one.\n",
				portal.Current.Name, portal.URL, vibesell.ToolOpenBillingPortal)
			return toolkit.Result[portalOutput]{Markdown: md, Data: portalOutput{URL: portal.URL, CurrentPlan: portal.Current.ID}}, nil
		},
	})
}
