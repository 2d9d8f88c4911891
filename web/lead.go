package web

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"vibesell"
	"vibesell/audience"
	"vibesell/auth"
	"vibesell/campaigns"
	"vibesell/replies"
)

// The leads list (on the leads page) and each lead's page: its story, and
// removing it.

func (s *server) leadListRoutes(mux *http.ServeMux) {
	if s.Audience == nil {
		return
	}
	mux.HandleFunc("GET "+LeadsPath+"/{id}", s.signedIn(s.leadPage))
	mux.HandleFunc("POST "+LeadsPath+"/{id}/remove", s.post(s.signedIn(s.removeLead)))
}

func leadPath(id int64) string { return LeadsPath + "/" + strconv.FormatInt(id, 10) }

type listedLead struct {
	Path, Name, Email, Company, Status, Added string
}

type campaignOption struct {
	ID, Name string
	Chosen   bool
}

type statusOption struct {
	Value, Text string
	Chosen      bool
}

// leadList is the leads list as the leads page shows it.
type leadList struct {
	Search    string
	Statuses  []statusOption
	Campaigns []campaignOption
	Leads     []listedLead
	Filtered  bool   // a search or filter narrows the list
	NextPath  string // the next page; "" on the last
	FirstPath string // back to the first page; "" on it
}

// leadList reads the page of the leads list the request's query asks for:
// q (search), status, campaign, after (where the page starts).
func (s *server) leadList(r *http.Request, u auth.User) (leadList, error) {
	q := r.URL.Query()
	// 25 a page: the upload and block forms below stay in reach.
	query := audience.LeadQuery{Search: q.Get("q"), Status: q.Get("status"), Campaign: q.Get("campaign"), Limit: 25}
	if !slices.Contains(audience.LeadStatuses, query.Status) {
		query.Status = "" // an unknown status from an edited address: the whole list
	}
	query.After, _ = strconv.ParseInt(q.Get("after"), 10, 64)
	d := leadList{Search: query.Search, Filtered: query.Search != "" || query.Status != "" || query.Campaign != ""}
	for _, st := range audience.LeadStatuses {
		d.Statuses = append(d.Statuses, statusOption{Value: st, Text: audience.LeadStatusLabels.Of(st), Chosen: st == query.Status})
	}
	if s.Campaigns != nil {
		list, err := s.Campaigns.List(r.Context(), u.WorkspaceID, 100)
		if err != nil {
			return d, err
		}
		for _, c := range list {
			d.Campaigns = append(d.Campaigns, campaignOption{ID: c.Campaign.ID, Name: c.Campaign.Name, Chosen: c.Campaign.ID == query.Campaign})
		}
	}
	page, err := s.Audience.Leads(r.Context(), u.WorkspaceID, query)
	if err != nil {
		return d, err
	}
	for _, l := range page.Leads {
		d.Leads = append(d.Leads, listedLead{Path: leadPath(l.ID), Name: leadName(l), Email: l.Email, Company: l.Company,
			Status: audience.LeadStatusLabels.Of(l.Status), Added: vibesell.FormatDate(l.AddedAt.In(u.TimeZone))})
	}
	keep := url.Values{}
	for _, k := range []string{"q", "status", "campaign"} {
		if v := q.Get(k); v != "" {
			keep.Set(k, v)
		}
	}
	if query.After > 0 {
		d.FirstPath = LeadsPath + "?" + keep.Encode() + "#all"
	}
	if page.Next > 0 {
		keep.Set("after", strconv.FormatInt(page.Next, 10))
		d.NextPath = LeadsPath + "?" + keep.Encode() + "#all"
	}
	return d, nil
}

// leadName is how a lead is named to a person: its name, or its address
// when the import had no name.
func leadName(l audience.ListedLead) string {
	if n := l.Name(); n != "" {
		return n
	}
	return l.Email
}

type sentRow struct {
	Step    int
	Answer  bool // an answer to the lead's reply, not a step of the sequence
	At      string
	Mailbox string
	Outcome string
}

type storyCampaign struct {
	Name, Status string
	Steps        int
	Sent         []sentRow
	Older        int // steps sent before those shown
	Next         string
	Stop         string
}

type storyReply struct {
	From, At, Classification, Excerpt string
	Step                              int
	Campaign                          string
}

type leadData struct {
	Name, Email, Company, Title, Status string
	Imported                            string
	Removed                             string // who removed it and when; "" when it is not removed
	Suppressed                          string
	Campaigns                           []storyCampaign
	Replies                             []storyReply
	MoreReplies                         int
	RemovePath                          string
	BackPath                            string
}

func (s *server) leadPage(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	notice := ""
	if r.URL.Query().Get("removed") == "1" {
		notice = "Removed. Nothing more is sent to this person, in any campaign."
	}
	s.showLead(w, r, u, ses, http.StatusOK, notice)
}

