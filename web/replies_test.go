package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"vibesell"
	"vibesell/delivery"
	"vibesell/mail"
	"vibesell/replies"
	"vibesell/sandboxmail"
	"vibesell/sandboxmail/sandboxmailtest"
	"vibesell/web"
)

// A person opens the replies inbox, finds the reply waiting for an answer
// first, opens another reply's thread and corrects how it was read; the
// correction is recorded with who made it and counts from then on.
func TestBrowserRepliesInboxAndCorrection(t *testing.T) {
	t.Parallel()
	secret := sandboxmailtest.Secret(t)
	var sender *delivery.Dispatcher
	var list *replies.Replies
	a := setup(t, func(a *app, cfg *web.Deps) {
		sender = delivery.NewDispatcher(delivery.DispatcherDeps{DB: a.pool, Keys: mail.NewKeys(mail.KeysDeps{DB: a.pool, Secret: secret}), Suppressor: a.audience.MailSuppressions()})
		list = replies.NewReplies(replies.RepliesDeps{DB: a.pool})
		cfg.Replies = list
	})
	sandbox, mb := sandboxmailtest.Sandbox(t, mail.Address{Name: "Dana Reyes", Email: "dana@getacme.com"}, sandboxmail.Config{})
	ctx := context.Background()
	for i, l := range []struct {
		lead        int64
		email, text string
	}{
		{7, "sam@acme-corp.example", "Ha, my CFO forwarded yours too. Fine by me, go."},
		{8, "lee@bolt.example", "Interested! Can we talk on Thursday?"},
	} {
		res, err := sender.Send(ctx, delivery.Outgoing{
			Step:    delivery.Step{WorkspaceID: a.acme.ID, CampaignID: "cp_00000000000000e3", LeadID: l.lead, Step: 1},
			Mailbox: mb,
			Message: mail.Message{To: mail.Address{Email: l.email}, Subject: "Onboarding at Acme Corp", Body: "Hi,\n\nWould a shorter onboarding help?\n\nDana",
				PostalAddress: "1 Market St, San Francisco", UnsubscribeURL: secret.UnsubscribeURL(a.srv.URL, a.acme.ID, l.email)},
		})
		if err != nil {
			t.Fatal(err)
		}
		raw := fmt.Sprintf("From: %s\r\nTo: dana@getacme.com\r\nSubject: Re: Onboarding at Acme Corp\r\nDate: Tue, 1 Dec 2026 10:%02d:00 +0000\r\nMessage-ID: <r%d@example.test>\r\nIn-Reply-To: %s\r\n\r\n%s\r\n",
			l.email, 10-i, i, res.MessageID, l.text)
		if err := sandbox.DeliverReply(mb.Address.Email, []byte(raw)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := replies.NewPoller(replies.PollerDeps{DB: a.pool, Suppressor: a.audience.MailSuppressions(), Clock: vibesell.SystemClock{}}).Poll(ctx, a.acme.ID, mb); err != nil {
		t.Fatal(err)
	}

	tab := signedInTab(t, a.srv.URL+"/app/replies", "ada@acme.test")
	step := tab.Step
	step("wait for the inbox", chromedp.WaitVisible(chromedp.CSS(`#replies`)))
	tab.Screenshot("replies-inbox")
	rows := tab.Text("#replies tbody")
	// Lee's is older but waits for an answer: it comes first.
	lee, sam := strings.Index(rows, "lee@bolt.example"), strings.Index(rows, "sam@acme-corp.example")
	if lee < 0 || sam < 0 || lee > sam || !strings.Contains(rows, "Waiting for an answer") {
		t.Errorf("the inbox, want Lee's reply first and waiting:\n%s", rows)
	}
	if main := tab.Text("main"); strings.Contains(main, "correct_reply") || strings.Contains(main, "list_replies") {
		t.Errorf("the inbox names a tool:\n%s", main)
	}
	step("filter by classification", chromedp.SetValue(chromedp.CSS(`#classification`), "other"))
	step("show", chromedp.Click(chromedp.CSS(`#show`)))
	step("wait for the filtered list", chromedp.WaitNotPresent(`//table[@id="replies"]//a[contains(., "lee@bolt.example")]`))
	if rows := tab.Text("#replies tbody"); !strings.Contains(rows, "sam@acme-corp.example") {
		t.Errorf("filtered by other, the inbox does not show Sam's reply:\n%s", rows)
	}
	step("open Sam's thread", chromedp.Click(`//table[@id="replies"]//a[contains(., "sam@acme-corp.example")]`))
	step("wait for the thread", chromedp.WaitVisible(chromedp.CSS(`#lead-words`)))
	thread := tab.Text("main")
	for _, want := range []string{"The email it answers", "dana@getacme.com", "Written by the lead", "Fine by me, go.", "Other", "Why: no rule matched"} {
		if !strings.Contains(thread, want) {
			t.Errorf("the thread does not show %q:\n%s", want, thread)
		}
	}
	step("choose interested", chromedp.SetValue(chromedp.CSS(`#correct-class`), "interested"))
	step("save", chromedp.Click(chromedp.CSS(`#correct`)))
	step("wait for the correction", chromedp.WaitVisible(chromedp.CSS(`#corrected`)))
	tab.Screenshot("reply-corrected")
	if got := tab.Text("main"); !strings.Contains(got, "Corrected by ada@acme.test. VibeSell's rules had read it as Other") ||
		!strings.Contains(got, "changed it from Other to Interested") {
		t.Errorf("the thread after the correction:\n%s", got)
	}
	page, err := list.List(ctx, a.acme.ID, replies.ListOptions{Classification: replies.Interested})
	if err != nil || len(page.Replies) != 2 {
		t.Fatalf("interested replies after the correction: %d (%v); want 2", len(page.Replies), err)
	}
}
