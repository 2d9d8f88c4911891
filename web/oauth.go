package web

import (
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"vibesell"
	"vibesell/auth"
	"vibesell/auth/oauth"
)

func (s *server) parseOAuthPages() error {
	for _, name := range []string{"consent", "connections"} {
		t, err := template.New(name).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return fmt.Errorf("web: parse %s: %w", name, err)
		}
		s.pages[name] = t
	}
	return nil
}

// oauthRoutes adds the pages of connecting an app (the consent page the
// authorization endpoint sends a person to) and of the connected apps.
// Without an OAuth server configured, there are none.
//
// The connected apps page lists the apps connected through OAuth and the
// workspace's tokens, with either.
func (s *server) oauthRoutes(mux *http.ServeMux) {
	if s.OAuth != nil {
		mux.HandleFunc("GET "+oauth.PathConsent+"{request}", s.signedIn(s.consentPage))
		mux.HandleFunc("POST "+oauth.PathConsent+"{request}", s.post(s.signedIn(s.consent)))
		mux.HandleFunc("POST /app/connections/{id}/disconnect", s.post(s.signedIn(s.disconnect)))
	}
	if s.Tokens != nil {
		mux.HandleFunc("POST /app/connections/tokens/{id}/revoke", s.post(s.signedIn(s.revokeToken)))
	}
	if s.OAuth != nil || s.Tokens != nil {
		mux.HandleFunc("GET /app/connections", s.signedIn(s.connectionsPage))
	}
}

// Connecting reports whether signing in leads on to connecting an app, so
// the sign-in page can say so.
func (d signInData) Connecting() bool { return strings.HasPrefix(d.Next, oauth.PathConsent) }

type consentData struct {
	Request   string
	Pending   oauth.Pending
	Workspace string // the one workspace of a person in only one
	// Workspaces are, for a person in several, the ones to pick from; none
	// is picked beforehand, so that the person chooses deliberately.
	Workspaces []auth.Membership
	Expires    string
}

func (s *server) consentPage(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	s.showConsent(w, r, u, ses, http.StatusOK, "")
}

func (s *server) showConsent(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession, status int, message string) {
	p, err := s.OAuth.Pending(r.Context(), r.PathValue("request"))
	if err != nil {
		s.consentError(w, r, u, ses, err)
		return
	}
	// The answer to the form is a redirect to the app; browsers hold
	// redirects after a form to the page's form-action, so the app's
	// origin is allowed there, and only on this page.
	w.Header().Set("Content-Security-Policy", strings.Replace(w.Header().Get("Content-Security-Policy"),
		"form-action 'self'", "form-action 'self' "+cspSource(p.RedirectOrigin), 1))
	d := consentData{Request: r.PathValue("request"), Pending: p, Expires: relative(p.ExpiresAt, s.Clock.Now())}
	if len(u.Workspaces) > 1 {
		d.Workspaces = u.Workspaces
	} else {
		d.Workspace = u.WorkspaceName
	}
	s.render(w, r, status, "consent", pageData{Title: "Connect " + p.Client.Name, User: &u, CSRF: ses.CSRF(),
		Message: message, Body: d})
}

// pickedWorkspace is the workspace a consent form grants: the one picked,
// or for a person in one workspace only, that one.
func pickedWorkspace(u auth.User, picked string) (uuid.UUID, bool) {
	if picked == "" && len(u.Workspaces) == 1 {
		return u.Workspaces[0].WorkspaceID, true
	}
	id, err := uuid.Parse(picked)
	return id, err == nil && u.BelongsTo(id)
}

// cspSource makes an origin safe to put in a CSP directive: a value with
// anything but the characters of an origin is left out.
func cspSource(origin string) string {
	if origin == "" || strings.ContainsAny(origin, " ;,'\"\r\n") {
		return ""
	}
	return origin
}

