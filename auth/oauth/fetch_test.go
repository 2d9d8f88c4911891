package oauth

import (
	"net/netip"
	"testing"
)

// Metadata documents are fetched with the outbound guard's address rules
// (its own test lists every range), on port 443 only; loopback, on any
// port, only when a test allows it.
func TestMetadataFetchAddresses(t *testing.T) {
	prod := newFetcher(FetchConfig{}).guard
	for addr, want := range map[string]bool{
		"93.184.215.14:443": true, "[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:443": true,
		"93.184.215.14:80": false, "93.184.215.14:8443": false,
		"10.0.0.1:443": false, "169.254.169.254:443": false, "100.64.0.1:443": false, "127.0.0.1:443": false, "[::1]:443": false,
		"[::ffff:10.0.0.1]:443": false, "[fc00::1]:443": false, "[64:ff9b::a00:1]:443": false, "224.0.0.1:443": false,
		"[2002:a00:1::1]:443": false, "[2001:0:4136:e378::1]:443": false, "192.0.2.1:443": false, "198.51.100.1:443": false,
		"203.0.113.1:443": false, "[2001:db8::1]:443": false, "198.18.0.1:443": false,
	} {
		if got := prod.Check(netip.MustParseAddrPort(addr)) == nil; got != want {
			t.Errorf("connects to %s: %v, want %v", addr, got, want)
		}
	}
	tests := newFetcher(FetchConfig{AllowLoopback: true}).guard
	for addr, want := range map[string]bool{"127.0.0.1:8443": true, "[::1]:1234": true, "10.0.0.1:443": false, "127.0.0.2:443": false} {
		if got := tests.Check(netip.MustParseAddrPort(addr)) == nil; got != want {
			t.Errorf("with loopback allowed, connects to %s: %v, want %v", addr, got, want)
		}
	}
}
