package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
	"vibesell/campaigns"
	"vibesell/delivery"
	"vibesell/workspace"
)

// campaignCard is one campaign as the campaigns page shows it.
type campaignCard struct {
	C         campaigns.Campaign
	Status    string
	Sequence  string
	Approved  bool
	Steps     []campaignStep
	Schedule  string
	Mailboxes string
	People    string
	FirstSend string
	Metrics   string
	// StepResults are the results step by step, once measured.
	StepResults []string
	Opens       string
	// Leads are the campaign's first people, MoreLeads how many more.
	Leads     []personLink
	MoreLeads int
	// The controls the campaign's status allows: "" or nil when not.
	StopPath     string
	ResumePath   string
	ScheduleForm *scheduleForm
	// Next is what a running campaign sends next; nil otherwise.
	Next *nextView
}

// results writes counts for a person: "12 sent, 11 delivered, …".
func results(c campaigns.Counts) string {
	return vibesell.Count(*c.Sent) + " sent, " + vibesell.Count(*c.Delivered) + " delivered, " + vibesell.Count(*c.Replied) + " replied (" +
		vibesell.Count(*c.PositiveReplies) + " interested), " + vibesell.Count(*c.Bounced) + " bounced, " + vibesell.Count(*c.Unsubscribed) + " unsubscribed" +
		notSentUnknown(c)
}

// notSentUnknown says how many emails may have been lost when the server
// stopped while sending them, when any were.
func notSentUnknown(c campaigns.Counts) string {
	if c.NotSentUnknown == nil || *c.NotSentUnknown == 0 {
		return ""
	}
	return ", " + vibesell.Plural(*c.NotSentUnknown, "email", "emails") + " not known to have been sent (the server stopped while sending)"
}

type campaignStep struct {
	N       int
	When    string
	Subject string
	Body    string // as written, merge fields and all
}

// campaignLeadsShown is how many of a campaign's people its card links.
const campaignLeadsShown = 10

// nextEmailsShown is how many of each mailbox's next emails a card shows.
const nextEmailsShown = 3

// personLink is a lead a page names, linked to their story when the app
// has the leads pages.
type personLink struct {
	Name string
	Href string
}

// scheduleForm is a campaign's schedule as its form shows it.
type scheduleForm struct {
	Action      string
	WindowStart string
	WindowEnd   string
	Days        []dayBox
	DailyCap    int
}

type dayBox struct {
	Value, Label string
	Checked      bool
}

// nextView is what a running campaign sends next, as its card shows it.
type nextView struct {
	Waiting string // when the first goes, when none goes now
	Done    bool
	Gap     string
	Boxes   []mailboxNextView
}

type mailboxNextView struct {
	Mailbox string
	Held    string
	Emails  []nextEmailView
}

type nextEmailView struct {
	Who  personLink
	Step int
	At   string
}

// stepsOf writes a sequence's steps for a person: when each goes, its
// subject and its body as written.
func stepsOf(q campaigns.Sequence) []campaignStep {
	var out []campaignStep
	for i, st := range q.Steps {
		when := "First email"
		if i > 0 {
			when = vibesell.Plural(st.WaitBusinessDays, "business day", "business days") + " later"
			if st.SameThread {
				when += ", same thread"
			}
		}
		out = append(out, campaignStep{N: i + 1, When: when, Subject: q.SubjectOf(i), Body: st.Body})
	}
	return out
}

// person names lead l, linked to their story when there is a leads page.
func (s *server) person(l vibesell.Lead) personLink {
	name := strings.TrimSpace(l.FirstName + " " + l.LastName)
	if name == "" {
		name = l.Email
	} else {
		name += " (" + l.Email + ")"
	}
	p := personLink{Name: name}
	if s.Audience != nil {
		p.Href = leadPath(l.ID)
	}
	return p
}

func scheduleFormOf(c campaigns.Campaign) *scheduleForm {
	f := &scheduleForm{Action: campaignPath(c.ID) + "/schedule", WindowStart: campaigns.TimeOfDay(c.Schedule.WindowStart),
		WindowEnd: campaigns.TimeOfDay(c.Schedule.WindowEnd), DailyCap: c.Schedule.DailyCap}
	for _, d := range []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday, time.Sunday} {
		f.Days = append(f.Days, dayBox{Value: strings.ToLower(d.String()), Label: d.String(), Checked: slices.Contains(c.Schedule.Days, d)})
	}
	return f
}

func campaignPath(id string) string { return "/app/campaigns/" + url.PathEscape(id) }

