package oauth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"vibesell"
	"vibesell/auth"
)

// Client is an OAuth client: who asks to act for a person.
type Client struct {
	ID   string
	Name string
	// Verified is true for a client known by its metadata document URL,
	// whose host vouches for it; a dynamically registered client names
	// itself, so its name proves nothing.
	Verified     bool
	RedirectURIs []string
}

// dcrClientPrefix marks ids issued by dynamic registration.
const dcrClientPrefix = "vsc_"

// unusedClientKept is how long a dynamically registered client that no
// one consented to is kept. Claude registers on every fresh connection,
// so most registrations are never used twice.
const unusedClientKept = 24 * time.Hour

// register is RFC 7591's endpoint. Registration is open, as MCP clients
// expect; it is one INSERT, and unused clients are deleted by a job.
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var md clientMetadata
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	if err := dec.Decode(&md); err != nil {
		s.writeError(w, r, errorf(http.StatusBadRequest, "invalid_client_metadata", "The registration request must be a JSON object of client metadata (RFC 7591)."))
		return
	}
	if err := checkRedirectURIs(md.RedirectURIs); err != nil {
		s.writeError(w, r, err)
		return
	}
	for _, g := range md.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			s.writeError(w, r, errorf(http.StatusBadRequest, "invalid_client_metadata",
				"The grant type %q is not offered; use authorization_code and refresh_token.", g))
			return
		}
	}
	for _, rt := range md.ResponseTypes {
		if rt != "code" {
			s.writeError(w, r, errorf(http.StatusBadRequest, "invalid_client_metadata",
				"The response type %q is not offered; use code.", rt))
			return
		}
	}
	name := clientName(md.ClientName, md.RedirectURIs)
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	id := dcrClientPrefix + base64.RawURLEncoding.EncodeToString(b)
	now := s.clock.Now()
	var clientURI *string
	if md.ClientURI != "" && len(md.ClientURI) <= 2048 {
		clientURI = &md.ClientURI
	}
	if _, err := s.db.Exec(r.Context(), `INSERT INTO oauth_clients (id, kind, name, client_uri, redirect_uris, created_at)
		VALUES ($1, 'dcr', $2, $3, $4, $5)`, id, name, clientURI, md.RedirectURIs, now); err != nil {
		s.internal(w, r, fmt.Errorf("register client: %w", err))
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id":                  id,
		"client_id_issued_at":        now.Unix(),
		"client_name":                name,
		"redirect_uris":              md.RedirectURIs,
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
		"scope":                      strings.Join(vibesell.Scopes(), " "),
	})
}

// clientName is what the consent page calls a client: its own name, cut
// to size, or else the host it sends people back to.
func clientName(name string, redirectURIs []string) string {
	name = strings.Join(strings.Fields(name), " ")
	if r := []rune(name); len(r) > 100 {
		name = string(r[:100]) + "…"
	}
	if name != "" {
		return name
	}
	if len(redirectURIs) > 0 {
		if u, err := url.Parse(redirectURIs[0]); err == nil && u.Host != "" {
			return u.Hostname()
		}
	}
	return "An unnamed app"
}

