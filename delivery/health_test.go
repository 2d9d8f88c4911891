package delivery_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"vibesell/delivery"
	"vibesell/delivery/deliverytest"
)

func TestMailboxBounces(t *testing.T) {
	b := deliverytest.Setup(t)
	campaign := deliverytest.NewCampaignID()
	// Fifty sends recorded as sent, two of which bounce for good and one
	// of which bounces for now.
	for i := range 50 {
		lead := deliverytest.NewLeadID()
		_, err := b.DB.Exec(b.Ctx, `INSERT INTO mail_sends (workspace_id, campaign_id, lead_id, step, message_id, mailbox, recipient, status, claimed_at, settled_at)
		                             VALUES ($1, $2, $3, 1, $4, 'dana@getacme.com', $5, 'sent', now(), now())`,
			b.Workspace, campaign, lead, fmt.Sprintf("<%d@getacme.com>", i), fmt.Sprintf("lead%d@prospect.example", i))
		if err != nil {
			t.Fatal(err)
		}
		bounce := map[int]string{3: "hard", 17: "hard", 30: "soft"}[i]
		if bounce == "" {
			continue
		}
		_, err = b.DB.Exec(b.Ctx, `INSERT INTO mail_replies (workspace_id, mailbox, message_id, from_address, subject, received_at, campaign_id, lead_id, step,
		                                                    matched_by, classification, rule, bounce, excerpt)
		                           VALUES ($1, 'dana@getacme.com', $2, 'mailer-daemon@mx.example', 'Undelivered', now(), $3, $4, 1, 'thread', 'bounce', 'test', $5, '')`,
			b.Workspace, fmt.Sprintf("<dsn%d@mx.example>", i), campaign, lead, bounce)
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Run("under the limit", func(t *testing.T) {
		got, err := delivery.MailboxBounces(b.Ctx, b.DB, b.Workspace, "dana@getacme.com", 0.05)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(delivery.BounceHealth{Sends: 50, Bounces: 2, Rate: 0.04}, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("over the limit, with the reason in words", func(t *testing.T) {
		got, err := delivery.MailboxBounces(b.Ctx, b.DB, b.Workspace, "dana@getacme.com", 0.02)
		if err != nil {
			t.Fatal(err)
		}
		want := delivery.BounceHealth{Sends: 50, Bounces: 2, Rate: 0.04, OverLimit: true, Why: "bounce rate",
			Reason: "2 of the last 50 emails sent from dana@getacme.com bounced for good (4.0%; the limit is 2%). Remove the addresses that bounced, or check the list they came from, before it sends again."}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}
