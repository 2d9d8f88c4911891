package mailboxes_test

import (
	"bytes"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"vibesell"
	"vibesell/delivery"
	"vibesell/delivery/deliverytest"
	"vibesell/mail"
	"vibesell/mailboxes"
	"vibesell/outbound"
	"vibesell/replies"
	"vibesell/sandboxmail/sandboxmailtest"
	"vibesell/workspace"
)

// The connection check signs in to real servers: the in-process sandbox's
// SMTP submission and IMAP, with good and bad passwords.
func TestConnectedMailboxes(t *testing.T) {
	b := deliverytest.Setup(t)
	conns := mailboxes.NewConnections(b.DB, b.Secret, b.Clock, b.Sandbox.Roots())
	conns.UseGuard(sandboxmailtest.Guard(t, b.Sandbox)) // the sandbox listens on loopback
	other, err := workspace.Create(b.Ctx, b.DB, "Globex")
	if err != nil {
		t.Fatal(err)
	}
	good := b.Mailbox.SMTP.Password
	request := func(smtpPassword, imapPassword string) mailboxes.ConnectRequest {
		r := mailboxes.ConnectRequest{Address: "Dana@GetAcme.com", SenderName: "Dana Reyes", SMTP: b.Mailbox.SMTP.Settings(), IMAP: b.Mailbox.IMAP.Settings()}
		r.SMTP.Password, r.IMAP.Password = smtpPassword, imapPassword
		return r
	}

	t.Run("a wrong password is refused, naming the server, and nothing is saved", func(t *testing.T) {
		_, err := conns.Connect(b.Ctx, b.Workspace, request("wrong-password", good))
		msg := vibesell.ErrorMessage(err)
		if vibesell.ErrorCode(err) != vibesell.EINVALID || !strings.HasPrefix(msg, "VibeSell could not sign in to the sending server "+b.Sandbox.SMTPAddr()+" as dana@getacme.com: the server did not accept the username and password.") ||
			strings.Contains(msg, "wrong-password") || !strings.HasSuffix(msg, "nothing was saved.") {
			t.Errorf("bad SMTP password: %v", err)
		}
		_, err = conns.Connect(b.Ctx, b.Workspace, request(good, "wrong-password"))
		msg = vibesell.ErrorMessage(err)
		if vibesell.ErrorCode(err) != vibesell.EINVALID || !strings.HasPrefix(msg, "VibeSell could not sign in to the reading server "+b.Sandbox.IMAPAddr()+" as dana@getacme.com: the server did not accept the username and password.") || strings.Contains(msg, "wrong-password") {
			t.Errorf("bad IMAP password: %v", err)
		}
		tls := request(good, good)
		tls.SMTP.Security = mail.SecurityTLS
		if _, err := conns.Connect(b.Ctx, b.Workspace, tls); vibesell.ErrorCode(err) != vibesell.EINVALID {
			t.Errorf("implicit TLS against a STARTTLS server: %v", err)
		}
		if list, err := conns.List(b.Ctx, b.Workspace); err != nil || len(list) != 0 {
			t.Errorf("saved after failed checks: %q (%v); want none", addresses(list), err)
		}
	})
	t.Run("production's rules refuse loopback, even on an allowed port", func(t *testing.T) {
		_, err := mailboxes.NewConnections(b.DB, b.Secret, b.Clock, b.Sandbox.Roots()).Connect(b.Ctx, b.Workspace, request(good, good))
		want := "VibeSell did not connect to the sending server " + b.Sandbox.SMTPAddr() + ": port " + strconv.Itoa(b.Mailbox.SMTP.Settings().Port) +
			" is not one VibeSell connects to (only 25, 143, 465, 587 and 993). Use the server name and port your mail provider gives; nothing was saved."
		if vibesell.ErrorMessage(err) != want {
			t.Errorf("the default guard:\n got %v\nwant %s", err, want)
		}
		prod := mailboxes.NewConnections(b.DB, b.Secret, b.Clock, b.Sandbox.Roots())
		prod.UseGuard(outbound.New(outbound.Config{Ports: []int{b.Mailbox.SMTP.Settings().Port, b.Mailbox.IMAP.Settings().Port}}))
		_, err = prod.Connect(b.Ctx, b.Workspace, request(good, good))
		want = "VibeSell did not connect to the sending server " + b.Sandbox.SMTPAddr() + ": 127.0.0.1 is a loopback address (this machine), not on the public internet." +
			" Use the server name and port your mail provider gives; nothing was saved."
		if vibesell.ErrorMessage(err) != want || vibesell.ErrorCode(err) != vibesell.EINVALID {
			t.Errorf("loopback on a mail port:\n got %v\nwant %s", err, want)
		}
	})
	t.Run("missing settings are all named at once", func(t *testing.T) {
		_, err := conns.Connect(b.Ctx, b.Workspace, mailboxes.ConnectRequest{Address: "dana", SMTP: mail.ServerSettings{Host: "smtp.example.com", Port: 587, Security: "ssl", Username: "d", Password: "p"}})
		want := "The mailbox was not connected: the email address is not one (write it as name@example.com), the sending (SMTP) security must be STARTTLS or TLS and the reading (IMAP) server is missing or not a host name (like mail.example.com)."
		if vibesell.ErrorMessage(err) != want {
			t.Errorf("refusal:\n got %v\nwant %s", err, want)
		}
	})
	t.Run("good settings are checked, saved sealed, and listed without passwords", func(t *testing.T) {
		m, err := conns.Connect(b.Ctx, b.Workspace, request(good, good))
		if err != nil {
			t.Fatal(err)
		}
		want := mailboxes.ConnectedMailbox{Address: "dana@getacme.com", SenderName: "Dana Reyes", SMTPHost: "127.0.0.1", SMTPPort: m.SMTPPort,
			SMTPSecurity: "starttls", SMTPUsername: "dana@getacme.com", IMAPHost: "127.0.0.1", IMAPPort: m.IMAPPort, IMAPSecurity: "starttls",
			IMAPUsername: "dana@getacme.com", CheckedAt: b.Clock.Now(), ConnectedAt: b.Clock.Now()}
		if diff := cmp.Diff(want, m, cmpopts.EquateApproxTime(0)); diff != "" {
			t.Errorf("connected mismatch (-want +got):\n%s", diff)
		}
		var sealed []byte
		if err := b.DB.QueryRow(b.Ctx, `SELECT passwords FROM mail_connected_mailboxes WHERE workspace_id = $1`, b.Workspace).Scan(&sealed); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(sealed, []byte(good)) {
			t.Error("the password is stored in the clear")
		}
		list, err := conns.List(b.Ctx, b.Workspace)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]string{"dana@getacme.com"}, addresses(list)); d != "" {
			t.Fatalf("listed mailboxes mismatch (-want +got):\n%s", d)
		}
	})
	t.Run("the engine gets endpoints it can send and read with", func(t *testing.T) {
		boxes, err := conns.Mailboxes(b.Ctx, b.Workspace)
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
		want := endpoints{Address: mail.Address{Name: "Dana Reyes", Email: "dana@getacme.com"}, SMTP: b.Sandbox.SMTPAddr(), IMAP: b.Sandbox.IMAPAddr(), SMTPPassword: good, IMAPPassword: good}
		got := endpoints{Address: mb.Address, SMTP: mb.SMTP.Addr, IMAP: mb.IMAP.Addr, SMTPPassword: mb.SMTP.Password, IMAPPassword: mb.IMAP.Password, ImplicitTLS: mb.SMTP.ImplicitTLS}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("mailbox mismatch (-want +got):\n%s", d)
		}
		if _, err := replies.NewPoller(replies.PollerDeps{DB: b.DB, Suppressor: b.Suppressor, Clock: b.Clock}).Poll(b.Ctx, b.Workspace, mb); err != nil {
			t.Errorf("reading with the connected mailbox: %v", err)
		}
		out := b.Outgoing(deliverytest.NewCampaignID(), deliverytest.NewLeadID(), 1)
		out.Mailbox = mb
		if res, err := b.Dispatcher.Send(b.Ctx, out); err != nil || res.Status != delivery.StatusSent {
			t.Errorf("sending from the connected mailbox: %s (%v); want sent", res.Status, err)
		}
	})
	t.Run("another workspace sees none of it", func(t *testing.T) {
		list, err := conns.List(b.Ctx, other.ID)
		boxes, err2 := conns.Mailboxes(b.Ctx, other.ID)
		if err != nil || err2 != nil || len(list) != 0 || len(boxes) != 0 {
			t.Errorf("Globex: %d listed, %d mailboxes (%v, %v)", len(list), len(boxes), err, err2)
		}
		if err := conns.Disconnect(b.Ctx, other.ID, "dana@getacme.com"); vibesell.ErrorCode(err) != vibesell.ENOTFOUND {
			t.Errorf("Globex disconnecting Acme's mailbox: %v", err)
		}
	})
	t.Run("another key cannot open the passwords", func(t *testing.T) {
		otherKey, err := mail.NewSecret(bytes.Repeat([]byte("z"), 32))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := mailboxes.NewConnections(b.DB, otherKey, b.Clock, b.Sandbox.Roots()).Mailboxes(b.Ctx, b.Workspace); err == nil || !strings.Contains(err.Error(), "MAIL_SECRET_KEY") {
			t.Errorf("opened with another key: %v", err)
		}
	})
	t.Run("disconnected", func(t *testing.T) {
		if err := conns.Disconnect(b.Ctx, b.Workspace, "dana@getacme.com"); err != nil {
			t.Fatal(err)
		}
		if list, _ := conns.List(b.Ctx, b.Workspace); len(list) != 0 {
			t.Errorf("still listed: %q", addresses(list))
		}
	})
}

