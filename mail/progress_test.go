package mail_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"vibesell/campaigns"
)

// After sends and a reply, the plan and the resume count only the people
// still to get an email, read from the ledger and the replies: not those
// a reply stopped (here Ana and, at her company, Bob).
func TestPlanAndResumeCountWhoIsLeft(t *testing.T) {
	b := engineSetup(t, engineOptions{noGap: true})
	leads := []campaigns.Lead{
		{Email: "ana@alpha.test", FirstName: "Ana", Company: "Alpha"},
		{Email: "bob@alpha.test", FirstName: "Bob", Company: "Alpha"},
		{Email: "cid@gamma.test", FirstName: "Cid", Company: "Gamma"},
	}
	id := b.launch(t, campaignSpec{leads: leads, mailboxes: []string{"sam@getacme.test"}, dailyCap: 10, stopForCompany: true})
	b.Clock.Set(time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC))
	if res := b.tick(t); res.Sent != 3 {
		t.Fatalf("sent %d, want 3", res.Sent)
	}
	var toAna accepted
	for _, r := range b.delivered(t) {
		if r.to == "ana@alpha.test" {
			toAna = r
		}
	}
	reply := fmt.Sprintf("From: Ana <ana@alpha.test>\nTo: sam@getacme.test\nSubject: Re: %s\nDate: Tue, 1 Dec 2026 10:00:00 +0000\nMessage-ID: <r1@alpha.test>\nIn-Reply-To: %s\n\nInterested, let's talk on Thursday.\n",
		toAna.subject, toAna.messageID)
	if err := b.sandbox.DeliverReply("sam@getacme.test", crlf(reply)); err != nil {
		t.Fatal(err)
	}
	if kept, err := b.poller.Poll(b.ctx, b.ws, mustMailbox(t, b, "sam@getacme.test")); err != nil || kept != 1 {
		t.Fatalf("replies kept: %d, %v", kept, err)
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
