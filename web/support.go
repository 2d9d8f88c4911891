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
	s.render(w, r, http.StatusOK, "support", pageData{Title: "Support", User: &u, CSRF: ses.CSRF(), Body: rows})
}