// campaignRoutes are the campaigns page and its controls: stop, resume
// and a new schedule. Stop and resume ask for the same approvals the
// assistant asks for, decided on the approval page they lead to.
func (s *server) campaignRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /app/campaigns", s.signedIn(s.campaignsPage))
	mux.HandleFunc("POST /app/campaigns/{id}/stop", s.post(s.signedIn(s.askForApproval(s.Campaigns.RequestStop,
		"This campaign is not sending any more, so there is nothing to stop: below is where it stands now."))))
	mux.HandleFunc("POST /app/campaigns/{id}/resume", s.post(s.signedIn(s.askForApproval(s.Campaigns.RequestResume,
		"This campaign is not paused any more, so there is nothing to resume: below is where it stands now."))))
	mux.HandleFunc("POST /app/campaigns/{id}/schedule", s.post(s.signedIn(s.changeSchedule)))
}

// askForApproval opens (or finds, when it waits already) the approval
// request asks for, and takes the person to it to decide. When the
// campaign's status no longer allows it (a page open since it changed),
// the campaigns page says so with conflict: the refusal's own sentence is
// the assistant's, naming the campaign by its id.
func (s *server) askForApproval(request func(ctx context.Context, ws uuid.UUID, id, requestedBy string) (approvals.Approval, bool, error), conflict string) signedInHandler {
	return func(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
		a, _, err := request(r.Context(), u.WorkspaceID, r.PathValue("id"), u.Email)
		if vibesell.ErrorCode(err) == vibesell.ECONFLICT {
			s.showCampaigns(w, r, u, ses, http.StatusUnprocessableEntity, conflict, "")
			return
		}
		if err != nil {
			s.renderError(w, r, err, 0, "", "")
			return
		}
		http.Redirect(w, r, approvals.AppPath(a.ID), http.StatusSeeOther)
	}
}

// changeSchedule sets a staged or paused campaign's schedule from its
// form; a refusal shows the campaigns page again with it.
func (s *server) changeSchedule(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	id := r.PathValue("id")
	var ch campaigns.ScheduleChange
	var problems []string
	var err error
	if ch.WindowStart, err = campaigns.ParseClock(r.PostFormValue("windowStart")); err != nil {
		problems = append(problems, "The window's start is not a time of day: write it as 09:00.")
	}
	if ch.WindowEnd, err = campaigns.ParseClock(r.PostFormValue("windowEnd")); err != nil {
		problems = append(problems, "The window's end is not a time of day: write it as 17:00.")
	}
	if ch.Days, err = campaigns.ParseDays(r.PostForm["days"]); err != nil {
		problems = append(problems, "A day of the week was not understood.")
	}
	if ch.DailyCap, err = strconv.Atoi(strings.TrimSpace(r.PostFormValue("dailyCap"))); err != nil {
		problems = append(problems, "The daily cap is not a whole number of emails.")
	}
	if len(problems) == 0 {
		if _, err := s.Campaigns.ChangeSchedule(r.Context(), u.WorkspaceID, id, ch); err != nil {
			if vibesell.ErrorCode(err) != vibesell.EINVALID && vibesell.ErrorCode(err) != vibesell.ECONFLICT {
				s.renderError(w, r, err, 0, "", "")
				return
			}
			problems = append(problems, vibesell.ErrorForPerson(err))
		}
	}
	if len(problems) > 0 {
		s.showCampaigns(w, r, u, ses, http.StatusUnprocessableEntity, strings.Join(problems, " "), "")
		return
	}
	http.Redirect(w, r, "/app/campaigns?changed="+url.QueryEscape(id)+"#c-"+url.PathEscape(id), http.StatusSeeOther)
}

// campaignsPage shows each campaign with its sequence, schedule, people,
// next emails and results, and its controls.
func (s *server) campaignsPage(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	notice := ""
	if id := r.URL.Query().Get("changed"); id != "" {
		notice = "Saved the new schedule. Nothing else changed: emails go out on it once the campaign runs."
	}
	s.showCampaigns(w, r, u, ses, http.StatusOK, "", notice)
}

