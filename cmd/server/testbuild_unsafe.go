//go:build vibesell_unsafe_test_build

package main

import (
	"crypto/x509"
	"net/netip"
	"os"
	"strings"
	"time"

	"vibesell/auth/oauth"
)

// In this build only, VIBESELL_TEST_CLIENT_METADATA_CA names a PEM file of
// certificates to trust for client ID metadata documents and lets them be
// fetched from loopback addresses. Even here it is refused unless
// PUBLIC_URL is itself a loopback address: a test binary deployed by
// mistake does not fetch from its own machine for a public server.
func init() {
	testClientMetadata = func(getenv func(string) string, publicURLHost string) (oauth.FetchConfig, error) {
		const name = "VIBESELL_TEST_CLIENT_METADATA_CA"
		path := getenv(name)
		if path == "" {
			return oauth.FetchConfig{}, nil
		}
		if ip, err := netip.ParseAddr(publicURLHost); publicURLHost != "localhost" && (err != nil || !ip.IsLoopback()) {
			return oauth.FetchConfig{}, &configError{name, path, "only for tests, with PUBLIC_URL on a loopback address"}
		}
		pem, err := os.ReadFile(path)
		roots := x509.NewCertPool()
		if err != nil || !roots.AppendCertsFromPEM(pem) {
			return oauth.FetchConfig{}, &configError{name, path, "expected a readable PEM file of certificates"}
		}
		return oauth.FetchConfig{AllowLoopback: true, RootCAs: roots}, nil
	}
}

// In this build only, VIBESELL_TEST_SEND_GAP sets the gap between two
// emails of a mailbox, as MIN-MAX (10s-20s), for a loopback PUBLIC_URL
// only.
func init() {
	testSendGap = func(getenv func(string) string, publicURLHost string) (time.Duration, time.Duration, error) {
		const name = "VIBESELL_TEST_SEND_GAP"
		v := getenv(name)
		if v == "" {
			return 0, 0, nil
		}
		if ip, err := netip.ParseAddr(publicURLHost); publicURLHost != "localhost" && (err != nil || !ip.IsLoopback()) {
			return 0, 0, &configError{name, v, "only for tests, with PUBLIC_URL on a loopback address"}
		}
		lo, hi, _ := strings.Cut(v, "-")
		min, errLo := time.ParseDuration(lo)
		max, errHi := time.ParseDuration(hi)
		if errLo != nil || errHi != nil || min <= 0 || max < min {
			return 0, 0, &configError{name, v, "expected MIN-MAX durations such as 10s-20s"}
		}
		return min, max, nil
	}
}
