package oauth

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// FetchConfig says how client ID metadata documents are fetched.
type FetchConfig struct {
	// AllowLoopback lets a document be fetched from a loopback address.
	// Only tests set it: in production a client's URL naming this machine
	// would be a way to reach its private services (SSRF). Private and
	// link-local addresses are refused whatever it says.
	AllowLoopback bool
	// RootCAs, when set, replaces the system's roots (tests serve the
	// document with their own certificate).
	RootCAs *x509.CertPool
	// Timeout bounds one fetch. Default 5 s.
	Timeout time.Duration
	// CacheFor is how long a fetched document is trusted before it is
	// fetched again. Default 1 h.
	CacheFor time.Duration
}

// maxMetadataBytes bounds a client ID metadata document; real ones are a
// few hundred bytes.
const maxMetadataBytes = 16 << 10

type fetcher struct {
	cfg    FetchConfig
	client *http.Client
}

func newFetcher(cfg FetchConfig) *fetcher {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.CacheFor <= 0 {
		cfg.CacheFor = time.Hour
	}
	dialer := &net.Dialer{
		Timeout: cfg.Timeout,
		// The address is checked after resolution and right before
		// connecting, so a name that resolves to a private address (or
		// rebinds to one between two lookups) is refused all the same.
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("refused address %q", address)
			}
			if !publicAddr(ap.Addr(), cfg.AllowLoopback) {
				return &refusedAddrError{addr: ap.Addr()}
			}
			return nil
		},
	}
	transport := &http.Transport{
		Proxy:                 nil, // a proxy would do the connecting, past the address check
		DialContext:           dialer.DialContext,
		TLSClientConfig:       &tls.Config{RootCAs: cfg.RootCAs, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   cfg.Timeout,
		ResponseHeaderTimeout: cfg.Timeout,
		MaxIdleConns:          10,
		IdleConnTimeout:       30 * time.Second,
	}
	return &fetcher{cfg: cfg, client: &http.Client{
		Transport: transport,
		Timeout:   cfg.Timeout,
		// A redirect could lead anywhere; the document must be at its URL.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

type refusedAddrError struct{ addr netip.Addr }

func (e *refusedAddrError) Error() string {
	return "refused to connect to non-public address " + e.addr.String()
}

// nonPublic lists ranges that are neither loopback, private nor link-local
// by netip's reckoning but are still not the public internet.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"), // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"), // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"), // NAT64 embeds IPv4 addresses
	netip.MustParsePrefix("2001:db8::/32"),
}

// publicAddr reports whether a metadata document may be fetched from a.
func publicAddr(a netip.Addr, allowLoopback bool) bool {
	a = a.Unmap()
	if a.IsLoopback() {
		return allowLoopback
	}
	if !a.IsValid() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
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

// fetch reads and checks the metadata document at u.
func (f *fetcher) fetch(ctx context.Context, u *url.URL) (clientMetadata, error) {
	bad := func(format string, args ...any) error {
		return errorf(http.StatusBadRequest, "invalid_client", "The client metadata document at %s "+format, append([]any{u}, args...)...)
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
		var refused *refusedAddrError
		if errors.As(err, &refused) {
			return clientMetadata{}, bad("is on a private or local network address, which this server does not fetch from.")
		}
		return clientMetadata{}, bad("could not be fetched (%s).", shortNetError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return clientMetadata{}, bad("answered %s; it must answer 200 with the document (redirects are not followed).", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes+1))
	if err != nil {
		return clientMetadata{}, bad("could not be read (%s).", shortNetError(err))
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

func shortNetError(err error) string {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timed out"
	}
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		s = s[i+2:]
	}
	return s
}