func (s *server) consent(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	var to string
	var err error
	switch r.PostFormValue("decision") {
	case "allow":
		ws, ok := pickedWorkspace(u, r.PostFormValue("workspace"))
		if !ok {
			s.showConsent(w, r, u, ses, http.StatusUnprocessableEntity, "Choose the workspace the app will work in, then allow again.")
			return
		}
		to, err = s.OAuth.Approve(r.Context(), r.PathValue("request"), u.ID, ws)
		if errors.Is(err, auth.ErrNotMember) {
			s.showConsent(w, r, u, ses, http.StatusUnprocessableEntity, "You no longer belong to that workspace. Choose another, then allow again.")
			return
		}
	case "deny":
		to, err = s.OAuth.Deny(r.Context(), r.PathValue("request"))
	default:
		s.renderError(w, r, nil, http.StatusBadRequest, "Request refused", "Choose Allow or Cancel on the page.")
		return
	}
	if err != nil {
		s.consentError(w, r, u, ses, err)
		return
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

func (s *server) consentError(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession, err error) {
	if vibesell.ErrorCode(err) == vibesell.ENOTFOUND {
		s.render(w, r, http.StatusNotFound, "error", pageData{Title: "This request has expired", User: &u, CSRF: ses.CSRF(),
			Message: vibesell.ErrorMessage(err)})
		return
	}
	s.renderError(w, r, err, 0, "", "")
}

type connectionRow struct {
	C        oauth.Connection
	Since    string
	LastUsed string
}

// tokenRow is one of the workspace's tokens, as the page lists it.
type tokenRow struct {
	ID        string
	Name      string // the start of its id: the token itself is never kept
	Created   string
	CreatedBy string
	LastUsed  string
}

type connectionsData struct {
	Apps   []connectionRow
	Tokens []tokenRow
	// ShowTokens: tokens are listed on this server.
	ShowTokens bool
}

func (s *server) connectionsPage(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	s.showConnections(w, r, u, ses, http.StatusOK, "")
}

func (s *server) showConnections(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession, status int, message string) {
	now := s.Clock.Now()
	d := connectionsData{ShowTokens: s.Tokens != nil}
	if s.OAuth != nil {
		conns, err := s.OAuth.Connections(r.Context(), u.WorkspaceID)
		if err != nil {
			s.renderError(w, r, err, 0, "", "")
			return
		}
		for _, c := range conns {
			row := connectionRow{C: c, Since: formatTime(c.ConnectedAt, u.TimeZone), LastUsed: "Never"}
			if c.LastUsedAt != nil {
				row.LastUsed = lastUse(*c.LastUsedAt, now)
			}
			d.Apps = append(d.Apps, row)
		}
	}
	if s.Tokens != nil {
		tokens, err := s.Tokens.List(r.Context(), u.WorkspaceID)
		if err != nil {
			s.renderError(w, r, err, 0, "", "")
			return
		}
		for _, t := range tokens {
			if t.RevokedAt != nil {
				continue
			}
			row := tokenRow{ID: t.ID.String(), Name: "Token " + t.ID.String()[:8], Created: formatTime(t.CreatedAt, u.TimeZone),
				CreatedBy: t.CreatedBy, LastUsed: "Never"}
			if row.CreatedBy == "" {
				row.CreatedBy = "not recorded"
			}
			if t.LastUsedAt != nil {
				row.LastUsed = lastUse(*t.LastUsedAt, now)
			}
			d.Tokens = append(d.Tokens, row)
		}
	}
	s.render(w, r, status, "connections", pageData{Title: "Connected apps", User: &u, CSRF: ses.CSRF(),
		Notice: connectionsNotice(r.URL.Query().Get("done")), Message: message, Body: d})
}

// revokeToken revokes one of the workspace's tokens, once the person
// ticked that they mean it: every server refuses it within a second.
func (s *server) revokeToken(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		s.renderError(w, r, vibesell.Errorf(vibesell.ENOTFOUND, "There is no such token in this workspace."), 0, "", "")
		return
	}
	if r.PostFormValue("confirm") != "yes" {
		s.showConnections(w, r, u, ses, http.StatusUnprocessableEntity,
			"Tick \"Yes, revoke it\" to revoke the token: whatever uses it stops working at once.")
		return
	}
	if err := s.Tokens.RevokeIn(r.Context(), u.WorkspaceID, id, u.Email); err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	http.Redirect(w, r, "/app/connections?done=revoked", http.StatusSeeOther)
}

// lastUse says when a connection was last used; uses are recorded to the
// minute, so anything closer reads "in the last minute".
func lastUse(t, now time.Time) string {
	if now.Sub(t) < time.Minute {
		return "In the last minute"
	}
	s := relative(t, now)
	return strings.ToUpper(s[:1]) + s[1:]
}

func connectionsNotice(done string) string {
	switch done {
	case "disconnected":
		return "The app was disconnected. It can no longer use VibeSell until someone connects it again."
	case "revoked":
		return "The token was revoked. Whatever used it is refused from now on; a new token is made on the server's command line."
	}
	return ""
}

func (s *server) disconnect(w http.ResponseWriter, r *http.Request, u auth.User, _ auth.WebSession) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err == nil {
		err = s.OAuth.Disconnect(r.Context(), u.WorkspaceID, id, u.Email)
	} else {
		err = oauth.ErrNoConnection
	}
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	http.Redirect(w, r, "/app/connections?done=disconnected", http.StatusSeeOther)
}
