package delivery_test

import (
	"crypto/tls"
	"fmt"
	"net"
	"strconv"
	"testing"
	"time"

	gomail "github.com/wneessen/go-mail"

	"vibesell"
	"vibesell/campaigns"
	"vibesell/delivery"
	"vibesell/delivery/deliverytest"
	"vibesell/mail"
)

// BenchmarkSend compares the engine's send (suppression check, ledger
// claim, compose, sign, submit, ledger settle) with bare go-mail loops that
// compose, sign and submit the same message to the same sandbox server, in
// the same run:
//
//	go test ./mail/ -run '^$' -bench BenchmarkSend -benchtime 300x
func BenchmarkSend(b *testing.B) {
	bn := deliverytest.Setup(b)
	if _, err := bn.Keys.Record(bn.Ctx, bn.Workspace, "getacme.com"); err != nil {
		b.Fatal(err)
	}
	host, portText, _ := net.SplitHostPort(bn.Mailbox.SMTP.Addr)
	port, _ := strconv.Atoi(portText)
	client, err := gomail.NewClient(host, gomail.WithPort(port), gomail.WithTLSPolicy(gomail.TLSMandatory),
		gomail.WithTLSConfig(&tls.Config{RootCAs: bn.Mailbox.SMTP.RootCAs, ServerName: host}),
		gomail.WithSMTPAuth(gomail.SMTPAuthPlain), gomail.WithUsername(bn.Mailbox.SMTP.Username), gomail.WithPassword(bn.Mailbox.SMTP.Password))
	if err != nil {
		b.Fatal(err)
	}
	key, err := bn.Keys.Signer(bn.Ctx, bn.Workspace, "getacme.com")
	if err != nil {
		b.Fatal(err)
	}
	// The bare loops send the same message, built and signed the same way:
	// what they leave out is the ledger and the suppression check.
	bareMessage := func() *gomail.Msg {
		out := bn.Outgoing(deliverytest.NewCampaignID(), deliverytest.NewLeadID(), 1)
		out.Message.From = bn.Mailbox.Address
		out.Message.MessageID = mail.NewMessageID(bn.Mailbox.Address.Email)
		m, err := mail.Compose(out.Message, key)
		if err != nil {
			b.Fatal(err)
		}
		return m
	}
	perSecond := func(b *testing.B) {
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	}

	b.Run("bare go-mail, one connection", func(b *testing.B) {
		if err := client.DialWithContext(bn.Ctx); err != nil {
			b.Fatal(err)
		}
		defer client.Close()
		for b.Loop() {
			if err := client.Send(bareMessage()); err != nil {
				b.Fatal(err)
			}
		}
		perSecond(b)
	})
	b.Run("bare go-mail, a connection per message", func(b *testing.B) {
		for b.Loop() {
			if err := client.DialAndSendWithContext(bn.Ctx, bareMessage()); err != nil {
				b.Fatal(err)
			}
		}
		perSecond(b)
	})
	b.Run("engine, one connection per batch of 50", func(b *testing.B) {
		campaign := deliverytest.NewCampaignID()
		batch := make([]delivery.Outgoing, 0, 50)
		flush := func() {
			if _, err := bn.Dispatcher.SendBatch(bn.Ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
		for b.Loop() {
			batch = append(batch, bn.Outgoing(campaign, deliverytest.NewLeadID(), 1))
			if len(batch) == cap(batch) {
				flush()
			}
		}
		flush()
		perSecond(b)
	})
	b.Run("engine, a connection per message", func(b *testing.B) {
		campaign := deliverytest.NewCampaignID()
		for b.Loop() {
			if _, err := bn.Dispatcher.Send(bn.Ctx, bn.Outgoing(campaign, deliverytest.NewLeadID(), 1)); err != nil {
				b.Fatal(err)
			}
		}
		perSecond(b)
	})
}

// BenchmarkEngine runs the scheduler and the sender (the engine's ticks:
// reading the running campaign, working out what is due, the caps, the
// rotation, then for each email the suppression check, the gate and the
// claim in one transaction, compose, DKIM, SMTP, the settle) for b.N
// leads on mailboxes of 500 emails a day, and beside it, in the same
// run, a bare go-mail loop that builds, signs and sends the same number
// of the same messages to the same sandbox server over one connection:
//
// Both sign with the same key: RSA-2048, then Ed25519.
//
//	go test -run '^$' -bench BenchmarkEngine -benchtime 3000x ./mail
func BenchmarkEngine(b *testing.B) {
	for _, algorithm := range []string{mail.RSA, mail.Ed25519} {
		b.Run(algorithm, func(b *testing.B) { benchmarkEngine(b, algorithm) })
	}
}

func benchmarkEngine(b *testing.B, algorithm string) {
	const perMailbox = 500
	n := b.N
	eb := engineSetup(b, engineOptions{noGap: true, fullVolume: perMailbox, dkim: algorithm})
	var leads []vibesell.Lead
	for i := range n {
		leads = append(leads, vibesell.Lead{Email: fmt.Sprintf("lead%d@prospect%d.test", i, i%97), FirstName: "Pat", Company: "Prospect"})
	}
	var mailboxes []string
	for i := range (n + perMailbox - 1) / perMailbox {
		mailboxes = append(mailboxes, fmt.Sprintf("rep%d@getacme.test", i))
	}
	id := eb.launch(b, campaignSpec{leads: leads, mailboxes: mailboxes, dailyCap: perMailbox})
	eb.Clock.Set(time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC))

	// The bare loop: the same message, built and signed the same way,
	// from the first mailbox, over one connection.
	mb := mustMailbox(b, eb, mailboxes[0])
	secret, _ := mail.NewSecret(deliverytest.SecretKey)
	key, err := eb.keys.Signer(eb.ctx, eb.ws, "getacme.test")
	if err != nil {
		b.Fatal(err)
	}
	host, portText, _ := net.SplitHostPort(mb.SMTP.Addr)
	port, _ := strconv.Atoi(portText)
	client, err := gomail.NewClient(host, gomail.WithPort(port), gomail.WithTLSPolicy(gomail.TLSMandatory),
		gomail.WithTLSConfig(&tls.Config{RootCAs: mb.SMTP.RootCAs, ServerName: host}),
		gomail.WithSMTPAuth(gomail.SMTPAuthPlain), gomail.WithUsername(mb.SMTP.Username), gomail.WithPassword(mb.SMTP.Password))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	if err := client.DialWithContext(eb.ctx); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		m, err := mail.Compose(mail.Message{
			From: mail.Address{Name: "Sam Lee", Email: mb.Address.Email}, To: mail.Address{Name: "Pat", Email: leads[i].Email},
			Subject: "Lists at Prospect", Body: "Hi Pat,\n\nYour reps build prospect lists by hand. We do it for them, checked and ready each Monday.\n\nWorth a short call next week?\n\nSam",
			MessageID: mail.NewMessageID(mb.Address.Email), UnsubscribeURL: secret.UnsubscribeURL("https://vibesell.example.test", eb.ws, leads[i].Email),
			PostalAddress: "Acme Sales, 1 Market St, San Francisco, CA 94105", Date: eb.Clock.Now(),
		}, key)
		if err != nil {
			b.Fatal(err)
		}
		if err := client.Send(m); err != nil {
			b.Fatal(err)
		}
	}
	client.Close()
	bare := time.Since(start)

	before := len(eb.sandbox.Accepted())
	start = time.Now()
	sent := 0
	for {
		res := eb.tick(b)
		if res.Sent == 0 {
			break
		}
		sent += res.Sent
	}
	engine := time.Since(start)
	b.StopTimer()
	if sent != n || len(eb.sandbox.Accepted())-before != n {
		b.Fatalf("the engine sent %d (%d accepted), want %d", sent, len(eb.sandbox.Accepted())-before, n)
	}
	perDay := map[string]int{}
	for _, a := range eb.sandbox.Accepted()[before:] {
		perDay[a.From]++
	}
	for m, k := range perDay {
		if k > perMailbox {
			b.Fatalf("%s sent %d, over its cap of %d", m, k, perMailbox)
		}
	}
	if c := eb.campaign(b, id); c.Campaign.Status != campaigns.Sending {
		b.Fatalf("status %s", c.Campaign.Status)
	}
	b.ReportMetric(float64(n)/bare.Seconds(), "bare-msgs/s")
	b.ReportMetric(float64(n)/engine.Seconds(), "engine-msgs/s")
	b.ReportMetric(bare.Seconds()/engine.Seconds(), "engine/bare")
	b.ReportMetric(0, "ns/op")
}
