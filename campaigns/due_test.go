package campaigns

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"vibesell"
)

// 2026-12-01 is a Tuesday.
func at(day, hour, minute int) time.Time {
	return time.Date(2026, 12, day, hour, minute, 0, 0, time.UTC)
}

// dueRun is a campaign sending 09:00 to 17:00, Monday to Friday, from
// its first send on Tuesday 1 December at 09:00: a first email and a
// follow-up in the same thread two business days later.
func dueRun(t *testing.T, leads []vibesell.Lead, cap int, mailboxes ...Mailbox) Run {
	t.Helper()
	steps := []Step{
		{Subject: "Lists at {{company|your team}}", Body: "Hi {{first_name}},\n\nWorth a call?"},
		{Body: "Hi {{first_name}}, a nudge.", WaitBusinessDays: 2, SameThread: true},
	}
	parsed, err := parseSteps(steps)
	if err != nil {
		t.Fatal(err)
	}
	first := at(1, 9, 0)
	var addresses []string
	for _, m := range mailboxes {
		addresses = append(addresses, m.Address)
	}
	return Run{
		Campaign: Campaign{ID: "cp_1", Status: Sending, Mailboxes: addresses, FirstSendAt: &first,
			Schedule: Schedule{WindowStart: 9 * 60, WindowEnd: 17 * 60, DailyCap: cap,
				Days: []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday}}},
		Sequence:  Sequence{Steps: steps},
		Mailboxes: mailboxes,
		Leads:     leads,
		parsed:    parsed,
		location:  time.UTC,
	}
}

var (
	ana = vibesell.Lead{ID: 1, Email: "ana@alpha.test", FirstName: "Ana"}
	ben = vibesell.Lead{ID: 2, Email: "ben@beta.test", FirstName: "Ben", TimeZone: "America/New_York"}
	cid = vibesell.Lead{ID: 3, Email: "cid@gamma.test"} // no first name, and the sequence has no fallback
	dan = vibesell.Lead{ID: 4, Email: "dan@delta.test", FirstName: "Dan"}

	sam = Mailbox{Address: "sam@getacme.test", State: "warm", DailyLimit: 30, FullVolume: 30}
	kim = Mailbox{Address: "kim@getacme.test", State: "warm", DailyLimit: 30, FullVolume: 30}
)

// sentAt is a first email that went out from sam.
func sentAt(when time.Time) []SendRecord {
	return []SendRecord{{Step: 1, ClaimedAt: when, Mailbox: sam.Address, MessageID: "<1@getacme.test>", Attempts: 1}}
}

// describe writes a Due as "open N; mailbox: lead/step …".
func describe(d Due) string {
	var b strings.Builder
	fmt.Fprintf(&b, "open %d", d.Open)
	for _, m := range d.Mailboxes {
		fmt.Fprintf(&b, "; %s:", m.Mailbox)
		for _, s := range m.Steps {
			fmt.Fprintf(&b, " %s/%d", strings.Split(s.Lead.Email, "@")[0], s.Step)
			if len(s.Prior) > 0 {
				fmt.Fprintf(&b, "(after %d)", len(s.Prior))
			}
		}
		if m.Waiting {
			b.WriteString(" waiting")
		}
	}
	return b.String()
}

