package tools

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"vibesell"
	"vibesell/approvals"
	"vibesell/audience"
	"vibesell/delivery"
	"vibesell/mail"
	"vibesell/mailboxes"
	"vibesell/replies"
	"vibesell/sandboxmail"
	"vibesell/sandboxmail/sandboxmailtest"
	"vibesell/store/storetest"
	"vibesell/toolkit/toolkittest"
	"vibesell/workspace"
	"vibesell/workspace/workspacetest"
)

// oneMailbox is the sending mailboxes of a test: one, Acme's.
type oneMailbox struct {
	ws   uuid.UUID
	acct mail.Account
}

func (o oneMailbox) Mailboxes(_ context.Context, ws uuid.UUID) ([]mailboxes.WorkspaceMailbox, error) {
	if ws != o.ws && ws != uuid.Nil {
		return nil, nil
	}
	return []mailboxes.WorkspaceMailbox{{WorkspaceID: o.ws, Account: o.acct}}, nil
}

// oneDomain publishes Acme's DKIM key for its sending domain, as its
// sending setup would: the outbox checks signatures against it.
type oneDomain struct {
	keys   *mail.Keys
	ws     uuid.UUID
	domain string
}

func (o oneDomain) PublishedTXT(ctx context.Context, ws uuid.UUID, name string) ([]string, error) {
	if ws != o.ws {
		return nil, nil
	}
	rec, err := o.keys.Record(ctx, ws, o.domain)
	if err != nil || rec.Host != name {
		return nil, err
	}
	return []string{rec.Value}, nil
}