func (s *server) showLead(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession, status int, notice string) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		s.renderError(w, r, nil, http.StatusNotFound, "Page not found", "There is nothing at this address.")
		return
	}
	st, err := s.Audience.Story(r.Context(), u.WorkspaceID, strconv.FormatInt(id, 10))
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	loc := u.TimeZone
	d := leadData{Name: leadName(st.Lead), Email: st.Lead.Email, Company: st.Lead.Company, Title: st.Lead.Title,
		Status: audience.LeadStatusLabels.Of(st.Lead.Status), BackPath: LeadsPath + "#all"}
	from := map[string]string{audience.SourceUpload: "an uploaded file", audience.SourceDirectory: "the lead directory",
		audience.SourceSample: "the sample directory (made-up contacts)"}[st.Source]
	if st.Source == audience.SourceUpload && st.FileName != "" {
		from = "the file " + st.FileName
	}
	d.Imported = fmt.Sprintf("Imported %s from %s.", formatTime(st.Lead.AddedAt, loc), from)
	if st.RemovedAt != nil {
		d.Removed = fmt.Sprintf("Removed by %s, %s. Nothing more is sent to this person.", st.RemovedBy, formatTime(*st.RemovedAt, loc))
	} else {
		d.RemovePath = leadPath(st.Lead.ID) + "/remove"
	}
	if sp := st.Suppressed; sp != nil {
		what := "This address"
		if sp.Domain {
			what = "This address's whole domain"
		}
		d.Suppressed = fmt.Sprintf("%s is never written to again since %s: %s.", what, formatTime(sp.At, loc), suppressionReasonText[sp.Reason])
	}
	names := map[string]string{}
	for _, c := range st.Campaigns {
		names[c.ID] = c.Name
		sc := storyCampaign{Name: c.Name, Status: campaigns.StatusLabels.Of(c.Status), Steps: c.Steps, Older: c.SentTotal - len(c.Sent)}
		for _, sd := range c.Sent {
			sc.Sent = append(sc.Sent, sentRow{Step: sd.Step, Answer: sd.Answer, At: formatTime(sd.At, loc), Mailbox: sd.Mailbox, Outcome: campaigns.StepLabels.Of(sd.Outcome)})
		}
		if n := c.Next; n != nil {
			switch {
			case n.Due != nil:
				sc.Next = fmt.Sprintf("Email %d of %d is due %s.", n.Step, c.Steps, formatTime(*n.Due, loc))
			case n.Waiting == audience.WaitLaunch:
				sc.Next = fmt.Sprintf("Email %d of %d goes out once the campaign is launched.", n.Step, c.Steps)
			default:
				sc.Next = fmt.Sprintf("Email %d of %d waits: the campaign is paused.", n.Step, c.Steps)
			}
		}
		if p := c.Stop; p != nil {
			sc.Stop = stopText(*p, loc)
		}
		d.Campaigns = append(d.Campaigns, sc)
	}
	for _, rp := range st.Replies {
		d.Replies = append(d.Replies, storyReply{From: rp.From, At: formatTime(rp.ReceivedAt, loc), Classification: replies.ClassificationLabels.Of(rp.Classification),
			Excerpt: rp.Excerpt, Step: rp.Step, Campaign: names[rp.Campaign]})
	}
	d.MoreReplies = st.RepliesTotal - len(st.Replies)
	s.render(w, r, status, "lead", pageData{Title: d.Name, User: &u, CSRF: ses.CSRF(), Notice: notice, Body: d})
}

// suppressionReasonText says why an address is never written to.
var suppressionReasonText = map[string]string{
	audience.ReasonUnsubscribe: "they unsubscribed",
	audience.ReasonHardBounce:  "their address bounced",
	audience.ReasonComplaint:   "they marked an email as spam",
	audience.ReasonManual:      "it was blocked by hand",
}

func stopText(p audience.Stop, loc *time.Location) string {
	out := audience.StopLabels.Of(p.Reason)
	if p.By != "" && (p.Reason == audience.StopReplied || p.Reason == audience.StopColleagueReplied) {
		out += " (" + p.By + ")"
	}
	if p.At != nil {
		out += ", " + formatTime(*p.At, loc)
	}
	return out + ". Nothing more is sent in this campaign."
}

func (s *server) removeLead(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		s.renderError(w, r, nil, http.StatusNotFound, "Page not found", "There is nothing at this address.")
		return
	}
	if r.PostFormValue("confirm") != "yes" {
		s.renderError(w, r, nil, http.StatusUnprocessableEntity, "Not removed",
			"Tick the box that says nothing more goes to this person, then remove the lead again.")
		return
	}
	if _, err := s.Audience.RemoveLead(r.Context(), u.WorkspaceID, id, u.Email); err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	http.Redirect(w, r, leadPath(id)+"?removed=1", http.StatusSeeOther)
}
