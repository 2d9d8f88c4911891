package delivery_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/delivery/deliverytest"
	"vibesell/replies"
)

// An automatic answer that is not an out-of-office (a ticket opened, a
// mailbox not read) is no person answering: like an out-of-office, it
// neither stops the lead's sequence nor counts as a reply.
func TestAutoReplyNeitherStopsNorCounts(t *testing.T) {
	b := engineSetup(t, engineOptions{noGap: true})
	leads := []vibesell.Lead{
		{Email: "ana@alpha.test", FirstName: "Ana", Company: "Alpha"},
		{Email: "cid@gamma.test", FirstName: "Cid", Company: "Gamma"},
	}
	id := b.launch(t, campaignSpec{leads: leads, mailboxes: []string{"sam@getacme.test"}, dailyCap: 10})

	b.Clock.Set(time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC))
	if res := b.tick(t); res.Sent != 2 {
		t.Fatalf("first tick sent %d, want 2", res.Sent)
	}
	var toAna accepted
	for _, r := range b.delivered(t) {
		if r.to == "ana@alpha.test" {
			toAna = r
		}
	}
	reply := fmt.Sprintf("From: Alpha Support <ana@alpha.test>\nTo: sam@getacme.test\nSubject: Re: %s\nDate: Tue, 1 Dec 2026 10:00:00 +0000\nMessage-ID: <auto1@alpha.test>\nIn-Reply-To: %s\nAuto-Submitted: auto-replied\n\nWe have received your request. Your ticket number is 4411. Please do not reply to this message.\n",
		toAna.subject, toAna.messageID)
	if err := b.sandbox.DeliverReply("sam@getacme.test", deliverytest.CRLF(reply)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.poller.Poll(b.ctx, b.ws, mustMailbox(t, b, "sam@getacme.test")); err != nil {
		t.Fatal(err)
	}
	var classification string
	if err := b.Pool.QueryRow(b.ctx, `SELECT classification FROM mail_replies WHERE workspace_id = $1`, b.ws).Scan(&classification); err != nil {
		t.Fatal(err)
	}
	if classification != replies.AutoReply {
		t.Fatalf("classified %s, want auto_reply", classification)
	}

	b.Clock.Set(time.Date(2026, 12, 3, 9, 30, 0, 0, time.UTC))
	if res := b.tick(t); res.Sent != 2 {
		t.Errorf("follow-ups sent %d, want 2: Ana's automatic answer does not stop her sequence", res.Sent)
	}
	b.Clock.Advance(10 * time.Minute)
	b.tick(t)
	got := b.finishedMetrics(t, id)
	want := []counts{{4, 4, 0, 0, 0, 0}, {2, 2, 0, 0, 0, 0}, {2, 2, 0, 0, 0, 0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metrics: total, step 1, step 2 (-want +got):\n%s", diff)
	}
}
