package web

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"vibesell"
	"vibesell/approvals"
	"vibesell/audit"
	"vibesell/auth"
)

// approvalRow is one line of the approvals list.
type approvalRow struct {
	A       approvals.Approval
	Path    string
	Created string
	Expires string // "in 3 hours" for pending ones
	Ended   string
	Paid    bool
	// Progress says, while it waits for several people, how many
	// approved and whom it waits for.
	Progress string
}

type approvalsData struct {
	Open     []approvalRow
	Past     []approvalRow
	Older    string // link to the next page of past approvals
	IsPaging bool
	MoreOpen bool // more than the open approvals shown are waiting
	Rules    []ruleRow
	Saved    bool // the rules were just saved
	// Policies are each action's rule; Delegations the people away and
	// who decides for them; Away, whether the signed-in person is.
	Policies    []policyRow
	Delegations []delegationRow
	Away        bool
	SavedWhat   string // what was just saved: rules, policy or away
	// Head is the last record of the workspace's audit chain, for the
	// person to note; nil when there is none or it is not shown.
	Head *audit.Head
}

// ruleRow is the workspace's rule for one action, on the approvals page.
type ruleRow struct {
	Key         int // the action's place in approvals.ActionLabels: the form names no tool
	Label       string
	ClickedOnly bool
}

func (s *server) row(a approvals.Approval, u auth.User, now time.Time) approvalRow {
	r := approvalRow{A: a, Path: approvals.AppPath(a.ID), Created: formatTime(a.CreatedAt, u.TimeZone), Paid: a.Impact.Paid()}
	if a.Status == approvals.Pending {
		r.Expires = relative(a.ExpiresAt, now)
		if a.Staged() {
			r.Progress = a.Progress().Text()
		}
	}
	if a.FinishedAt != nil {
		r.Ended = formatTime(*a.FinishedAt, u.TimeZone)
	}
	return r
}

// needsConfirm says whether approving asks the person to tick "I
// understand": only when it costs money or cannot be undone, for what
// only a person may approve. A free action reserved to a person says why
// instead (Impact.PersonOnly).
func needsConfirm(a approvals.Approval) bool {
	return !a.DecideHere && (a.Impact.Paid() || a.Irreversible)
}

// confirmText is what the person ticks to approve: each amount they agree
// to, marked as a sandbox amount in the sandbox, and whether it can be
// undone.
func confirmText(a approvals.Approval) string {
	var agree []string
	if a.Impact.Paid() {
		cost := fmt.Sprintf("this costs %s now and %s a month", formatMoney(a.Impact.CostOnce), formatMoney(a.Impact.CostMonthly))
		if a.Impact.Sandbox {
			cost = fmt.Sprintf("in the sandbox, %s now and %s a month are sandbox amounts: nothing is charged", formatMoney(a.Impact.CostOnce), formatMoney(a.Impact.CostMonthly))
		}
		agree = append(agree, cost)
	}
	if a.Irreversible {
		agree = append(agree, "it cannot be undone")
	}
	if len(agree) == 0 {
		return ""
	}
	return "I understand that " + strings.Join(agree, ", and that ") + "."
}

// approvalsPage lists what waits for a decision, then past approvals a
// page at a time (?before=<cursor>).
func (s *server) approvalsPage(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	ctx := r.Context()
	now := s.Clock.Now()
	before := r.URL.Query().Get("before")
	var d approvalsData
	d.IsPaging = before != ""
	if !d.IsPaging {
		open, err := s.Approvals.List(ctx, u.WorkspaceID, approvals.ListOptions{Filter: approvals.Open, Limit: 100})
		if err != nil {
			s.renderError(w, r, err, 0, "", "")
			return
		}
		for _, a := range open.Approvals {
			d.Open = append(d.Open, s.row(a, u, now))
		}
		d.MoreOpen = open.Next != ""
		policies, err := s.Approvals.Policies(ctx, u.WorkspaceID)
		if err != nil {
			s.renderError(w, r, err, 0, "", "")
			return
		}
		for _, p := range policies {
			if !approvals.PolicyApplies(p.Action) {
				continue
			}
			d.Rules = append(d.Rules, ruleRow{Key: slices.IndexFunc(approvals.ActionLabels, func(l vibesell.Label) bool { return l.Value == p.Action }),
				Label: approvals.ActionLabels.Of(p.Action), ClickedOnly: p.ClickedOnly})
		}
		d.Saved = r.URL.Query().Get("saved") == "rules"
		d.SavedWhat = r.URL.Query().Get("saved")
		if d.Policies, d.Delegations, err = s.policyRows(r, u); err != nil {
			s.renderError(w, r, err, 0, "", "")
			return
		}
		d.Away = slices.ContainsFunc(d.Delegations, func(d delegationRow) bool { return d.Mine && !d.Ended })
		if s.Audit != nil {
			head, err := s.Audit.Head(ctx, u.WorkspaceID)
			if err != nil {
				s.renderError(w, r, err, 0, "", "")
				return
			}
			if head.Seq > 0 {
				d.Head = &head
			}
		}
	}
	past, err := s.Approvals.List(ctx, u.WorkspaceID, approvals.ListOptions{Filter: approvals.Past, Limit: 25, Cursor: before})
	if vibesell.ErrorCode(err) == vibesell.EINVALID {
		http.Redirect(w, r, "/app/approvals", http.StatusSeeOther)
		return
	}
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	for _, a := range past.Approvals {
		d.Past = append(d.Past, s.row(a, u, now))
	}
	if past.Next != "" {
		d.Older = "/app/approvals?before=" + url.QueryEscape(past.Next)
	}
	refresh := 0
	for _, row := range d.Open {
		if row.A.Status == approvals.Approved {
			refresh = 3
		}
	}
	s.render(w, r, http.StatusOK, "approvals", pageData{Title: "Approvals", User: &u, CSRF: ses.CSRF(), Refresh: refresh, Body: d})
}

