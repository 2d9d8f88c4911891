package sending

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config holds the numbers and prices the sending setup works with. Start
// from [DefaultConfig]; [ConfigFromEnv] reads the SENDING_* variables over
// it.
type Config struct {
	// Provider is where domains are checked: "sandbox" (the default:
	// deterministic answers, nothing real is checked, registered or
	// created) or "rdap" (availability from the registries over RDAP; DNS
	// from a real resolver). Mailbox creation and the warmed shelf stay in
	// the sandbox until a vendor is wired in.
	Provider string
	// EmailsPerMailbox is how many emails one mailbox sends a day at full
	// volume. Default 30, the usual safe cap.
	EmailsPerMailbox int
	// MailboxesPerDomain is how many mailboxes one domain carries.
	// Default 3 (Google allows at most 5).
	MailboxesPerDomain int
	// Currency of every price below. Default USD.
	Currency string
	// DomainPrices is the yearly price of a new domain, in cents, by
	// top-level domain. A top-level domain not listed is not sold. Default
	// com, net and org at 15.00.
	DomainPrices map[string]int64
	// MailboxPrice is the monthly price of a new mailbox, in cents.
	// Default 500 (5.00).
	MailboxPrice int64
	// WarmedMailboxPrice is the monthly price of an already-warmed
	// mailbox, in cents. Default 1000 (10.00).
	WarmedMailboxPrice int64
	// PrepBusinessDays is how long new addresses take to prepare,
	// weekends not counted. Default 2.
	PrepBusinessDays int
	// WarmedPrepBusinessDays is how long already-warmed addresses take to
	// hand over. Default 1.
	WarmedPrepBusinessDays int
	// WarmupDays is how many calendar days a new mailbox warms up before
	// full volume. Default 21.
	WarmupDays int
	// RampStart and RampStep shape the warmup: day 1 sends RampStart
	// emails per mailbox, each later day RampStep more, up to
	// EmailsPerMailbox. Defaults 2 and 2.
	RampStart, RampStep int
	// RDAPServers maps a top-level domain to its registry's RDAP base URL.
	// Defaults to IANA's bootstrap entries for com, net, org, io, co, ai,
	// app and dev.
	RDAPServers map[string]string
	// RDAPTimeout bounds one registry lookup; a registry slower than that
	// reads as "unknown". Default 5s.
	RDAPTimeout time.Duration
	// DNSServer is the DNS server (host:port) the DNS checks ask; empty
	// means the system's resolver.
	DNSServer string
	// DNSTimeout bounds one DNS lookup. Default 3s.
	DNSTimeout time.Duration
	// Holidays are the public holidays of the calendar the workspace
	// sends by: no mailbox is prepared and no campaign sends on them, as
	// on weekends. Default none (Monday to Friday are all business days).
	Holidays []time.Time
}

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{
		Provider:               "sandbox",
		EmailsPerMailbox:       30,
		MailboxesPerDomain:     3,
		Currency:               "USD",
		DomainPrices:           map[string]int64{"com": 1500, "net": 1500, "org": 1500},
		MailboxPrice:           500,
		WarmedMailboxPrice:     1000,
		PrepBusinessDays:       2,
		WarmedPrepBusinessDays: 1,
		WarmupDays:             21,
		RampStart:              2,
		RampStep:               2,
		RDAPServers: map[string]string{
			// From IANA's RDAP bootstrap file (data.iana.org/rdap/dns.json).
			"com": "https://rdap.verisign.com/com/v1/",
			"net": "https://rdap.verisign.com/net/v1/",
			"org": "https://rdap.publicinterestregistry.org/rdap/",
			"io":  "https://rdap.identitydigital.services/rdap/",
			"ai":  "https://rdap.identitydigital.services/rdap/",
			"co":  "https://rdap.registry.co/co/",
			"app": "https://pubapi.registry.google/rdap/",
			"dev": "https://pubapi.registry.google/rdap/",
		},
		RDAPTimeout: 5 * time.Second,
		DNSTimeout:  3 * time.Second,
	}
}

// ConfigError names the variable that is wrong and what it expects.
type ConfigError struct {
	Name, Value, Want string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("%s=%q is not valid: %s", e.Name, e.Value, e.Want)
}

var (
	currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)
	tldPattern   = regexp.MustCompile(`^[a-z]{2,63}$`)
)

