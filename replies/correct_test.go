package replies_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"

	"vibesell"
	"vibesell/delivery"
	"vibesell/delivery/deliverytest"
	"vibesell/replies"
)

// A person corrects a classification: the reply keeps what the rules
// read and who corrected it, and the campaign's tallies, the lists and
// the replies waiting for an answer read the corrected class.
func TestCorrectReply(t *testing.T) {
	b := deliverytest.Setup(t)
	spring := deliverytest.NewCampaignID()
	sam, lee := deliverytest.NewLeadID(), deliverytest.NewLeadID()
	toSam := b.SendTo(t, spring, sam, "Sam Okafor", "sam@acme-corp.example")
	toLee := b.SendTo(t, spring, lee, "Lee Park", "lee@bolt.example")
	for _, raw := range [][]byte{
		// The rules read "other" here; the person knows Sam wants a call.
		replyFrom("sam@acme-corp.example", toSam, 10, "Ha, my CFO forwarded yours too. Fine by me, go."),
		replyFrom("lee@bolt.example", toLee, 20, "Can you send over a few times for Thursday?"),
	} {
		if err := b.Sandbox.DeliverReply("dana@getacme.com", raw); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := replies.NewPoller(replies.PollerDeps{DB: b.DB, Suppressor: b.Suppressor, Clock: b.Clock}).Poll(b.Ctx, b.Workspace, b.Mailbox); err != nil {
		t.Fatal(err)
	}
	list := replies.NewReplies(replies.RepliesDeps{DB: b.DB})
	tallies := delivery.NewTallies(delivery.TalliesDeps{DB: b.DB})
	positive := func() int {
		total, _, err := tallies.CampaignTallies(b.Ctx, b.Workspace, spring, 1)
		if err != nil {
			t.Fatal(err)
		}
		return total.Positive
	}
	page, err := list.List(b.Ctx, b.Workspace, replies.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	samReply := page.Replies[1]
	if samReply.From != "sam@acme-corp.example" || samReply.Classification != replies.Other {
		t.Fatalf("Sam's reply: %+v, want it read as other", samReply)
	}
	if got := positive(); got != 1 {
		t.Fatalf("positive replies before the correction: %d, want 1", got)
	}

	t.Run("the correction is kept with who made it, and read everywhere", func(t *testing.T) {
		got, err := list.Correct(b.Ctx, b.Workspace, samReply.ID, replies.Interested,
			replies.Corrector{By: "ada@acme.test", User: uuid.New(), Via: replies.CorrectedInWeb})
		if err != nil {
			t.Fatal(err)
		}
		if got.Classification != replies.Interested || got.ClassifiedAs == nil || *got.ClassifiedAs != replies.Other ||
			got.CorrectedBy == nil || *got.CorrectedBy != "ada@acme.test" || got.CorrectedAt == nil {
			t.Errorf("corrected reply: %+v", got)
		}
		if n := positive(); n != 2 {
			t.Errorf("positive replies after the correction: %d, want 2", n)
		}
		only, err := list.List(b.Ctx, b.Workspace, replies.ListOptions{Classification: replies.Interested})
		if err != nil {
			t.Fatal(err)
		}
		if len(only.Replies) != 2 {
			t.Errorf("interested replies listed: %d, want 2", len(only.Replies))
		}
		// Corrected again, by the assistant: the rules' verdict stays the
		// first one, and both corrections are kept in order.
		if _, err := list.Correct(b.Ctx, b.Workspace, samReply.ID, replies.NotNow,
			replies.Corrector{By: "the workspace's token", Via: replies.CorrectedByAssistant}); err != nil {
			t.Fatal(err)
		}
		thread, err := list.Get(b.Ctx, b.Workspace, samReply.ID)
		if err != nil {
			t.Fatal(err)
		}
		if *thread.Reply.ClassifiedAs != replies.Other || len(thread.Corrections) != 2 ||
			thread.Corrections[0].To != replies.Interested || thread.Corrections[1].From != replies.Interested ||
			thread.Corrections[1].By != "the workspace's token" || thread.Corrections[1].Via != replies.CorrectedByAssistant {
			t.Errorf("thread after two corrections: %+v %+v", thread.Reply, thread.Corrections)
		}
		if thread.Sent == nil || thread.Sent.Recipient != "sam@acme-corp.example" || thread.Sent.Step != 1 {
			t.Errorf("the email the reply answers: %+v", thread.Sent)
		}
	})

	t.Run("waiting for an answer first", func(t *testing.T) {
		page, err := list.List(b.Ctx, b.Workspace, replies.ListOptions{WaitingFirst: true, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Replies) != 1 || page.Replies[0].From != "lee@bolt.example" || !page.Replies[0].Waiting {
			t.Fatalf("first waiting reply: %+v", page.Replies)
		}
		next, err := list.List(b.Ctx, b.Workspace, replies.ListOptions{WaitingFirst: true, Limit: 1, Cursor: page.Next})
		if err != nil {
			t.Fatal(err)
		}
		if len(next.Replies) != 1 || next.Replies[0].From != "sam@acme-corp.example" || next.Replies[0].Waiting || next.Next != "" {
			t.Errorf("second page: %+v next %q", next.Replies, next.Next)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		for _, c := range []struct {
			ws          uuid.UUID
			id, class   string
			code, words string
		}{
			{b.Workspace, samReply.ID, "keen", vibesell.EINVALID, "interested, referral, not_now"},
			{b.Workspace, samReply.ID, replies.Bounce, vibesell.EINVALID, "a bounce is a mail server's report"},
			{uuid.New(), samReply.ID, replies.Interested, vibesell.ENOTFOUND, "no reply"},
			{b.Workspace, "not-an-id", replies.Interested, vibesell.ENOTFOUND, "no reply"},
		} {
			_, err := list.Correct(b.Ctx, c.ws, c.id, c.class, replies.Corrector{By: "ada@acme.test", Via: replies.CorrectedInWeb})
			var e *vibesell.Error
			if !errors.As(err, &e) || e.Code != c.code || !strings.Contains(e.Message, c.words) {
				t.Errorf("correct %s to %q: %v, want %s saying %q", c.id, c.class, err, c.code, c.words)
			}
		}
	})
}