// checkRedirectURIs applies RFC 8252 and OAuth 2.1: https, or http to a
// loopback address for an app on the person's machine, or an app's own
// scheme (reverse domain name); never a fragment.
func checkRedirectURIs(uris []string) error {
	if len(uris) == 0 || len(uris) > 20 {
		return errorf(http.StatusBadRequest, "invalid_redirect_uri", "Register between 1 and 20 redirect URIs.")
	}
	for _, raw := range uris {
		u, err := url.Parse(raw)
		bad := func(why string) error {
			return errorf(http.StatusBadRequest, "invalid_redirect_uri", "The redirect URI %q is not accepted: %s.", raw, why)
		}
		switch {
		case err != nil || !u.IsAbs() || len(raw) > 2048:
			return bad("it must be an absolute URL")
		case u.Fragment != "" || strings.Contains(raw, "#"):
			return bad("it must not have a fragment")
		case u.Scheme == "https":
			if u.Host == "" {
				return bad("it needs a host")
			}
		case u.Scheme == "http":
			if !isLoopbackHost(u.Hostname()) {
				return bad("plain http is only for loopback addresses such as http://127.0.0.1/callback; use https")
			}
		case strings.Contains(u.Scheme, "."):
			// An app's private-use scheme such as com.example.app:/cb.
		default:
			return bad("use https, http to a loopback address, or an app scheme in reverse domain form")
		}
	}
	return nil
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// redirectMatches compares a requested redirect URI with a registered
// one: exactly, except that a loopback URI's port may differ, because an
// app on the person's machine listens on whatever port is free (RFC 8252
// §7.3).
func redirectMatches(registered, requested string) bool {
	if registered == requested {
		return true
	}
	a, err1 := url.Parse(registered)
	b, err2 := url.Parse(requested)
	if err1 != nil || err2 != nil || a.Scheme != "http" || b.Scheme != "http" || !isLoopbackHost(a.Hostname()) {
		return false
	}
	return a.Hostname() == b.Hostname() && a.EscapedPath() == b.EscapedPath() && a.RawQuery == b.RawQuery &&
		b.User == nil && b.Fragment == ""
}

// errUnknownClient is the answer to a client id that is not registered, or
// no longer: its registration was deleted or it was never made.
func errUnknownClient(id string) *oauthError {
	return errorf(http.StatusUnauthorized, "invalid_client",
		"The client %q is not registered here (or its registration was removed). Register again and retry.", truncate(id, 80))
}

// client returns the client with the given id: a registered one from the
// database, or one known by its metadata document, fetched for the client
// address ip when not cached or cached too long. Errors: *oauthError
// invalid_client, or slow_down and temporarily_unavailable past the
// fetches' limits.
func (s *Server) client(ctx context.Context, ip, id string) (Client, error) {
	if id == "" || len(id) > 2048 {
		return Client{}, errorf(http.StatusBadRequest, "invalid_request", "The client_id is missing.")
	}
	var c Client
	var kind string
	var fetchedAt *time.Time
	err := s.db.QueryRow(ctx, `SELECT id, kind, name, redirect_uris, fetched_at FROM oauth_clients WHERE id = $1`, id).
		Scan(&c.ID, &kind, &c.Name, &c.RedirectURIs, &fetchedAt)
	found := err == nil
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return Client{}, fmt.Errorf("find client: %w", err)
	}
	if !isMetadataURL(id) {
		if !found {
			return Client{}, errUnknownClient(id)
		}
		return c, nil
	}
	if found && kind == "cimd" && fetchedAt != nil && s.clock.Now().Sub(*fetchedAt) < s.fetcher.cfg.CacheFor {
		c.Verified = true
		return c, nil
	}
	u, err := checkMetadataURL(id)
	if err != nil {
		return Client{}, err
	}
	md, err := s.fetchMetadata(ctx, ip, u)
	if err != nil {
		return Client{}, err
	}
	if err := checkRedirectURIs(md.RedirectURIs); err != nil {
		var oe *oauthError
		if errors.As(err, &oe) {
			return Client{}, errorf(http.StatusBadRequest, "invalid_client", "The client metadata document at %s lists a redirect URI this server does not accept: %s", id, oe.Description)
		}
		return Client{}, err
	}
	c = Client{ID: id, Name: clientName(md.ClientName, md.RedirectURIs), Verified: true, RedirectURIs: md.RedirectURIs}
	now := s.clock.Now()
	if _, err := s.db.Exec(ctx, `INSERT INTO oauth_clients (id, kind, name, redirect_uris, created_at, fetched_at)
		VALUES ($1, 'cimd', $2, $3, $4, $4)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, redirect_uris = excluded.redirect_uris, fetched_at = excluded.fetched_at`,
		c.ID, c.Name, c.RedirectURIs, now); err != nil {
		return Client{}, fmt.Errorf("cache client metadata: %w", err)
	}
	return c, nil
}

// fetchMetadata fetches the document at u for the client address ip,
// within the limits: a URL whose fetch failed lately is answered from
// memory, each address fetches at most RateLimits.Metadata documents a
// minute, and at most FetchConfig.InFlight fetches run at once. Anyone
// can ask for a fetch before signing in; these keep it from being a way
// to make this server connect out at will.
func (s *Server) fetchMetadata(ctx context.Context, ip string, u *url.URL) (clientMetadata, error) {
	f := s.fetcher
	key := u.String()
	if last, ok := f.failed.Get(key); ok && s.clock.Now().Before(last.until) {
		return clientMetadata{}, last.err
	}
	wait, err := s.count(ctx, "metadata", ip, s.cfg.RateLimits.Metadata)
	if err != nil {
		return clientMetadata{}, err
	}
	if wait > 0 {
		return clientMetadata{}, errorf(http.StatusTooManyRequests, "slow_down",
			"Too many client metadata documents were fetched for your address: at most %d a minute. Try again in %s.",
			s.cfg.RateLimits.Metadata, vibesell.Plural(wait, "second", "seconds"))
	}
	select {
	case f.slots <- struct{}{}:
		defer func() { <-f.slots }()
	default:
		return clientMetadata{}, errorf(http.StatusServiceUnavailable, "temporarily_unavailable",
			"This server is fetching too many client metadata documents at once. Try again in a few seconds.")
	}
	md, err := f.fetch(ctx, u, s.log)
	var oe *oauthError
	if errors.As(err, &oe) {
		// Remembered: asking again, from any address, fetches nothing
		// until the time is up.
		remembered := errorf(oe.status, oe.Code, "%s It is fetched again %s after this failure at the earliest.",
			oe.Description, durationText(f.cfg.RememberFailures))
		f.failed.Add(key, failure{until: s.clock.Now().Add(f.cfg.RememberFailures), err: remembered})
		return clientMetadata{}, remembered
	}
	return md, err
}

