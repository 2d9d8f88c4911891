package mail_test

import (
	"crypto/tls"
	"net"
	"strconv"
	"testing"

	"github.com/google/uuid"
	gomail "github.com/wneessen/go-mail"
)

// BenchmarkSend compares the engine's send (ledger claim, DKIM key, compose,
// sign, submit, ledger settle) with bare go-mail loops sending the same
// message to the same sandbox server, in the same run:
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
	bareMessage := func() *gomail.Msg {
		out := bn.outgoing(uuid.Nil, uuid.Nil, 1)
		m := gomail.NewMsg()
		m.FromFormat("Dana Reyes", bn.mailbox.Address.Email)
		m.AddToFormat(out.Message.To.Name, out.Message.To.Email)
		m.Subject(out.Message.Subject)
		m.SetBodyString(gomail.TypeTextPlain, out.Message.Body)
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
	b.Run("engine", func(b *testing.B) {
		campaign := uuid.New()
		for b.Loop() {
			if _, err := bn.sender.Send(bn.ctx, bn.outgoing(campaign, uuid.New(), 1)); err != nil {
				b.Fatal(err)
			}
		}
		perSecond(b)
	})
}