func (s *server) showCampaigns(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession, status int, message, notice string) {
	ctx := r.Context()
	list, err := s.Campaigns.List(ctx, u.WorkspaceID, 50)
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	cards := make([]campaignCard, 0, len(list))
	for _, l := range list {
		c, q := l.Campaign, l.Sequence
		card := campaignCard{C: c, Status: campaigns.StatusLabels.Of(c.Status), Sequence: q.Name, Approved: q.Approved(),
			Schedule: c.Schedule.Describe(), Mailboxes: vibesell.JoinAnd(c.Mailboxes), People: vibesell.Plural(c.Leads, "person", "people"),
			Metrics: "Not measured yet. " + l.Metrics.Why, Opens: l.Metrics.OpensWhy, Steps: stepsOf(q)}
		if l.Metrics.Sent != nil {
			card.Metrics = results(l.Metrics.Counts) + "."
			if l.Metrics.RepliesNote != "" {
				card.Metrics += " " + l.Metrics.RepliesNote + "."
			}
			for _, st := range l.Metrics.Steps {
				card.StepResults = append(card.StepResults, "Email "+strconv.Itoa(st.Step)+": "+results(st.Counts))
			}
		}
		if c.FirstSendAt != nil {
			card.FirstSend = formatTime(*c.FirstSendAt, u.TimeZone)
		}
		switch c.Status {
		case campaigns.Scheduled, campaigns.Sending:
			card.StopPath = campaignPath(c.ID) + "/stop"
		case campaigns.Paused:
			card.ResumePath = campaignPath(c.ID) + "/resume"
		}
		if c.Status == campaigns.Staged || c.Status == campaigns.Paused {
			card.ScheduleForm = scheduleFormOf(c)
		}
		leads, total, err := s.Campaigns.LeadsOf(ctx, u.WorkspaceID, c.ID, campaignLeadsShown)
		if err != nil {
			s.renderError(w, r, err, 0, "", "")
			return
		}
		for _, ld := range leads {
			card.Leads = append(card.Leads, s.person(ld))
		}
		card.MoreLeads = total - len(leads)
		if s.Upcoming != nil && card.StopPath != "" {
			next, err := s.Upcoming.Next(ctx, u.WorkspaceID, c.ID, nextEmailsShown)
			if err != nil {
				s.renderError(w, r, err, 0, "", "")
				return
			}
			card.Next = s.nextViewOf(next, u.TimeZone)
		}
		cards = append(cards, card)
	}
	s.render(w, r, status, "campaigns", pageData{Title: "Campaigns", User: &u, CSRF: ses.CSRF(), Message: message, Notice: notice, Body: cards})
}

// nextViewOf writes a campaign's next emails for a person, in their
// workspace's time zone.
func (s *server) nextViewOf(n delivery.NextEmails, tz *time.Location) *nextView {
	v := &nextView{Done: n.Done}
	if n.Waiting != nil {
		v.Waiting = formatTime(*n.Waiting, tz)
	}
	if n.MaxGap > 0 {
		v.Gap = fmt.Sprintf("Each mailbox waits %s to %s between two emails, so that they look written by hand: the times below are the earliest.",
			gapText(n.MinGap), gapText(n.MaxGap))
	}
	for _, m := range n.Mailboxes {
		b := mailboxNextView{Mailbox: m.Mailbox, Held: m.Held}
		for _, e := range m.Emails {
			b.Emails = append(b.Emails, nextEmailView{Who: s.person(e.Lead), Step: e.Step, At: formatTime(e.At, tz)})
		}
		v.Boxes = append(v.Boxes, b)
	}
	return v
}

func gapText(d time.Duration) string {
	if d < time.Minute {
		return vibesell.Plural(int(d/time.Second), "second", "seconds")
	}
	return vibesell.Plural(int(d/time.Minute), "minute", "minutes")
}

type settingsData struct {
	Sender workspace.Sender
	Zones  []workspace.Zone // to pick the time zone from
}

// settingsPage shows who the workspace's emails come from, to change.
func (s *server) settingsPage(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	sender, err := s.Workspaces.Sender(r.Context(), u.WorkspaceID)
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	d := pageData{Title: "Settings", User: &u, CSRF: ses.CSRF(), Body: settingsData{Sender: sender, Zones: workspace.TimeZones(s.Clock.Now())}}
	if r.URL.Query().Get("saved") == "1" {
		d.Notice = "Saved. Every email from now on carries these details."
	}
	s.render(w, r, http.StatusOK, "settings", d)
}

// saveSettings saves the sender settings; a refusal shows the form again
// with what the person typed.
func (s *server) saveSettings(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	field := func(name string) *string {
		v := strings.TrimSpace(r.PostFormValue(name))
		return &v
	}
	c := workspace.SenderChange{PostalAddress: field("postalAddress"), Name: field("senderName"), TimeZone: field("timeZone")}
	if _, err := s.Workspaces.SetSender(r.Context(), u.WorkspaceID, c, s.Clock.Now()); err != nil {
		if vibesell.ErrorCode(err) == vibesell.EINTERNAL {
			s.renderError(w, r, err, 0, "", "")
			return
		}
		typed := workspace.Sender{PostalAddress: *c.PostalAddress, Name: *c.Name, TimeZone: *c.TimeZone}
		s.render(w, r, http.StatusUnprocessableEntity, "settings", pageData{Title: "Settings", User: &u, CSRF: ses.CSRF(),
			Message: vibesell.ErrorForPerson(err), Body: settingsData{Sender: typed, Zones: workspace.TimeZones(s.Clock.Now())}})
		return
	}
	http.Redirect(w, r, "/app/settings?saved=1", http.StatusSeeOther)
}
