package billing

import "vibesell"

// What a person reads for billing's stored values, in the web app and in
// the tools' text.
var (
	// StatusLabels are Stripe's subscription statuses ("active" on the
	// free plan too).
	StatusLabels = vibesell.Labels{
		{Value: "active", Text: "Active"},
		{Value: "trialing", Text: "Trial"},
		{Value: "incomplete", Text: "Waiting for the first payment"},
		{Value: "past_due", Text: "Payment overdue; Stripe is trying again"},
		{Value: "unpaid", Text: "Unpaid; the paid plan's limits are off"},
		{Value: "paused", Text: "Paused"},
		{Value: "canceled", Text: "Cancelled"},
		{Value: "incomplete_expired", Text: "Not started; the first payment never came"},
	}
	// MetricLabels name the limits a plan sets.
	MetricLabels = vibesell.Labels{
		{Value: string(Mailboxes), Text: "Sending mailboxes"},
		{Value: string(Leads), Text: "Leads imported this month"},
		{Value: string(ActiveCampaigns), Text: "Campaigns running"},
		{Value: string(Emails), Text: "Emails sent this month"},
	}
)
