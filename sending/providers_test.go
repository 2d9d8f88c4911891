package sending_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"vibesell/sending"
)

// rdapServer is an in-process registry: free.com is not registered, the
// rest of .com answers as RFC 9083 says, slow.com never answers in time.
func rdapServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutPrefix(r.URL.Path, "/com/v1/domain/")
		if !ok || r.Method != http.MethodGet || !strings.Contains(r.Header.Get("Accept"), "application/rdap+json") {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/rdap+json")
		switch name {
		case "free.com", "getacme.com":
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"errorCode":404,"title":"Not Found"}`))
		case "slow.com":
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		case "busy.com":
			w.WriteHeader(http.StatusServiceUnavailable)
		case "limited.com":
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			w.Write([]byte(`{"objectClassName":"domain","ldhName":"` + strings.ToUpper(name) + `","status":["active"]}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestRDAPAvailability(t *testing.T) {
	t.Parallel()
	srv := rdapServer(t)
	r := &sending.RDAP{Servers: map[string]string{"com": srv.URL + "/com/v1/"}, Timeout: 300 * time.Millisecond}
	names := []string{"free.com", "taken.com", "slow.com", "busy.com", "limited.com", "acme.zz"}
	got := r.Check(context.Background(), names)
	want := []struct {
		avail  string
		reason string
	}{
		{"yes", ""},
		{"no", "already registered"},
		{"unknown", "did not answer in time"},
		{"unknown", "HTTP 503"},
		{"unknown", "slow down"},
		{"unknown", "no registry lookup is configured for .zz names"},
	}
	for i, w := range want {
		t.Run(names[i], func(t *testing.T) {
			a := "unknown"
			if got[i].Available != nil {
				a = map[bool]string{true: "yes", false: "no"}[*got[i].Available]
			}
			if a != w.avail || !strings.Contains(got[i].Reason, w.reason) || got[i].Domain == "" {
				t.Errorf("%q: available %s (%q), want %s (%q)", got[i].Domain, a, got[i].Reason, w.avail, w.reason)
			}
		})
	}
	if r.Name() != "rdap" {
		t.Fatal(r.Name())
	}
}

// dnsServer is an in-process DNS server with a domain set up right
// (good.test), one set up wrong (bad.test), one that never answers
// (slow.test) and one whose server fails (fail.test).
func dnsServer(t *testing.T) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	key := strings.Repeat("MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA", 8)
	txt := map[string][]string{
		"good.test.":                {"v=spf1 include:_spf.mail.test ~all", "google-site-verification=abc"},
		"vs1._domainkey.good.test.": {"v=DKIM1; k=rsa; p=" + key[:200], key[200:]},
		"_dmarc.good.test.":         {"v=DMARC1; p=quarantine; rua=mailto:d@good.test"},
		"bad.test.":                 {"v=spf1 -all"},
		"vs1._domainkey.bad.test.":  {"v=DKIM1; k=rsa; p=SOMETHINGELSE"},
	}
	mux := dns.NewServeMux()
	mux.HandleFunc(".", func(w dns.ResponseWriter, req *dns.Msg) {
		q := req.Question[0]
		m := new(dns.Msg)
		m.SetReply(req)
		switch {
		case strings.HasSuffix(q.Name, "slow.test."):
			return // never answer
		case strings.HasSuffix(q.Name, "fail.test."):
			m.SetRcode(req, dns.RcodeServerFailure)
		case q.Qtype == dns.TypeMX && q.Name == "good.test.":
			m.Answer = append(m.Answer, &dns.MX{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeMX, Class: dns.ClassINET, Ttl: 60}, Preference: 10, Mx: "mx1.mail.test."})
		case q.Qtype == dns.TypeMX && q.Name == "bad.test.":
			m.Answer = append(m.Answer, &dns.MX{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeMX, Class: dns.ClassINET, Ttl: 60}, Preference: 10, Mx: "mx.elsewhere.test."})
		case q.Qtype == dns.TypeTXT && txt[q.Name] != nil:
			strs := txt[q.Name]
			if strings.Contains(q.Name, "_domainkey") {
				// One record in two strings, as long DKIM keys are published.
				m.Answer = append(m.Answer, &dns.TXT{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 60}, Txt: strs})
				break
			}
			for _, s := range strs {
				m.Answer = append(m.Answer, &dns.TXT{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 60}, Txt: []string{s}})
			}
		case q.Name == "good.test." || q.Name == "bad.test.":
			// The name exists, without records of this type.
		default:
			m.SetRcode(req, dns.RcodeNameError)
		}
		w.WriteMsg(m)
	})
	started := make(chan struct{})
	srv := &dns.Server{PacketConn: pc, Handler: mux, NotifyStartedFunc: func() { close(started) }}
	go srv.ActivateAndServe()
	<-started
	t.Cleanup(func() { srv.Shutdown() })
	return pc.LocalAddr().String()
}

func expected(domain string) []sending.Record {
	key := strings.Repeat("MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA", 8)
	return []sending.Record{
		{Type: "MX", Host: domain, Value: "mx1.mail.test"},
		{Type: "SPF", Host: domain, Value: "v=spf1 include:_spf.mail.test ~all"},
		{Type: "DKIM", Host: "vs1._domainkey." + domain, Value: "v=DKIM1; k=rsa; p=" + key},
		{Type: "DMARC", Host: "_dmarc." + domain, Value: "v=DMARC1; p=none"},
	}
}

func verdicts(checks []sending.RecordCheck) string {
	var out []string
	for _, c := range checks {
		v := "unknown"
		if c.OK != nil {
			v = map[bool]string{true: "ok", false: "missing"}[*c.OK]
		}
		out = append(out, c.Type+"="+v)
	}
	return strings.Join(out, " ")
}

func TestDNSChecksAgainstAnInProcessServer(t *testing.T) {
	t.Parallel()
	r := sending.NewResolver(dnsServer(t), 400*time.Millisecond)
	ctx := context.Background()
	for domain, want := range map[string]string{
		"good.test":    "MX=ok SPF=ok DKIM=ok DMARC=ok",
		"bad.test":     "MX=missing SPF=missing DKIM=missing DMARC=missing",
		"nowhere.test": "MX=missing SPF=missing DKIM=missing DMARC=missing",
		"slow.test":    "MX=unknown SPF=unknown DKIM=unknown DMARC=unknown",
		"fail.test":    "MX=unknown SPF=unknown DKIM=unknown DMARC=unknown",
	} {
		t.Run(domain, func(t *testing.T) {
			if got := verdicts(sending.CheckRecords(ctx, r, expected(domain))); got != want {
				t.Errorf("%s, want %s", got, want)
			}
		})
	}
	bad := sending.CheckRecords(ctx, r, expected("bad.test"))
	if bad[0].Found != "mx.elsewhere.test" || bad[1].Found != "v=spf1 -all" {
		t.Errorf("found on bad.test: %q %q", bad[0].Found, bad[1].Found)
	}
}
