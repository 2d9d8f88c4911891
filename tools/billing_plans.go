package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"vibesell"
	"vibesell/auth"
	"vibesell/billing"
	"vibesell/toolkit"
)

// The plans-and-money tools, adapting billing/: get_plans_and_billing
// here, start_checkout, open_billing_portal and upgrade_plan in the files
// named after billing's.

type planLimitsData struct {
	Mailboxes       int `json:"mailboxes" jsonschema:"sending mailboxes the workspace may have ordered at any one time"`
	LeadsPerMonth   int `json:"leadsPerMonth" jsonschema:"leads it may import per calendar month (UTC)"`
	ActiveCampaigns int `json:"activeCampaigns" jsonschema:"campaigns it may run at any one time"`
	EmailsPerMonth  int `json:"emailsPerMonth" jsonschema:"emails it may send per calendar month (UTC)"`
}

type billingPlanData struct {
	ID      string         `json:"id" jsonschema:"the plan id, to pass to start_checkout or upgrade_plan"`
	Name    string         `json:"name" jsonschema:"the plan's name"`
	Price   moneyData      `json:"price" jsonschema:"what it costs per month; 0.00 for the free plan"`
	Limits  planLimitsData `json:"limits" jsonschema:"what the plan allows"`
	Current bool           `json:"current" jsonschema:"true for the plan the workspace is on"`
}

type usageData struct {
	Limit   string  `json:"limit" enum:"mailboxes,leads,active_campaigns,emails" jsonschema:"which limit"`
	Allowed int     `json:"allowed" jsonschema:"what the current plan allows"`
	Period  string  `json:"period" enum:"month,now" jsonschema:"month: counted per calendar month (UTC); now: what exists at this moment"`
	Used    *int    `json:"used" jsonschema:"how much is used; null when it is not counted on this server (why says why), never a guess"`
	Why     *string `json:"why" jsonschema:"why used is null; null when used is known"`
}

type invoiceData struct {
	AmountDue moneyData `json:"amountDue" jsonschema:"what Stripe will charge"`
	Date      string    `json:"date" jsonschema:"the day it is charged (UTC), e.g. 2026-12-31" format:"date"`
}

type plansOutput struct {
	Kind              string            `json:"kind" enum:"plans"`
	Plans             []billingPlanData `json:"plans" jsonschema:"every plan on sale, cheapest first"`
	Current           string            `json:"current" jsonschema:"the id of the plan the workspace is on"`
	Status            string            `json:"status" enum:"active,trialing,past_due,canceled,unpaid,incomplete,incomplete_expired,paused" jsonschema:"the subscription's status as Stripe has it (active on the free plan); past_due: a payment failed and Stripe is retrying"`
	CancelAtPeriodEnd bool              `json:"cancelAtPeriodEnd" jsonschema:"true when the subscription ends at periodEnd and the workspace returns to the free plan"`
	PeriodEnd         *string           `json:"periodEnd" jsonschema:"the day the current paid period ends; null on the free plan" format:"date"`
	PendingPlan       *string           `json:"pendingPlan" jsonschema:"the id of a cheaper plan the workspace moves to at periodEnd; null when none"`
	PaymentFailedAt   *time.Time        `json:"paymentFailedAt" jsonschema:"when the last payment failed, while it is unpaid (the card must be updated in the billing portal); null when payments are in order"`
	Usage             []usageData       `json:"usage" jsonschema:"usage against each limit of the current plan"`
	NextInvoice       *invoiceData      `json:"nextInvoice" jsonschema:"the next invoice as Stripe previews it; null when there is none or it is not known (nextInvoiceWhy says which)"`
	NextInvoiceWhy    *string           `json:"nextInvoiceWhy" jsonschema:"why nextInvoice is null; null when it is known"`
}

func getPlansAndBilling(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[struct{}, plansOutput]{
		Name:        vibesell.ToolGetPlansAndBilling,
		Title:       "Plans and billing",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.Yes, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.Yes},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeRead},
		Description: `
			Shows every plan with its monthly price and limits (mailboxes, leads imported per month,
			active campaigns, emails per month), the plan the workspace is on and its status
			(active, past due after a failed payment, ending at the period's end), usage against
			each limit (null where this server does not count it yet, with why), and the next
			invoice's date and amount as Stripe previews it. It reads only and costs nothing; it
			asks Stripe for the next invoice. On a server where billing is not configured it refuses
			and says so. To subscribe use start_checkout; to change a paid plan upgrade_plan; to
			change the card, see invoices or cancel, open_billing_portal.
		`,
		Handler: func(ctx context.Context, p auth.Principal, _ struct{}) (toolkit.Result[plansOutput], error) {
			o, err := d.Billing.Overview(ctx, p.WorkspaceID)
			if err != nil {
				return toolkit.Result[plansOutput]{}, err
			}
			out := toPlansOutput(o)
			return toolkit.Result[plansOutput]{Markdown: plansMarkdown(ctx, o), Data: out}, nil
		},
	})
}