// TestAnswerReplyInTheSandbox answers a lead's reply from the
// conversation, end to end in the sandbox: the campaign's email goes out,
// the lead asks for a time through "reply as this lead", the context
// names the reply as waiting, the assistant proposes the answer, the
// person approves it, the engine sends it in the thread (the same
// mailbox, In-Reply-To and References, signed), once; the lead's story
// shows it, and the lead answering back is read and matched to it.
func TestAnswerReplyInTheSandbox(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	clock := vibesell.NewManualClock(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	ws := workspacetest.Two(t, db)
	acme := ws.Acme.ID
	secret := sandboxmailtest.Secret(t)
	keys := mail.NewKeys(mail.KeysDeps{DB: db, Secret: secret, Clock: clock})
	keep := sandboxmail.KeepAccepted(db, nil)
	var accepted atomic.Int32
	sandbox, mb := sandboxmailtest.Sandbox(t, mail.Address{Name: "Dana Reyes", Email: "dana@getacme.com"}, sandboxmail.Config{Clock: clock,
		OnAccept: func(a sandboxmail.Accepted) { accepted.Add(1); keep(a) }})
	outbox := sandboxmail.NewOutbox(sandboxmail.OutboxDeps{DB: db, Records: oneDomain{keys, acme, "getacme.com"}, Sandbox: sandbox, Clock: clock})
	suppressions := audience.New(audience.Deps{DB: db, Clock: clock}).MailSuppressions()
	dispatcher := delivery.NewDispatcher(delivery.DispatcherDeps{DB: db, Keys: keys, Suppressor: suppressions, Clock: clock})
	workspaces := workspace.New(workspace.Deps{DB: db, Clock: clock})
	postal := "Acme Sales, 1 Market St, San Francisco, CA 94105"
	if _, err := workspaces.SetSender(ctx, acme, workspace.SenderChange{PostalAddress: &postal}, clock.Now()); err != nil {
		t.Fatal(err)
	}
	ap := approvals.New(approvals.Deps{DB: db, Clock: clock, PublicURL: "https://vibesell.example.test", RelayWait: -1, Logger: slog.New(slog.DiscardHandler)})
	answers := replies.NewAnswers(replies.AnswersDeps{DB: db, Approvals: ap, Senders: workspaces, Suppressor: suppressions, Clock: clock,
		Sending: replies.SendingReady{Dispatcher: dispatcher, Sources: oneMailbox{acme, mb}, Secret: secret, PublicURL: "https://vibesell.example.test"}})
	ap.Register(vibesell.ToolAnswerReply, replies.AnswerAction(answers))
	poller := replies.NewPoller(replies.PollerDeps{DB: db, Suppressor: suppressions, Clock: clock})

	// The campaign's first email to two leads, and each one's reply as
	// the sandbox writes it.
	const campaign = "cp_00000000000000e3"
	send := func(lead int64, email string) string {
		t.Helper()
		res, err := dispatcher.Send(ctx, delivery.Outgoing{
			Step:    delivery.Step{WorkspaceID: acme, CampaignID: campaign, LeadID: lead, Step: 1},
			Mailbox: mb,
			Message: mail.Message{To: mail.Address{Email: email}, Subject: "Month-end close", Body: "Hi,\n\nIs your close still a week of spreadsheets?\n\nDana",
				UnsubscribeURL: secret.UnsubscribeURL("https://vibesell.example.test", acme, email), PostalAddress: postal},
		})
		if err != nil || res.Status != delivery.StatusSent {
			t.Fatalf("send to %s: %+v, %v", email, res, err)
		}
		return res.MessageID
	}
	first := send(1, "julia@acme-corp.example")
	send(2, "omar@bolt.example")
	page, err := outbox.List(ctx, acme, 0, 20)
	if err != nil || len(page.Messages) != 2 {
		t.Fatalf("outbox: %d messages, %v", len(page.Messages), err)
	}
	replyAs := func(to, text string) {
		t.Helper()
		page, err := outbox.List(ctx, acme, 0, 20)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range page.Messages {
			if m.To == to || strings.Contains(m.To, "<"+to+">") {
				clock.Advance(time.Hour)
				if _, err := outbox.ReplyAsLead(ctx, acme, m.ID, text); err != nil {
					t.Fatal(err)
				}
				if _, err := poller.Poll(ctx, acme, mb); err != nil {
					t.Fatal(err)
				}
				return
			}
		}
		t.Fatalf("no message to %s in the outbox", to)
	}
	replyAs("julia@acme-corp.example", "Hi Dana, good timing - our close is a mess right now. Could you do Thursday at 10am Pacific for the walkthrough?")
	replyAs("omar@bolt.example", "Please unsubscribe me.")

	d := Deps{Workspaces: workspaces, Approvals: ap, Replies: replies.NewReplies(replies.RepliesDeps{DB: db}), Answers: answers, ContextCacheSize: -1}
	conv := toolkittest.Connect(t, NewServer(d, nil), workspacetest.Principal(ws.Acme))
	var list repliesOutput
	conv.Result(vibesell.ToolListReplies, map[string]any{"classification": "interested"}, &list)
	if len(list.Replies) != 1 {
		t.Fatalf("%d interested replies, want 1", len(list.Replies))
	}
	julia := list.Replies[0]

	t.Run("the context names the reply waiting for an answer first", func(t *testing.T) {
		var out workspaceOutput
		md := conv.Result(vibesell.ToolGetWorkspaceContext, nil, &out)
		if out.NextStep.Tool == nil || *out.NextStep.Tool != vibesell.ToolListReplies {
			t.Fatalf("next step %+v, want list_replies", out.NextStep)
		}
		mustContain(t, out.NextStep.Why, "A reply is waiting for an answer: from julia@acme-corp.example", julia.MessageID, "Call list_replies with classification interested.", "Call answer_reply.")
		mustContain(t, md, "A reply is waiting for an answer")
	})

	text := "Hi Julia,\n\nThursday at 10am Pacific works. I'll send an invite for 30 minutes.\n\nDana"
	var proposed approvalOutput
	t.Run("the proposal shows exactly what goes, from which mailbox, in which thread, to whom", func(t *testing.T) {
		md := conv.Result(vibesell.ToolAnswerReply, map[string]any{"reply": julia.MessageID, "text": text}, &proposed)
		if proposed.Status != "pending" || proposed.Action != vibesell.ToolAnswerReply || !proposed.DecideHere {
			t.Fatalf("approval %+v", proposed.approvalData)
		}
		want := []string{
			"From: Dana Reyes <dana@getacme.com>",
			"To: julia@acme-corp.example",
			"Subject: Re: Month-end close",
			"In reply to: their reply of Tue 1 Dec 2026, 10:00 UTC, in the thread of 2 emails",
			"Signed: with the DKIM key of getacme.com, like every email VibeSell sends",
			"Text:\n" + text,
		}
		if diff := cmp.Diff(want, proposed.Impact.Items); diff != "" {
			t.Errorf("impact items (-want +got):\n%s", diff)
		}
		mustContain(t, md, "Nothing is sent yet", "Who: Only julia@acme-corp.example, who wrote the reply.")
		var again approvalOutput
		conv.Result(vibesell.ToolAnswerReply, map[string]any{"reply": julia.MessageID, "text": text}, &again)
		if again.Approval != proposed.Approval {
			t.Errorf("the same answer asked twice opened %s and %s", proposed.Approval, again.Approval)
		}
		var ctxOut workspaceOutput
		conv.Result(vibesell.ToolGetWorkspaceContext, nil, &ctxOut)
		if strings.Contains(ctxOut.NextStep.Why, "waiting for an answer") {
			t.Errorf("with its answer waiting for approval, the reply is still named as waiting: %s", ctxOut.NextStep.Why)
		}
	})

	t.Run("approved, it is sent once in the thread, signed, from the same mailbox", func(t *testing.T) {
		before := accepted.Load()
		var decided approvalOutput
		conv.Result(vibesell.ToolDecideApproval, map[string]any{"approval": proposed.Approval, "decision": "approve"}, &decided)
		if err := ap.Execute(ctx, acme, proposed.Approval, 1, approvals.MaxExecutionAttempts); err != nil {
			t.Fatal(err)
		}
		a, err := ap.Find(ctx, acme, proposed.Approval)
		if err != nil {
			t.Fatal(err)
		}
		if a.Status != approvals.Done || !strings.HasPrefix(*a.Outcome, "Sent the answer to julia@acme-corp.example from dana@getacme.com") {
			t.Fatalf("approval %s: %s", a.Status, textOf(a.Outcome))
		}
		if got := accepted.Load() - before; got != 1 {
			t.Fatalf("%d messages accepted, want 1", got)
		}
		// Carried out again (a resumed attempt), it sends nothing more:
		// the ledger row is the answer's.
		if _, err := replies.AnswerAction(answers).Execute(ctx, approvals.Execution{Approval: a, Attempt: 2, Resumed: true}); err != nil {
			t.Fatal(err)
		}
		if got := accepted.Load() - before; got != 1 {
			t.Errorf("%d messages accepted after a second execution, want 1", got)
		}
		page, err := outbox.List(ctx, acme, 0, 1)
		if err != nil || len(page.Messages) != 1 {
			t.Fatalf("outbox: %v", err)
		}
		m := page.Messages[0]
		headers := map[string]string{}
		for _, h := range m.Header {
			headers[h.Name] = h.Value
		}
		if headers["In-Reply-To"] != julia.MessageID || headers["References"] != first+" "+julia.MessageID {
			t.Errorf("threading: In-Reply-To %q, References %q; want %q and %q", headers["In-Reply-To"], headers["References"], julia.MessageID, first+" "+julia.MessageID)
		}
		if m.Mailbox != "dana@getacme.com" || !strings.Contains(m.To, "julia@acme-corp.example") || m.Subject != "Re: Month-end close" {
			t.Errorf("sent from %s to %s, subject %q", m.Mailbox, m.To, m.Subject)
		}
		if m.DKIM.Result != "pass" || m.DKIM.Domain != "getacme.com" {
			t.Errorf("DKIM: %+v", m.DKIM)
		}
		mustContain(t, m.Body, "Thursday at 10am Pacific works.", postal)
	})

	t.Run("recorded on the lead, whose sequence stays stopped", func(t *testing.T) {
		sends, err := replies.NewLeadHistory(replies.LeadHistoryDeps{DB: db}).LeadSends(ctx, acme, 1)
		if err != nil {
			t.Fatal(err)
		}
		type sent struct {
			Step    int
			Answer  bool
			Outcome string
		}
		var got []sent
		for _, s := range sends {
			got = append(got, sent{s.Step, s.Answer, s.Outcome})
		}
		if diff := cmp.Diff([]sent{{1, false, "delivered"}, {0, true, "delivered"}}, got); diff != "" {
			t.Errorf("the lead's sends (-want +got):\n%s", diff)
		}
		th, err := answers.Thread(ctx, acme, replies.ReplyKey{Mailbox: julia.Mailbox, MessageID: julia.MessageID})
		if err != nil {
			t.Fatal(err)
		}
		if th.Waiting || len(th.Answers) != 1 || th.Answers[0].Body != text || th.Answers[0].SendStatus != delivery.StatusSent {
			t.Errorf("thread: waiting %v, answers %+v", th.Waiting, th.Answers)
		}
	})

	t.Run("the lead answering back is read in the thread", func(t *testing.T) {
		page, err := outbox.List(ctx, acme, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Hour)
		if _, err := outbox.ReplyAsLead(ctx, acme, page.Messages[0].ID, "Perfect, see you Thursday. Can you include our controller?"); err != nil {
			t.Fatal(err)
		}
		if _, err := poller.Poll(ctx, acme, mb); err != nil {
			t.Fatal(err)
		}
		var out repliesOutput
		md := conv.Result(vibesell.ToolListReplies, map[string]any{"limit": 1}, &out)
		r := out.Replies[0]
		if r.From != "julia@acme-corp.example" || r.MatchedBy != "thread" || r.Step != nil || r.Lead == nil || r.Lead.ID != "1" {
			t.Fatalf("the answer back: %+v", r)
		}
		mustContain(t, md, "Answers the answer sent to their earlier reply of campaign "+campaign)
		var ctxOut workspaceOutput
		conv.Result(vibesell.ToolGetWorkspaceContext, nil, &ctxOut)
		mustContain(t, ctxOut.NextStep.Why, "A reply is waiting for an answer: from julia@acme-corp.example", r.MessageID)
	})

	t.Run("a crash between claim and send never sends twice", func(t *testing.T) {
		var back repliesOutput
		conv.Result(vibesell.ToolListReplies, map[string]any{"limit": 1}, &back)
		var second approvalOutput
		conv.Result(vibesell.ToolAnswerReply, map[string]any{"reply": back.Replies[0].MessageID, "text": "Of course, I'll add them to the invite.\n\nDana"}, &second)
		conv.Result(vibesell.ToolDecideApproval, map[string]any{"approval": second.Approval, "decision": "approve"}, nil)
		a, err := ap.Find(ctx, acme, second.Approval)
		if err != nil {
			t.Fatal(err)
		}
		var step int
		if err := db.QueryRow(ctx, `SELECT -id FROM mail_answers WHERE workspace_id = $1 AND approval_id = $2`, acme, a.ID).Scan(&step); err != nil {
			t.Fatal(err)
		}
		// A worker claimed the answer's ledger row and stopped before
		// handing it over.
		if _, err := db.Exec(ctx, `INSERT INTO mail_sends (workspace_id, campaign_id, lead_id, step, message_id, mailbox, recipient, status, claimed_at)
			VALUES ($1, $2, 1, $3, '<claimed@getacme.com>', 'dana@getacme.com', 'julia@acme-corp.example', 'claimed', $4)`, acme, campaign, step, clock.Now()); err != nil {
			t.Fatal(err)
		}
		before := accepted.Load()
		execute := func() (string, error) {
			return replies.AnswerAction(answers).Execute(ctx, approvals.Execution{Approval: a, Attempt: 1})
		}
		if _, err := execute(); err == nil {
			t.Fatal("an answer another attempt holds claimed was carried out, want an error to try again")
		}
		// Its claim lapses: released, it goes once.
		clock.Advance(delivery.ClaimLease + time.Minute)
		if _, err := dispatcher.ReleaseStale(ctx); err != nil {
			t.Fatal(err)
		}
		outcome, err := execute()
		if err != nil || !strings.HasPrefix(outcome, "Sent the answer") {
			t.Fatalf("after the claim lapsed: %q, %v", outcome, err)
		}
		// Marked sending and never settled (a worker killed in DATA): it
		// is not sent again.
		if _, err := db.Exec(ctx, `UPDATE mail_sends SET status = 'sending', settled_at = NULL WHERE workspace_id = $1 AND step = $2`, acme, step); err != nil {
			t.Fatal(err)
		}
		outcome, err = execute()
		if err != nil || !strings.HasPrefix(outcome, "Whether the answer to julia@acme-corp.example left is not known") {
			t.Fatalf("marked sending: %q, %v", outcome, err)
		}
		if got := accepted.Load() - before; got != 1 {
			t.Errorf("%d messages accepted, want 1", got)
		}
	})

	t.Run("refused with a sentence for who must not be written to", func(t *testing.T) {
		var omar string
		var all repliesOutput
		conv.Result(vibesell.ToolListReplies, map[string]any{"classification": "unsubscribe"}, &all)
		if len(all.Replies) != 1 {
			t.Fatalf("%d unsubscribe replies", len(all.Replies))
		}
		omar = all.Replies[0].MessageID
		got := conv.Refusal(vibesell.ToolAnswerReply, map[string]any{"reply": omar, "text": "Sorry to see you go."})
		if got != "omar@bolt.example asked to be unsubscribed; their address is suppressed and VibeSell writes to them no more." {
			t.Errorf("unsubscribed: %s", got)
		}
		if err := suppressions.Suppress(ctx, acme, "julia@acme-corp.example", "hard_bounce"); err != nil {
			t.Fatal(err)
		}
		got = conv.Refusal(vibesell.ToolAnswerReply, map[string]any{"reply": julia.MessageID, "text": text + " Again."})
		mustContain(t, got, "julia@acme-corp.example is on the workspace's suppression list")
		mustContain(t, conv.Refusal(vibesell.ToolAnswerReply, map[string]any{"reply": "<nobody@example.test>", "text": "Hi"}),
			"There is no reply with Message-ID <nobody@example.test> in this workspace.")
	})

	t.Run("another workspace sees no such reply", func(t *testing.T) {
		globex := toolkittest.Connect(t, NewServer(d, nil), workspacetest.Principal(ws.Globex))
		mustContain(t, globex.Refusal(vibesell.ToolAnswerReply, map[string]any{"reply": julia.MessageID, "text": text}), "There is no reply with Message-ID")
	})
}
