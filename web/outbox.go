package web

import (
	"fmt"
	"net/http"
	"strconv"

	"vibesell"
	"vibesell/auth"
	"vibesell/replies"
	"vibesell/sandboxmail"
)

type outboxRow struct {
	M        sandboxmail.OutboxMessage
	Accepted string
	Raw      string
	Replies  []outboxReply
}

type outboxReply struct {
	R          sandboxmail.OutboxReply
	Received   string
	Classified string
}

type outboxView struct {
	Sandbox bool
	// Notices: the page lists VibeSell's own emails to the team, apart
	// from the campaigns' emails it lists otherwise.
	Notices  bool
	Messages []outboxRow
	Older    string // the link to older messages; "" on the last page
}

// outboxNoticesPath lists VibeSell's own emails to the workspace's people.
const outboxNoticesPath = "/app/outbox?show=notices"

// outboxPage shows the workspace's sandbox messages, newest first, as
// sent, with their DKIM verdict; with a real provider it says there is
// no sandbox outbox.
func (s *server) outboxPage(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	d := outboxView{Sandbox: s.Outbox.Sandbox(), Notices: r.URL.Query().Get("show") == "notices"}
	notice := ""
	if d.Sandbox {
		before, _ := strconv.ParseInt(r.URL.Query().Get("before"), 10, 64)
		kind := sandboxmail.CampaignEmails
		if d.Notices {
			kind = sandboxmail.NoticeEmails
		}
		page, err := s.Outbox.ListOf(r.Context(), u.WorkspaceID, kind, before, 20)
		if err != nil {
			s.renderError(w, r, err, 0, "", "")
			return
		}
		for _, m := range page.Messages {
			row := outboxRow{M: m, Accepted: formatTime(m.AcceptedAt, u.TimeZone), Raw: string(m.Raw)}
			for _, r := range m.Replies {
				row.Replies = append(row.Replies, outboxReply{R: r, Received: formatTime(r.ReceivedAt, u.TimeZone), Classified: replies.ClassificationLabels.Of(r.Classification)})
			}
			d.Messages = append(d.Messages, row)
		}
		if page.Before != 0 {
			d.Older = "/app/outbox?before=" + strconv.FormatInt(page.Before, 10)
			if d.Notices {
				d.Older = outboxNoticesPath + "&before=" + strconv.FormatInt(page.Before, 10)
			}
		}
		// ?replied= carries the id of the message answered, never text to
		// show: the notice names the lead from the workspace's own message,
		// and says nothing when that message is not on this page.
		if replied, err := strconv.ParseInt(r.URL.Query().Get("replied"), 10, 64); err == nil {
			for _, m := range page.Messages {
				if m.ID == replied {
					notice = fmt.Sprintf("Your reply as %s is in the sending mailbox's inbox. VibeSell reads it from there like any reply, classifies it and acts on it.", m.To)
				}
			}
		}
	}
	s.render(w, r, http.StatusOK, "outbox", pageData{Title: "Outbox", User: &u, CSRF: ses.CSRF(), Notice: notice, Body: d})
}

// replyAsLead delivers the person's reply, written as the message's lead,
// into the sending mailbox.
func (s *server) replyAsLead(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		s.renderError(w, r, vibesell.Errorf(vibesell.ENOTFOUND, "no such message"), 0, "", "")
		return
	}
	_, err = s.Outbox.ReplyAsLead(r.Context(), u.WorkspaceID, id, r.PostFormValue("text"))
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	http.Redirect(w, r, "/app/outbox?replied="+strconv.FormatInt(id, 10)+"#m"+strconv.FormatInt(id, 10), http.StatusSeeOther)
}
