package audience_test

import (
	"encoding/json"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/miekg/dns"

	"vibesell/approvals"
	"vibesell/audience"
	"vibesell/billing"
)

// mailDNS is a DNS server on 127.0.0.1 for the list check: mx.test has
// mail servers, aonly.test only an address, empty.test exists without
// records, nullmx.test says it takes no mail (RFC 7505), and every other
// name does not exist. It counts the questions asked per name.
func mailDNS(t *testing.T) (addr string, asked func(name string) int) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	questions := map[string]int{}
	hdr := func(name string, typ uint16) dns.RR_Header {
		return dns.RR_Header{Name: name, Rrtype: typ, Class: dns.ClassINET, Ttl: 60}
	}
	mux := dns.NewServeMux()
	mux.HandleFunc(".", func(w dns.ResponseWriter, req *dns.Msg) {
		q := req.Question[0]
		mu.Lock()
		questions[strings.ToLower(q.Name)]++
		mu.Unlock()
		m := new(dns.Msg)
		m.SetReply(req)
		m.RecursionAvailable = true // a resolver answers, as SENDING_DNS_SERVER is
		switch name := strings.ToLower(q.Name); {
		case name == "fail.test.":
			m.SetRcode(req, dns.RcodeServerFailure)
		case name == "mx.test." && q.Qtype == dns.TypeMX:
			m.Answer = append(m.Answer, &dns.MX{Hdr: hdr(q.Name, dns.TypeMX), Preference: 10, Mx: "mail.mx.test."})
		case name == "nullmx.test." && q.Qtype == dns.TypeMX:
			m.Answer = append(m.Answer, &dns.MX{Hdr: hdr(q.Name, dns.TypeMX), Preference: 0, Mx: "."})
		case name == "aonly.test." && q.Qtype == dns.TypeA:
			m.Answer = append(m.Answer, &dns.A{Hdr: hdr(q.Name, dns.TypeA), A: net.IPv4(192, 0, 2, 1)})
		case name == "mx.test." || name == "aonly.test." || name == "empty.test." || name == "nullmx.test.":
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
	return pc.LocalAddr().String(), func(name string) int {
		mu.Lock()
		defer mu.Unlock()
		return questions[name]
	}
}

func TestUploadHygiene(t *testing.T) {
	t.Parallel()
	server, asked := mailDNS(t)
	b := setupWith(t, audience.Config{}, billing.DefaultConfig().Plans[0].Limits.LeadsPerMonth, audience.NewMailDomains(server))
	ctx := t.Context()
	acme := b.ws.Acme.ID

	file := "email,first_name\n" +
		"ana@mx.test,Ana\n" + // 2: mail servers
		"bob@aonly.test,Bob\n" + // 3: only an address: mail goes there
		"cid@nowhere.test,Cid\n" + // 4: no such domain
		"dan@empty.test,Dan\n" + // 5: a domain without MX or address
		"eve@nullmx.test,Eve\n" + // 6: a null MX
		"fay@mailinator.com,Fay\n" + // 7: disposable
		"info@mx.test,\n" + // 8: a role address
		"gus@MX.test,Gus\n" + // 9: mail servers
		"hal@fail.test,Hal\n" // 10: the DNS fails: not flagged, said
	up, err := b.svc.StoreUpload(ctx, acme, "list.csv", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	checked, err := b.svc.CheckUpload(ctx, acme, up.ID, up.Suggested)
	if err != nil {
		t.Fatal(err)
	}
	wantFlags := []audience.FlaggedLine{
		{Line: 4, Email: "cid@nowhere.test", Flag: audience.FlagNoMailServer},
		{Line: 5, Email: "dan@empty.test", Flag: audience.FlagNoMailServer},
		{Line: 6, Email: "eve@nullmx.test", Flag: audience.FlagNoMailServer},
		{Line: 7, Email: "fay@mailinator.com", Flag: audience.FlagDisposable},
		{Line: 8, Email: "info@mx.test", Flag: audience.FlagRole},
	}
	if d := cmp.Diff(wantFlags, checked.FlaggedLines); d != "" {
		t.Errorf("flagged rows mismatch (-want +got):\n%s", d)
	}
	wantCounts := []audience.FlagCount{{Flag: audience.FlagNoMailServer, Count: 3}, {Flag: audience.FlagDisposable, Count: 1}, {Flag: audience.FlagRole, Count: 1}}
	if d := cmp.Diff(wantCounts, checked.FlagCounts); d != "" {
		t.Errorf("flag counts mismatch (-want +got):\n%s", d)
	}
	if checked.Valid != 9 || checked.Flagged != 5 || checked.UnansweredDomains != 1 {
		t.Errorf("valid %d, flagged %d, domains unanswered %d; want 9, 5 and 1", checked.Valid, checked.Flagged, checked.UnansweredDomains)
	}

	t.Run("each domain is asked once, and again from the cache not at all", func(t *testing.T) {
		if n := asked("mailinator.com."); n != 0 {
			t.Errorf("a disposable domain was looked up %d times", n)
		}
		before := asked("mx.test.")
		if before != 1 {
			t.Errorf("mx.test was asked %d times for two addresses; want once (its MX)", before)
		}
		if _, err := b.svc.CheckUpload(ctx, acme, up.ID, up.Suggested); err != nil {
			t.Fatal(err)
		}
		if n := asked("mx.test."); n != before {
			t.Errorf("checking again asked mx.test %d more times; want its cached answer", n-before)
		}
		if n := asked("fail.test."); n < 2 {
			t.Errorf("fail.test was asked %d times in two checks; a failure is not kept, so want it asked again", n)
		}
	})

	skipped := func(a approvals.Approval) bool {
		var args struct {
			SkipFlagged *bool `json:"skipFlagged"`
		}
		if err := json.Unmarshal(a.Arguments, &args); err != nil || args.SkipFlagged == nil {
			t.Fatalf("arguments %s: %v", a.Arguments, err)
		}
		return *args.SkipFlagged
	}
	skip, _, err := b.svc.RequestImport(ctx, acme, audience.ImportRequest{Upload: up.ID})
	if err != nil {
		t.Fatal(err)
	}
	keep, _, err := b.svc.RequestImport(ctx, acme, audience.ImportRequest{Upload: up.ID, KeepFlagged: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("the approval states the flags and the choice", func(t *testing.T) {
		if skip.ID == keep.ID || !skipped(skip) || skipped(keep) {
			t.Errorf("skip %s (%s), keep %s (%s): want two approvals, each with its choice in its arguments", skip.ID, skip.Arguments, keep.ID, keep.Arguments)
		}
		flags := "3 with a domain that has no mail server, 1 with a disposable-address domain and 1 with a role address (info@, sales@…)"
		unanswered := "Domains not looked up (the DNS failed or did not answer in time): 1; rows at them are not flagged for mail servers"
		want := []string{"Rows in the file: 9", "Skipped: 5 flagged by the list check, as chosen: " + flags, unanswered, "Imported: 4, every importable row",
			"Plan: 4 of the 250 leads the Free plan allows this month (0 in use before it); 246 left after it"}
		if d := cmp.Diff(want, skip.Impact.Items); d != "" {
			t.Errorf("impact skipping mismatch (-want +got):\n%s", d)
		}
		want = []string{"Rows in the file: 9", "Flagged by the list check but imported, as chosen: " + flags, unanswered, "Imported: 9, every importable row",
			"Plan: 9 of the 250 leads the Free plan allows this month (0 in use before it); 241 left after it"}
		if d := cmp.Diff(want, keep.Impact.Items); d != "" {
			t.Errorf("impact keeping mismatch (-want +got):\n%s", d)
		}
	})

	leads := func() []string {
		var emails []string
		rows, _ := b.pool.Query(ctx, `SELECT email FROM leads WHERE workspace_id = $1 ORDER BY email`, acme)
		for rows.Next() {
			var e string
			rows.Scan(&e)
			emails = append(emails, e)
		}
		return emails
	}
	run := func(a approvals.Approval) {
		t.Helper()
		if _, _, err := b.approvals.Decide(ctx, acme, a.ID, approvals.Decision{Approve: true, By: "ada", Via: approvals.ViaWeb}); err != nil {
			t.Fatal(err)
		}
		if err := b.approvals.Execute(ctx, acme, a.ID, 1, approvals.MaxExecutionAttempts); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("skipping imports the rows not flagged", func(t *testing.T) {
		run(skip)
		if d := cmp.Diff([]string{"ana@mx.test", "bob@aonly.test", "gus@mx.test", "hal@fail.test"}, leads()); d != "" {
			t.Errorf("leads mismatch (-want +got):\n%s", d)
		}
		got, _ := b.approvals.Find(ctx, acme, skip.ID)
		if got.Outcome == nil {
			t.Fatal("no outcome")
		}
		if want := "Not imported: 5 flagged by the list check (no mail server, disposable-address domain or role address)."; !strings.Contains(*got.Outcome, want) {
			t.Errorf("outcome %q does not say %q", *got.Outcome, want)
		}
	})
	t.Run("keeping imports the flagged rows too", func(t *testing.T) {
		run(keep)
		want := []string{"ana@mx.test", "bob@aonly.test", "cid@nowhere.test", "dan@empty.test", "eve@nullmx.test", "fay@mailinator.com", "gus@mx.test", "hal@fail.test", "info@mx.test"}
		if d := cmp.Diff(want, leads()); d != "" {
			t.Errorf("leads mismatch (-want +got):\n%s", d)
		}
	})
}

func TestDisposableList(t *testing.T) {
	t.Parallel()
	exact, wildcard := audience.DisposableListSize()
	if exact < 100_000 || wildcard < 300 {
		t.Errorf("the embedded list holds %d domains and %d wildcard domains; want the whole list (over 100,000 and 300)", exact, wildcard)
	}
	for domain, want := range map[string]bool{
		"mailinator.com":     true,
		"yopmail.com":        true,
		"0x01.gq":            true, // listed as a wildcard: itself
		"any.name.0x01.gq":   true, // and any name under it
		"gmail.com":          false,
		"ledgerbase.example": false,
		"mailinator.com.au":  false,
	} {
		if got := audience.IsDisposable(domain); got != want {
			t.Errorf("%s: disposable %v, want %v", domain, got, want)
		}
	}
}
