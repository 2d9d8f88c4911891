package audience

import (
	"bufio"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"vibesell"
)

// Flags of an uploaded row: an address that can be imported but that the
// list check advises against. The person chooses in the import's
// approval whether flagged rows are skipped. No mailbox is ever probed
// over SMTP: Microsoft's policy forbids it and Microsoft 365 no longer
// answers it truthfully, so only the address and its domain are checked.
const (
	FlagNoMailServer = "no_mail_server" // the domain has no MX record and no address (A/AAAA), or a null MX
	FlagDisposable   = "disposable"     // the domain hands out throwaway addresses
	FlagRole         = "role"           // the address reaches a team or a machine (info@, sales@…)
)

// flagOrder is the order flags are told in.
var flagOrder = []string{FlagNoMailServer, FlagDisposable, FlagRole}

// FlagReason says a flag in a person's words, as a sentence's start.
func FlagReason(flag string) string {
	switch flag {
	case FlagNoMailServer:
		return "The domain has no mail server"
	case FlagDisposable:
		return "A disposable-address domain"
	case FlagRole:
		return "A role address (info@, sales@…), not a person"
	}
	return flag
}

// FlaggedLine is a row of an upload the list check flagged.
type FlaggedLine struct {
	Line  int
	Email string
	Flag  string
}

// Why says why the row is flagged, for a person.
func (f FlaggedLine) Why() string { return FlagReason(f.Flag) }

// FlagCount is how many rows of an upload carry one flag.
type FlagCount struct {
	Flag  string
	Count int
}

// Reason says the flag for a person.
func (c FlagCount) Reason() string { return FlagReason(c.Flag) }

//go:embed disposable_domains.txt
var disposableList string

var (
	disposableOnce                    sync.Once
	disposableExact, disposableSuffix map[string]bool
)

// loadDisposable reads the embedded list once: a line is a domain, "*."
// before it also covers every name under it, "#" starts a comment.
func loadDisposable() (exact, suffix map[string]bool) {
	disposableOnce.Do(func() {
		disposableExact, disposableSuffix = map[string]bool{}, map[string]bool{}
		sc := bufio.NewScanner(strings.NewReader(disposableList))
		for sc.Scan() {
			line := strings.ToLower(strings.TrimSpace(sc.Text()))
			switch {
			case line == "" || strings.HasPrefix(line, "#"):
			case strings.HasPrefix(line, "*."):
				disposableSuffix[line[2:]] = true
			default:
				disposableExact[line] = true
			}
		}
	})
	return disposableExact, disposableSuffix
}

// isDisposable reports whether domain (lower case) is on the embedded
// list of disposable-address domains, or under a domain listed with "*.".
func isDisposable(domain string) bool {
	exact, suffix := loadDisposable()
	if exact[domain] || suffix[domain] {
		return true
	}
	for d := domain; ; {
		i := strings.IndexByte(d, '.')
		if i < 0 {
			return false
		}
		d = d[i+1:]
		if suffix[d] {
			return true
		}
	}
}

// MailDomains looks up whether a domain receives mail. [NewMailDomains]
// asks a real DNS server; tests point it at one of their own.
type MailDomains interface {
	LookupMX(ctx context.Context, name string) ([]*net.MX, error)
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// NewMailDomains returns the DNS the list check asks, as the sending
// setup's resolver does: server (host:port, SENDING_DNS_SERVER), or the
// system's resolver when empty.
func NewMailDomains(server string) MailDomains {
	r := &net.Resolver{PreferGo: true}
	if server != "" {
		r.Dial = func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, server)
		}
	}
	return r
}

// domainCheck bounds: one lookup, all the lookups of one check, how many
// run at once, and how long an answer is kept.
const (
	domainLookupTimeout = 3 * time.Second
	domainCheckBudget   = 20 * time.Second
	domainLookupWorkers = 8
	domainCacheFor      = 6 * time.Hour
	domainCacheMax      = 100_000
)

// mailState is what the DNS said of a domain.
type mailState int

