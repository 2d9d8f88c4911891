package web

import (
	"net/http"
	"net/url"

	"vibesell"
	"vibesell/auth"
	"vibesell/replies"
)

// The replies inbox and each reply's thread, where a person corrects a
// reply's classification.

// RepliesPath is the replies inbox.
const RepliesPath = "/app/replies"

func (s *server) replyRoutes(mux *http.ServeMux) {
	if s.Replies == nil {
		return
	}
	mux.HandleFunc("GET "+RepliesPath, s.signedIn(s.repliesPage))
	mux.HandleFunc("GET "+RepliesPath+"/{id}", s.signedIn(s.replyPage))
	mux.HandleFunc("POST "+RepliesPath+"/{id}/classification", s.post(s.signedIn(s.correctReply)))
}

func replyPath(id string) string { return RepliesPath + "/" + url.PathEscape(id) }

type inboxRow struct {
	Path, From, Lead, Campaign, Received, Class, Excerpt string
	Waiting, Corrected                                   bool
}

type classOption struct {
	Value, Text string
	Chosen      bool
}

type inboxView struct {
	Rows                 []inboxRow
	Classes              []classOption
	Campaigns            []campaignOption
	Filtered             bool
	NextPath, FirstPath  string
	Classification, Camp string
}

// repliesPage lists the workspace's replies: those waiting for an answer
// first, then the others, each part newest first; by classification and
// campaign, a page at a time.
func (s *server) repliesPage(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	q := r.URL.Query()
	o := replies.ListOptions{WaitingFirst: true, Classification: q.Get("classification"), Campaign: q.Get("campaign"), Cursor: q.Get("after")}
	page, err := s.Replies.List(r.Context(), u.WorkspaceID, o)
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	d := inboxView{Filtered: o.Classification != "" || o.Campaign != "", Classification: o.Classification, Camp: o.Campaign}
	for _, l := range replies.ClassificationLabels {
		d.Classes = append(d.Classes, classOption{Value: l.Value, Text: l.Text, Chosen: l.Value == o.Classification})
	}
	if s.Campaigns != nil {
		list, err := s.Campaigns.List(r.Context(), u.WorkspaceID, 100)
		if err != nil {
			s.renderError(w, r, err, 0, "", "")
			return
		}
		for _, c := range list {
			d.Campaigns = append(d.Campaigns, campaignOption{ID: c.Campaign.ID, Name: c.Campaign.Name, Chosen: c.Campaign.ID == o.Campaign})
		}
	}
	for _, l := range page.Replies {
		d.Rows = append(d.Rows, inboxRow{Path: replyPath(l.ID), From: l.From, Lead: l.LeadName, Campaign: deref(l.CampaignName),
			Received: formatTime(l.ReceivedAt, u.TimeZone), Class: replies.ClassificationLabels.Of(l.Classification), Excerpt: l.Excerpt,
			Waiting: l.Waiting, Corrected: l.CorrectedBy != nil})
	}
	filters := url.Values{}
	if o.Classification != "" {
		filters.Set("classification", o.Classification)
	}
	if o.Campaign != "" {
		filters.Set("campaign", o.Campaign)
	}
	if page.Next != "" {
		next := url.Values{}
		for k, v := range filters {
			next[k] = v
		}
		next.Set("after", page.Next)
		d.NextPath = RepliesPath + "?" + next.Encode()
	}
	if o.Cursor != "" {
		d.FirstPath = RepliesPath
		if len(filters) > 0 {
			d.FirstPath += "?" + filters.Encode()
		}
	}
	s.render(w, r, http.StatusOK, "replies", pageData{Title: "Replies", User: &u, CSRF: ses.CSRF(), Body: d})
}

type correctionRow struct{ From, To, By, At string }

type threadView struct {
	// AnswerPath is the page that answers the reply, when the app answers
	// replies and this one waits for an answer.
	AnswerPath                           string
	ID, From, Subject, Received, Excerpt string
	Class, Rule, RulesClass, CorrectedBy string
	ReturnsOn                            string
	Lead, LeadEmail, Campaign            string
	Sent                                 *replies.SentEmail
	SentAt                               string
	Waiting                              bool
	Corrections                          []correctionRow
	Classes                              []classOption
}

// replyPage shows one reply in its thread: the email it answers, what the
// lead wrote (their words, set apart as theirs), its classification with
// the rule that decided it or the person who corrected it, and the form
// to correct it.
func (s *server) replyPage(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	t, err := s.Replies.Get(r.Context(), u.WorkspaceID, r.PathValue("id"))
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	l := t.Reply
	d := threadView{ID: l.ID, From: l.From, Subject: l.Subject, Received: formatTime(l.ReceivedAt, u.TimeZone), Excerpt: l.Excerpt,
		Class: replies.ClassificationLabels.Of(l.Classification), Rule: l.Rule, Lead: l.LeadName, LeadEmail: l.LeadEmail,
		Campaign: deref(l.CampaignName), Sent: t.Sent, Waiting: l.Waiting}
	if s.Answers != nil && l.Waiting {
		d.AnswerPath = "/app/replies/" + replies.ReplyKey{Mailbox: l.Mailbox, MessageID: l.MessageID}.Ref() + "/answer"
	}
	if l.ClassifiedAs != nil {
		d.RulesClass = replies.ClassificationLabels.Of(*l.ClassifiedAs)
	}
	d.CorrectedBy = deref(l.CorrectedBy)
	if l.ReturnsOn != nil {
		d.ReturnsOn = vibesell.FormatDate(*l.ReturnsOn)
	}
	if t.Sent != nil {
		d.SentAt = formatTime(t.Sent.At, u.TimeZone)
	}
	for _, c := range t.Corrections {
		d.Corrections = append(d.Corrections, correctionRow{From: replies.ClassificationLabels.Of(c.From), To: replies.ClassificationLabels.Of(c.To),
			By: c.By, At: formatTime(c.At, u.TimeZone)})
	}
	for _, c := range replies.ClassificationLabels {
		if c.Value == replies.Bounce && l.Classification != replies.Bounce {
			continue // a bounce is the mail server's report, never a person's correction
		}
		d.Classes = append(d.Classes, classOption{Value: c.Value, Text: c.Text, Chosen: c.Value == l.Classification})
	}
	notice := ""
	if r.URL.Query().Get("corrected") == "1" && l.CorrectedBy != nil {
		notice = "Saved: this reply now counts as " + d.Class + " in the campaign's figures and the lead's story."
	}
	s.render(w, r, http.StatusOK, "reply", pageData{Title: "Reply from " + l.From, User: &u, CSRF: ses.CSRF(), Notice: notice, Body: d})
}

// correctReply records the signed-in person's correction of a reply's
// classification.
func (s *server) correctReply(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	id := r.PathValue("id")
	_, err := s.Replies.Correct(r.Context(), u.WorkspaceID, id, r.PostFormValue("classification"),
		replies.Corrector{By: u.Email, User: u.ID, Via: replies.CorrectedInWeb})
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	http.Redirect(w, r, replyPath(id)+"?corrected=1", http.StatusSeeOther)
}
