package outbound_test

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/outbound"
)

// The ranges the guard refuses, each with what it says, and the public
// addresses it connects to. Only loopback is ever dialled here.
func TestNotPublic(t *testing.T) {
	refused := map[string]string{
		"127.0.0.1": "a loopback address (this machine)", "::1": "a loopback address (this machine)",
		"10.1.2.3": "a private network address", "172.16.5.4": "a private network address", "192.168.1.1": "a private network address",
		"169.254.169.254": "a link-local address", "fe80::1": "a link-local address",
		"100.100.100.200": "a shared (carrier-grade NAT) address", "100.64.0.1": "a shared (carrier-grade NAT) address",
		"198.18.0.1": "a benchmarking address", "198.19.255.254": "a benchmarking address", "2001:2::1": "a benchmarking address",
		"192.0.2.1": "a documentation address", "198.51.100.7": "a documentation address", "203.0.113.9": "a documentation address",
		"2001:db8::1": "a documentation address", "3fff::1": "a documentation address",
		"2002:a00:1::1": "a 6to4 tunnel address", "2001:0:4136:e378::1": "a Teredo tunnel address",
		"64:ff9b::a00:1": "a NAT64 address", "64:ff9b:1::1": "a NAT64 address",
		"224.0.0.1": "a multicast address", "ff02::1": "a multicast address", "239.255.255.250": "a multicast address",
		"0.0.0.0": "a reserved address (this network)", "::": "the unspecified address", "240.0.0.1": "a reserved address",
		"255.255.255.255": "a reserved address", "192.0.0.8": "a reserved address (protocol assignments)",
		"::ffff:10.0.0.1": "an IPv4-mapped address", "::ffff:8.8.8.8": "an IPv4-mapped address", "::a00:1": "an IPv4-compatible address",
		"fc00::1": "a private network address (unique local)", "fd12::1": "a private network address (unique local)",
		"fec0::1": "a site-local address", "100::1": "a discard-only address", "4000::1": "a reserved address",
	}
	for addr, want := range refused {
		if got := outbound.NotPublic(netip.MustParseAddr(addr)); got != want {
			t.Errorf("NotPublic(%s) = %q, want %q", addr, got, want)
		}
	}
	for _, addr := range []string{"93.184.215.14", "8.8.8.8", "100.128.0.1", "198.20.0.1", "2606:2800:21f:cb07:6820:80da:af6b:8b2c", "2a00:1450:4001::1"} {
		if got := outbound.NotPublic(netip.MustParseAddr(addr)); got != "" {
			t.Errorf("NotPublic(%s) = %q, want public", addr, got)
		}
	}
}

// listener is a TCP server on loopback that counts the connections it
// takes: what the guard must never reach unless allowed.
func listener(t *testing.T) (netip.AddrPort, *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return netip.MustParseAddrPort(ln.Addr().String()), &n
}

func TestGuard(t *testing.T) {
	ctx := context.Background()
	ap, accepted := listener(t)

	t.Run("production refuses loopback, by address and by name, before connecting", func(t *testing.T) {
		g := outbound.New(outbound.Deps{Ports: []int{int(ap.Port())}})
		for _, addr := range []string{ap.String(), net.JoinHostPort("localhost", ap.String()[strings.LastIndexByte(ap.String(), ':')+1:])} {
			_, err := g.DialContext(ctx, "ws", "tcp", addr)
			r := outbound.Refused(err)
			if r == nil || r.Code != vibesell.EINVALID || !strings.Contains(r.Reason, "a loopback address (this machine), not on the public internet") {
				t.Errorf("%s: %v, want refused as loopback", addr, err)
			}
		}
		if n := accepted.Load(); n != 0 {
			t.Errorf("the loopback listener took %d connections", n)
		}
	})
	t.Run("only the mail ports by default", func(t *testing.T) {
		g := outbound.New(outbound.Deps{})
		_, err := g.DialContext(ctx, "ws", "tcp", "mail.example.com:8080")
		if d := cmp.Diff("port 8080 is not one VibeSell connects to (only 25, 143, 465, 587 and 993)", err.Error()); d != "" {
			t.Errorf("port refusal (-want +got):\n%s", d)
		}
		if err := g.Check(netip.MustParseAddrPort("93.184.215.14:587")); err != nil {
			t.Errorf("a public mail server: %v", err)
		}
	})
	t.Run("an explicit allowance reaches exactly what it names", func(t *testing.T) {
		g := outbound.New(outbound.Deps{Allow: []netip.AddrPort{ap}})
		c, err := g.DialContext(ctx, "ws", "tcp", ap.String())
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
		other := netip.AddrPortFrom(ap.Addr(), ap.Port()+1)
		if err := g.Check(other); outbound.Refused(err) == nil {
			t.Errorf("another port of the allowed address: %v, want refused", err)
		}
		anyPort := outbound.New(outbound.Deps{Ports: []int{443}, Allow: []netip.AddrPort{netip.AddrPortFrom(ap.Addr(), 0)}})
		if err := anyPort.Check(other); err != nil {
			t.Errorf("port 0 allows every port of the address: %v", err)
		}
		if err := anyPort.Check(netip.MustParseAddrPort("10.0.0.1:443")); outbound.Refused(err) == nil {
			t.Errorf("a private address with loopback allowed: %v", err)
		}
	})
	t.Run("rate limited per key", func(t *testing.T) {
		clock := vibesell.NewManualClock(time.Now())
		g := outbound.New(outbound.Deps{PerMinute: 2, Allow: []netip.AddrPort{ap}, Clock: clock})
		dial := func(key string) error {
			c, err := g.DialContext(ctx, key, "tcp", ap.String())
			if err == nil {
				c.Close()
			}
			return err
		}
		for i := range 2 {
			if err := dial("acme"); err != nil {
				t.Fatalf("connection %d: %v", i+1, err)
			}
		}
		err := dial("acme")
		if r := outbound.Refused(err); r == nil || r.Code != vibesell.ERATELIMITED ||
			r.Reason != "this workspace opened too many connections to outside servers in the last minute (at most 2); try again in 30 seconds" {
			t.Errorf("third connection: %v", err)
		}
		if err := dial("globex"); err != nil {
			t.Errorf("another workspace: %v", err)
		}
		clock.Advance(30 * time.Second)
		if err := dial("acme"); err != nil {
			t.Errorf("after 30 seconds: %v", err)
		}
	})
}