const (
	mailUnknown  mailState = iota // the lookup failed or ran out of time
	mailReceives                  // MX, or else an address
	mailNone                      // no such domain, or neither MX nor address, or a null MX
)

type domainAnswer struct {
	state mailState
	at    time.Time
}

// domainCache keeps what the DNS said of each domain for a while, across
// checks of any workspace: a domain's mail servers are public and the
// same for everyone.
type domainCache struct {
	mu      sync.Mutex
	answers map[string]domainAnswer
}

// LooksUpMailServers says whether the list check asks the DNS for each
// domain's mail servers: not in the sandbox, where nothing real is asked
// unless a DNS server is configured.
func (s *Service) LooksUpMailServers() bool { return s.mailDomains != nil }

// mailStates looks each domain up (through the cache), at most
// domainLookupWorkers at once and within domainCheckBudget all told; a
// domain not answered in time is mailUnknown.
func (s *Service) mailStates(ctx context.Context, domains []string) map[string]mailState {
	out := make(map[string]mailState, len(domains))
	if s.mailDomains == nil {
		return out
	}
	now := s.clock.Now()
	var todo []string
	s.domains.mu.Lock()
	for _, d := range domains {
		if a, ok := s.domains.answers[d]; ok && now.Sub(a.at) < domainCacheFor {
			out[d] = a.state
		} else {
			todo = append(todo, d)
		}
	}
	s.domains.mu.Unlock()
	if len(todo) == 0 {
		return out
	}
	ctx, cancel := context.WithTimeout(ctx, domainCheckBudget)
	defer cancel()
	jobs := make(chan string)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range min(domainLookupWorkers, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range jobs {
				st := s.lookupMail(ctx, d)
				mu.Lock()
				out[d] = st
				mu.Unlock()
			}
		}()
	}
	for _, d := range todo {
		if ctx.Err() != nil {
			break
		}
		jobs <- d
	}
	close(jobs)
	wg.Wait()
	s.domains.mu.Lock()
	if s.domains.answers == nil || len(s.domains.answers) > domainCacheMax {
		s.domains.answers = map[string]domainAnswer{}
	}
	for _, d := range todo {
		if st := out[d]; st != mailUnknown {
			s.domains.answers[d] = domainAnswer{state: st, at: now}
		}
	}
	s.domains.mu.Unlock()
	return out
}

// lookupMail asks for the domain's MX records, and when it has none, its
// addresses (RFC 5321 §5.1: a domain without MX receives at its A/AAAA).
func (s *Service) lookupMail(ctx context.Context, domain string) mailState {
	ctx, cancel := context.WithTimeout(ctx, domainLookupTimeout)
	defer cancel()
	fqdn := domain + "."
	mx, err := s.mailDomains.LookupMX(ctx, fqdn)
	if err == nil && len(mx) > 0 {
		if len(mx) == 1 && (mx[0].Host == "." || mx[0].Host == "") {
			return mailNone // null MX (RFC 7505): the domain says it takes no mail
		}
		return mailReceives
	}
	if err != nil && !notFound(err) {
		return mailUnknown
	}
	ips, err := s.mailDomains.LookupIPAddr(ctx, fqdn)
	switch {
	case err == nil && len(ips) > 0:
		return mailReceives
	case err == nil || notFound(err):
		return mailNone
	}
	return mailUnknown
}

func notFound(err error) bool {
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr) && dnsErr.IsNotFound
}

// flagSkips writes, for an impact, how many rows carry each flag.
func flagSkips(counts []FlagCount) string {
	var parts []string
	for _, c := range counts {
		parts = append(parts, fmt.Sprintf("%s with %s", vibesell.Count(c.Count), flagNoun(c.Flag)))
	}
	return vibesell.JoinAnd(parts)
}

func flagNoun(flag string) string {
	switch flag {
	case FlagNoMailServer:
		return "a domain that has no mail server"
	case FlagDisposable:
		return "a disposable-address domain"
	case FlagRole:
		return "a role address (info@, sales@…)"
	}
	return flag
}
