package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/auth"
	"vibesell/store"
)

// authorize is the authorization endpoint. It checks the request, keeps
// it while the person decides, and sends them to the web app's consent
// page (which signs them in first). Until the client and its redirect URI
// are known good, errors are shown to the person; after, they go back to
// the client (RFC 6749 §4.1.2.1).
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	c, err := s.client(r.Context(), s.clientIP(r), q.Get("client_id"))
	if err != nil {
		var oe *oauthError
		if errors.As(err, &oe) {
			status := http.StatusBadRequest
			if oe.status == http.StatusTooManyRequests || oe.status == http.StatusServiceUnavailable {
				status = oe.status // a limit: the same request may work later
			}
			s.personError(w, r, status, "This app cannot connect", oe.Description)
			return
		}
		s.personInternal(w, r, err)
		return
	}
	redirectURI := q.Get("redirect_uri")
	if redirectURI == "" && len(c.RedirectURIs) == 1 {
		redirectURI = c.RedirectURIs[0]
	}
	registered := false
	for _, ru := range c.RedirectURIs {
		if redirectMatches(ru, redirectURI) {
			registered = true
			break
		}
	}
	if !registered {
		s.personError(w, r, http.StatusBadRequest, "This app cannot connect",
			fmt.Sprintf("%s asked to send you back to %s, which it did not register. Nothing was shared. Try connecting again from the app; if this keeps happening, tell the app's makers.",
				c.Name, orNone(redirectURI)))
		return
	}
	back := func(e *oauthError) {
		http.Redirect(w, r, s.errorRedirect(redirectURI, q.Get("state"), e), http.StatusSeeOther)
	}
	if rt := q.Get("response_type"); rt != "code" {
		back(errorf(0, "unsupported_response_type", "The response_type must be code, not %q.", truncate(rt, 40)))
		return
	}
	challenge, method := q.Get("code_challenge"), q.Get("code_challenge_method")
	switch {
	case challenge == "":
		back(errorf(0, "invalid_request", "PKCE is required: send code_challenge with code_challenge_method=S256."))
		return
	case method != "S256":
		back(errorf(0, "invalid_request", "The code_challenge_method must be S256, not %q.", cmpOr(method, "plain")))
		return
	case len(challenge) != 43 || strings.Trim(challenge, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "":
		back(errorf(0, "invalid_request", "The code_challenge must be the base64url SHA-256 of the code verifier (43 characters)."))
		return
	}
	if err := s.checkResource(q["resource"], true); err != nil {
		back(err)
		return
	}
	scope, err := scopesOf(q.Get("scope"))
	if err != nil {
		var oe *oauthError
		errors.As(err, &oe)
		back(oe)
		return
	}
	if len(q.Get("state")) > 2048 {
		back(errorf(0, "invalid_request", "The state is longer than 2048 characters."))
		return
	}

	id := make([]byte, 24)
	_, _ = rand.Read(id)
	now := s.clock.Now()
	if _, err := s.db.Exec(r.Context(), `INSERT INTO oauth_requests
		(id, client_id, redirect_uri, state, code_challenge, scope, resource, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		id, c.ID, redirectURI, q.Get("state"), challenge, scope, s.resource, now, now.Add(requestLifetime)); err != nil {
		s.personInternal(w, r, fmt.Errorf("store authorization request: %w", err))
		return
	}
	http.Redirect(w, r, PathConsent+base64.RawURLEncoding.EncodeToString(id), http.StatusSeeOther)
}

// checkResource requires exactly one resource (RFC 8707), equal to this
// server's /mcp URL: a token is only ever for it.
func (s *Server) checkResource(values []string, required bool) *oauthError {
	switch {
	case len(values) == 0 && !required:
		return nil
	case len(values) == 0 || values[0] == "":
		return errorf(http.StatusBadRequest, "invalid_target", "The resource parameter is required: send resource=%s (RFC 8707).", s.resource)
	case len(values) > 1:
		return errorf(http.StatusBadRequest, "invalid_target", "Send one resource, %s; tokens here are for it alone.", s.resource)
	case strings.TrimSuffix(values[0], "/") != s.resource:
		return errorf(http.StatusBadRequest, "invalid_target", "Tokens here are for %s only, not for %s.", s.resource, truncate(values[0], 200))
	}
	return nil
}

// errorRedirect is the client's redirect URI with an error response and,
// as RFC 9207 asks, the issuer.
func (s *Server) errorRedirect(redirectURI, state string, e *oauthError) string {
	v := url.Values{"error": {e.Code}, "error_description": {e.Description}, "iss": {s.issuer}}
	if state != "" {
		v.Set("state", state)
	}
	return withQuery(redirectURI, v)
}

func withQuery(raw string, v url.Values) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	q := u.Query()
	for k, vs := range v {
		q[k] = vs
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// Pending is an authorization request waiting for a person's consent, as
// the consent page shows it.
type Pending struct {
	Client Client
	// RedirectHost is where the person will be sent back to.
	RedirectHost string
	// PublishedBy is, for a client known by its metadata document, the
	// host that publishes it: the one who vouches for its name.
	PublishedBy string
	// RedirectOrigin is the redirect URI's origin (scheme://host:port, or
	// scheme: for an app's own scheme), for the consent form's CSP.
	RedirectOrigin string
	// Allows lists, for a person, what the client will be able to do.
	Allows    []string
	ExpiresAt time.Time
}

// ErrNoRequest answers a consent link that is unknown, used or expired.
var ErrNoRequest = vibesell.Errorf(vibesell.ENOTFOUND,
	"This connection request has expired or was already answered. Start connecting again from the app.")

func decodeRequestID(raw string) ([]byte, bool) {
	id, err := base64.RawURLEncoding.DecodeString(raw)
	return id, err == nil && len(id) == 24
}

// Pending returns the authorization request with the given id, for the
// consent page. Errors: [ErrNoRequest].
func (s *Server) Pending(ctx context.Context, requestID string) (Pending, error) {
	id, ok := decodeRequestID(requestID)
	if !ok {
		return Pending{}, ErrNoRequest
	}
	var p Pending
	var redirectURI, scope, kind string
	err := s.db.QueryRow(ctx, `SELECT c.id, c.kind, c.name, r.redirect_uri, r.scope, r.expires_at
		FROM oauth_requests r JOIN oauth_clients c ON c.id = r.client_id
		WHERE r.id = $1 AND r.expires_at > $2`, id, s.clock.Now()).
		Scan(&p.Client.ID, &kind, &p.Client.Name, &redirectURI, &scope, &p.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Pending{}, ErrNoRequest
	}
	if err != nil {
		return Pending{}, fmt.Errorf("find authorization request: %w", err)
	}
	p.Client.Verified = kind == "cimd"
	if p.Client.Verified {
		p.PublishedBy = RedirectHost(p.Client.ID)
	}
	p.RedirectHost = RedirectHost(redirectURI)
	p.RedirectOrigin = redirectOrigin(redirectURI)
	p.Allows = describeScope(scope)
	return p, nil
}

// scopeAllows says, for a person, what each scope lets a client do, and
// what it does not yet, when it is the most a client was granted.
var scopeAllows = []struct{ scope, allows, stopsAt string }{
	{vibesell.ScopeRead,
		"See your workspace: what you sell, your sending setup and its costs, your leads, campaigns and replies, and what waits for approval.",
		"Nothing more: to change anything, it must ask you again."},
	{vibesell.ScopeWrite,
		"Change your workspace's own records as you: what you sell and how your emails sound, what it should remember, your sending choices and volume; and write to VibeSell support for you. Nothing leaves VibeSell and nothing costs money.",
		"Nothing more: to start anything outside VibeSell or ask for anything that costs money, it must ask you again."},
	{vibesell.ScopeAct,
		"Set things going as you: start warming up your mailboxes, ask for approval of orders that cost money, and approve or reject on your word in the conversation what costs nothing and can be undone.",
		""},
}

// describeScope says what a granted scope lets a client do, as a person
// reads it: a line for each scope it covers, and what it stops short of.
func describeScope(scope string) []string {
	granted := strings.Fields(scope)
	var out []string
	for i, a := range scopeAllows {
		if vibesell.ScopeCovers(granted, a.scope) {
			out = append(out, a.allows)
			continue
		}
		if i > 0 {
			out = append(out, scopeAllows[i-1].stopsAt)
		}
		break
	}
	return out
}

// Approve records the person's consent: a grant of the request's client
// to the person, in the workspace they picked, which must be one of
// theirs. It returns where to send the browser: the client's redirect URI
// with a one-time code. Errors: [ErrNoRequest]; [auth.ErrNotMember], and
// the request stays pending.
func (s *Server) Approve(ctx context.Context, requestID string, userID, workspaceID uuid.UUID) (string, error) {
	id, ok := decodeRequestID(requestID)
	if !ok {
		return "", ErrNoRequest
	}
	now := s.clock.Now()
	code := "vsa_" + randomToken()
	var redirectURI, state string
	err := store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		var clientID, challenge, scope, resource string
		err := tx.QueryRow(ctx, `DELETE FROM oauth_requests WHERE id = $1 AND expires_at > $2
			RETURNING client_id, redirect_uri, state, code_challenge, scope, resource`, id, now).
			Scan(&clientID, &redirectURI, &state, &challenge, &scope, &resource)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNoRequest
		}
		if err != nil {
			return fmt.Errorf("take authorization request: %w", err)
		}
		grantID := uuid.New()
		tag, err := tx.Exec(ctx, `INSERT INTO oauth_grants (id, workspace_id, user_id, client_id, scope, resource, created_at)
			SELECT $1, m.workspace_id, m.user_id, $4, $5, $6, $7 FROM memberships m WHERE m.workspace_id = $2 AND m.user_id = $3`,
			grantID, workspaceID, userID, clientID, scope, resource, now)
		if err != nil {
			return fmt.Errorf("record grant: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return auth.ErrNotMember
		}
		sum := sha256.Sum256([]byte(code))
		if _, err := tx.Exec(ctx, `INSERT INTO oauth_codes (code_hash, grant_id, redirect_uri, code_challenge, expires_at)
			VALUES ($1, $2, $3, $4, $5)`, sum[:], grantID, redirectURI, challenge, now.Add(codeLifetime)); err != nil {
			return fmt.Errorf("store authorization code: %w", err)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	v := url.Values{"code": {code}, "iss": {s.issuer}}
	if state != "" {
		v.Set("state", state)
	}
	return withQuery(redirectURI, v), nil
}

// Deny records that the person said no, and returns where to send the
// browser: the client's redirect URI with access_denied. Errors:
// [ErrNoRequest].
func (s *Server) Deny(ctx context.Context, requestID string) (string, error) {
	id, ok := decodeRequestID(requestID)
	if !ok {
		return "", ErrNoRequest
	}
	var redirectURI, state string
	err := s.db.QueryRow(ctx, `DELETE FROM oauth_requests WHERE id = $1 AND expires_at > $2 RETURNING redirect_uri, state`,
		id, s.clock.Now()).Scan(&redirectURI, &state)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ErrNoRequest
	}
	if err != nil {
		return "", fmt.Errorf("take authorization request: %w", err)
	}
	return s.errorRedirect(redirectURI, state, errorf(0, "access_denied", "The person declined to connect this app to VibeSell.")), nil
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func cmpOr(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func orNone(s string) string {
	if s == "" {
		return "an address it did not give"
	}
	return truncate(s, 200)
}

func newRef() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

var personPage = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} · VibeSell</title>
<style>body{margin:0;background:#f5f7fa;color:#1b2330;font:1rem/1.55 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif}
main{max-width:34rem;margin:3rem auto;background:#fff;border:1px solid #dfe3ea;border-radius:10px;padding:1.25rem 1.5rem}
h1{font-size:1.4rem;margin:.25rem 0 1rem}</style></head>
<body><main><h1>{{.Title}}</h1><p>{{.Message}}</p></main></body></html>
`))

// personError is an error page for a person whose browser reached the
// authorization endpoint with a request that cannot go back to its app.
func (s *Server) personError(w http.ResponseWriter, r *http.Request, status int, title, message string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	w.WriteHeader(status)
	_ = personPage.Execute(w, struct{ Title, Message string }{title, message})
}

func (s *Server) personInternal(w http.ResponseWriter, r *http.Request, err error) {
	ref := newRef()
	s.log.ErrorContext(r.Context(), "oauth request failed", "ref", ref, "path", r.URL.Path, "err", err)
	s.personError(w, r, http.StatusInternalServerError, "Something went wrong",
		fmt.Sprintf("Something went wrong on our side (ref %s). Try connecting again in a minute.", ref))
}
