package mail_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"vibesell"
	"vibesell/mail"
	"vibesell/workspace"
)

// The connection check signs in to real servers: the in-process sandbox's
// SMTP submission and IMAP, with good and bad passwords.
func TestConnectedMailboxes(t *testing.T) {
	b := setup(t)
	conns := mail.NewConnections(b.db, b.secret, b.clock, b.sandbox.Roots())
	conns.AllowPrivateHosts() // the sandbox listens on loopback
	other, err := workspace.Create(b.ctx, b.db, "Globex")
	if err != nil {
		t.Fatal(err)
	}
	good := b.mailbox.SMTP.Password
	request := func(smtpPassword, imapPassword string) mail.ConnectRequest {
		r := mail.ConnectRequest{Address: "Dana@GetAcme.com", SenderName: "Dana Reyes", SMTP: b.mailbox.SMTP.Settings(), IMAP: b.mailbox.IMAP.Settings()}
		r.SMTP.Password, r.IMAP.Password = smtpPassword, imapPassword
		return r
	}

	t.Run("a wrong password is refused, naming the server, and nothing is saved", func(t *testing.T) {
		_, err := conns.Connect(b.ctx, b.workspace, request("wrong-password", good))
		msg := vibesell.ErrorMessage(err)
		if vibesell.ErrorCode(err) != vibesell.EINVALID || !strings.HasPrefix(msg, "VibeSell could not sign in to the sending server "+b.sandbox.SMTPAddr()+" as dana@getacme.com") ||
			strings.Contains(msg, "wrong-password") || !strings.HasSuffix(msg, "nothing was saved.") {
			t.Errorf("bad SMTP password: %v", err)
		}
		_, err = conns.Connect(b.ctx, b.workspace, request(good, "wrong-password"))
		msg = vibesell.ErrorMessage(err)
		if vibesell.ErrorCode(err) != vibesell.EINVALID || !strings.HasPrefix(msg, "VibeSell could not sign in to the reading server "+b.sandbox.IMAPAddr()) || strings.Contains(msg, "wrong-password") {
			t.Errorf("bad IMAP password: %v", err)
		}
		tls := request(good, good)
		tls.SMTP.Security = mail.SecurityTLS
		if _, err := conns.Connect(b.ctx, b.workspace, tls); vibesell.ErrorCode(err) != vibesell.EINVALID {
			t.Errorf("implicit TLS against a STARTTLS server: %v", err)
		}
		if list, err := conns.List(b.ctx, b.workspace); err != nil || len(list) != 0 {
			t.Errorf("saved after failed checks: %q (%v); want none", addresses(list), err)
		}
	})
	t.Run("a host on a private network is refused unless allowed", func(t *testing.T) {
		_, err := mail.NewConnections(b.db, b.secret, b.clock, b.sandbox.Roots()).Connect(b.ctx, b.workspace, request(good, good))
		if want := "127.0.0.1 is on a private network (127.0.0.1), which VibeSell does not connect to. Use the server name your mail provider gives; nothing was saved."; vibesell.ErrorMessage(err) != want {
			t.Errorf("loopback: %v", err)
		}
	})
	t.Run("missing settings are all named at once", func(t *testing.T) {
		_, err := conns.Connect(b.ctx, b.workspace, mail.ConnectRequest{Address: "dana", SMTP: mail.ServerSettings{Host: "smtp.example.com", Port: 587, Security: "ssl", Username: "d", Password: "p"}})
		want := "The mailbox was not connected: the email address is not one (write it as name@example.com), the sending (SMTP) security must be STARTTLS or TLS and the reading (IMAP) server is missing or not a host name (like mail.example.com)."
		if vibesell.ErrorMessage(err) != want {
			t.Errorf("refusal:\n got %v\nwant %s", err, want)
		}
	})
	t.Run("good settings are checked, saved sealed, and listed without passwords", func(t *testing.T) {
		m, err := conns.Connect(b.ctx, b.workspace, request(good, good))
		if err != nil {
			t.Fatal(err)
		}
		want := mail.ConnectedMailbox{Address: "dana@getacme.com", SenderName: "Dana Reyes", SMTPHost: "127.0.0.1", SMTPPort: m.SMTPPort,
			SMTPSecurity: "starttls", SMTPUsername: "dana@getacme.com", IMAPHost: "127.0.0.1", IMAPPort: m.IMAPPort, IMAPSecurity: "starttls",
			IMAPUsername: "dana@getacme.com", CheckedAt: b.clock.Now(), ConnectedAt: b.clock.Now()}
		if diff := cmp.Diff(want, m, cmpopts.EquateApproxTime(0)); diff != "" {
			t.Errorf("connected mismatch (-want +got):\n%s", diff)
		}
		var sealed []byte
		if err := b.db.QueryRow(b.ctx, `SELECT passwords FROM mail_connected_mailboxes WHERE workspace_id = $1`, b.workspace).Scan(&sealed); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(sealed, []byte(good)) {
			t.Error("the password is stored in the clear")
		}
		list, err := conns.List(b.ctx, b.workspace)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]string{"dana@getacme.com"}, addresses(list)); d != "" {
			t.Fatalf("listed mailboxes mismatch (-want +got):\n%s", d)
		}
	})
	t.Run("the engine gets endpoints it can send and read with", func(t *testing.T) {
		boxes, err := conns.Mailboxes(b.ctx, b.workspace)
		if err != nil || len(boxes) != 1 {
			t.Fatalf("mailboxes: %d (%v); want 1", len(boxes), err)
		}
		mb := boxes[0]
		type endpoints struct {
			Address                    mail.Address
			SMTP, IMAP                 string
			SMTPPassword, IMAPPassword string
			ImplicitTLS                bool
		}
		want := endpoints{Address: mail.Address{Name: "Dana Reyes", Email: "dana@getacme.com"}, SMTP: b.sandbox.SMTPAddr(), IMAP: b.sandbox.IMAPAddr(), SMTPPassword: good, IMAPPassword: good}
		got := endpoints{Address: mb.Address, SMTP: mb.SMTP.Addr, IMAP: mb.IMAP.Addr, SMTPPassword: mb.SMTP.Password, IMAPPassword: mb.IMAP.Password, ImplicitTLS: mb.SMTP.ImplicitTLS}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("mailbox mismatch (-want +got):\n%s", d)
		}
		if _, err := mail.NewPoller(b.db, b.suppressor, b.clock, nil).Poll(b.ctx, b.workspace, mb); err != nil {
			t.Errorf("reading with the connected mailbox: %v", err)
		}
		out := b.outgoing(newCampaignID(), newLeadID(), 1)
		out.Mailbox = mb
		if res, err := b.sender.Send(b.ctx, out); err != nil || res.Status != mail.StatusSent {
			t.Errorf("sending from the connected mailbox: %s (%v); want sent", res.Status, err)
		}
	})
	t.Run("another workspace sees none of it", func(t *testing.T) {
		list, err := conns.List(b.ctx, other.ID)
		boxes, err2 := conns.Mailboxes(b.ctx, other.ID)
		if err != nil || err2 != nil || len(list) != 0 || len(boxes) != 0 {
			t.Errorf("Globex: %d listed, %d mailboxes (%v, %v)", len(list), len(boxes), err, err2)
		}
		if err := conns.Disconnect(b.ctx, other.ID, "dana@getacme.com"); vibesell.ErrorCode(err) != vibesell.ENOTFOUND {
			t.Errorf("Globex disconnecting Acme's mailbox: %v", err)
		}
	})
	t.Run("another key cannot open the passwords", func(t *testing.T) {
		otherKey, err := mail.NewSecret(bytes.Repeat([]byte("z"), 32))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := mail.NewConnections(b.db, otherKey, b.clock, b.sandbox.Roots()).Mailboxes(b.ctx, b.workspace); err == nil || !strings.Contains(err.Error(), "MAIL_SECRET_KEY") {
			t.Errorf("opened with another key: %v", err)
		}
	})
	t.Run("disconnected", func(t *testing.T) {
		if err := conns.Disconnect(b.ctx, b.workspace, "dana@getacme.com"); err != nil {
			t.Fatal(err)
		}
		if list, _ := conns.List(b.ctx, b.workspace); len(list) != 0 {
			t.Errorf("still listed: %q", addresses(list))
		}
	})
}

// addresses are the listed mailboxes' addresses, in the list's order.
func addresses(list []mail.ConnectedMailbox) []string {
	var a []string
	for _, c := range list {
		a = append(a, c.Address)
	}
	return a
}
