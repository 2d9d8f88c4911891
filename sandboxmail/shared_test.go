package sandboxmail_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"vibesell/mail"
	"vibesell/sandboxmail"
	"vibesell/sandboxmail/sandboxmailtest"
)

// A sandbox several replicas share: a replica that only knows the key,
// the addresses and the certificate sends from any mailbox as itself and
// delivers replies into it, and a wrong password is refused.
func TestSharedSandbox(t *testing.T) {
	t.Parallel()
	secret := sandboxmailtest.Secret(t)
	var got []sandboxmail.Accepted
	served, err := sandboxmail.Start(sandboxmail.Config{SMTPAddr: "127.0.0.1:0", IMAPAddr: "127.0.0.1:0",
		MailboxPassword: secret.SandboxPassword, OnAccept: func(a sandboxmail.Accepted) { got = append(got, a) }})
	if err != nil {
		t.Fatal(err)
	}
	defer served.Close()
	replica, err := sandboxmail.Connect(sandboxmail.SharedConfig{SMTPAddr: served.SMTPAddr(), IMAPAddr: served.IMAPAddr(),
		CertificatePEM: served.CertificatePEM(), MailboxPassword: secret.SandboxPassword})
	if err != nil {
		t.Fatal(err)
	}
	mb, err := replica.Mailbox(mail.Address{Name: "Dana Reyes", Email: "Dana@GetAcme.com"})
	if err != nil {
		t.Fatal(err)
	}

	c, err := mail.Submission(mb.SMTP, false, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.DialWithContext(context.Background()); err != nil {
		t.Fatalf("a replica logs in with the key's password: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	raw := "From: lead@prospect.example\r\nTo: dana@getacme.com\r\nSubject: Re: hi\r\nMessage-ID: <r1@prospect.example>\r\n\r\nTell me more.\r\n"
	if err := replica.DeliverReply(mb.Address.Email, []byte(raw)); err != nil {
		t.Fatalf("a replica delivers a reply over IMAP: %v", err)
	}
	ic, release, err := mail.DialIMAP(context.Background(), mb, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	sel, err := ic.Select("INBOX", nil).Wait()
	if err != nil {
		t.Fatal(err)
	}
	if sel.NumMessages != 1 {
		t.Fatalf("the inbox holds %d messages, want the reply", sel.NumMessages)
	}

	wrong := mb
	wrong.IMAP.Password = strings.Repeat("0", 64)
	if _, _, err := mail.DialIMAP(context.Background(), wrong, nil); !errors.Is(err, mail.ErrLoginRefused) {
		t.Fatalf("a wrong password: %v, want refused", err)
	}
	other, _ := mail.NewSecret([]byte(strings.Repeat("x", 32)))
	stranger := mb
	stranger.Address.Email, stranger.IMAP.Username = "kai@getacme.com", "kai@getacme.com"
	stranger.IMAP.Password = other.SandboxPassword("kai@getacme.com")
	if _, _, err := mail.DialIMAP(context.Background(), stranger, nil); !errors.Is(err, mail.ErrLoginRefused) {
		t.Fatalf("another key's password opens a mailbox: %v", err)
	}
}
