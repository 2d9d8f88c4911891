package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"vibesell"
	"vibesell/approvals"
	"vibesell/delivery"
	"vibesell/mail"
	"vibesell/mailboxes"
	"vibesell/replies"
	"vibesell/sandboxmail"
	"vibesell/sandboxmail/sandboxmailtest"
	"vibesell/web"
	"vibesell/workspace"
)

// acmeMailbox is the sending mailboxes of the test: Acme's one.
type acmeMailbox struct {
	b *outboxBundle
}

func (m acmeMailbox) Mailboxes(_ context.Context, ws uuid.UUID) ([]mailboxes.WorkspaceMailbox, error) {
	if ws != m.b.acme.ID {
		return nil, nil
	}
	return []mailboxes.WorkspaceMailbox{{WorkspaceID: ws, Account: m.b.mailbox}}, nil
}

// A person answers a lead's reply in the web app: the page shows the
// conversation and a form, without JavaScript; sending the form opens
// the approval and takes them to it; approved there, the answer goes out
// in the reply's thread.
func TestAnswerAReplyInTheWebApp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := &outboxBundle{secret: sandboxmailtest.Secret(t)}
	var answers *replies.Answers
	b.app = setup(t, func(a *app, cfg *web.Deps) {
		keys := mail.NewKeys(mail.KeysDeps{DB: a.pool, Secret: b.secret})
		b.sandbox, b.mailbox = sandboxmailtest.Sandbox(t, mail.Address{Name: "Dana Reyes", Email: "dana@getacme.com"},
			sandboxmail.Config{OnAccept: sandboxmail.KeepAccepted(a.pool, nil)})
		b.outbox = sandboxmail.NewOutbox(sandboxmail.OutboxDeps{DB: a.pool, Records: keyDNS{keys: keys, ws: a.acme.ID}, Sandbox: b.sandbox})
		b.sender = delivery.NewDispatcher(delivery.DispatcherDeps{DB: a.pool, Keys: keys, Suppressor: a.audience.MailSuppressions()})
		answers = replies.NewAnswers(replies.AnswersDeps{DB: a.pool, Approvals: a.approvals, Senders: a.workspaces, Suppressor: a.audience.MailSuppressions(),
			Sending: replies.SendingReady{Dispatcher: b.sender, Sources: acmeMailbox{b}, Secret: b.secret, PublicURL: "https://vibesell.example.test"}})
		a.approvals.Register(vibesell.ToolAnswerReply, replies.AnswerAction(answers))
		cfg.Outbox, cfg.Answers, cfg.Replies = b.outbox, answers, replies.NewReplies(replies.RepliesDeps{DB: a.pool})
	})
	mb := b.mailbox
	postal := "Acme Sales, 1 Market St, San Francisco, CA 94105"
	if _, err := b.workspaces.SetSender(ctx, b.acme.ID, workspace.SenderChange{PostalAddress: &postal}, time.Now()); err != nil {
		t.Fatal(err)
	}
	b.send(t, 7)
	page, err := b.outbox.List(ctx, b.acme.ID, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.outbox.ReplyAsLead(ctx, b.acme.ID, page.Messages[0].ID, "Sounds interesting. Could we talk on Thursday at 10am?"); err != nil {
		t.Fatal(err)
	}
	if _, err := replies.NewPoller(replies.PollerDeps{DB: b.pool, Suppressor: b.audience.MailSuppressions()}).Poll(ctx, b.acme.ID, mb); err != nil {
		t.Fatal(err)
	}
	list, err := replies.NewReplies(replies.RepliesDeps{DB: b.pool}).List(ctx, b.acme.ID, replies.ListOptions{})
	if err != nil || len(list.Replies) != 1 {
		t.Fatalf("replies: %v", err)
	}
	reply := list.Replies[0]
	path := "/app/replies/" + replies.ReplyKey{Mailbox: reply.Mailbox, MessageID: reply.MessageID}.Ref() + "/answer"

	ada := b.browser(t)
	ada.SignIn("ada@acme.test", password, path)
	// The reply's page in the inbox leads to the answer.
	if thread := ada.Get("/app/replies/" + reply.ID); !strings.Contains(thread.Body, `href="`+path+`"`) {
		t.Errorf("the reply's page does not lead to its answer (%s):\n%s", path, thread.Body)
	}
	p := ada.Get(path)
	if p.Status != http.StatusOK {
		t.Fatalf("the answer page: %d\n%s", p.Status, p.Body)
	}
	for _, want := range []string{"Answer sam@acme-corp.example", "Email 1 of the campaign", "Could we talk on Thursday at 10am?", "(the one you are answering)",
		`<textarea id="answer-text" name="text"`, `action="` + path + `"`, "Nothing is sent until it is approved"} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("the answer page lacks %q", want)
		}
	}
	if strings.Contains(p.Body, "answer_reply") || strings.Contains(p.Body, "list_replies") {
		t.Error("the answer page names a tool")
	}

	empty := ada.Post(path, url.Values{"csrf": {p.CSRF(t)}, "text": {"  "}})
	if empty.Status != http.StatusUnprocessableEntity || !strings.Contains(empty.Body, "Write the answer first: its text is empty.") {
		t.Errorf("an empty answer: %d", empty.Status)
	}
	text := "Hi Sam,\n\nThursday at 10am works. I'll send an invite.\n\nDana"
	sent := ada.Post(path, url.Values{"csrf": {p.CSRF(t)}, "text": {text}})
	if sent.Status != http.StatusSeeOther || !strings.HasPrefix(sent.Location, "/app/approvals/ap_") {
		t.Fatalf("sending the answer: %d %q", sent.Status, sent.Location)
	}
	id := strings.TrimPrefix(sent.Location, "/app/approvals/")
	ap := ada.Get(sent.Location)
	for _, want := range []string{"From: Dana Reyes &lt;dana@getacme.com&gt;", "To: sam@acme-corp.example", "Subject: Re: Onboarding at Acme Corp", "In reply to: their reply of",
		"Thursday at 10am works. I&#39;ll send an invite."} {
		if !strings.Contains(ap.Body, want) {
			t.Errorf("the approval page lacks %q", want)
		}
	}
	if r := ada.Post(approvals.AppPath(id)+"/approve", url.Values{"csrf": {ap.CSRF(t)}, "confirm": {"yes"}}); r.Status != http.StatusSeeOther {
		t.Fatalf("approve: %d\n%s", r.Status, r.Body)
	}
	if a := b.execute(t, id); a.Status != approvals.Done {
		t.Fatalf("the answer approval ended %s: %s", a.Status, *a.Outcome)
	}
	page, err = b.outbox.List(ctx, b.acme.ID, 0, 1)
	if err != nil || !strings.Contains(page.Messages[0].Body, "Thursday at 10am works.") || page.Messages[0].Subject != "Re: Onboarding at Acme Corp" {
		t.Fatalf("the outbox's newest: %+v (%v)", page.Messages[0].Subject, err)
	}
	again := ada.Get(path)
	if !strings.Contains(again.Body, "Answer to their reply") || !strings.Contains(again.Body, ">Sent</span>") {
		t.Errorf("the answer page after sending lacks the answer sent")
	}

	bob := b.browser(t)
	bob.SignIn("bob@globex.test", password, path)
	if g := bob.Get(path); g.Status != http.StatusNotFound {
		t.Errorf("Globex opening Acme's reply: %d", g.Status)
	}
}
