package oauth

import (
	"net/netip"
	"testing"
)

func TestPublicAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"93.184.215.14": true, "2606:2800:21f:cb07:6820:80da:af6b:8b2c": true,
		"10.0.0.1": false, "172.16.5.4": false, "192.168.1.1": false, "169.254.169.254": false,
		"100.64.0.1": false, "0.0.0.0": false, "127.0.0.1": false, "::1": false, "::ffff:10.0.0.1": false,
		"fc00::1": false, "fe80::1": false, "64:ff9b::a00:1": false, "224.0.0.1": false,
	} {
		if got := publicAddr(netip.MustParseAddr(addr), false); got != want {
			t.Errorf("publicAddr(%s) = %v, want %v", addr, got, want)
		}
	}
	if !publicAddr(netip.MustParseAddr("127.0.0.1"), true) {
		t.Error("loopback refused with AllowLoopback")
	}
	if publicAddr(netip.MustParseAddr("10.0.0.1"), true) {
		t.Error("a private address allowed with AllowLoopback")
	}
}
