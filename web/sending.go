package web

import (
	"fmt"
	"net/http"

	"vibesell/auth"
	"vibesell/sending"
)

// sendingRoutes add the sending page: the workspace's domains and
// mailboxes as they stand, and in the sandbox the shortcut that makes them
// ready and warm at once.
func (s *server) sendingRoutes(mux *http.ServeMux) {
	if s.Sending == nil {
		return
	}
	mux.HandleFunc("GET /app/sending", s.signedIn(s.sendingPage))
	if s.Sending.Sandbox() {
		mux.HandleFunc("POST /app/sending/sandbox-ready", s.post(s.signedIn(s.sandboxReady)))
	}
}

type sendingDomainRow struct {
	D        sending.DomainStatus
	State    string
	Ready    string
	Shortcut string
}

type sendingMailboxRow struct {
	M        sending.MailboxStatus
	State    string
	Shortcut string
}

type sendingView struct {
	Sandbox   bool
	Domains   []sendingDomainRow
	Mailboxes []sendingMailboxRow
	// CanShortcut: in the sandbox, with something ordered that is not
	// warm yet.
	CanShortcut   bool
	ShortcutLabel string
}

// sendingPage shows the sending setup as it stands now.
func (s *server) sendingPage(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	st, err := s.Sending.Summary(r.Context(), u.WorkspaceID)
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	d := sendingView{Sandbox: s.Sending.Sandbox(), ShortcutLabel: sending.SandboxShortcutLabel}
	for _, dom := range st.Domains {
		row := sendingDomainRow{D: dom, State: sending.DomainStateLabels.Of(string(dom.State))}
		if dom.ReadyAt != nil {
			row.Ready = formatTime(*dom.ReadyAt, u.TimeZone)
		}
		if dom.SandboxReadyAt != nil {
			row.Shortcut = sending.SandboxShortcutLabel + ", " + formatTime(*dom.SandboxReadyAt, u.TimeZone)
		}
		d.Domains = append(d.Domains, row)
	}
	for _, m := range st.Mailboxes {
		row := sendingMailboxRow{M: m, State: sending.MailboxStateLabels.Of(string(m.State))}
		if m.SandboxReadyAt != nil {
			row.Shortcut = sending.SandboxShortcutLabel + ", " + formatTime(*m.SandboxReadyAt, u.TimeZone)
		}
		if d.Sandbox && m.Status != sending.MailboxPlanned && m.State != sending.MailboxWarm {
			d.CanShortcut = true
		}
		d.Mailboxes = append(d.Mailboxes, row)
	}
	s.render(w, r, http.StatusOK, "sending", pageData{Title: "Sending", User: &u, CSRF: ses.CSRF(), Notice: shortcutNotice(r.URL.Query().Get("shortcut")), Body: d})
}

// sandboxReady runs the sandbox shortcut for the signed-in workspace.
func (s *server) sandboxReady(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	res, err := s.Sending.SandboxReady(r.Context(), u.WorkspaceID)
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	// The counts travel in the address, never a sentence: a link cannot
	// make the page say anything else.
	http.Redirect(w, r, fmt.Sprintf("/app/sending?shortcut=%d.%d.%d", len(res.Domains), len(res.Mailboxes), res.Already), http.StatusSeeOther)
}

// shortcutNotice says what the shortcut did, from the counts its redirect
// carries; "" when there are none.
func shortcutNotice(v string) string {
	var domains, mailboxes, already int
	if _, err := fmt.Sscanf(v, "%d.%d.%d", &domains, &mailboxes, &already); err != nil || domains < 0 || mailboxes < 0 || already < 0 {
		return ""
	}
	return sending.ShortcutSentence(domains, mailboxes, already)
}
