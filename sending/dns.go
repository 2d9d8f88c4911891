package sending

import (
	"context"
	"errors"
	"net"
	"strings"
	"time"
)

// Resolver looks DNS records up. [NewResolver] asks a real DNS server;
// tests point it at one of their own.
type Resolver interface {
	LookupMX(ctx context.Context, name string) ([]*net.MX, error)
	LookupTXT(ctx context.Context, name string) ([]string, error)
}

// NewResolver returns a resolver that asks server (host:port), or the
// system's resolver when server is empty. Each lookup gives up after
// timeout.
func NewResolver(server string, timeout time.Duration) Resolver {
	r := &net.Resolver{PreferGo: true}
	if server != "" {
		r.Dial = func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, server)
		}
	}
	if timeout <= 0 {
		timeout = 3 * time.Second
	}
	return timeoutResolver{r: r, timeout: timeout}
}

type timeoutResolver struct {
	r       *net.Resolver
	timeout time.Duration
}

func (t timeoutResolver) LookupMX(ctx context.Context, name string) ([]*net.MX, error) {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	return t.r.LookupMX(ctx, name)
}

func (t timeoutResolver) LookupTXT(ctx context.Context, name string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	return t.r.LookupTXT(ctx, name)
}

// RecordCheck is whether one expected record is published.
type RecordCheck struct {
	Record
	// OK is true when the record is published as expected, false when the
	// DNS answered without it, and nil when the lookup could not complete.
	OK *bool
	// Found is what the DNS holds at the record's name (for SPF, DKIM and
	// DMARC the matching TXT record; for MX the mail servers); "" when
	// nothing or unknown.
	Found string
}

// CheckRecords looks up each expected record and says whether it checks
// out: MX lists the expected mail server; the SPF record includes the
// expected sender; the DKIM record carries the expected public key; the
// DMARC record has a policy.
func CheckRecords(ctx context.Context, r Resolver, expected []Record) []RecordCheck {
	out := make([]RecordCheck, len(expected))
	for i, rec := range expected {
		out[i] = checkRecord(ctx, r, rec)
	}
	return out
}

func checkRecord(ctx context.Context, r Resolver, rec Record) RecordCheck {
	res := RecordCheck{Record: rec}
	yes, no := true, false
	if rec.Type == "MX" {
		mxs, err := r.LookupMX(ctx, rec.Host)
		if err != nil {
			res.OK = lookupFailed(err)
			return res
		}
		var hosts []string
		for _, mx := range mxs {
			h := strings.ToLower(strings.TrimSuffix(mx.Host, "."))
			hosts = append(hosts, h)
			if h == strings.ToLower(rec.Value) {
				res.OK = &yes
			}
		}
		res.Found = strings.Join(hosts, ", ")
		if res.OK == nil {
			res.OK = &no
		}
		return res
	}
	txts, err := r.LookupTXT(ctx, rec.Host)
	if err != nil {
		res.OK = lookupFailed(err)
		return res
	}
	res.OK = &no
	for _, txt := range txts {
		if !relevant(rec.Type, txt) {
			continue
		}
		res.Found = txt
		if txtMatches(rec, txt) {
			res.OK = &yes
			break
		}
	}
	return res
}

// lookupFailed reads a lookup error: a name or record that does not exist
// is a definite "not published" (false); anything else (timeout, server
// failure) leaves it unknown (nil).
func lookupFailed(err error) *bool {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		no := false
		return &no
	}
	return nil
}

func relevant(typ, txt string) bool {
	t := strings.ToLower(strings.TrimSpace(txt))
	switch typ {
	case "SPF":
		return strings.HasPrefix(t, "v=spf1")
	case "DKIM":
		return strings.HasPrefix(t, "v=dkim1") || strings.Contains(t, "p=")
	case "DMARC":
		return strings.HasPrefix(t, "v=dmarc1")
	}
	return false
}

func txtMatches(rec Record, txt string) bool {
	switch rec.Type {
	case "SPF":
		for _, term := range strings.Fields(rec.Value) {
			if strings.HasPrefix(term, "include:") && !containsField(txt, term) {
				return false
			}
		}
		return true
	case "DKIM":
		return tagValue(txt, "p") != "" && tagValue(txt, "p") == tagValue(rec.Value, "p")
	case "DMARC":
		p := tagValue(txt, "p")
		return p == "none" || p == "quarantine" || p == "reject"
	}
	return false
}

func containsField(txt, want string) bool {
	for _, f := range strings.Fields(txt) {
		if strings.EqualFold(f, want) {
			return true
		}
	}
	return false
}

// tagValue reads one tag of a "k=v; k=v" record (DKIM, DMARC).
func tagValue(txt, tag string) string {
	for part := range strings.SplitSeq(txt, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), tag) {
			return strings.Join(strings.Fields(v), "")
		}
	}
	return ""
}

// sandboxResolver is the DNS of sandbox domains: nothing real can be looked
// up for them, so it answers with the records the sandbox set up, once the
// domain is ready, and with "no such name" before.
type sandboxResolver struct {
	records   []Record
	published bool
}

func (s sandboxResolver) LookupMX(ctx context.Context, name string) ([]*net.MX, error) {
	if s.published {
		for _, r := range s.records {
			if r.Type == "MX" && r.Host == name {
				return []*net.MX{{Host: r.Value + ".", Pref: 10}}, nil
			}
		}
	}
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

func (s sandboxResolver) LookupTXT(ctx context.Context, name string) ([]string, error) {
	var out []string
	if s.published {
		for _, r := range s.records {
			if r.Type != "MX" && r.Host == name {
				out = append(out, r.Value)
			}
		}
	}
	if len(out) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
	}
	return out, nil
}