func toPlansOutput(o billing.Overview) plansOutput {
	out := plansOutput{Current: o.Current.ID, Status: o.Status, CancelAtPeriodEnd: o.CancelAtPeriodEnd, PaymentFailedAt: o.PaymentFailedAt}
	for _, p := range o.Plans {
		out.Plans = append(out.Plans, billingPlanData{ID: p.ID, Name: p.Name, Price: moneyOf(p.Price), Current: p.ID == o.Current.ID,
			Limits: planLimitsData(p.Limits)})
	}
	if o.PeriodEnd != nil {
		day := vibesell.FormatDay(*o.PeriodEnd)
		out.PeriodEnd = &day
	}
	if o.PendingPlan != nil {
		out.PendingPlan = &o.PendingPlan.ID
	}
	for _, u := range o.Usage {
		ud := usageData{Limit: string(u.Metric), Allowed: u.Limit, Period: "now", Used: u.Used}
		if u.Period != "" {
			ud.Period = u.Period
		}
		if u.Used == nil {
			ud.Why = &u.Why
		}
		out.Usage = append(out.Usage, ud)
	}
	if o.NextInvoice != nil {
		out.NextInvoice = &invoiceData{AmountDue: moneyOf(o.NextInvoice.AmountDue), Date: vibesell.FormatDay(o.NextInvoice.Date)}
	} else {
		out.NextInvoiceWhy = &o.NextInvoiceWhy
	}
	return out
}

func plansMarkdown(ctx context.Context, o billing.Overview) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Plan: %s (%s per month), %s\n\n", o.Current.Name, o.Current.Price, strings.ToLower(billing.StatusLabels.Of(o.Status)))
	if o.PaymentFailedAt != nil {
		fmt.Fprintf(&b, "**A payment failed on %s and is still unpaid.** The person should update the card in the billing portal: call %s and give them the link.\n\n",
			vibesell.FormatTimeFor(ctx, *o.PaymentFailedAt), vibesell.ToolOpenBillingPortal)
	}
	switch {
	case o.CancelAtPeriodEnd && o.PeriodEnd != nil:
		fmt.Fprintf(&b, "The subscription ends on %s; the workspace then returns to the free plan.\n\n", vibesell.FormatDate(*o.PeriodEnd))
	case o.PendingPlan != nil && o.PeriodEnd != nil:
		fmt.Fprintf(&b, "It moves to the %s plan (%s per month) on %s.\n\n", o.PendingPlan.Name, o.PendingPlan.Price, vibesell.FormatDate(*o.PeriodEnd))
	case o.PeriodEnd != nil:
		fmt.Fprintf(&b, "The current period ends on %s.\n\n", vibesell.FormatDate(*o.PeriodEnd))
	}
	b.WriteString("### Usage\n")
	for _, u := range o.Usage {
		if u.Used == nil {
			fmt.Fprintf(&b, "- %s: not counted (%s); the plan allows %s\n", billing.MetricLabels.Of(string(u.Metric)), u.Why, vibesell.Count(u.Limit))
			continue
		}
		fmt.Fprintf(&b, "- %s: %s of %s\n", billing.MetricLabels.Of(string(u.Metric)), vibesell.Count(*u.Used), vibesell.Count(u.Limit))
	}
	if o.NextInvoice != nil {
		fmt.Fprintf(&b, "\nNext invoice: %s on %s.\n", o.NextInvoice.AmountDue, vibesell.FormatDate(o.NextInvoice.Date))
	} else {
		fmt.Fprintf(&b, "\nNext invoice: %s.\n", o.NextInvoiceWhy)
	}
	b.WriteString("\n### Plans\n")
	for _, p := range o.Plans {
		current := ""
		if p.ID == o.Current.ID {
			current = " (current)"
		}
		fmt.Fprintf(&b, "- %s, id %s%s: %s per month; %s, %s per month, %s, %s per month\n", p.Name, p.ID, current, p.Price,
			vibesell.Plural(p.Limits.Mailboxes, "mailbox", "mailboxes"), vibesell.Plural(p.Limits.LeadsPerMonth, "lead", "leads"),
			vibesell.Plural(p.Limits.ActiveCampaigns, "active campaign", "active campaigns"), vibesell.Plural(p.Limits.EmailsPerMonth, "email", "emails"))
	}
	switch {
	case !o.Configured:
		fmt.Fprintf(&b, "\nBilling is not configured on this server, so no plan can be bought, changed or managed here (%s, %s and %s refuse): the limits above are the ones the workspace has. Whoever runs this server can raise them, or set up billing with a Stripe key.\n\nNext: tell the person the limits that matter for what they want to do; if one is in the way, they ask whoever runs this server to raise it.\n",
			vibesell.ToolStartCheckout, vibesell.ToolUpgradePlan, vibesell.ToolOpenBillingPortal)
	case o.Subscribed:
		fmt.Fprintf(&b, "\nTo change plan, call %s with the plan id (the person approves it in the web app). To change the card, see invoices or cancel, call %s.\n",
			vibesell.ToolUpgradePlan, vibesell.ToolOpenBillingPortal)
	default:
		fmt.Fprintf(&b, "\nTo subscribe, call %s with the plan id the person picks; never pick for them.\n", vibesell.ToolStartCheckout)
	}
	return b.String()
}
