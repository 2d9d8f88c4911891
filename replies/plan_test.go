package replies_test

import (
	"testing"

	"github.com/jackc/pgx/v5"

	"vibesell/delivery/deliverytest"
	"vibesell/replies"
	"vibesell/store/storetest"
)

// The replies' hot queries keep their index plans on a busy
// installation's ledger (see delivery's TestHotQueriesKeepIndexPlans for
// the sizes): reading an inbox (matching each reply to its send by
// thread, address or domain, keeping it), list_replies (every page shape:
// all, one campaign, one classification, waiting first, the next page),
// one reply, a lead's history, and the replies' reads in the workspace
// context. Each runs for real; each statement it ran is explained with
// its arguments, and none may read the ledger or the replies with a
// sequential scan.
func TestHotQueriesKeepIndexPlans(t *testing.T) {
	b := deliverytest.Setup(t)
	rec := &storetest.Statements{}
	pool := storetest.TracedPool(t, b.DBURL, rec)
	campaign, sam, lee := deliverytest.NewCampaignID(), deliverytest.NewLeadID(), deliverytest.NewLeadID()
	toSam := b.SendTo(t, campaign, sam, "Sam Okafor", "sam@acme-corp.example")
	b.SendTo(t, campaign, lee, "Lee Park", "lee@acme-corp.example")
	sends, replyRows := deliverytest.LedgerSize(t)
	deliverytest.FillLedger(t, b.DB, b.Workspace, sends, replyRows)

	for _, raw := range [][]byte{
		replyFrom("sam@acme-corp.example", toSam, 10, "Yes, interested. Can you send over a few times for Thursday?"),
		replyFrom("lee@acme-corp.example", "<nothing-we-sent@getacme.com>", 20, "Who is this?"),   // matched by address
		replyFrom("kim@acme-corp.example", "<nothing-we-sent@getacme.com>", 30, "Send it to me."), // by domain
	} {
		if err := b.Sandbox.DeliverReply("dana@getacme.com", raw); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := replies.NewPoller(replies.PollerDeps{DB: pool, Suppressor: b.Suppressor, Clock: b.Clock}).Poll(b.Ctx, b.Workspace, b.Mailbox); err != nil || n != 3 {
		t.Fatalf("the poll kept %d replies (%v), want 3", n, err)
	}
	list := replies.NewReplies(replies.RepliesDeps{DB: pool})
	var some string
	for _, o := range []replies.ListOptions{{}, {Campaign: campaign}, {Classification: "interested"}, {WaitingFirst: true}, {Limit: 1}} {
		page, err := list.List(b.Ctx, b.Workspace, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Replies) == 0 {
			t.Fatalf("list %+v: no replies", o)
		}
		some = page.Replies[0].ID
		if page.Next != "" {
			o.Cursor = page.Next
			if _, err := list.List(b.Ctx, b.Workspace, o); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := list.Get(b.Ctx, b.Workspace, some); err != nil {
		t.Fatal(err)
	}
	history := replies.NewLeadHistory(replies.LeadHistoryDeps{DB: pool})
	if _, err := history.LeadSends(b.Ctx, b.Workspace, sam); err != nil {
		t.Fatal(err)
	}
	if _, err := history.LeadReplies(b.Ctx, b.Workspace, sam); err != nil {
		t.Fatal(err)
	}
	if _, err := history.CompanyStop(b.Ctx, b.Workspace, campaign, lee, "lee@acme-corp.example"); err != nil {
		t.Fatal(err)
	}
	// The context's part, as the workspace context reads it: in its batch.
	batch := &pgx.Batch{}
	done := replies.NewAnswers(replies.AnswersDeps{DB: pool, Clock: b.Clock}).ContextPart().QueueContext(batch, b.Workspace)
	if err := pool.SendBatch(b.Ctx, batch).Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := done(); err != nil {
		t.Fatal(err)
	}

	ran := rec.Take()
	n := storetest.Explained(ran, "mail_sends", "mail_replies")
	t.Logf("explained %d statements over the ledger and the replies (%d sends, %d replies)", n, sends, replyRows)
	if n < 10 {
		t.Fatalf("%d statements over the ledger and the replies: the test no longer sees the replies' hot queries", n)
	}
	for _, s := range storetest.SeqScans(t, pool, ran, "mail_sends", "mail_replies") {
		t.Error(s)
	}
}