// saveRules sets, for each action, whether approving it takes the person
// themselves (a click in the card, or this web app): the boxes ticked.
func (s *server) saveRules(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		http.Error(w, "Bad form", http.StatusBadRequest)
		return
	}
	ticked := map[string]bool{}
	for _, k := range r.PostForm["clicked"] {
		ticked[k] = true
	}
	for i, l := range approvals.ActionLabels {
		if !approvals.PolicyApplies(l.Value) {
			continue
		}
		if err := s.Approvals.SetPolicy(ctx, u.WorkspaceID, l.Value, ticked[strconv.Itoa(i)], u.Email); err != nil {
			s.renderError(w, r, err, 0, "", "")
			return
		}
	}
	http.Redirect(w, r, "/app/approvals?saved=rules#rules", http.StatusSeeOther)
}

type eventRow struct {
	At, What, Who, Where, Reason string
}

type approvalData struct {
	A            approvals.Approval
	Events       []eventRow
	Created      string
	Expires      string
	ExpiresIn    string
	DecidedAt    string
	FinishedAt   string
	Paid         bool
	NeedsConfirm bool   // approving needs the "I understand" box ticked
	Confirm      string // what the person ticks: what they agree to pay or lose
	ApprovePath  string
	RejectPath   string
	Reason       string // the reason typed before a refused submit
	// HostApps says, beside a decision from the conversation, whether the
	// app it came through said it shows cards; "" otherwise.
	HostApps string
	// Launch shows the emails a launch sends; nil for anything else.
	Launch *launchView
	// Progress shows the approvals counted of one that needs several
	// people; nil for one person's decision.
	Progress *progressView
}

// progressView is where an approval of several people stands: "1 of 2
// approvals; waiting for finance", each approval counted, and its rule.
type progressView struct {
	Text   string
	Votes  []string
	Stages string
}

func progressOf(a approvals.Approval, tz *time.Location) *progressView {
	if !a.Staged() {
		return nil
	}
	v := &progressView{Text: a.Progress().Text(),
		Stages: "The rule it was asked under: " + approvals.Policy{Stages: a.Stages, RequesterBarred: a.RequesterBarred}.Describe()}
	for _, vote := range a.Votes {
		stage := ""
		if vote.Stage < len(a.Stages) {
			stage = " (" + a.Stages[vote.Stage].Name + ")"
		}
		v.Votes = append(v.Votes, fmt.Sprintf("Approved by %s%s, %s", vote.By, stage, formatTime(vote.At, tz)))
	}
	return v
}

// launchView is what a person approves in a launch: its first email for
// one real person, and every step as written.
type launchView struct {
	Lead    personLink
	From    string
	To      string
	Subject string
	Body    string // the text part, footer included
	Steps   []campaignStep
}

// approvalPage shows one approval: what it will do, what it costs, until
// when it can be decided, its trail, and the buttons to decide it.
func (s *server) approvalPage(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	s.showApproval(w, r, u, ses, http.StatusOK, r.URL.Query().Get("done"), "", "")
}

// noticeFor words the notice after a decision (?done=…) by where the
// approval stands now: the page refreshes itself while it is carried out.
func noticeFor(done string, a approvals.Approval, tz *time.Location) string {
	switch {
	case done == "approved" && a.Status == approvals.Pending:
		return "Your approval is counted: " + a.Progress().Text() + ". It is carried out once every approval it needs is in."
	case done == "approved" && a.Status == approvals.Approved:
		return "You approved it. VibeSell is carrying it out now; this page updates by itself."
	case done == "approved" && a.Status == approvals.Done:
		return "You approved it, and it is done."
	case done == "approved":
		return "You approved it, but it could not be done; the reason is below."
	case done == "rejected":
		return "You rejected it. Nothing will be done."
	case (done == "expired" || done == "recorded") && a.Expired():
		return fmt.Sprintf("This approval expired on %s before anyone decided it: your decision was not recorded, and nothing was done. Ask for it again to decide it.",
			formatTime(a.ExpiresAt, tz))
	case done == "recorded":
		return "This approval had already been decided; what is on record is shown below."
	}
	return ""
}

