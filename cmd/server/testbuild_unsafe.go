//go:build vibesell_unsafe_test_build

package main

import (
	"crypto/x509"
	"net/netip"
	"os"

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
