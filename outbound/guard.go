// Package outbound is the one way the server connects to an address
// someone outside gave it: a connected mailbox's SMTP and IMAP servers (a
// workspace typed them), a client ID metadata document (a client named
// it). Such an address could name a service on the server's own network;
// the [Guard] refuses every address that is not on the public internet,
// and every port not on its list, at the moment of connecting, on the
// address actually connected to (after the name is resolved, so a name
// that resolves, or rebinds, to a private address is refused all the
// same). Its refusals say what was refused and why, and never carry the
// server's own address or anything the remote end said.
package outbound

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"vibesell"
)

// MailPorts are the ports of mail servers: SMTP relay and submission (25,
// 587), submission over TLS (465), IMAP (143) and IMAP over TLS (993).
var MailPorts = []int{25, 143, 465, 587, 993}

// DefaultPerMinute is how many connections one key (a workspace) may open
// a minute when [Deps.PerMinute] is 0.
const DefaultPerMinute = 120

// Deps is what [New] needs.
type Deps struct {
	// Ports are the only ports connected to. Empty: [MailPorts].
	Ports []int
	// PerMinute bounds the connections one key opens a minute (a bucket
	// of that many, refilled over the minute). 0: [DefaultPerMinute];
	// negative: no limit.
	PerMinute int
	// Allow lists addresses connected to whatever the rules say: an
	// exact address and port, or with port 0 every port of the address.
	// Only tests set it (the in-process mail servers and document hosts
	// listen on loopback); production never does, so that no setting can
	// open this machine or its network to an address someone typed.
	Allow []netip.AddrPort
	// Timeout bounds connecting. Default 10 s.
	Timeout time.Duration
	// Clock tells the time for the limit. Default: the system clock.
	Clock vibesell.Clock
	// Reach, when set, is asked after the guard's own check, right before
	// connecting, and may refuse. Only tests set it, to refuse anything
	// off this machine: a test that shows the guard refusing an outside
	// address then fails, should the guard ever let one through, without
	// a packet leaving the machine.
	Reach func(netip.AddrPort) error
}

// Guard connects to outside addresses, refusing what is not public or not
// on its ports, and limiting how often each key connects.
type Guard struct {
	ports     []int
	perMinute int
	allow     []netip.AddrPort
	timeout   time.Duration
	clock     vibesell.Clock
	reach     func(netip.AddrPort) error

	mu      sync.Mutex
	buckets map[string]*bucket
}

// New returns a guard with d's rules.
func New(d Deps) *Guard {
	g := &Guard{ports: slices.Sorted(slices.Values(d.Ports)), perMinute: d.PerMinute, allow: d.Allow,
		timeout: d.Timeout, clock: d.Clock, reach: d.Reach, buckets: map[string]*bucket{}}
	if len(g.ports) == 0 {
		g.ports = MailPorts
	}
	if g.perMinute == 0 {
		g.perMinute = DefaultPerMinute
	}
	if g.timeout <= 0 {
		g.timeout = 10 * time.Second
	}
	if g.clock == nil {
		g.clock = vibesell.SystemClock{}
	}
	return g
}

// Refusal is a connection the guard did not make, and why: Reason is a
// clause written for a person ("100.64.0.1 is a shared (carrier-grade
// NAT) address, not on the public internet"). Code is
// [vibesell.EINVALID] for an address or port, [vibesell.ERATELIMITED]
// for the limit.
type Refusal struct {
	Code   string
	Reason string
}

func (r *Refusal) Error() string { return r.Reason }

// Refused returns the guard's refusal in err's chain, or nil.
func Refused(err error) *Refusal {
	var r *Refusal
	if errors.As(err, &r) {
		return r
	}
	return nil
}

// DialFunc connects like [net.Dialer.DialContext].
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// For returns the dial function of one key: each call counts against the
// key's limit, and connects only to an address the rules allow.
func (g *Guard) For(key string) DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		return g.DialContext(ctx, key, network, addr)
	}
}

