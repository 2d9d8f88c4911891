package web

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"vibesell"
	"vibesell/auth"
	"vibesell/mail"
	"vibesell/mailboxes"
	"vibesell/sending"
)

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
	// Connecting: the app connects existing mailboxes; Connected lists
	// them, and Form holds what was typed when a connection failed (never
	// the passwords).
	Connecting bool
	Connected  []connectedRow
	Form       connectForm
}

type connectedRow struct {
	M         mailboxes.ConnectedMailbox
	Connected string
}

// connectForm is the connect form's values, as typed.
type connectForm struct {
	Address, SenderName string
	Servers             []serverForm // sending (SMTP), then reading (IMAP)
}

// serverForm is one server's part of the connect form; never the password.
type serverForm struct {
	Name, Legend                   string // the fields' prefix: smtp or imap
	Host, Port, Security, Username string
}

func newConnectForm() connectForm {
	return connectForm{Servers: []serverForm{
		{Name: "smtp", Legend: "Sending server (SMTP)", Port: "587", Security: mail.SecuritySTARTTLS},
		{Name: "imap", Legend: "Reading server (IMAP)", Port: "993", Security: mail.SecurityTLS},
	}}
}

// sendingPage shows the sending setup as it stands now.
func (s *server) sendingPage(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	notice := shortcutNotice(r.URL.Query().Get("shortcut"))
	switch r.URL.Query().Get("done") {
	case "connected":
		notice = "Connected. VibeSell signed in to both servers with these settings."
	case "disconnected":
		notice = "Disconnected. VibeSell no longer keeps that mailbox's settings or passwords."
	}
	s.renderSending(w, r, u, ses, http.StatusOK, notice, "", newConnectForm())
}

func (s *server) renderSending(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession, status int, notice, message string, form connectForm) {
	st, err := s.Sending.Summary(r.Context(), u.WorkspaceID)
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	d := sendingView{Sandbox: s.Sending.Sandbox(), ShortcutLabel: sending.SandboxShortcutLabel, Connecting: s.Connections != nil, Form: form}
	if s.Connections != nil {
		list, err := s.Connections.List(r.Context(), u.WorkspaceID)
		if err != nil {
			s.renderError(w, r, err, 0, "", "")
			return
		}
		for _, m := range list {
			d.Connected = append(d.Connected, connectedRow{M: m, Connected: formatTime(m.ConnectedAt, u.TimeZone)})
		}
	}
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
	s.render(w, r, status, "sending", pageData{Title: "Sending", User: &u, CSRF: ses.CSRF(), Notice: notice, Message: message, Body: d})
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

// connectMailbox checks and saves a mailbox the person connects; when the
// check fails, the page says why and keeps what was typed (but the
// passwords).
func (s *server) connectMailbox(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	v := r.PostFormValue
	form := newConnectForm()
	form.Address, form.SenderName = v("address"), v("sender_name")
	settings := make([]mail.ServerSettings, len(form.Servers))
	for i := range form.Servers {
		f := &form.Servers[i]
		f.Host, f.Port, f.Security, f.Username = v(f.Name+"_host"), v(f.Name+"_port"), v(f.Name+"_security"), v(f.Name+"_username")
		port, _ := strconv.Atoi(strings.TrimSpace(f.Port))
		settings[i] = mail.ServerSettings{Host: f.Host, Port: port, Security: f.Security, Username: f.Username, Password: v(f.Name + "_password")}
	}
	_, err := s.Connections.Connect(r.Context(), u.WorkspaceID, mailboxes.ConnectRequest{Address: form.Address, SenderName: form.SenderName,
		SMTP: settings[0], IMAP: settings[1]})
	if vibesell.ErrorCode(err) == vibesell.EINVALID {
		s.renderSending(w, r, u, ses, http.StatusUnprocessableEntity, "", vibesell.ErrorForPerson(err), form)
		return
	}
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	http.Redirect(w, r, "/app/sending?done=connected#connected", http.StatusSeeOther)
}

// disconnectMailbox forgets a connected mailbox.
func (s *server) disconnectMailbox(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	if err := s.Connections.Disconnect(r.Context(), u.WorkspaceID, r.PostFormValue("address")); err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	http.Redirect(w, r, "/app/sending?done=disconnected#connected", http.StatusSeeOther)
}
