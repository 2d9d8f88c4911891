package delivery_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/delivery"
)

// nextOf is one of a mailbox's next emails, as a test compares it.
type nextOf struct {
	To   string
	Step int
	At   time.Time
}

func nextEmails(t *testing.T, b *engineBundle, id string) (delivery.NextEmails, map[string][]nextOf) {
	t.Helper()
	n, err := delivery.NewUpcoming(delivery.UpcomingDeps{DB: b.Pool, Campaigns: b.Campaigns, Clock: b.Clock}).Next(b.ctx, b.ws, id, 3)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]nextOf{}
	for _, m := range n.Mailboxes {
		out[m.Mailbox] = []nextOf{}
		for _, e := range m.Emails {
			out[m.Mailbox] = append(out[m.Mailbox], nextOf{e.Lead.Email, e.Step, e.At})
		}
	}
	return n, out
}

// Before the window opens, a launched campaign says when its first emails
// go, mailbox by mailbox, a gap apart, and its follow-ups after; once the
// engine has sent, a mailbox's next email waits for the end of its gap.
func TestNextEmailsPerMailbox(t *testing.T) {
	b := engineSetup(t, engineOptions{})
	leads := []vibesell.Lead{
		{Email: "ana@alpha.test", FirstName: "Ana"}, {Email: "bob@beta.test", FirstName: "Bob"},
		{Email: "cid@gamma.test", FirstName: "Cid"}, {Email: "dan@delta.test", FirstName: "Dan"},
	}
	id := b.launch(t, campaignSpec{leads: leads, mailboxes: []string{"sam@getacme.test", "tom@getacme.test"}, dailyCap: 10})

	// Tue 1 Dec, 07:00 UTC: the window opens at 09:00 (UTC, the
	// workspace's zone and the leads').
	at := func(d, h, m int) time.Time { return time.Date(2026, 12, d, h, m, 0, 0, time.UTC) }
	n, got := nextEmails(t, b, id)
	want := map[string][]nextOf{
		"sam@getacme.test": {{"ana@alpha.test", 1, at(1, 9, 0)}, {"cid@gamma.test", 1, at(1, 9, 2)}, {"ana@alpha.test", 2, at(3, 9, 0)}},
		"tom@getacme.test": {{"bob@beta.test", 1, at(1, 9, 0)}, {"dan@delta.test", 1, at(1, 9, 2)}, {"bob@beta.test", 2, at(3, 9, 0)}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("before the window (-want +got):\n%s", d)
	}
	if !n.Running || n.Waiting == nil || !n.Waiting.Equal(at(1, 9, 0)) || n.MinGap != 2*time.Minute || n.MaxGap != 6*time.Minute {
		t.Errorf("running %v, waiting until %v, gaps %v to %v; want running, until 09:00, 2m to 6m", n.Running, n.Waiting, n.MinGap, n.MaxGap)
	}

	// 09:30: each mailbox sent one; the next waits for its gap of 2 to 6
	// minutes, and nothing says the campaign waits for its window.
	b.Clock.Set(at(1, 9, 30))
	if res := b.tick(t); res.Sent != 2 {
		t.Fatalf("sent %d, want 2", res.Sent)
	}
	n, got = nextEmails(t, b, id)
	if n.Waiting != nil {
		t.Errorf("emails are due, yet it waits until %v", n.Waiting)
	}
	for _, m := range []string{"sam@getacme.test", "tom@getacme.test"} {
		list := got[m]
		if len(list) != 3 || list[0].Step != 1 || list[0].At.Before(at(1, 9, 32)) || list[0].At.After(at(1, 9, 36)) {
			t.Errorf("%s next: %v; want its second lead's first email after its gap, 09:32 to 09:36", m, list)
		}
	}

	// 18:00: the window has closed; the rest waits for Wednesday 09:00.
	b.Clock.Set(at(1, 18, 0))
	if n, _ = nextEmails(t, b, id); n.Waiting == nil || !n.Waiting.Equal(at(2, 9, 0)) {
		t.Errorf("after the window: waiting until %v, want Wednesday 09:00", n.Waiting)
	}

	// Stopped: nothing comes.
	if _, err := b.Campaigns.Pause(b.ctx, b.ws, id, "Stopped by ada.", false); err != nil {
		t.Fatal(err)
	}
	if n, _ = nextEmails(t, b, id); n.Running || len(n.Mailboxes) != 0 {
		t.Errorf("a paused campaign's next emails: %+v", n)
	}
}
