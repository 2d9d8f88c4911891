package sending

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"time"

	"vibesell"
)

// SandboxName is the provider name the sandbox gives; every result built on
// it says so.
const SandboxName = "sandbox"

// Sandbox stands in for the registrar, the registries, the warmed shelf and
// the mailbox vendor. Nothing it does is real, and every answer is
// deterministic: availability follows a hash of the name, the shelf is a
// fixed list, and preparation takes the business days the product promises
// (weekends skipped), counted from the clock.
type Sandbox struct {
	clock vibesell.Clock
	cfg   Config
}

// NewSandbox returns the sandbox provider; cfg gives the preparation times.
func NewSandbox(clock vibesell.Clock, cfg Config) *Sandbox {
	if clock == nil {
		clock = vibesell.SystemClock{}
	}
	return &Sandbox{clock: clock, cfg: cfg}
}

// Name returns "sandbox".
func (s *Sandbox) Name() string { return SandboxName }

// Check answers from a hash of each name: about three names in ten are
// taken, about one in twenty-three could not be checked, the rest are
// available.
func (s *Sandbox) Check(ctx context.Context, names []string) []NameCheck {
	out := make([]NameCheck, len(names))
	for i, name := range names {
		out[i] = SandboxCheck(name)
	}
	return out
}

// SandboxCheck is the sandbox's answer for one name.
func SandboxCheck(name string) NameCheck {
	h := hashOf(name)
	res := NameCheck{Domain: name}
	switch {
	case h%23 == 0:
		res.Reason = "the sandbox registry did not answer, so availability is unknown"
	case h%10 < 3:
		no := false
		res.Available = &no
		res.Reason = "already registered (sandbox)"
	default:
		yes := true
		res.Available = &yes
	}
	return res
}

func hashOf(s string) uint64 {
	sum := sha256.Sum256([]byte(s))
	return binary.BigEndian.Uint64(sum[:8])
}

// sandboxShelf is the warmed shelf of the sandbox: names that are not
// anybody's brand.
var sandboxShelf = []struct {
	domain     string
	registered string
	mailboxes  int
	reputation int
}{
	{"northfieldmail.com", "2025-09-14", 3, 94},
	{"brightlanehq.com", "2025-11-02", 3, 91},
	{"clearpathteam.com", "2026-01-20", 2, 88},
	{"harborlinemail.com", "2025-07-08", 3, 96},
	{"summitreach.net", "2026-03-11", 2, 85},
	{"oakridgeoutreach.com", "2025-10-27", 3, 92},
	{"bluecrestmail.com", "2026-02-05", 3, 89},
	{"meadowgatehq.org", "2025-12-16", 2, 90},
}

// List returns the sandbox shelf.
func (s *Sandbox) List(ctx context.Context) ([]WarmedDomain, error) {
	out := make([]WarmedDomain, 0, len(sandboxShelf))
	for _, d := range sandboxShelf {
		on, _ := time.Parse(time.DateOnly, d.registered)
		rep := d.reputation
		out = append(out, WarmedDomain{Domain: d.domain, RegisteredOn: on, Mailboxes: d.mailboxes, Reputation: &rep})
	}
	return out, nil
}

// Order "prepares" the domains: new ones are ready PrepBusinessDays
// business days from now, warmed ones WarmedPrepBusinessDays. The sandbox
// keeps nothing, so ordering again is harmless and the key is not needed.
func (s *Sandbox) Order(ctx context.Context, _ string, orders []DomainOrder) ([]DomainReceipt, error) {
	now := s.clock.Now()
	out := make([]DomainReceipt, len(orders))
	for i, o := range orders {
		days := s.cfg.PrepBusinessDays
		if o.Warmed {
			days = s.cfg.WarmedPrepBusinessDays
		}
		out[i] = DomainReceipt{Domain: o.Domain, ReadyAt: s.cfg.addBusinessDays(now, days), Records: SandboxRecords(o.Domain)}
	}
	return out, nil
}

// StartWarmup does nothing: sandbox mailboxes warm up on paper.
func (s *Sandbox) StartWarmup(ctx context.Context, addresses []string) error { return nil }

// sandboxMailHost is where sandbox domains point their mail: a name under
// .invalid, which can never exist.
const sandboxMailHost = "mx1.sandbox.vibesell.invalid"

// SandboxRecords are the DNS records a sandbox domain is set up with.
func SandboxRecords(domain string) []Record {
	sum := sha256.Sum256([]byte("dkim:" + domain))
	key := base64.StdEncoding.EncodeToString(append(sum[:], sum[:]...))
	return []Record{
		{Type: "MX", Host: domain, Value: sandboxMailHost},
		{Type: "SPF", Host: domain, Value: "v=spf1 include:_spf.sandbox.vibesell.invalid ~all"},
		{Type: "DKIM", Host: "vs1._domainkey." + domain, Value: "v=DKIM1; k=rsa; p=" + key},
		{Type: "DMARC", Host: "_dmarc." + domain, Value: "v=DMARC1; p=none; rua=mailto:dmarc@" + domain},
	}
}