// durationText writes a duration in whole minutes, or seconds when it is
// not whole minutes.
func durationText(d time.Duration) string {
	if d >= time.Minute && d%time.Minute == 0 {
		return vibesell.Plural(int(d/time.Minute), "minute", "minutes")
	}
	return vibesell.Plural(int((d+time.Second-1)/time.Second), "second", "seconds")
}

// RedirectHost is the host a client sends people back to, for the consent
// page: the one part of a client a person can check.
func RedirectHost(redirectURI string) string {
	u, err := url.Parse(redirectURI)
	if err != nil {
		return redirectURI
	}
	if u.Host == "" {
		return u.Scheme + ":"
	}
	return u.Hostname()
}

func redirectOrigin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	if u.Host == "" {
		return u.Scheme + ":"
	}
	return u.Scheme + "://" + u.Host
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// PruneClients ends connections unused for longer than a refresh token
// lives, deletes dynamically registered clients registered longer ago than
// a day that are not connected (nobody consented, or every connection
// ended), and deletes expired requests, codes, refresh tokens and rate limit counts. It returns how many clients it deleted.
func (s *Server) PruneClients(ctx context.Context) (int64, error) {
	now := s.clock.Now()
	// A connection unused for as long as a refresh token lives can no
	// longer be used at all: it leaves the list of connected apps.
	if err := s.revokeWhere(ctx, s.db, `coalesce(last_used_at, created_at) < $1`, "unused until its refresh token expired",
		now.Add(-refreshTokenLifetime)); err != nil {
		return 0, err
	}
	tag, err := s.db.Exec(ctx, `DELETE FROM oauth_clients c WHERE c.kind = 'dcr' AND c.created_at < $1
		AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = c.id AND g.revoked_at IS NULL)`, now.Add(-unusedClientKept))
	if err != nil {
		return 0, fmt.Errorf("prune clients: %w", err)
	}
	if _, err := s.db.Exec(ctx, `DELETE FROM oauth_requests WHERE expires_at < $1`, now); err != nil {
		return 0, fmt.Errorf("prune authorization requests: %w", err)
	}
	if _, err := s.db.Exec(ctx, `DELETE FROM oauth_codes WHERE expires_at < $1`, now.Add(-time.Hour)); err != nil {
		return 0, fmt.Errorf("prune authorization codes: %w", err)
	}
	if _, err := s.db.Exec(ctx, `DELETE FROM oauth_refresh_tokens WHERE expires_at < $1`, now); err != nil {
		return 0, fmt.Errorf("prune refresh tokens: %w", err)
	}
	if _, err := s.db.Exec(ctx, `DELETE FROM oauth_rate_limits WHERE window_start < $1`, now.Add(-rateWindow)); err != nil {
		return 0, fmt.Errorf("prune rate limit counts: %w", err)
	}
	return tag.RowsAffected(), nil
}

// PruneClientsArgs is the periodic job that runs [Server.PruneClients].
type PruneClientsArgs struct{}

// Kind names the job in River.
func (PruneClientsArgs) Kind() string { return "oauth.prune_clients" }

// AddWorkers registers this package's jobs and their schedule.
func AddWorkers(workers *river.Workers, s *Server) []*river.PeriodicJob {
	return auth.AddHourlyPrune[PruneClientsArgs](workers, s.PruneClients)
}

// scopesOf splits a scope parameter and keeps the catalog's scopes, in
// order. A request for none of them (no scope, or only offline_access)
// means every scope.
func scopesOf(raw string) (string, error) {
	var out []string
	for _, f := range strings.Fields(raw) {
		switch {
		case f == scopeOfflineAccess:
			continue
		case !slices.Contains(vibesell.Scopes(), f):
			return "", errorf(http.StatusBadRequest, "invalid_scope", "The scope %q is not offered; ask for any of %s.",
				truncate(f, 40), strings.Join(vibesell.Scopes(), ", "))
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		out = vibesell.Scopes()
	}
	return strings.Join(out, " "), nil
}