func (s *server) showApproval(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession, status int, done, message, reason string) {
	ctx := r.Context()
	id := r.PathValue("id")
	// As it stands now: what it would do is brought up to date, so the
	// page shows (and its forms send back the hash of) what is true.
	a, err := s.Approvals.Current(ctx, u.WorkspaceID, id)
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	events, err := s.Approvals.Events(ctx, u.WorkspaceID, id)
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	now := s.Clock.Now()
	d := approvalData{
		A:            a,
		Created:      formatTime(a.CreatedAt, u.TimeZone),
		Expires:      formatTime(a.ExpiresAt, u.TimeZone),
		ExpiresIn:    relative(a.ExpiresAt, now),
		Paid:         a.Impact.Paid(),
		NeedsConfirm: needsConfirm(a),
		Confirm:      confirmText(a),
		ApprovePath:  approvals.AppPath(a.ID) + "/approve",
		RejectPath:   approvals.AppPath(a.ID) + "/reject",
		Reason:       reason,
		Progress:     progressOf(a, u.TimeZone),
	}
	if a.DecidedAt != nil {
		d.DecidedAt = formatTime(*a.DecidedAt, u.TimeZone)
		d.HostApps = approvals.HostAppsNote(deref(a.DecidedVia), a.DecidedHostApps)
	}
	if a.FinishedAt != nil {
		d.FinishedAt = formatTime(*a.FinishedAt, u.TimeZone)
	}
	if s.Campaigns != nil {
		p, err := s.Campaigns.LaunchPreviewOf(ctx, u.WorkspaceID, a)
		if err != nil {
			s.renderError(w, r, err, 0, "", "")
			return
		}
		if p != nil {
			d.Launch = &launchView{Lead: s.person(p.Lead), From: p.First.From, To: p.First.To, Subject: p.First.Subject, Body: p.First.Text,
				Steps: stepsOf(p.Sequence)}
		}
	}
	for _, e := range events {
		what := eventLabel(e.Event)
		if e.Repeats > 1 && e.LastAt != nil {
			what += fmt.Sprintf(", %s times in all, the last %s", thousands(e.Repeats), formatTime(*e.LastAt, u.TimeZone))
		}
		where := viaLabel(e.Via)
		if note := approvals.HostAppsNote(e.Via, e.HostApps); note != "" {
			where += " (" + note + ")"
		}
		d.Events = append(d.Events, eventRow{At: formatTime(e.At, u.TimeZone), What: what, Who: e.Actor,
			Where: where, Reason: deref(e.Reason)})
	}
	refresh := 0
	if a.Status == approvals.Approved {
		refresh = 2
	}
	s.render(w, r, status, "approval", pageData{Title: a.Summary, User: &u, CSRF: ses.CSRF(), Notice: noticeFor(done, a, u.TimeZone),
		Message: message, Refresh: refresh, Body: d})
}

// decide takes the signed-in person's decision. Approving something paid
// or irreversible needs the "I understand" box; the engine takes the
// decision exactly once, whatever else is deciding at the same moment.
func (s *server) decide(approve bool) signedInHandler {
	return func(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
		ctx := r.Context()
		id := r.PathValue("id")
		reason := r.PostFormValue("reason")
		if approve {
			a, err := s.Approvals.Find(ctx, u.WorkspaceID, id)
			if err != nil {
				s.renderError(w, r, err, 0, "", "")
				return
			}
			// An approval past its time is answered as expired, box or not.
			if a.Status == approvals.Pending && s.Clock.Now().Before(a.ExpiresAt) && needsConfirm(a) && r.PostFormValue("confirm") != "yes" {
				s.showApproval(w, r, u, ses, http.StatusUnprocessableEntity, "",
					"Tick the box to confirm you understand what approving means, then approve again.", reason)
				return
			}
		}
		a, taken, err := s.Approvals.Decide(ctx, u.WorkspaceID, id, approvals.Decision{
			Approve: approve, By: u.Email, ByUser: &u.ID, Via: approvals.ViaWeb, Reason: reason, Shown: r.PostFormValue("shown"),
		})
		switch code := vibesell.ErrorCode(err); {
		case code == vibesell.EINVALID:
			s.showApproval(w, r, u, ses, http.StatusUnprocessableEntity, "", vibesell.ErrorForPerson(err), reason)
			return
		case approvals.IsChanged(err):
			// Shown again as it is now, with what changed above it.
			s.showApproval(w, r, u, ses, http.StatusConflict, "", vibesell.ErrorForPerson(err), reason)
			return
		case err != nil:
			s.renderError(w, r, err, 0, "", "")
			return
		}
		done := "recorded"
		switch {
		case taken && approve:
			done = "approved"
		case taken:
			done = "rejected"
		case a.Expired():
			done = "expired" // nothing was recorded: it ended before the click
		}
		http.Redirect(w, r, approvals.AppPath(id)+"?done="+done, http.StatusSeeOther)
	}
}