// Addresses that are not on the public internet, or ports that are not a
// mail server's, are refused at dial time, before any packet leaves, with
// what was refused; the check is limited per workspace.
func TestConnectionChecksAreGuarded(t *testing.T) {
	b := deliverytest.Setup(t)
	conns := mailboxes.NewConnections(b.DB, b.Secret, b.Clock, b.Sandbox.Roots())
	// Production's rules, and nothing off this machine even if they let an
	// address through: a regression fails here without a packet leaving.
	conns.UseGuard(outbound.New(outbound.Config{Reach: func(ap netip.AddrPort) error {
		if !ap.Addr().IsLoopback() {
			return fmt.Errorf("the test would have connected to %s, off this machine", ap)
		}
		return nil
	}}))
	request := func(host string, port int) mailboxes.ConnectRequest {
		s := mail.ServerSettings{Host: host, Port: port, Security: mail.SecuritySTARTTLS, Username: "dana", Password: "secret"}
		return mailboxes.ConnectRequest{Address: "dana@getacme.com", SMTP: s, IMAP: s}
	}
	for _, tc := range []struct {
		host string
		port int
		why  string
	}{
		{"100.100.100.200", 587, "100.100.100.200 is a shared (carrier-grade NAT) address"},
		{"100.64.0.1", 587, "100.64.0.1 is a shared (carrier-grade NAT) address"},
		{"198.18.0.1", 465, "198.18.0.1 is a benchmarking address"},
		{"10.0.0.5", 993, "10.0.0.5 is a private network address"},
		{"169.254.169.254", 25, "169.254.169.254 is a link-local address"},
		{"192.0.2.10", 587, "192.0.2.10 is a documentation address"},
		{"224.0.0.1", 25, "224.0.0.1 is a multicast address"},
		{"mail.example.com", 8080, "port 8080 is not one VibeSell connects to (only 25, 143, 465, 587 and 993)"},
	} {
		_, err := conns.Connect(b.Ctx, b.Workspace, request(tc.host, tc.port))
		addr := net.JoinHostPort(tc.host, strconv.Itoa(tc.port))
		if msg := vibesell.ErrorMessage(err); !strings.HasPrefix(msg, "VibeSell did not connect to the sending server "+addr+": "+tc.why) {
			t.Errorf("%s: %v\nwant it to say %q", addr, err, tc.why)
		}
	}

	t.Run("limited per workspace", func(t *testing.T) {
		limited := mailboxes.NewConnections(b.DB, b.Secret, b.Clock, b.Sandbox.Roots())
		var allow []netip.AddrPort
		for _, a := range []string{b.Sandbox.SMTPAddr(), b.Sandbox.IMAPAddr()} {
			allow = append(allow, netip.MustParseAddrPort(a))
		}
		limited.UseGuard(outbound.New(outbound.Config{Allow: allow, PerMinute: 2, Clock: b.Clock}))
		r := mailboxes.ConnectRequest{Address: "dana@getacme.com", SMTP: b.Mailbox.SMTP.Settings(), IMAP: b.Mailbox.IMAP.Settings()}
		if _, err := limited.Connect(b.Ctx, b.Workspace, r); err != nil {
			t.Fatalf("first check (two connections): %v", err)
		}
		_, err := limited.Connect(b.Ctx, b.Workspace, r)
		if vibesell.ErrorCode(err) != vibesell.ERATELIMITED || !strings.Contains(vibesell.ErrorMessage(err), "too many connections to outside servers in the last minute (at most 2)") {
			t.Errorf("third connection: %v", err)
		}
		other, err := workspace.Create(b.Ctx, b.DB, "Globex")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := limited.Connect(b.Ctx, other.ID, r); err != nil {
			t.Errorf("another workspace: %v", err)
		}
	})

	t.Run("what the remote end says and this server's address are never shown", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		ours := make(chan string, 2)
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				ours <- c.RemoteAddr().String()
				c.Write([]byte("554 SECRET-BANNER internal-admin 10.9.8.7 version 1.2.3\r\n"))
				c.Close()
			}
		}()
		ap := netip.MustParseAddrPort(ln.Addr().String())
		probe := mailboxes.NewConnections(b.DB, b.Secret, b.Clock, b.Sandbox.Roots())
		probe.UseGuard(outbound.New(outbound.Config{Allow: []netip.AddrPort{ap}}))
		_, err = probe.Connect(b.Ctx, b.Workspace, request(ap.Addr().String(), int(ap.Port())))
		msg := vibesell.ErrorMessage(err)
		local := <-ours
		if vibesell.ErrorCode(err) != vibesell.EINVALID || strings.Contains(msg, "SECRET") || strings.Contains(msg, "10.9.8.7") || strings.Contains(msg, local) ||
			!strings.HasPrefix(msg, "VibeSell could not sign in to the sending server "+ap.String()+" as dana: the server did not complete the sign-in") {
			t.Errorf("a server answering with a banner: %v", err)
		}
	})
}

