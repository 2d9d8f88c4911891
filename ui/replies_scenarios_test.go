package ui_test

import (
	"context"
	"fmt"
	"testing"

	"vibesell/audience"
	"vibesell/delivery"
	"vibesell/mail"
	"vibesell/replies"
	"vibesell/sandboxmail"
	"vibesell/sandboxmail/sandboxmailtest"
)

// repliesScenarios show list_replies before any reply, and with replies the
// engine really read: sent through the sandbox, answered, polled.
func repliesScenarios(t *testing.T, s *server) []*scenario {
	t.Helper()
	if !s.has("list_replies") {
		return nil
	}
	var out []*scenario
	sc, _ := s.scenario("replies-none", "list_replies", nil)
	sc.Expect.Texts = []string{"No replies yet"}
	sc.Expect.Absent = []string{"null", "undefined", "NaN"}
	out = append(out, sc)

	ctx := context.Background()
	sandbox, mb := sandboxmailtest.Sandbox(t, mail.Address{Name: "Dana Reyes", Email: "dana@getacme.com"}, sandboxmail.Config{})
	secret := sandboxmailtest.Secret(t)
	suppressions := audience.New(audience.Deps{DB: s.pool, Clock: s.clock}).MailSuppressions()
	sender := delivery.NewDispatcher(s.pool, mail.NewKeys(s.pool, secret, s.clock), suppressions, s.clock)
	campaign := "cp_0123456789abcdef" // made up: the replies list says it is unknown
	for i, l := range []struct{ email, text string }{
		{"sam@acme-corp.example", "Yes, interested. Could you send over a few times for Thursday?"},
		{"lee@bolt.example", "Not interested, thanks. Please take me off your list."},
	} {
		res, err := sender.Send(ctx, delivery.Outgoing{
			Step:    delivery.Step{WorkspaceID: s.ws.ID, CampaignID: campaign, LeadID: int64(i + 1), Step: 1},
			Mailbox: mb,
			Message: mail.Message{To: mail.Address{Email: l.email}, Subject: "Onboarding", Body: "Hi,\n\nA question.\n\nDana", PostalAddress: "1 Market St",
				UnsubscribeURL: secret.UnsubscribeURL(publicURL, s.ws.ID, l.email)},
		})
		if err != nil {
			t.Fatal(err)
		}
		reply := fmt.Sprintf("From: %s\r\nTo: dana@getacme.com\r\nSubject: Re: Onboarding\r\nMessage-ID: <r%d@example.test>\r\nIn-Reply-To: %s\r\n\r\n%s\r\n", l.email, i, res.MessageID, l.text)
		if err := sandbox.DeliverReply(mb.Address.Email, []byte(reply)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := replies.NewPoller(replies.PollerDeps{DB: s.pool, Suppressor: suppressions, Clock: s.clock}).Poll(ctx, s.ws.ID, mb); err != nil {
		t.Fatal(err)
	}
	sc, data := s.scenario("replies", "list_replies", nil)
	sc.Expect.Texts = []string{"2 replies"}
	for _, r := range list(data["replies"]) {
		reply := obj(r)
		sc.Expect.Texts = append(sc.Expect.Texts, str(reply["from"]), str(reply["excerpt"]), "Why: "+str(reply["rule"]))
	}
	sc.Expect.Texts = append(sc.Expect.Texts, "Interested", "Asked to unsubscribe")
	sc.Expect.Absent = []string{"null", "undefined", "NaN", "[object Object]"}
	out = append(out, sc)

	// An out-of-office reply names the day its sender is back, a calendar
	// day the card writes in its one date style.
	res, err := sender.Send(ctx, delivery.Outgoing{
		Step:    delivery.Step{WorkspaceID: s.ws.ID, CampaignID: campaign, LeadID: 3, Step: 1},
		Mailbox: mb,
		Message: mail.Message{To: mail.Address{Email: "kim@crane.example"}, Subject: "Onboarding", Body: "Hi,\n\nA question.\n\nDana", PostalAddress: "1 Market St",
			UnsubscribeURL: secret.UnsubscribeURL(publicURL, s.ws.ID, "kim@crane.example")},
	})
	if err != nil {
		t.Fatal(err)
	}
	reply := fmt.Sprintf("From: kim@crane.example\r\nTo: dana@getacme.com\r\nSubject: Out of office: Re: Onboarding\r\nMessage-ID: <r2@example.test>\r\nIn-Reply-To: %s\r\n\r\n%s\r\n",
		res.MessageID, "I am out of the office until 14 December 2026, with limited access to email.")
	if err := sandbox.DeliverReply(mb.Address.Email, []byte(reply)); err != nil {
		t.Fatal(err)
	}
	if _, err := replies.NewPoller(replies.PollerDeps{DB: s.pool, Suppressor: suppressions, Clock: s.clock}).Poll(ctx, s.ws.ID, mb); err != nil {
		t.Fatal(err)
	}
	sc, _ = s.scenario("replies-out-of-office", "list_replies", nil)
	sc.Expect.Texts = []string{"3 replies", "kim@crane.example", "Back on Mon 14 Dec 2026"}
	sc.Expect.Absent = []string{"2026-12-14", "null", "undefined", "NaN"}
	out = append(out, sc)
	return out
}
