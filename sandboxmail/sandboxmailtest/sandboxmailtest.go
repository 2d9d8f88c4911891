// Package sandboxmailtest gives tests of other packages the sending engine's
// outside seams as they really run: the in-process sandbox mail server
// with a mailbox in it, and a mail secret.
package sandboxmailtest

import (
	"bytes"
	"net/netip"
	"testing"

	"vibesell/mail"
	"vibesell/outbound"
	"vibesell/sandboxmail"
)

// Sandbox starts the sandbox mail server on free loopback ports for the
// test, with the mailbox address in it, and stops it when the test ends.
// cfg's addresses may be left empty.
func Sandbox(t testing.TB, address mail.Address, cfg sandboxmail.Config) (*sandboxmail.Sandbox, mail.Account) {
	t.Helper()
	if cfg.SMTPAddr == "" {
		cfg.SMTPAddr = "127.0.0.1:0"
	}
	if cfg.IMAPAddr == "" {
		cfg.IMAPAddr = "127.0.0.1:0"
	}
	s, err := sandboxmail.Start(cfg)
	if err != nil {
		t.Fatalf("mailtest: start the sandbox: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	mb, err := s.AddMailbox(address)
	if err != nil {
		t.Fatalf("mailtest: add %s: %v", address.Email, err)
	}
	return s, mb
}

// Secret is the tests' MAIL_SECRET_KEY.
func Secret(t testing.TB) mail.Secret {
	t.Helper()
	s, err := mail.NewSecret(bytes.Repeat([]byte("k"), 32))
	if err != nil {
		t.Fatalf("mailtest: secret: %v", err)
	}
	return s
}

// Guard is an outbound guard with production's rules that lets exactly
// the sandboxes' SMTP and IMAP addresses through (they listen on
// loopback), for connecting a mailbox that lives in them.
func Guard(t testing.TB, sandboxes ...*sandboxmail.Sandbox) *outbound.Guard {
	t.Helper()
	var allow []netip.AddrPort
	for _, s := range sandboxes {
		for _, addr := range []string{s.SMTPAddr(), s.IMAPAddr()} {
			ap, err := netip.ParseAddrPort(addr)
			if err != nil {
				t.Fatalf("mailtest: the sandbox listens on %q: %v", addr, err)
			}
			allow = append(allow, ap)
		}
	}
	return outbound.New(outbound.Deps{Allow: allow})
}
