package tools

import (
	"context"
	"fmt"
	"time"

	"vibesell"
	"vibesell/auth"
	"vibesell/billing"
	"vibesell/toolkit"
)

type planInput struct {
	Plan string `json:"plan" jsonschema:"the plan id, from get_plans_and_billing" example:"starter" pattern:"^[a-z][a-z0-9_-]{0,31}$"`
}

type checkoutOutput struct {
	Kind        string     `json:"kind" enum:"checkout"`
	Plan        string     `json:"plan" jsonschema:"the id of the plan asked for"`
	PlanName    string     `json:"planName" jsonschema:"its name"`
	Price       moneyData  `json:"price" jsonschema:"what it costs per month"`
	Page        string     `json:"page" enum:"checkout,portal" jsonschema:"checkout: url is Stripe's payment page for the plan; portal: the workspace is already subscribed, so url is its billing portal, where the plan is managed"`
	URL         string     `json:"url" jsonschema:"the page for the person to open; only the person opens it" format:"uri"`
	Session     *string    `json:"session" jsonschema:"the Stripe Checkout Session id; null for the portal"`
	ExpiresAt   *time.Time `json:"expiresAt" jsonschema:"when the payment page stops working; null for the portal"`
	Reused      bool       `json:"reused" jsonschema:"true when this is the workspace's payment page for this plan handed out before and still open, not a new one"`
	CurrentPlan string     `json:"currentPlan" jsonschema:"the id of the plan the workspace is on now"`
}

func startCheckout(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[planInput, checkoutOutput]{
		Name:        vibesell.ToolStartCheckout,
		Title:       "Subscribe to a plan",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.Yes},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeAct},
		Description: `
			Gives the link to Stripe's payment page (Checkout) for subscribing the workspace to a
			paid plan, monthly. Only the person opens it and pays there; nothing is charged by this
			call. Once they pay, the workspace is on the plan within a minute (Stripe tells
			VibeSell) and it renews every month until cancelled in the billing portal. The page
			stays open about a day; calling again for the same plan returns the same page, never a
			second one. A workspace already subscribed gets its billing portal link instead (to
			change plan use upgrade_plan). Refuses an unknown plan, the free plan, or when billing
			is not configured on this server. Use after the person picked a plan from
			get_plans_and_billing; never pick for them.
		`,
		Handler: func(ctx context.Context, p auth.Principal, in planInput) (toolkit.Result[checkoutOutput], error) {
			c, err := d.Billing.StartCheckout(ctx, p.WorkspaceID, in.Plan)
			if err != nil {
				return toolkit.Result[checkoutOutput]{}, err
			}
			out := checkoutOutput{Plan: c.Plan.ID, PlanName: c.Plan.Name, Price: moneyOf(c.Plan.Price), Page: "checkout", URL: c.URL,
				Reused: c.Reused, CurrentPlan: c.Current.ID}
			if c.Portal {
				out.Page = "portal"
			} else {
				out.Session, out.ExpiresAt = &c.SessionID, &c.ExpiresAt
			}
			return toolkit.Result[checkoutOutput]{Markdown: checkoutMarkdown(ctx, c), Data: out}, nil
		},
	})
}

func checkoutMarkdown(ctx context.Context, c billing.Checkout) string {
	if c.Portal {
		return fmt.Sprintf("The workspace already pays for the %s plan, so there is no new checkout (a second subscription would charge twice). "+
			"Give the person their billing portal link, where they manage the subscription: %s\n\n"+
			"To move to %s instead, call %s with plan %q: the person then approves the change in the web app.\n",
			c.Current.Name, c.URL, c.Plan.Name, vibesell.ToolUpgradePlan, c.Plan.ID)
	}
	lead := "Here is the payment page"
	if c.Reused {
		lead = "This workspace already has a payment page open for this plan; here it is again (no second one was made)"
	}
	return fmt.Sprintf("%s for the %s plan, %s per month: %s\n\n"+
		"Give the person this link; only they open it and pay there. Nothing is charged until they do. The page works until %s.\n\n"+
		"After they pay, the workspace moves to %s within a minute and renews every month until cancelled in the billing portal (%s). Call %s to confirm it.\n",
		lead, c.Plan.Name, c.Plan.Price, c.URL, vibesell.FormatTimeFor(ctx, c.ExpiresAt), c.Plan.Name, vibesell.ToolOpenBillingPortal, vibesell.ToolGetPlansAndBilling)
}
