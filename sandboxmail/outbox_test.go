package sandboxmail_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"vibesell"
	"vibesell/delivery/deliverytest"
	"vibesell/replies"
	"vibesell/sandboxmail"
	"vibesell/workspace"
)

func TestOutbox(t *testing.T) {
	b := deliverytest.Setup(t)
	other, err := workspace.Create(b.Ctx, b.DB, "Globex")
	if err != nil {
		t.Fatal(err)
	}
	records := deliverytest.KeyRecords{Keys: b.Keys, Domains: map[uuid.UUID][]string{b.Workspace: {"getacme.com"}}}
	outbox := sandboxmail.NewOutbox(b.DB, records, b.Clock, nil)
	outbox.Attach(b.Sandbox)
	keep := outbox.Keep
	b.OnAccept.Store(&keep)
	campaign, lead := deliverytest.NewCampaignID(), deliverytest.NewLeadID()
	messageID := b.SendTo(t, campaign, lead, "Sam Okafor", "sam@acme-corp.example")

	t.Run("every message as sent, with a verified signature", func(t *testing.T) {
		page, err := outbox.List(b.Ctx, b.Workspace, 0, 20)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Messages) != 1 || page.Before != 0 {
			t.Fatalf("outbox: %d messages, before %d", len(page.Messages), page.Before)
		}
		m := page.Messages[0]
		got := []string{m.Mailbox, m.MessageID, m.From, m.To, m.Subject, m.DKIM.Result, m.DKIM.Domain}
		want := []string{"dana@getacme.com", messageID, `"Dana Reyes" <dana@getacme.com>`, `"Sam Okafor" <sam@acme-corp.example>`,
			"Quick question about Acme's onboarding", "pass", "getacme.com"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("message mismatch (-want +got):\n%s", diff)
		}
		if !strings.Contains(m.Body, "Would a shorter onboarding help") || !strings.Contains(m.Body, "Unsubscribe with one click") {
			t.Errorf("text: %q", m.Body)
		}
		var names []string
		for _, h := range m.Header {
			names = append(names, h.Name)
		}
		for _, name := range []string{"DKIM-Signature", "List-Unsubscribe", "List-Unsubscribe-Post", "Message-ID"} {
			if !strings.Contains(strings.Join(names, " "), name) {
				t.Errorf("headers %v lack %s", names, name)
			}
		}
		if !strings.HasPrefix(m.DKIM.Detail, "Signed by getacme.com and verified against the key its sending setup published") {
			t.Errorf("verdict: %s", m.DKIM.Detail)
		}
	})
	t.Run("a key the setup did not publish fails", func(t *testing.T) {
		unpublished := sandboxmail.NewOutbox(b.DB, deliverytest.KeyRecords{Keys: b.Keys}, b.Clock, nil)
		page, err := unpublished.List(b.Ctx, b.Workspace, 0, 20)
		if err != nil {
			t.Fatal(err)
		}
		if v := page.Messages[0].DKIM; v.Result != "fail" || !strings.HasPrefix(v.Detail, "Signed by getacme.com, but the signature does not verify") {
			t.Errorf("verdict without the record: %s, %q; want fail, signed by getacme.com but not verifying", v.Result, v.Detail)
		}
	})
	t.Run("another workspace sees none and cannot answer it", func(t *testing.T) {
		page, err := outbox.List(b.Ctx, other.ID, 0, 20)
		if err != nil || len(page.Messages) != 0 {
			t.Fatalf("Globex's outbox: %d messages (%v)", len(page.Messages), err)
		}
		mine, _ := outbox.List(b.Ctx, b.Workspace, 0, 20)
		_, err = outbox.ReplyAsLead(b.Ctx, other.ID, mine.Messages[0].ID, "Interested!")
		if vibesell.ErrorCode(err) != vibesell.ENOTFOUND {
			t.Errorf("Globex answering Acme's message: %v", err)
		}
	})
	t.Run("a reply as the lead is read, matched and classified", func(t *testing.T) {
		page, _ := outbox.List(b.Ctx, b.Workspace, 0, 20)
		if _, err := outbox.ReplyAsLead(b.Ctx, b.Workspace, page.Messages[0].ID, "  "); vibesell.ErrorCode(err) != vibesell.EINVALID {
			t.Errorf("an empty reply: %v", err)
		}
		if _, err := outbox.ReplyAsLead(b.Ctx, b.Workspace, page.Messages[0].ID, "Sounds good, let's talk on Thursday."); err != nil {
			t.Fatal(err)
		}
		if n, err := replies.NewPoller(replies.PollerDeps{DB: b.DB, Suppressor: b.Suppressor, Clock: b.Clock}).Poll(b.Ctx, b.Workspace, b.Mailbox); err != nil || n != 1 {
			t.Fatalf("poll: %d kept (%v)", n, err)
		}
		listed, err := replies.NewReplies(b.DB).List(b.Ctx, b.Workspace, replies.ListOptions{})
		if err != nil || len(listed.Replies) != 1 {
			t.Fatalf("replies: %d (%v); want 1", len(listed.Replies), err)
		}
		r := listed.Replies[0]
		got := []string{r.From, r.Lead, r.MatchedBy, r.Classification, r.Subject, r.Excerpt}
		want := []string{"sam@acme-corp.example", strconv.FormatInt(lead, 10), "thread", "interested", "Re: Quick question about Acme's onboarding", "Sounds good, let's talk on Thursday."}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("reply mismatch (-want +got):\n%s", diff)
		}
		after, err := outbox.List(b.Ctx, b.Workspace, 0, 20)
		if err != nil {
			t.Fatal(err)
		}
		type reply struct{ From, Classification string }
		var gotReplies []reply
		for _, r := range after.Messages[0].Replies {
			gotReplies = append(gotReplies, reply{r.From, r.Classification})
		}
		if diff := cmp.Diff([]reply{{"sam@acme-corp.example", "interested"}}, gotReplies); diff != "" {
			t.Errorf("the message's replies mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("a message no send claimed is in no outbox", func(t *testing.T) {
		outbox.Keep(sandboxmail.Accepted{From: "dana@getacme.com", Recipients: []string{"x@example.test"}, At: b.Clock.Now(),
			Raw: deliverytest.CRLF("From: dana@getacme.com\nTo: x@example.test\nSubject: By hand\nMessage-ID: <by-hand@getacme.com>\n\nHello\n")})
		var n int
		if err := b.DB.QueryRow(b.Ctx, `SELECT count(*) FROM mail_outbox WHERE message_id = '<by-hand@getacme.com>'`).Scan(&n); err != nil || n != 0 {
			t.Errorf("kept %d (%v)", n, err)
		}
	})
	t.Run("without the sandbox there is nothing to answer", func(t *testing.T) {
		real := sandboxmail.NewOutbox(b.DB, records, b.Clock, nil)
		if real.Sandbox() {
			t.Fatal("an outbox with no sandbox says it has one")
		}
		if _, err := real.ReplyAsLead(b.Ctx, b.Workspace, 1, "Hi"); vibesell.ErrorCode(err) != vibesell.EINVALID {
			t.Errorf("reply without a sandbox: %v", err)
		}
	})
}
