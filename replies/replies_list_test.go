package replies_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/delivery/deliverytest"
	"vibesell/replies"
	"vibesell/workspace"
)

// replyFrom is a reply in the thread of the message id, sent at minute m
// after nine.
func replyFrom(from, messageID string, m int, text string) []byte {
	return deliverytest.CRLF(fmt.Sprintf(`
From: %[1]s
To: Dana Reyes <dana@getacme.com>
Subject: Re: Quick question about Acme's onboarding
Date: Tue, 1 Dec 2026 09:%02[3]d:00 +0000
Message-ID: <reply-%[3]d@example.test>
In-Reply-To: %[2]s
References: %[2]s
Content-Type: text/plain; charset=utf-8

%[4]s
`, from, messageID, m, text))
}

func TestListReplies(t *testing.T) {
	b := deliverytest.Setup(t)
	spring, autumn := deliverytest.NewCampaignID(), deliverytest.NewCampaignID()
	sam, lee, kim := deliverytest.NewLeadID(), deliverytest.NewLeadID(), deliverytest.NewLeadID()
	toSam := b.SendTo(t, spring, sam, "Sam Okafor", "sam@acme-corp.example")
	toLee := b.SendTo(t, spring, lee, "Lee Park", "lee@bolt.example")
	toKim := b.SendTo(t, autumn, kim, "Kim Vance", "kim@corvid.example")
	for _, raw := range [][]byte{
		replyFrom("sam@acme-corp.example", toSam, 10, "Yes, interested. Can you send over a few times for Thursday?"),
		replyFrom("lee@bolt.example", toLee, 20, "Not interested, thanks."),
		replyFrom("kim@corvid.example", toKim, 30, "Please circle back next quarter."),
	} {
		if err := b.Sandbox.DeliverReply("dana@getacme.com", raw); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := replies.NewPoller(replies.PollerDeps{DB: b.DB, Suppressor: b.Suppressor, Clock: b.Clock}).Poll(b.Ctx, b.Workspace, b.Mailbox); err != nil {
		t.Fatal(err)
	}
	list := replies.NewReplies(b.DB)
	type row struct{ From, Lead, LeadEmail, Campaign, Classification, Rule, Excerpt string }
	rows := func(p replies.Page) []row {
		out := []row{}
		for _, r := range p.Replies {
			out = append(out, row{r.From, r.Lead, r.LeadEmail, r.Campaign, r.Classification, r.Rule, r.Excerpt})
		}
		return out
	}
	samRow := row{"sam@acme-corp.example", strconv.FormatInt(sam, 10), "sam@acme-corp.example", spring, "interested", `the reply says "thursday" (a time proposed)`,
		"Yes, interested. Can you send over a few times for Thursday?"}
	leeRow := row{"lee@bolt.example", strconv.FormatInt(lee, 10), "lee@bolt.example", spring, "not_interested", `the reply says "not interested"`, "Not interested, thanks."}
	kimRow := row{"kim@corvid.example", strconv.FormatInt(kim, 10), "kim@corvid.example", autumn, "not_now", `the reply says "circle back" (not now, until next quarter)`, "Please circle back next quarter."}

	t.Run("newest first, a page at a time", func(t *testing.T) {
		first, err := list.List(b.Ctx, b.Workspace, replies.ListOptions{Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]row{kimRow, leeRow}, rows(first)); diff != "" {
			t.Errorf("first page (-want +got):\n%s", diff)
		}
		if first.Next == "" {
			t.Fatal("no cursor after a full page")
		}
		second, err := list.List(b.Ctx, b.Workspace, replies.ListOptions{Limit: 2, Cursor: first.Next})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]row{samRow}, rows(second)); diff != "" || second.Next != "" {
			t.Errorf("second page (-want +got):\n%s; next %q", diff, second.Next)
		}
		want := time.Date(2026, 12, 1, 9, 10, 0, 0, time.UTC)
		if got := second.Replies[0]; !got.ReceivedAt.Equal(want) || got.Step == nil || *got.Step != 1 || got.MatchedBy != "thread" {
			t.Errorf("sam's reply: received %v, step %v, matched by %s", got.ReceivedAt, got.Step, got.MatchedBy)
		}
	})
	t.Run("filtered by campaign and by classification", func(t *testing.T) {
		p, err := list.List(b.Ctx, b.Workspace, replies.ListOptions{Campaign: spring})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]row{leeRow, samRow}, rows(p)); diff != "" {
			t.Errorf("spring (-want +got):\n%s", diff)
		}
		p, err = list.List(b.Ctx, b.Workspace, replies.ListOptions{Campaign: spring, Classification: replies.Interested})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]row{samRow}, rows(p)); diff != "" {
			t.Errorf("spring, interested (-want +got):\n%s", diff)
		}
	})
	t.Run("refusals say what is accepted", func(t *testing.T) {
		_, err := list.List(b.Ctx, b.Workspace, replies.ListOptions{Classification: "positive"})
		want := `"positive" is not a classification of replies. Use one of interested, referral, not_now, objection, not_interested, wrong_person, left_company, out_of_office, auto_reply, unsubscribe, bounce, complaint or other, or leave it out for every reply.`
		if vibesell.ErrorCode(err) != vibesell.EINVALID || vibesell.ErrorMessage(err) != want {
			t.Errorf("classification: %v", err)
		}
		_, err = list.List(b.Ctx, b.Workspace, replies.ListOptions{Cursor: "bm90IGEgY3Vyc29y"})
		if vibesell.ErrorCode(err) != vibesell.EINVALID {
			t.Errorf("cursor: %v", err)
		}
	})
	t.Run("another workspace sees none of them", func(t *testing.T) {
		other, err := workspace.Create(b.Ctx, b.DB, "Globex")
		if err != nil {
			t.Fatal(err)
		}
		p, err := list.List(b.Ctx, other.ID, replies.ListOptions{})
		if err != nil || len(p.Replies) != 0 {
			t.Fatalf("Globex lists %d replies (%v)", len(p.Replies), err)
		}
	})
}