// After a mailbox is saved, its stored address is dialled through the
// guard too: a mailbox whose server now points at another service on this
// machine (its name rebound, its row changed) gets no connection from the
// engine or the reply watcher.
func TestConnectedMailboxesAreDialledThroughTheGuard(t *testing.T) {
	b := deliverytest.Setup(t)
	conns := mailboxes.NewConnections(b.DB, b.Secret, b.Clock, b.Sandbox.Roots())
	conns.UseGuard(sandboxmailtest.Guard(t, b.Sandbox))
	if _, err := conns.Connect(b.Ctx, b.Workspace, mailboxes.ConnectRequest{Address: "dana@getacme.com",
		SMTP: b.Mailbox.SMTP.Settings(), IMAP: b.Mailbox.IMAP.Settings()}); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var reached atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			reached.Add(1)
			c.Close()
		}
	}()
	internal := netip.MustParseAddrPort(ln.Addr().String()).Port()
	if _, err := b.DB.Exec(b.Ctx, `UPDATE mail_connected_mailboxes SET smtp_port = $2, imap_port = $2 WHERE workspace_id = $1`, b.Workspace, int(internal)); err != nil {
		t.Fatal(err)
	}
	boxes, err := conns.Mailboxes(b.Ctx, b.Workspace)
	if err != nil || len(boxes) != 1 {
		t.Fatalf("mailboxes: %d (%v)", len(boxes), err)
	}
	_, err = replies.NewPoller(replies.PollerDeps{DB: b.DB, Suppressor: b.Suppressor, Clock: b.Clock}).Poll(b.Ctx, b.Workspace, boxes[0])
	if outbound.Refused(err) == nil {
		t.Errorf("reading replies: %v, want the guard's refusal", err)
	}
	out := b.Outgoing(deliverytest.NewCampaignID(), deliverytest.NewLeadID(), 1)
	out.Mailbox = boxes[0]
	res, err := b.Dispatcher.Send(b.Ctx, out)
	if outbound.Refused(err) == nil || res.Status != delivery.StatusFailed {
		t.Errorf("sending: %s (%v), want failed with the guard's refusal", res.Status, err)
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the service on this machine was reached %d times", n)
	}
}

// addresses are the listed mailboxes' addresses, in the list's order.
func addresses(list []mailboxes.ConnectedMailbox) []string {
	var a []string
	for _, c := range list {
		a = append(a, c.Address)
	}
	return a
}
