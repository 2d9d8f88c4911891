package sending

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"vibesell"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestBusinessDays(t *testing.T) {
	t.Parallel()
	weekdays := DefaultConfig()
	christmas := DefaultConfig()
	christmas.Holidays = []time.Time{at("2026-12-25T00:00:00Z"), at("2027-01-01T00:00:00Z")}

	t.Run("adding skips weekends", func(t *testing.T) {
		for _, tc := range []struct {
			from string
			n    int
			want string
		}{
			{"2026-12-04T10:00:00Z", 2, "2026-12-08T10:00:00Z"}, // Friday → Tuesday
			{"2026-12-05T10:00:00Z", 2, "2026-12-08T10:00:00Z"}, // Saturday → Tuesday
			{"2026-12-06T23:00:00Z", 1, "2026-12-07T23:00:00Z"}, // Sunday → Monday
			{"2026-12-01T09:00:00Z", 2, "2026-12-03T09:00:00Z"}, // Tuesday → Thursday
			{"2026-12-03T09:00:00Z", 0, "2026-12-03T09:00:00Z"},
		} {
			t.Run(fmt.Sprintf("%s+%d", tc.from, tc.n), func(t *testing.T) {
				if got := weekdays.addBusinessDays(at(tc.from), tc.n); !got.Equal(at(tc.want)) {
					t.Errorf("%s + %d business days = %s, want %s", tc.from, tc.n, got, tc.want)
				}
			})
		}
	})
	t.Run("adding skips holidays", func(t *testing.T) {
		// Thursday 24 Dec + 2: Friday 25 is Christmas, so Monday 28 and Tuesday 29.
		if got, want := christmas.addBusinessDays(at("2026-12-24T10:00:00Z"), 2), at("2026-12-29T10:00:00Z"); !got.Equal(want) {
			t.Errorf("24 Dec + 2 business days = %s, want %s", got, want)
		}
	})
	t.Run("counting", func(t *testing.T) {
		for _, tc := range []struct {
			name     string
			cal      Config
			from, to string
			want     int
		}{
			{"two weeks", weekdays, "2026-12-04T00:00:00Z", "2026-12-14T00:00:00Z", 7},
			{"backwards", weekdays, "2026-12-14T00:00:00Z", "2026-12-04T00:00:00Z", 0},
			{"over the new year", weekdays, "2026-12-21T00:00:00Z", "2027-01-01T00:00:00Z", 10},
			{"over the new year with holidays", christmas, "2026-12-21T00:00:00Z", "2027-01-01T00:00:00Z", 8},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if got := tc.cal.businessDaysBetween(at(tc.from), at(tc.to)); got != tc.want {
					t.Errorf("%s to %s with holidays %v: %d business days, want %d", tc.from, tc.to, tc.cal.Holidays, got, tc.want)
				}
			})
		}
	})
	t.Run("the next business day", func(t *testing.T) {
		if got := weekdays.onOrAfterBusinessDay(at("2026-12-26T15:00:00Z")); !got.Equal(at("2026-12-28T00:00:00Z")) {
			t.Errorf("Saturday 26 Dec → %s, want Monday 28 Dec", got)
		}
		if got := christmas.onOrAfterBusinessDay(at("2026-12-25T15:00:00Z")); !got.Equal(at("2026-12-28T00:00:00Z")) {
			t.Errorf("Christmas → %s, want Monday 28 Dec", got)
		}
	})
}

