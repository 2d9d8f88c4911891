package oauth

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"vibesell/outbound"
)

// FetchConfig says how client ID metadata documents are fetched.
type FetchConfig struct {
	// AllowLoopback lets a document be fetched from a loopback address,
	// on any port. Only tests set it: in production a client's URL naming
	// this machine would be a way to reach its private services (SSRF).
	// Every other address that is not public is refused whatever it says
	// (see [outbound.NotPublic]).
	AllowLoopback bool
	// RootCAs, when set, replaces the system's roots (tests serve the
	// document with their own certificate).
	RootCAs *x509.CertPool
	// Timeout bounds one fetch. Default 5 s.
	Timeout time.Duration
	// CacheFor is how long a fetched document is trusted before it is
	// fetched again. Default 1 h.
	CacheFor time.Duration
	// InFlight bounds the fetches one server makes at once; past it a
	// fetch is refused at once. Default [DefaultMetadataInFlight].
	InFlight int
	// RememberFailures is how long a URL whose fetch failed is answered
	// from memory, without fetching it again. Default
	// [DefaultRememberFailures].
	RememberFailures time.Duration
}

// Defaults of [FetchConfig].
const (
	DefaultMetadataInFlight = 4
	DefaultRememberFailures = 5 * time.Minute
)

// maxMetadataBytes bounds a client ID metadata document; real ones are a
// few hundred bytes.
const maxMetadataBytes = 16 << 10

// failuresKept bounds the failed URLs remembered.
const failuresKept = 1024

type fetcher struct {
	cfg    FetchConfig
	guard  *outbound.Guard
	client *http.Client
	// slots holds a token per fetch in flight.
	slots chan struct{}
	// failed are the URLs whose last fetch failed, with when to try again
	// and the answer until then.
	failed *lru.Cache[string, failure]
}

type failure struct {
	until time.Time
	err   error
}

func newFetcher(cfg FetchConfig) *fetcher {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.CacheFor <= 0 {
		cfg.CacheFor = time.Hour
	}
	if cfg.InFlight <= 0 {
		cfg.InFlight = DefaultMetadataInFlight
	}
	if cfg.RememberFailures <= 0 {
		cfg.RememberFailures = DefaultRememberFailures
	}
	var allow []netip.AddrPort
	if cfg.AllowLoopback {
		allow = []netip.AddrPort{netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), 0), netip.AddrPortFrom(netip.IPv6Loopback(), 0)}
	}
	// The outbound guard's address rules, on HTTPS's port only; its
	// limit is not used: fetches are limited per client address and in
	// flight here.
	guard := outbound.New(outbound.Deps{Ports: []int{443}, PerMinute: -1, Allow: allow, Timeout: cfg.Timeout})
	transport := &http.Transport{
		Proxy:                 nil, // a proxy would do the connecting, past the address check
		DialContext:           guard.For(""),
		TLSClientConfig:       &tls.Config{RootCAs: cfg.RootCAs, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   cfg.Timeout,
		ResponseHeaderTimeout: cfg.Timeout,
		MaxIdleConns:          10,
		IdleConnTimeout:       30 * time.Second,
	}
	failed, _ := lru.New[string, failure](failuresKept)
	return &fetcher{cfg: cfg, guard: guard, slots: make(chan struct{}, cfg.InFlight), failed: failed, client: &http.Client{
		Transport: transport,
		Timeout:   cfg.Timeout,
		// A redirect could lead anywhere; the document must be at its URL.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// clientMetadata is the part of a client's metadata (RFC 7591 §2) this
// server reads, from a registration request or a metadata document.
type clientMetadata struct {
	ClientID                string   `json:"client_id,omitempty"`
	ClientName              string   `json:"client_name,omitempty"`
	ClientURI               string   `json:"client_uri,omitempty"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types,omitempty"`
	ResponseTypes           []string `json:"response_types,omitempty"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
	ApplicationType         string   `json:"application_type,omitempty"`
}

// isMetadataURL reports whether a client id is the URL of a client ID
// metadata document rather than an id this server issued.
func isMetadataURL(clientID string) bool {
	return strings.HasPrefix(clientID, "https://")
}

// checkMetadataURL applies the rules for a client id that is a URL: https,
// a host, a path, nothing that makes two spellings of one document.
func checkMetadataURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	bad := func(why string) error {
		return errorf(http.StatusBadRequest, "invalid_client", "The client_id %q is not a usable client metadata URL: %s.", raw, why)
	}
	switch {
	case err != nil || u.Scheme != "https" || u.Host == "":
		return nil, bad("it must be an absolute https URL")
	case u.Path == "" || u.Path == "/":
		return nil, bad("it must have a path")
	case u.User != nil || u.Fragment != "" || u.RawFragment != "":
		return nil, bad("it must not carry a user name, password or fragment")
	case strings.Contains("/"+u.Path+"/", "/./") || strings.Contains("/"+u.Path+"/", "/../"):
		return nil, bad("it must not contain . or .. segments")
	}
	return u, nil
}

// fetch reads and checks the metadata document at u. Whatever went wrong
// on the way to a document (the address refused, no connection, a
// timeout, a status other than 200) is answered with one sentence, so
// that the page says nothing of what is reachable from this server; the
// cause goes to the log.
func (f *fetcher) fetch(ctx context.Context, u *url.URL, log *slog.Logger) (clientMetadata, error) {
	bad := func(format string, args ...any) error {
		return errorf(http.StatusBadRequest, "invalid_client", "The client metadata document at %s "+format, append([]any{u}, args...)...)
	}
	unreachable := func(cause error) error {
		log.InfoContext(ctx, "client metadata document not fetched", "url", u.String(), "err", cause)
		return bad("could not be fetched: it must be served over HTTPS on port 443 from a public address, and answer 200 with the document (redirects are not followed).")
	}
	ctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return clientMetadata{}, bad("could not be requested.")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.client.Do(req)
	if err != nil {
		return clientMetadata{}, unreachable(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return clientMetadata{}, unreachable(fmt.Errorf("answered %s", resp.Status))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes+1))
	if err != nil {
		return clientMetadata{}, unreachable(err)
	}
	if len(body) > maxMetadataBytes {
		return clientMetadata{}, bad("is larger than %d KiB.", maxMetadataBytes>>10)
	}
	var md clientMetadata
	if err := json.Unmarshal(body, &md); err != nil {
		return clientMetadata{}, bad("is not a JSON object of client metadata.")
	}
	if md.ClientID != u.String() {
		return clientMetadata{}, bad("names client_id %q, not its own URL.", md.ClientID)
	}
	if m := md.TokenEndpointAuthMethod; m != "" && m != "none" {
		return clientMetadata{}, bad("asks for token_endpoint_auth_method %q; this server has public clients only (none).", m)
	}
	return md, nil
}
