package web

import (
	"net/http"
	"strings"
	"time"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
	"vibesell/billing"
)

// billingPortalPath opens the billing portal: a POST, because it creates a
// portal session at Stripe.
const billingPortalPath = billing.BillingPath + "/portal"

// billingCheckoutPath opens Stripe Checkout for the plan posted;
// billingChangePath asks for the approval of a change to the plan posted.
const (
	billingCheckoutPath = billing.BillingPath + "/checkout"
	billingChangePath   = billing.BillingPath + "/change"
)

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
	Plans          []planRow
	PortalPath     string
	CheckoutPath   string
	ChangePath     string
}

// planRow is one plan of the plans table, with what the person can do
// about it: subscribe (no paid plan yet) or change to it.
type planRow struct {
	billing.Plan
	Current   bool
	Subscribe bool
	Change    bool
}

// billingPage shows the plan, its status (a failed payment first), usage
// against each limit, the next invoice, and the way to the billing
// portal, where invoices, the card and cancelling are.
func (s *server) billingPage(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	d := billingData{PortalPath: billingPortalPath, CheckoutPath: billingCheckoutPath, ChangePath: billingChangePath}
	notice := ""
	refresh := 0
	const notConfigured = "Billing is not set up on this server, so there is nothing to pay: every workspace uses the free plan's limits."
	if s.Billing == nil {
		d.NotConfigured = notConfigured
		s.render(w, r, http.StatusOK, "billing", pageData{Title: "Billing", User: &u, CSRF: ses.CSRF(), Body: d})
		return
	}
	o, err := s.Billing.Overview(r.Context(), u.WorkspaceID)
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	// Without Stripe the plans, limits and usage are true all the same;
	// only buying and managing a plan are not offered.
	d.Configured, d.Plan, d.Subscribed = o.Configured, o.Current, o.Subscribed
	if !o.Configured {
		d.NotConfigured = notConfigured
	}
	for _, p := range o.Plans {
		row := planRow{Plan: p, Current: p.ID == o.Current.ID}
		if o.Configured && !row.Current {
			row.Subscribe = !o.Subscribed && !p.Free()
			row.Change = o.Subscribed
		}
		d.Plans = append(d.Plans, row)
	}
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

// startCheckout sends the person to Stripe Checkout for the plan posted:
// the same session the assistant hands out, or the billing portal for a
// workspace already subscribed.
func (s *server) startCheckout(w http.ResponseWriter, r *http.Request, u auth.User, _ auth.WebSession) {
	co, err := s.Billing.StartCheckout(r.Context(), u.WorkspaceID, r.PostFormValue("plan"))
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	http.Redirect(w, r, co.URL, http.StatusSeeOther)
}

// changePlan asks for the approval of a change to the plan posted, as the
// assistant does, and opens that approval: a change costs money or ends
// what is paid for, so it is decided there, with what it costs in view.
func (s *server) changePlan(w http.ResponseWriter, r *http.Request, u auth.User, _ auth.WebSession) {
	a, _, err := s.Billing.RequestChange(r.Context(), u.WorkspaceID, r.PostFormValue("plan"), u.Email+" in the web app")
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	http.Redirect(w, r, approvals.AppPath(a.ID), http.StatusSeeOther)
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