func TestConfigFromEnv(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	c, err := ConfigFromEnv(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	// The documented defaults; the RDAP servers are checked with the
	// overrides below, which keep them.
	want := Config{Provider: "sandbox", EmailsPerMailbox: 30, MailboxesPerDomain: 3, Currency: "USD",
		DomainPrices: map[string]int64{"com": 1500, "net": 1500, "org": 1500}, MailboxPrice: 500, WarmedMailboxPrice: 1000,
		PrepBusinessDays: 2, WarmedPrepBusinessDays: 1, WarmupDays: 21, RampStart: 2, RampStep: 2,
		RDAPTimeout: 5 * time.Second, DNSTimeout: 3 * time.Second}
	if diff := cmp.Diff(want, c, cmpopts.IgnoreFields(Config{}, "RDAPServers")); diff != "" {
		t.Fatalf("defaults mismatch (-want +got):\n%s", diff)
	}
	c, err = ConfigFromEnv(env(map[string]string{
		"SENDING_PROVIDER": "rdap", "SENDING_EMAILS_PER_MAILBOX": "25", "SENDING_MAILBOXES_PER_DOMAIN": "5",
		"SENDING_DOMAIN_PRICES": "com=12.5, .io=40", "SENDING_MAILBOX_PRICE": "4", "SENDING_CURRENCY": "EUR",
		"SENDING_RDAP_SERVERS": "xyz=https://rdap.example/xyz/", "SENDING_DNS_SERVER": "127.0.0.1:5353", "SENDING_RDAP_TIMEOUT": "2s",
		"SENDING_HOLIDAYS": "2026-12-25, 2027-01-01",
	}))
	if err != nil {
		t.Fatal(err)
	}
	// What is not set keeps its default; the servers added to the
	// default ones.
	want = DefaultConfig()
	want.Provider, want.EmailsPerMailbox, want.MailboxesPerDomain, want.Currency = "rdap", 25, 5, "EUR"
	want.DomainPrices, want.MailboxPrice = map[string]int64{"com": 1250, "io": 4000}, 400
	want.RDAPServers["xyz"] = "https://rdap.example/xyz/"
	want.DNSServer, want.RDAPTimeout = "127.0.0.1:5353", 2*time.Second
	want.Holidays = []time.Time{at("2026-12-25T00:00:00Z"), at("2027-01-01T00:00:00Z")}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Fatalf("overrides mismatch (-want +got):\n%s", diff)
	}
	if c.RDAPServers["com"] == "" {
		t.Errorf("overrides lost the default RDAP server for com: %v", c.RDAPServers)
	}
	for k, v := range map[string]string{
		"SENDING_PROVIDER": "godaddy", "SENDING_MAILBOXES_PER_DOMAIN": "9", "SENDING_DOMAIN_PRICES": "com=cheap",
		"SENDING_DNS_SERVER": "1.1.1.1", "SENDING_RDAP_TIMEOUT": "forever", "SENDING_CURRENCY": "usd", "SENDING_HOLIDAYS": "25 Dec",
	} {
		t.Run(k, func(t *testing.T) {
			_, err := ConfigFromEnv(env(map[string]string{k: v}))
			if err == nil || !containsAll(err.Error(), k, v) {
				t.Errorf("%s=%s: %v", k, v, err)
			}
		})
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

func TestSandboxIsDeterministicAndCountsBusinessDays(t *testing.T) {
	t.Parallel()
	sb := NewSandbox(fixed{at("2026-12-04T10:00:00Z")}, DefaultConfig())
	names := []string{"getacme.com", "tryacme.com", "acmehq.com", "acmemail.com", "useacme.com"}
	a, b := sb.Check(t.Context(), names), sb.Check(t.Context(), names)
	for i := range a {
		if (a[i].Available == nil) != (b[i].Available == nil) || (a[i].Available != nil && *a[i].Available != *b[i].Available) {
			t.Fatalf("%s answered differently twice", names[i])
		}
	}
	receipts, err := sb.Order(t.Context(), "", []DomainOrder{{Domain: "getacme.com"}, {Domain: "northfieldmail.com", Warmed: true}})
	if err != nil {
		t.Fatal(err)
	}
	if !receipts[0].ReadyAt.Equal(at("2026-12-08T10:00:00Z")) || !receipts[1].ReadyAt.Equal(at("2026-12-07T10:00:00Z")) {
		t.Fatalf("ordered on a Friday: new ready %s, warmed ready %s; want Tuesday and Monday", receipts[0].ReadyAt, receipts[1].ReadyAt)
	}
	want := []Record{
		{Type: "MX", Host: "getacme.com", Value: "mx1.sandbox.vibesell.invalid"},
		{Type: "SPF", Host: "getacme.com", Value: "v=spf1 include:_spf.sandbox.vibesell.invalid ~all"},
		{Type: "DKIM", Host: "vs1._domainkey.getacme.com", Value: "v=DKIM1; k=rsa; p=IGKx0777TsR7e4KXGTwl1pezFlXNAykPuEiVnXrRX+kgYrHTvvtOxHt7gpcZPCXWl7MWVc0DKQ+4SJWdetFf6Q=="},
		{Type: "DMARC", Host: "_dmarc.getacme.com", Value: "v=DMARC1; p=none; rua=mailto:dmarc@getacme.com"},
	}
	if diff := cmp.Diff(want, receipts[0].Records); diff != "" {
		t.Fatalf("records mismatch (-want +got):\n%s", diff)
	}
}

type fixed struct{ t time.Time }

func (f fixed) Now() time.Time { return f.t }

func TestLookalikes(t *testing.T) {
	t.Parallel()
	s := &Service{cfg: DefaultConfig()}
	got := s.Lookalikes("acme.com")
	if len(got) != 16 || got[0] != "getacme.com" || got[2] != "acmehq.com" || got[8] != "acme-mail.com" {
		t.Fatalf("lookalikes of acme.com: %v", got)
	}
	org := s.Lookalikes("acme.org")
	if len(org) != 32 || org[16] != "getacme.org" {
		t.Fatalf("lookalikes of acme.org: %v", org)
	}
	if uk := s.Lookalikes("acme.co.uk"); uk[0] != "getacme.com" || len(uk) != 16 {
		t.Fatalf("lookalikes of acme.co.uk: %v", uk)
	}
}

func TestSizing(t *testing.T) {
	t.Parallel()
	s := &Service{cfg: DefaultConfig()}
	now := at("2026-12-04T10:00:00Z")
	z, err := s.size(now, SizingRequest{DailyVolume: 300, Source: SourceOwnNames})
	if err != nil {
		t.Fatal(err)
	}
	usd := func(cents int64) vibesell.Money { return vibesell.NewMoney(cents, "USD") }
	// 300 a day at 30 per mailbox: 10 mailboxes, 3 to a domain: 4 domains.
	want := Sizing{Source: SourceOwnNames, DailyVolume: 300, EmailsPerMailbox: 30, MailboxesPerDomain: 3, Mailboxes: 10, Domains: 4,
		MailboxPrice: usd(500), DomainPrice: usd(1500), MonthlyCost: usd(5000), YearlyCost: usd(6000),
		ReadyOn: at("2026-12-08T00:00:00Z"), FullVolumeOn: at("2026-12-29T00:00:00Z")}
	if diff := cmp.Diff(want, z); diff != "" {
		t.Fatalf("300 a day mismatch (-want +got):\n%s", diff)
	}
	z, err = s.size(now, SizingRequest{DailyVolume: 300, Source: SourceAlreadyWarmed})
	if err != nil {
		t.Fatal(err)
	}
	// Already warmed: handed over Monday, at full volume that day.
	want.Source, want.MailboxPrice, want.MonthlyCost = SourceAlreadyWarmed, usd(1000), usd(10000)
	want.ReadyOn, want.FullVolumeOn = at("2026-12-07T00:00:00Z"), at("2026-12-07T00:00:00Z")
	if diff := cmp.Diff(want, z); diff != "" {
		t.Fatalf("300 a day, warmed, mismatch (-want +got):\n%s", diff)
	}
	// 3000 leads × 3 emails by Fri 29 Jan 2027: full volume from Tue 29 Dec 2026,
	// 24 business days → 375 a day → 13 mailboxes → 5 domains.
	z, err = s.size(now, SizingRequest{LeadCount: 3000, Deadline: "2027-01-29", Source: SourceOwnNames})
	if err != nil {
		t.Fatal(err)
	}
	want = Sizing{Source: SourceOwnNames, DailyVolume: 375, LeadCount: new(3000), Deadline: new(at("2027-01-29T00:00:00Z")),
		EmailsPerLead: new(3), TotalEmails: new(9000), SendingDays: new(24), EmailsPerMailbox: 30, MailboxesPerDomain: 3,
		Mailboxes: 13, Domains: 5, MailboxPrice: usd(500), DomainPrice: usd(1500), MonthlyCost: usd(6500), YearlyCost: usd(7500),
		ReadyOn: at("2026-12-08T00:00:00Z"), FullVolumeOn: at("2026-12-29T00:00:00Z")}
	if diff := cmp.Diff(want, z); diff != "" {
		t.Fatalf("3000 leads mismatch (-want +got):\n%s", diff)
	}
	// With New Year's Day a holiday, 23 sending days: 392 a day.
	withHolidays := &Service{cfg: DefaultConfig()}
	withHolidays.cfg.Holidays = []time.Time{at("2026-12-25T00:00:00Z"), at("2027-01-01T00:00:00Z")}
	if z, err = withHolidays.size(now, SizingRequest{LeadCount: 3000, Deadline: "2027-01-29", Source: SourceOwnNames}); err != nil {
		t.Fatal(err)
	}
	if *z.SendingDays != 23 || z.DailyVolume != 392 {
		t.Errorf("3000 leads with holidays: days %d daily %d, want 23 and 392", *z.SendingDays, z.DailyVolume)
	}
	_, err = s.size(now, SizingRequest{LeadCount: 3000, Deadline: "2026-12-20", Source: SourceOwnNames})
	if err == nil || !containsAll(err.Error(), "Sun 20 Dec 2026", "Tue 29 Dec 2026", "Mon 7 Dec 2026") {
		t.Fatalf("too early: %v", err)
	}
	for name, bad := range map[string]SizingRequest{
		"nothing asked":                 {},
		"a volume and a lead count":     {DailyVolume: 10, LeadCount: 5},
		"leads without a deadline":      {LeadCount: 5},
		"a deadline without leads":      {Deadline: "2026-12-20"},
		"a deadline that is not a date": {Deadline: "2026-13-01", LeadCount: 5},
		"emails per lead with a volume": {DailyVolume: 10, EmailsPerLead: 2},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := s.size(now, bad); err == nil {
				t.Error("accepted")
			}
		})
	}
}
