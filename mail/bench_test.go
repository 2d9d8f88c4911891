package mail_test

import (
	"crypto/tls"
	"net"
	"strconv"
	"testing"

	gomail "github.com/wneessen/go-mail"

	"vibesell/mail"
)

// BenchmarkSend compares the engine's send (suppression check, ledger
// claim, compose, sign, submit, ledger settle) with bare go-mail loops that
// compose, sign and submit the same message to the same sandbox server, in
// the same run:
//
//	go test ./mail/ -run '^$' -bench BenchmarkSend -benchtime 300x
func BenchmarkSend(b *testing.B) {
	bn := setup(b)
	if _, err := bn.keys.Record(bn.ctx, bn.workspace, "getacme.com"); err != nil {
		b.Fatal(err)
	}
	host, portText, _ := net.SplitHostPort(bn.mailbox.SMTP.Addr)
	port, _ := strconv.Atoi(portText)
	client, err := gomail.NewClient(host, gomail.WithPort(port), gomail.WithTLSPolicy(gomail.TLSMandatory),
		gomail.WithTLSConfig(&tls.Config{RootCAs: bn.mailbox.SMTP.RootCAs, ServerName: host}),
		gomail.WithSMTPAuth(gomail.SMTPAuthPlain), gomail.WithUsername(bn.mailbox.SMTP.Username), gomail.WithPassword(bn.mailbox.SMTP.Password))
	if err != nil {
		b.Fatal(err)
	}
	key, err := bn.keys.Signer(bn.ctx, bn.workspace, "getacme.com")
	if err != nil {
		b.Fatal(err)
	}
	// The bare loops send the same message, built and signed the same way:
	// what they leave out is the ledger and the suppression check.
	bareMessage := func() *gomail.Msg {
		out := bn.outgoing(newCampaignID(), newLeadID(), 1)
		out.Message.From = bn.mailbox.Address
		out.Message.MessageID = mail.NewMessageID(bn.mailbox.Address.Email)
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
		if err := client.DialWithContext(bn.ctx); err != nil {
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
			if err := client.DialAndSendWithContext(bn.ctx, bareMessage()); err != nil {
				b.Fatal(err)
			}
		}
		perSecond(b)
	})
	b.Run("engine, one connection per batch of 50", func(b *testing.B) {
		campaign := newCampaignID()
		batch := make([]mail.Outgoing, 0, 50)
		flush := func() {
			if _, err := bn.sender.SendBatch(bn.ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
		for b.Loop() {
			batch = append(batch, bn.outgoing(campaign, newLeadID(), 1))
			if len(batch) == cap(batch) {
				flush()
			}
		}
		flush()
		perSecond(b)
	})
	b.Run("engine, a connection per message", func(b *testing.B) {
		campaign := newCampaignID()
		for b.Loop() {
			if _, err := bn.sender.Send(bn.ctx, bn.outgoing(campaign, newLeadID(), 1)); err != nil {
				b.Fatal(err)
			}
		}
		perSecond(b)
	})
}