// DialContext connects to addr (host:port) for key. Refusals are
// *[Refusal] in the error's chain.
func (g *Guard) DialContext(ctx context.Context, key, network, addr string) (net.Conn, error) {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return nil, &Refusal{Code: vibesell.EINVALID, Reason: "only TCP connections are made"}
	}
	_, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, &Refusal{Code: vibesell.EINVALID, Reason: fmt.Sprintf("%q is not a host and port", addr)}
	}
	// A port that is on no list is refused before any lookup is made.
	if port, err := strconv.Atoi(portText); err != nil || !g.portAllowed(port) && !g.allowsPort(port) {
		return nil, g.portRefusal(portText)
	}
	if err := g.take(key); err != nil {
		return nil, err
	}
	d := &net.Dialer{
		Timeout: g.timeout,
		// The check runs on each address the name resolved to, right
		// before connecting to it: what is checked is what is connected.
		Control: func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return &Refusal{Code: vibesell.EINVALID, Reason: fmt.Sprintf("%q is not an address", address)}
			}
			if err := g.Check(ap); err != nil {
				return err
			}
			if g.reach != nil {
				return g.reach(ap)
			}
			return nil
		},
	}
	return d.DialContext(ctx, network, addr)
}

// Check says whether the guard connects to ap: nil, or a *[Refusal].
func (g *Guard) Check(ap netip.AddrPort) error {
	for _, a := range g.allow {
		if a.Addr() == ap.Addr() && (a.Port() == 0 || a.Port() == ap.Port()) {
			return nil
		}
	}
	if !g.portAllowed(int(ap.Port())) {
		return g.portRefusal(strconv.Itoa(int(ap.Port())))
	}
	if why := NotPublic(ap.Addr()); why != "" {
		return &Refusal{Code: vibesell.EINVALID, Reason: fmt.Sprintf("%s is %s, not on the public internet", ap.Addr(), why)}
	}
	return nil
}

func (g *Guard) portAllowed(port int) bool { return slices.Contains(g.ports, port) }

// allowsPort says an allowed address has the port, so the port alone does
// not refuse the connection before its address is known.
func (g *Guard) allowsPort(port int) bool {
	for _, a := range g.allow {
		if a.Port() == 0 || int(a.Port()) == port {
			return true
		}
	}
	return false
}

func (g *Guard) portRefusal(port string) *Refusal {
	list := make([]string, len(g.ports))
	for i, p := range g.ports {
		list[i] = strconv.Itoa(p)
	}
	return &Refusal{Code: vibesell.EINVALID, Reason: fmt.Sprintf("port %s is not one VibeSell connects to (only %s)", port, vibesell.JoinAnd(list))}
}