// ConfigFromEnv reads the SENDING_* variables over [DefaultConfig]:
//
//	SENDING_PROVIDER              sandbox (default) or rdap
//	SENDING_EMAILS_PER_MAILBOX    30
//	SENDING_MAILBOXES_PER_DOMAIN  3 (1 to 5)
//	SENDING_CURRENCY              USD
//	SENDING_DOMAIN_PRICES         com=15.00,net=15.00,org=15.00 (yearly; replaces the list)
//	SENDING_MAILBOX_PRICE         5.00 (monthly)
//	SENDING_WARMED_MAILBOX_PRICE  10.00 (monthly)
//	SENDING_WARMUP_DAYS           21
//	SENDING_RDAP_SERVERS          tld=url,... (added to, and overriding, the defaults)
//	SENDING_RDAP_TIMEOUT          5s
//	SENDING_DNS_SERVER            host:port (empty: the system resolver)
//	SENDING_DNS_TIMEOUT           3s
//	SENDING_HOLIDAYS              2026-12-25,2027-01-01 (public holidays, YYYY-MM-DD; none by default)
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := DefaultConfig()
	if v := getenv("SENDING_PROVIDER"); v != "" {
		if v != "sandbox" && v != "rdap" {
			return c, &ConfigError{"SENDING_PROVIDER", v, "expected sandbox or rdap"}
		}
		c.Provider = v
	}
	for _, n := range []struct {
		name     string
		dst      *int
		min, max int
	}{
		{"SENDING_EMAILS_PER_MAILBOX", &c.EmailsPerMailbox, 1, 100},
		{"SENDING_MAILBOXES_PER_DOMAIN", &c.MailboxesPerDomain, 1, 5},
		{"SENDING_WARMUP_DAYS", &c.WarmupDays, 1, 90},
	} {
		v := getenv(n.name)
		if v == "" {
			continue
		}
		i, err := strconv.Atoi(v)
		if err != nil || i < n.min || i > n.max {
			return c, &ConfigError{n.name, v, fmt.Sprintf("expected a whole number from %d to %d", n.min, n.max)}
		}
		*n.dst = i
	}
	if v := getenv("SENDING_CURRENCY"); v != "" {
		if !currencyCode.MatchString(v) {
			return c, &ConfigError{"SENDING_CURRENCY", v, "expected a three-letter code such as USD or EUR"}
		}
		c.Currency = v
	}
	if v := getenv("SENDING_DOMAIN_PRICES"); v != "" {
		prices := map[string]int64{}
		for item := range strings.SplitSeq(v, ",") {
			tld, amount, ok := strings.Cut(strings.TrimSpace(item), "=")
			tld = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(tld)), ".")
			cents, err := parseCents(amount)
			if !ok || !tldPattern.MatchString(tld) || err != nil {
				return c, &ConfigError{"SENDING_DOMAIN_PRICES", v, "expected tld=price pairs separated by commas, for example com=15.00,org=12.50"}
			}
			prices[tld] = cents
		}
		c.DomainPrices = prices
	}
	for _, p := range []struct {
		name string
		dst  *int64
	}{{"SENDING_MAILBOX_PRICE", &c.MailboxPrice}, {"SENDING_WARMED_MAILBOX_PRICE", &c.WarmedMailboxPrice}} {
		v := getenv(p.name)
		if v == "" {
			continue
		}
		cents, err := parseCents(v)
		if err != nil {
			return c, &ConfigError{p.name, v, "expected an amount such as 5.00"}
		}
		*p.dst = cents
	}
	if v := getenv("SENDING_RDAP_SERVERS"); v != "" {
		for item := range strings.SplitSeq(v, ",") {
			tld, base, ok := strings.Cut(strings.TrimSpace(item), "=")
			tld = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(tld)), ".")
			u, err := url.Parse(strings.TrimSpace(base))
			if !ok || !tldPattern.MatchString(tld) || err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				return c, &ConfigError{"SENDING_RDAP_SERVERS", v, "expected tld=url pairs separated by commas, for example com=https://rdap.verisign.com/com/v1/"}
			}
			c.RDAPServers[tld] = u.String()
		}
	}
	for _, d := range []struct {
		name string
		dst  *time.Duration
	}{{"SENDING_RDAP_TIMEOUT", &c.RDAPTimeout}, {"SENDING_DNS_TIMEOUT", &c.DNSTimeout}} {
		v := getenv(d.name)
		if v == "" {
			continue
		}
		t, err := time.ParseDuration(v)
		if err != nil || t <= 0 || t > time.Minute {
			return c, &ConfigError{d.name, v, "expected a duration up to 1m, such as 5s"}
		}
		*d.dst = t
	}
	if v := getenv("SENDING_HOLIDAYS"); v != "" {
		for item := range strings.SplitSeq(v, ",") {
			d, err := time.Parse(time.DateOnly, strings.TrimSpace(item))
			if err != nil {
				return c, &ConfigError{"SENDING_HOLIDAYS", v, "expected days as YYYY-MM-DD separated by commas, for example 2026-12-25,2027-01-01"}
			}
			c.Holidays = append(c.Holidays, d)
		}
	}
	if v := getenv("SENDING_DNS_SERVER"); v != "" {
		if _, port, err := net.SplitHostPort(v); err != nil || port == "" {
			return c, &ConfigError{"SENDING_DNS_SERVER", v, "expected host:port, for example 1.1.1.1:53"}
		}
		c.DNSServer = v
	}
	return c, nil
}

// parseCents reads "15", "15.5" or "15.00" as cents.
func parseCents(s string) (int64, error) {
	s = strings.TrimSpace(s)
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || len(frac) > 2 || strings.TrimLeft(whole+frac, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not an amount", s)
	}
	for len(frac) < 2 {
		frac += "0"
	}
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil {
		return 0, err
	}
	return n, nil
}

// sellable reports whether new domains under tld are sold.
func (c Config) sellable(tld string) bool {
	_, ok := c.DomainPrices[tld]
	return ok
}

// SoldTLDs lists the top-level domains new domains are sold under, .com
// first, for sentences: [".com", ".net", ".org"].
func (c Config) SoldTLDs() []string {
	var out []string
	for tld := range c.DomainPrices {
		out = append(out, "."+tld)
	}
	slices.Sort(out)
	if i := slices.Index(out, ".com"); i > 0 {
		out = append([]string{".com"}, slices.Delete(out, i, i+1)...)
	}
	return out
}

// DomainPrice is the yearly price, in cents, quoted for "a domain" where
// no name is known yet (sizing, the warmed shelf): the .com price, or the
// lowest when .com is not sold.
func (c Config) DomainPrice() int64 {
	if p, ok := c.DomainPrices["com"]; ok {
		return p
	}
	var low int64 = -1
	for _, p := range c.DomainPrices {
		if low < 0 || p < low {
			low = p
		}
	}
	return max(low, 0)
}