func TestDue(t *testing.T) {
	reachable := func(mbs ...Mailbox) map[string]MailboxToday {
		out := map[string]MailboxToday{}
		for _, m := range mbs {
			out[m.Address] = MailboxToday{Reachable: true}
		}
		return out
	}
	tests := []struct {
		name      string
		leads     []vibesell.Lead
		cap       int
		mailboxes []Mailbox
		facts     DueFacts
		want      string
	}{
		{name: "before the first send nothing goes, every lead waits",
			leads: []vibesell.Lead{ana, dan}, facts: DueFacts{Now: at(1, 8, 59)},
			want: "open 2"},
		{name: "the first step goes in the window of the lead's zone; a lead with a hole never",
			leads: []vibesell.Lead{ana, ben, cid}, facts: DueFacts{Now: at(1, 9, 30)},
			want: "open 2; sam@getacme.test: ana/1"},
		{name: "the lead's own zone opens later",
			leads: []vibesell.Lead{ana, ben}, facts: DueFacts{Now: at(1, 14, 0)},
			want: "open 2; sam@getacme.test: ana/1 ben/1"},
		{name: "no email on a weekend",
			leads: []vibesell.Lead{ana}, facts: DueFacts{Now: at(5, 10, 0)},
			want: "open 1"},
		{name: "a follow-up waits its business days",
			leads: []vibesell.Lead{ana}, facts: DueFacts{Now: at(2, 16, 0), Ledger: map[int64][]SendRecord{1: sentAt(at(1, 9, 30))}},
			want: "open 1"},
		{name: "then goes in the same thread, from the lead's mailbox",
			leads: []vibesell.Lead{ana}, mailboxes: []Mailbox{kim, sam},
			facts: DueFacts{Now: at(3, 9, 0), Ledger: map[int64][]SendRecord{1: sentAt(at(1, 9, 30))}},
			want:  "open 1; sam@getacme.test: ana/2(after 1)"},
		{name: "business days skip the weekend: Friday's first email, Tuesday's follow-up",
			leads: []vibesell.Lead{ana}, facts: DueFacts{Now: at(7, 16, 0), Ledger: map[int64][]SendRecord{1: sentAt(at(4, 9, 30))}},
			want: "open 1"},
		{name: "Tuesday comes",
			leads: []vibesell.Lead{ana}, facts: DueFacts{Now: at(8, 9, 0), Ledger: map[int64][]SendRecord{1: sentAt(at(4, 9, 30))}},
			want: "open 1; sam@getacme.test: ana/2(after 1)"},
		{name: "every step had: the campaign is done",
			leads: []vibesell.Lead{ana},
			facts: DueFacts{Now: at(8, 9, 0), Ledger: map[int64][]SendRecord{1: append(sentAt(at(1, 9, 30)), SendRecord{Step: 2, ClaimedAt: at(3, 9, 0), Mailbox: sam.Address, Attempts: 1})}},
			want:  "open 0"},
		{name: "a stopped lead gets nothing and is not waited for",
			leads: []vibesell.Lead{ana, dan}, facts: DueFacts{Now: at(1, 9, 30), Stopped: map[int64]bool{1: true}},
			want: "open 1; sam@getacme.test: dan/1"},
		{name: "the campaign's daily cap counts what it sent from the mailbox today",
			leads: []vibesell.Lead{ana, dan, ben}, cap: 2,
			facts: DueFacts{Now: at(1, 15, 0), Mailboxes: map[string]MailboxToday{sam.Address: {Reachable: true, SentByCampaign: 1, SentAll: 1}}},
			want:  "open 3; sam@getacme.test: ana/1"},
		{name: "the warmup stage's limit counts every campaign's sends",
			leads: []vibesell.Lead{ana, dan}, mailboxes: []Mailbox{{Address: sam.Address, State: "warming", DailyLimit: 5, FullVolume: 30}},
			facts: DueFacts{Now: at(1, 15, 0), Mailboxes: map[string]MailboxToday{sam.Address: {Reachable: true, SentAll: 5}}},
			want:  "open 2"},
		{name: "a new lead takes the mailbox with the most room",
			leads: []vibesell.Lead{ana, dan}, cap: 10, mailboxes: []Mailbox{sam, kim},
			facts: DueFacts{Now: at(1, 15, 0), Mailboxes: map[string]MailboxToday{
				sam.Address: {Reachable: true, SentByCampaign: 9, SentAll: 9}, kim.Address: {Reachable: true, SentByCampaign: 7, SentAll: 7}}},
			want: "open 2; kim@getacme.test: ana/1 dan/1"},
		{name: "new leads share the room out",
			leads: []vibesell.Lead{ana, dan}, cap: 10, mailboxes: []Mailbox{sam, kim}, facts: DueFacts{Now: at(1, 15, 0)},
			want: "open 2; sam@getacme.test: ana/1; kim@getacme.test: dan/1"},
		{name: "a mailbox that cannot be reached sends nothing",
			leads: []vibesell.Lead{ana}, mailboxes: []Mailbox{sam},
			facts: DueFacts{Now: at(1, 15, 0), Mailboxes: map[string]MailboxToday{}},
			want:  "open 1"},
		{name: "a mailbox in its gap waits",
			leads: []vibesell.Lead{ana},
			facts: DueFacts{Now: at(1, 15, 0), Mailboxes: map[string]MailboxToday{sam.Address: {Reachable: true, NextAt: at(1, 15, 4)}}},
			want:  "open 1; sam@getacme.test: ana/1 waiting"},
		{name: "a paced mailbox sends one a tick, follow-ups first",
			leads: []vibesell.Lead{ana, dan},
			facts: DueFacts{Now: at(3, 9, 0), Paced: true, Ledger: map[int64][]SendRecord{4: sentAt(at(1, 9, 30))}},
			want:  "open 2; sam@getacme.test: dan/2(after 1)"},
		{name: "a failed step waits for its back-off",
			leads: []vibesell.Lead{ana},
			facts: DueFacts{Now: at(1, 10, 0), MaxAttempts: 3, Ledger: map[int64][]SendRecord{1: {{Step: 1, Failed: true, ClaimedAt: at(1, 9, 30), Mailbox: sam.Address, Attempts: 1, RetryAt: ptr(at(1, 10, 15))}}}},
			want:  "open 1"},
		{name: "then is tried again from its mailbox",
			leads: []vibesell.Lead{ana},
			facts: DueFacts{Now: at(1, 10, 15), MaxAttempts: 3, Ledger: map[int64][]SendRecord{1: {{Step: 1, Failed: true, ClaimedAt: at(1, 9, 30), Mailbox: sam.Address, Attempts: 1, RetryAt: ptr(at(1, 10, 15))}}}},
			want:  "open 1; sam@getacme.test: ana/1"},
		{name: "until its last try",
			leads: []vibesell.Lead{ana},
			facts: DueFacts{Now: at(1, 16, 0), MaxAttempts: 3, Ledger: map[int64][]SendRecord{1: {{Step: 1, Failed: true, ClaimedAt: at(1, 9, 30), Mailbox: sam.Address, Attempts: 3}}}},
			want:  "open 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.cap == 0 {
				tt.cap = 25
			}
			if tt.mailboxes == nil {
				tt.mailboxes = []Mailbox{sam}
			}
			if tt.facts.Mailboxes == nil {
				tt.facts.Mailboxes = reachable(tt.mailboxes...)
			}
			if tt.facts.MaxAttempts == 0 {
				tt.facts.MaxAttempts = 3
			}
			got := describe(dueRun(t, tt.leads, tt.cap, tt.mailboxes...).Due(tt.facts))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("due (-want +got):\n%s", diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// NextDueAt reads the schedule forward: before the window, its opening
// (14:00 UTC for Ben in New York); a follow-up, its business days after
// the first email, in the window; a failed step, its back-off; nothing
// for a lead with every step sent, one a reply stopped, or one whose
// email would have a hole (Cid).
func TestNextDueAt(t *testing.T) {
	retry := at(1, 11, 0)
	both := append(sentAt(at(1, 9, 5)), SendRecord{Step: 2, ClaimedAt: at(3, 9, 0), Mailbox: sam.Address, Attempts: 1})
	for _, c := range []struct {
		name    string
		leads   []vibesell.Lead
		ledger  map[int64][]SendRecord
		stopped map[int64]bool
		now     time.Time
		want    time.Time // zero: none to come
	}{
		{name: "the window opens for Ben", leads: []vibesell.Lead{ben}, now: at(1, 7, 0), want: at(1, 14, 0)},
		{name: "the earliest of two", leads: []vibesell.Lead{ben, ana}, now: at(1, 7, 0), want: at(1, 9, 0)},
		{name: "due now", leads: []vibesell.Lead{ana}, now: at(1, 10, 0), want: at(1, 10, 0)},
		{name: "a follow-up", leads: []vibesell.Lead{ana}, ledger: map[int64][]SendRecord{1: sentAt(at(1, 9, 5))}, now: at(1, 10, 0), want: at(3, 9, 0)},
		{name: "a retry", leads: []vibesell.Lead{ana}, ledger: map[int64][]SendRecord{1: {{Step: 1, Failed: true, ClaimedAt: at(1, 9, 5), RetryAt: &retry, Attempts: 1}}},
			now: at(1, 10, 0), want: retry},
		{name: "every step sent", leads: []vibesell.Lead{ana}, ledger: map[int64][]SendRecord{1: both}, now: at(3, 10, 0)},
		{name: "stopped by a reply", leads: []vibesell.Lead{ana}, stopped: map[int64]bool{1: true}, now: at(1, 10, 0)},
		{name: "a hole in the email", leads: []vibesell.Lead{cid}, now: at(1, 10, 0)},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := dueRun(t, c.leads, 10, sam).NextDueAt(DueFacts{Now: c.now, Ledger: c.ledger, Stopped: c.stopped, MaxAttempts: 3})
			if ok != !c.want.IsZero() || ok && !got.Equal(c.want) {
				t.Errorf("next due %v (%v), want %v", got, ok, c.want)
			}
		})
	}
}