// notPublic lists, most specific first, the ranges that are not the
// public internet, each with what it is. Anything else that is not
// global unicast is refused too (see [NotPublic]).
var notPublic = []struct {
	prefix netip.Prefix
	what   string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "a reserved address (this network)"},
	{netip.MustParsePrefix("10.0.0.0/8"), "a private network address"},
	{netip.MustParsePrefix("100.64.0.0/10"), "a shared (carrier-grade NAT) address"},
	{netip.MustParsePrefix("127.0.0.0/8"), "a loopback address (this machine)"},
	{netip.MustParsePrefix("169.254.0.0/16"), "a link-local address"},
	{netip.MustParsePrefix("172.16.0.0/12"), "a private network address"},
	{netip.MustParsePrefix("192.0.0.0/24"), "a reserved address (protocol assignments)"},
	{netip.MustParsePrefix("192.0.2.0/24"), "a documentation address"},
	{netip.MustParsePrefix("192.88.99.0/24"), "a reserved address (6to4 relay)"},
	{netip.MustParsePrefix("192.168.0.0/16"), "a private network address"},
	{netip.MustParsePrefix("198.18.0.0/15"), "a benchmarking address"},
	{netip.MustParsePrefix("198.51.100.0/24"), "a documentation address"},
	{netip.MustParsePrefix("203.0.113.0/24"), "a documentation address"},
	{netip.MustParsePrefix("224.0.0.0/4"), "a multicast address"},
	{netip.MustParsePrefix("240.0.0.0/4"), "a reserved address"},
	{netip.MustParsePrefix("::/128"), "the unspecified address"},
	{netip.MustParsePrefix("::1/128"), "a loopback address (this machine)"},
	// An IPv6 spelling of an IPv4 address would reach whatever the IPv4
	// address reaches, past the IPv4 rules: refused in every form.
	{netip.MustParsePrefix("::ffff:0:0/96"), "an IPv4-mapped address"},
	{netip.MustParsePrefix("::/96"), "an IPv4-compatible address"},
	{netip.MustParsePrefix("64:ff9b::/96"), "a NAT64 address"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "a NAT64 address"},
	{netip.MustParsePrefix("100::/64"), "a discard-only address"},
	{netip.MustParsePrefix("2001::/32"), "a Teredo tunnel address"},
	{netip.MustParsePrefix("2001:2::/48"), "a benchmarking address"},
	{netip.MustParsePrefix("2001:db8::/32"), "a documentation address"},
	{netip.MustParsePrefix("2001::/23"), "a reserved address (protocol assignments)"},
	{netip.MustParsePrefix("2002::/16"), "a 6to4 tunnel address"},
	{netip.MustParsePrefix("3fff::/20"), "a documentation address"},
	{netip.MustParsePrefix("fc00::/7"), "a private network address (unique local)"},
	{netip.MustParsePrefix("fe80::/10"), "a link-local address"},
	{netip.MustParsePrefix("fec0::/10"), "a site-local address"},
	{netip.MustParsePrefix("ff00::/8"), "a multicast address"},
}

// internet6 is where IPv6's public unicast addresses are: everything
// outside it is reserved.
var internet6 = netip.MustParsePrefix("2000::/3")

// NotPublic says what a is when it is not a public internet address ("a
// private network address"), or "" when it is one.
func NotPublic(a netip.Addr) string {
	if !a.IsValid() {
		return "not an address"
	}
	if a.Zone() != "" {
		return "a link-local address"
	}
	for _, r := range notPublic {
		if r.prefix.Contains(a) {
			return r.what
		}
	}
	if a.Is6() && !internet6.Contains(a) {
		return "a reserved address"
	}
	if !a.IsGlobalUnicast() {
		return "a reserved address"
	}
	return ""
}

// bucket is one key's allowance: tokens left, as of when.
type bucket struct {
	tokens float64
	at     time.Time
}

// maxBuckets bounds the keys remembered; past it, the keys whose buckets
// are full again (nothing to remember) are forgotten.
const maxBuckets = 10_000

// take spends one of key's connections, or refuses when none is left.
func (g *Guard) take(key string) error {
	if g.perMinute < 0 {
		return nil
	}
	now := g.clock.Now()
	rate := float64(g.perMinute) / float64(time.Minute)
	g.mu.Lock()
	defer g.mu.Unlock()
	b, ok := g.buckets[key]
	if !ok {
		if len(g.buckets) >= maxBuckets {
			g.forgetFull(now, rate)
		}
		b = &bucket{tokens: float64(g.perMinute), at: now}
		g.buckets[key] = b
	}
	b.tokens = min(float64(g.perMinute), b.tokens+float64(now.Sub(b.at))*rate)
	b.at = now
	if b.tokens < 1 {
		wait := time.Duration((1 - b.tokens) / rate)
		secs := max(1, int((wait+time.Second-1)/time.Second))
		return &Refusal{Code: vibesell.ERATELIMITED, Reason: fmt.Sprintf(
			"this workspace opened too many connections to outside servers in the last minute (at most %d); try again in %s",
			g.perMinute, vibesell.Plural(secs, "second", "seconds"))}
	}
	b.tokens--
	return nil
}

func (g *Guard) forgetFull(now time.Time, rate float64) {
	for k, b := range g.buckets {
		if b.tokens+float64(now.Sub(b.at))*rate >= float64(g.perMinute) {
			delete(g.buckets, k)
		}
	}
}
