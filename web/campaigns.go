package web

import (
	"net/http"
	"strconv"
	"strings"

	"vibesell"
	"vibesell/auth"
	"vibesell/campaigns"
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
}

// campaignsPage shows each campaign with its sequence, schedule and
// metrics.
func (s *server) campaignsPage(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	list, err := s.Campaigns.List(r.Context(), u.WorkspaceID, 50)
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	cards := make([]campaignCard, 0, len(list))
	for _, l := range list {
		c, q := l.Campaign, l.Sequence
		card := campaignCard{C: c, Status: campaigns.StatusLabels.Of(c.Status), Sequence: q.Name, Approved: q.Approved(),
			Schedule: c.Schedule.Describe(), Mailboxes: vibesell.JoinAnd(c.Mailboxes), People: vibesell.Plural(c.Leads, "person", "people"),
			Metrics: "Not measured yet. " + l.Metrics.Why, Opens: l.Metrics.OpensWhy}
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
		for i, st := range q.Steps {
			when := "First email"
			if i > 0 {
				when = vibesell.Plural(st.WaitBusinessDays, "business day", "business days") + " later"
				if st.SameThread {
					when += ", same thread"
				}
			}
			card.Steps = append(card.Steps, campaignStep{N: i + 1, When: when, Subject: q.SubjectOf(i)})
		}
		cards = append(cards, card)
	}
	s.render(w, r, http.StatusOK, "campaigns", pageData{Title: "Campaigns", User: &u, CSRF: ses.CSRF(), Body: cards})
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
