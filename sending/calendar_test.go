package sending

import (
	"strings"
	"testing"
	"time"
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
			if got := weekdays.addBusinessDays(at(tc.from), tc.n); !got.Equal(at(tc.want)) {
				t.Errorf("%s + %d business days = %s, want %s", tc.from, tc.n, got, tc.want)
			}
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
			cal      Config
			from, to string
			want     int
		}{
			{weekdays, "2026-12-04T00:00:00Z", "2026-12-14T00:00:00Z", 7},
			{weekdays, "2026-12-14T00:00:00Z", "2026-12-04T00:00:00Z", 0},
			{weekdays, "2026-12-21T00:00:00Z", "2027-01-01T00:00:00Z", 10},
			{christmas, "2026-12-21T00:00:00Z", "2027-01-01T00:00:00Z", 8},
		} {
			if got := tc.cal.businessDaysBetween(at(tc.from), at(tc.to)); got != tc.want {
				t.Errorf("%s to %s with holidays %v: %d business days, want %d", tc.from, tc.to, tc.cal.Holidays, got, tc.want)
			}
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
	if c.Provider != "sandbox" || c.EmailsPerMailbox != 30 || c.MailboxesPerDomain != 3 || c.DomainPrices["com"] != 1500 ||
		c.MailboxPrice != 500 || c.WarmedMailboxPrice != 1000 || c.RDAPTimeout != 5*time.Second || c.DNSServer != "" {
		t.Fatalf("defaults: %+v", c)
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
	if c.Provider != "rdap" || c.EmailsPerMailbox != 25 || c.MailboxesPerDomain != 5 || c.DomainPrices["com"] != 1250 || c.DomainPrices["io"] != 4000 ||
		c.DomainPrices["org"] != 0 || c.MailboxPrice != 400 || c.Currency != "EUR" || c.RDAPServers["xyz"] != "https://rdap.example/xyz/" ||
		c.RDAPServers["com"] == "" || c.DNSServer != "127.0.0.1:5353" || c.RDAPTimeout != 2*time.Second ||
		len(c.Holidays) != 2 || !c.Holidays[1].Equal(at("2027-01-01T00:00:00Z")) {
		t.Fatalf("overrides: %+v", c)
	}
	for k, v := range map[string]string{
		"SENDING_PROVIDER": "godaddy", "SENDING_MAILBOXES_PER_DOMAIN": "9", "SENDING_DOMAIN_PRICES": "com=cheap",
		"SENDING_DNS_SERVER": "1.1.1.1", "SENDING_RDAP_TIMEOUT": "forever", "SENDING_CURRENCY": "usd", "SENDING_HOLIDAYS": "25 Dec",
	} {
		_, err := ConfigFromEnv(env(map[string]string{k: v}))
		if err == nil || !containsAll(err.Error(), k, v) {
			t.Errorf("%s=%s: %v", k, v, err)
		}
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
	if len(receipts[0].Records) != 4 || receipts[0].Records[2].Host != "vs1._domainkey.getacme.com" {
		t.Fatalf("records %+v", receipts[0].Records)
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
	if z.Mailboxes != 10 || z.Domains != 4 || z.MonthlyCost.String() != "USD 50.00" || z.YearlyCost.String() != "USD 60.00" ||
		!z.ReadyOn.Equal(at("2026-12-08T00:00:00Z")) || !z.FullVolumeOn.Equal(at("2026-12-29T00:00:00Z")) {
		t.Fatalf("300 a day: %+v", z)
	}
	z, err = s.size(now, SizingRequest{DailyVolume: 300, Source: SourceAlreadyWarmed})
	if err != nil {
		t.Fatal(err)
	}
	if z.MonthlyCost.String() != "USD 100.00" || !z.FullVolumeOn.Equal(at("2026-12-07T00:00:00Z")) {
		t.Fatalf("300 a day, warmed: %+v", z)
	}
	// 3000 leads × 3 emails by Fri 29 Jan 2027: full volume from Tue 29 Dec 2026,
	// 24 business days → 375 a day → 13 mailboxes → 5 domains.
	z, err = s.size(now, SizingRequest{LeadCount: 3000, Deadline: "2027-01-29", Source: SourceOwnNames})
	if err != nil {
		t.Fatal(err)
	}
	if *z.SendingDays != 24 || *z.TotalEmails != 9000 || z.DailyVolume != 375 || z.Mailboxes != 13 || z.Domains != 5 {
		t.Fatalf("3000 leads: days %d total %d daily %d mailboxes %d domains %d", *z.SendingDays, *z.TotalEmails, z.DailyVolume, z.Mailboxes, z.Domains)
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
	for _, bad := range []SizingRequest{{}, {DailyVolume: 10, LeadCount: 5}, {LeadCount: 5}, {Deadline: "2026-12-20"}, {Deadline: "2026-13-01", LeadCount: 5}, {DailyVolume: 10, EmailsPerLead: 2}} {
		if _, err := s.size(now, bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
