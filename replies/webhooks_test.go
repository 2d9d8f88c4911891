package replies_test

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"vibesell/delivery/deliverytest"
	"vibesell/replies"
	"vibesell/sandboxmail/sandboxmailtest"
	"vibesell/webhooks"
)

// A reply kept is the workspace's reply.received event, with its
// classification and lead, and an interested one lead.interested too, in
// the transaction that keeps it: read again, it is no new event; a bounce
// is not a reply.
func TestRepliesEmitWebhookEvents(t *testing.T) {
	b := deliverytest.Setup(t)
	campaign := deliverytest.NewCampaignID()
	sam, ghost := deliverytest.NewLeadID(), deliverytest.NewLeadID()
	samMsg := b.SendTo(t, campaign, sam, "Sam Okafor", "sam@acme-corp.example")
	ghostMsg := b.SendTo(t, campaign, ghost, "Gus Host", "ghost@bolt.example")
	for _, m := range []string{fmt.Sprintf(`
From: Sam Okafor <sam@acme-corp.example>
To: Dana Reyes <dana@getacme.com>
Subject: Re: Quick question
Date: Tue, 1 Dec 2026 11:02:00 -0500
Message-ID: <CAB1x7@mail.acme-corp.example>
In-Reply-To: %[1]s
Content-Type: text/plain; charset=utf-8

Yes, this is timely. Can you send over a few times for Thursday?
`, samMsg), fmt.Sprintf(`
From: Mail Delivery System <mailer-daemon@mx.bolt.example>
To: dana@getacme.com
Subject: Undelivered Mail Returned to Sender
Date: Tue, 1 Dec 2026 09:01:00 +0000
Message-ID: <bounce-1@mx.bolt.example>
In-Reply-To: %[1]s
Content-Type: text/plain

The address ghost@bolt.example does not exist (550 5.1.1 user unknown).
`, ghostMsg)} {
		if err := b.Sandbox.DeliverReply("dana@getacme.com", deliverytest.CRLF(m)); err != nil {
			t.Fatal(err)
		}
	}
	hooks := webhooks.New(webhooks.Deps{DB: b.DB, Secret: sandboxmailtest.Secret(t), Logger: slog.New(slog.DiscardHandler)})
	poller := replies.NewPoller(replies.PollerDeps{DB: b.DB, Suppressor: b.Suppressor, Clock: b.Clock, Webhooks: hooks})
	for range 2 {
		if _, err := poller.Poll(b.Ctx, b.Workspace, b.Mailbox); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := b.DB.Query(b.Ctx, `SELECT type, body->'data'->'reply'->>'classification', body->'data'->'lead'->>'id'
		FROM webhook_events WHERE workspace_id = $1 ORDER BY id`, b.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var typ, class, lead *string
		if err := rows.Scan(&typ, &class, &lead); err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Join([]string{*typ, deref(class), deref(lead)}, " "))
	}
	want := []string{
		fmt.Sprintf("reply.received interested %d", sam),
		fmt.Sprintf("lead.interested interested %d", sam),
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("webhook events (type, classification, lead) mismatch (-want +got):\n%s", d)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