// What arrives is kept bounded: a reply's subject, sender and Message-ID
// of any length are kept cut to what a page of replies can carry.
func TestARepliesHeadersAreKeptBounded(t *testing.T) {
	b := deliverytest.Setup(t)
	spring, sam := deliverytest.NewCampaignID(), deliverytest.NewLeadID()
	toSam := b.SendTo(t, spring, sam, "Sam Okafor", "sam@acme-corp.example")
	long := strings.Repeat("word ", 20_000)
	raw := deliverytest.CRLF(fmt.Sprintf(`
From: sam@acme-corp.example
To: Dana Reyes <dana@getacme.com>
Subject: Re: %[1]s
Date: Tue, 1 Dec 2026 09:10:00 +0000
Message-ID: <%[2]s@example.test>
In-Reply-To: %[3]s
Content-Type: text/plain; charset=utf-8

Yes, interested.
`, long, strings.Repeat("m", 5000), toSam))
	if err := b.Sandbox.DeliverReply("dana@getacme.com", raw); err != nil {
		t.Fatal(err)
	}
	if _, err := replies.NewPoller(replies.PollerDeps{DB: b.DB, Suppressor: b.Suppressor, Clock: b.Clock}).Poll(b.Ctx, b.Workspace, b.Mailbox); err != nil {
		t.Fatal(err)
	}
	page, err := replies.NewReplies(b.DB).List(b.Ctx, b.Workspace, replies.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Replies) != 1 {
		t.Fatalf("%d replies kept, want 1", len(page.Replies))
	}
	r := page.Replies[0]
	if n, m := len([]rune(r.Subject)), len([]rune(r.MessageID)); n > 998 || m > 998 || r.Classification != "interested" {
		t.Errorf("kept a subject of %d characters and a Message-ID of %d (want at most 998 each), classified %s", n, m, r.Classification)
	}
}
