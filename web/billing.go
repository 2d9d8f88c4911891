package web

import (
	"net/http"
	"strings"
	"time"

	"vibesell"
	"vibesell/auth"
	"vibesell/billing"
)

// billingPortalPath opens the billing portal: a POST, because it creates a
// portal session at Stripe.
const billingPortalPath = billing.BillingPath + "/portal"

type usageRow struct {
	Label string
	Used  string // "" when not counted; Why says why
	Why   string
	Limit string
}

type billingData struct {
	Configured     bool
	NotConfigured  string
	Plan           billing.Plan
	Status         string
	PaymentFailed  string // when the last payment failed, while unpaid; "" when payments are in order
	PeriodEnd      string
	Ending         bool          // the subscription ends at PeriodEnd
	Pending        *billing.Plan // the cheaper plan from PeriodEnd
	Subscribed     bool
	Usage          []usageRow
	NextInvoice    string
	NextInvoiceWhy string
	Plans          []billing.Plan
	PortalPath     string
}

// billingPage shows the plan, its status (a failed payment first), usage
// against each limit, the next invoice, and the way to the billing
// portal, where invoices, the card and cancelling are.
func (s *server) billingPage(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	d := billingData{PortalPath: billingPortalPath}
	notice := ""
	refresh := 0
	if s.Billing == nil || !s.Billing.Configured() {
		d.NotConfigured = "Billing is not set up on this server, so there is nothing to pay: every workspace uses the free plan's limits."
		s.render(w, r, http.StatusOK, "billing", pageData{Title: "Billing", User: &u, CSRF: ses.CSRF(), Body: d})
		return
	}
	o, err := s.Billing.Overview(r.Context(), u.WorkspaceID)
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	d.Configured, d.Plan, d.Subscribed, d.Plans = true, o.Current, o.Subscribed, o.Plans
	d.Status = billing.StatusLabels.Of(o.Status)
	if o.PaymentFailedAt != nil {
		d.PaymentFailed = formatTime(*o.PaymentFailedAt, u.TimeZone)
	}
	if o.PeriodEnd != nil {
		d.PeriodEnd = vibesell.FormatDate(o.PeriodEnd.In(location(u.TimeZone)))
	}
	d.Ending, d.Pending = o.CancelAtPeriodEnd, o.PendingPlan
	for _, us := range o.Usage {
		row := usageRow{Label: billing.MetricLabels.Of(string(us.Metric)), Limit: vibesell.Count(us.Limit), Why: sentence(us.Why)}
		if us.Used != nil {
			row.Used = vibesell.Count(*us.Used)
		}
		d.Usage = append(d.Usage, row)
	}
	if o.NextInvoice != nil {
		d.NextInvoice = o.NextInvoice.AmountDue.String() + " on " + vibesell.FormatDate(o.NextInvoice.Date.In(location(u.TimeZone)))
	} else {
		d.NextInvoiceWhy = sentence(o.NextInvoiceWhy)
	}
	if r.URL.Query().Get("checkout") == "done" {
		if o.Subscribed {
			notice = "Thank you: your payment went through and your plan is " + o.Current.Name + "."
		} else {
			notice = "Thank you: Stripe is confirming your payment. This page updates by itself in a moment."
			refresh = 5
		}
	}
	s.render(w, r, http.StatusOK, "billing", pageData{Title: "Billing", User: &u, CSRF: ses.CSRF(), Notice: notice, Refresh: refresh, Body: d})
}

// openPortal sends the person to Stripe's billing portal for their
// workspace.
func (s *server) openPortal(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	if s.Billing == nil {
		s.renderError(w, r, nil, http.StatusNotFound, "Page not found", "There is nothing at this address.")
		return
	}
	p, err := s.Billing.OpenPortal(r.Context(), u.WorkspaceID)
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	http.Redirect(w, r, p.URL, http.StatusSeeOther)
}

// sentence capitalises billing's reason clauses for a page.
func sentence(s string) string {
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

// location is the person's time zone, UTC when unknown.
func location(loc *time.Location) *time.Location {
	if loc == nil {
		return time.UTC
	}
	return loc
}
