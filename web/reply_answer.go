package web

import (
	"errors"
	"net/http"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
	"vibesell/replies"
)

// The answer page of a reply: the conversation so far and a form to
// write the answer. Sending it opens the same approval as the assistant's
// proposal, and the person goes on to that approval's page, where what
// goes out is shown exactly and decided.

type answerView struct {
	Ref     string
	Thread  replies.Thread
	Reply   answerReply
	Sent    []answerSent
	Replies []answerReply
	Answers []answerGiven
	// Answerable says the form is shown; otherwise Why says why not.
	Answerable bool
	Why        string
	Text       string // what the person wrote, kept when it was refused
}

type answerReply struct {
	R          replies.ThreadReply
	Received   string
	Classified string
	Current    bool // the reply being answered
}

type answerSent struct {
	S    replies.ThreadSent
	At   string
	What string
}

type answerGiven struct {
	A       replies.ThreadAnswer
	At      string
	Status  string
	Sent    bool
	Pending bool
}

// replyAnswerRoutes mounts the answer page when answers can be proposed.
func (s *server) replyAnswerRoutes(mux *http.ServeMux) {
	if s.Answers == nil || s.Approvals == nil {
		return
	}
	mux.HandleFunc("GET /app/replies/{id}/answer", s.signedIn(s.answerPage))
	mux.HandleFunc("POST /app/replies/{id}/answer", s.post(s.signedIn(s.proposeAnswer)))
}

func (s *server) answerPage(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	s.renderAnswer(w, r, u, ses, http.StatusOK, "", "")
}

// renderAnswer shows the answer page of the reply in the path, with a
// refusal and the text refused when there is one.
func (s *server) renderAnswer(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession, status int, message, text string) {
	key, ok := replies.ParseReplyRef(r.PathValue("id"))
	if !ok {
		s.renderError(w, r, vibesell.Errorf(vibesell.ENOTFOUND, "There is no such reply in this workspace."), 0, "", "")
		return
	}
	th, err := s.Answers.Thread(r.Context(), u.WorkspaceID, key)
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	loc := u.TimeZone
	d := answerView{Ref: key.Ref(), Thread: th, Text: text, Answerable: true}
	d.Reply = answerReply{R: th.Reply, Received: formatTime(th.Reply.ReceivedAt, loc), Classified: replies.ClassificationLabels.Of(th.Reply.Classification), Current: true}
	for _, sd := range th.Sent {
		what := "Answer to their reply"
		if sd.Step > 0 {
			what = "Email " + vibesell.Count(sd.Step) + " of the campaign"
		}
		d.Sent = append(d.Sent, answerSent{S: sd, At: formatTime(sd.At, loc), What: what})
	}
	for _, rp := range th.Replies {
		d.Replies = append(d.Replies, answerReply{R: rp, Received: formatTime(rp.ReceivedAt, loc), Classified: replies.ClassificationLabels.Of(rp.Classification),
			Current: rp.Key == th.Reply.Key})
	}
	for _, a := range th.Answers {
		d.Answers = append(d.Answers, answerGiven{A: a, At: formatTime(a.CreatedAt, loc), Status: a.Status.Label(),
			Sent: a.SendStatus == "sent", Pending: a.Status == approvals.Pending})
	}
	switch th.Reply.Classification {
	case replies.Bounce, replies.Complaint, replies.Unsubscribe, replies.OutOfOffice, replies.AutoReply:
		d.Answerable, d.Why = false, "This reply cannot be answered: it is "+replies.ClassificationLabels.Of(th.Reply.Classification)+"."
	}
	if th.Reply.Campaign == "" {
		d.Answerable, d.Why = false, "This reply matched no email VibeSell sent, so there is no thread to answer it in."
	}
	s.render(w, r, status, "reply_answer", pageData{Title: "Answer " + th.Reply.From, User: &u, CSRF: ses.CSRF(), Message: message, Body: d})
}

// proposeAnswer opens the approval to send the answer written, and takes
// the person to it; a refusal shows the page again with the text kept.
func (s *server) proposeAnswer(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	key, ok := replies.ParseReplyRef(r.PathValue("id"))
	if !ok {
		s.renderError(w, r, vibesell.Errorf(vibesell.ENOTFOUND, "There is no such reply in this workspace."), 0, "", "")
		return
	}
	text := r.PostFormValue("text")
	a, _, err := s.Answers.Request(r.Context(), u.WorkspaceID, replies.AnswerRequest{Reply: key, Text: text, RequestedBy: u.Email, RequestedVia: approvals.ViaWeb})
	var refusal *vibesell.Error
	if errors.As(err, &refusal) && refusal.Code != vibesell.ENOTFOUND {
		s.renderAnswer(w, r, u, ses, http.StatusUnprocessableEntity, refusal.Message, text)
		return
	}
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	http.Redirect(w, r, "/app/approvals/"+a.ID, http.StatusSeeOther)
}
