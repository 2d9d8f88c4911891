package delivery_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/campaigns"
	"vibesell/delivery/deliverytest"
)

// After sends and a reply, the plan and the resume count only the people
// still to get an email, read from the ledger and the replies: not those
// a reply stopped (here Ana and, at her company, Bob).
func TestPlanAndResumeCountWhoIsLeft(t *testing.T) {
	b := engineSetup(t, engineOptions{noGap: true})
	leads := []vibesell.Lead{
		{Email: "ana@alpha.test", FirstName: "Ana", Company: "Alpha"},
		{Email: "bob@alpha.test", FirstName: "Bob", Company: "Alpha"},
		{Email: "cid@gamma.test", FirstName: "Cid", Company: "Gamma"},
	}
	id := b.launch(t, campaignSpec{leads: leads, mailboxes: []string{"sam@getacme.test"}, dailyCap: 10, stopForCompany: true})
	b.Clock.Set(time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC))
	if res := b.tick(t); res.Sent != 3 {
		t.Fatalf("sent %d, want 3", res.Sent)
	}
	sent := map[string]accepted{}
	for _, r := range b.delivered(t) {
		sent[r.to] = r
	}
	// Ana answers twice; Cid is out of the office, which stops no one.
	for i, r := range []struct{ from, text string }{
		{"ana@alpha.test", "Interested, let's talk on Thursday."},
		{"ana@alpha.test", "Also, could you send the price list?"},
		{"cid@gamma.test", "I'm out of the office until 8 December, with limited access to email."},
	} {
		reply := fmt.Sprintf("From: %s\nTo: sam@getacme.test\nSubject: Re: %s\nDate: Tue, 1 Dec 2026 10:0%d:00 +0000\nMessage-ID: <r%d@reply.test>\nIn-Reply-To: %s\n\n%s\n",
			r.from, sent[r.from].subject, i, i, sent[r.from].messageID, r.text)
		if err := b.sandbox.DeliverReply("sam@getacme.test", deliverytest.CRLF(reply)); err != nil {
			t.Fatal(err)
		}
	}
	if kept, err := b.poller.Poll(b.ctx, b.ws, mustMailbox(t, b, "sam@getacme.test")); err != nil || kept != 3 {
		t.Fatalf("replies kept: %d, %v", kept, err)
	}
	// Three replies came in and one person replied: the metrics say which
	// replies that count leaves out.
	m, err := b.Campaigns.MetricsOf(b.ctx, b.ws, b.campaign(t, id).Campaign, b.campaign(t, id).Sequence)
	if err != nil {
		t.Fatal(err)
	}
	if want := "3 replies came in; 1 person replied, not counting 1 out-of-office reply and 1 further reply from someone who had replied already"; m.RepliesNote != want || *m.Replied != 1 {
		t.Errorf("replied %d, note %q; want 1, %q", *m.Replied, m.RepliesNote, want)
	}

	e, err := b.Campaigns.EstimatePlan(b.ctx, b.ws, id)
	if err != nil {
		t.Fatal(err)
	}
	want := campaigns.Progress{FollowUps: []int{0, 1}, Stopped: 2}
	if d := cmp.Diff(&want, e.Progress); d != "" || e.ToWrite != 1 || e.Leads != 3 {
		t.Errorf("the plan's progress (-want +got):\n%s\nto write %d of %d; want 1 of 3", d, e.ToWrite, e.Leads)
	}
	if e.LastFirstTouchOn != nil {
		t.Errorf("every lead had the first email, yet the plan has a last first email on %v", e.LastFirstTouchOn)
	}

	if _, err := b.Campaigns.Pause(b.ctx, b.ws, id, "Stopped by ada.", false); err != nil {
		t.Fatal(err)
	}
	a, _, err := b.Campaigns.RequestResume(b.ctx, b.ws, id, "ada")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"The 1 person still to get an email", "of the 3 people in the campaign", "1 due a follow-up", "2 stopped by a reply"} {
		if !strings.Contains(a.Impact.Who, w) {
			t.Errorf("the resume's impact lacks %q: %s", w, a.Impact.Who)
		}
	}
}
