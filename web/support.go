package web

import (
	"net/http"

	"vibesell/auth"
	"vibesell/workspace"
)

// ticketRow is one support ticket as the support page lists it.
type ticketRow struct {
	T      workspace.Ticket
	Opened string
}

// supportBody is the support page: how to reach whoever runs the server,
// and, signed in, the workspace's tickets.
type supportBody struct {
	SupportEmail string
	SignedIn     bool
	// Tickets lists the workspace's tickets (signed in, with a Support
	// service); nil otherwise.
	Tickets []ticketRow
}

// supportEntry answers the support page signed in or not: signed out, it
// says how to reach whoever runs this server; signed in, it lists the
// workspace's tickets too.
func (s *server) supportEntry(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(s.sessionCookie); err == nil && s.Workspaces != nil {
		if _, _, err := s.Accounts.Authenticate(r.Context(), c.Value); err == nil {
			s.signedIn(s.supportPage)(w, r)
			return
		}
	}
	s.render(w, r, http.StatusOK, "support", pageData{Title: "Support", Body: supportBody{SupportEmail: s.SupportEmail}})
}

// supportPage lists the workspace's support tickets, newest first: what
// the person or the assistant reported, and whether it was answered.
// Tickets stay on this server; whoever runs it answers them.
func (s *server) supportPage(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	tickets, err := s.Workspaces.Tickets(r.Context(), u.WorkspaceID)
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	rows := make([]ticketRow, 0, len(tickets))
	for _, t := range tickets {
		rows = append(rows, ticketRow{T: t, Opened: formatTime(t.CreatedAt, u.TimeZone)})
	}
	s.render(w, r, http.StatusOK, "support", pageData{Title: "Support", User: &u, CSRF: ses.CSRF(),
		Body: supportBody{SupportEmail: s.SupportEmail, SignedIn: true, Tickets: rows}})
}
