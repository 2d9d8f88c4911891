package sandboxmail

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/emersion/go-imap/v2"

	"vibesell"
	"vibesell/mail"
)

// SharedConfig says how to reach a sandbox mail server that another
// process runs for several replicas: where it listens, the certificate it
// serves, and its mailboxes' passwords (its Config.MailboxPassword).
type SharedConfig struct {
	SMTPAddr, IMAPAddr string
	CertificatePEM     []byte
	MailboxPassword    func(email string) string
	Clock              vibesell.Clock
	Logger             *slog.Logger
}

// Connect returns the sandbox another process runs, as this process sees
// it: its mailboxes' endpoints, and replies delivered over IMAP. It keeps
// no message (the serving process does) and serves nothing, so every
// replica sends to, and reads replies from, the same mailboxes however
// many replicas there are and whichever is stopped.
func Connect(cfg SharedConfig) (*Sandbox, error) {
	for _, addr := range []string{cfg.SMTPAddr, cfg.IMAPAddr} {
		if err := requireLoopback(addr); err != nil {
			return nil, err
		}
	}
	if cfg.MailboxPassword == nil {
		return nil, errors.New("a shared sandbox mail server needs the mailboxes' passwords")
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(cfg.CertificatePEM) {
		return nil, errors.New("the shared sandbox mail server's certificate is not PEM")
	}
	if cfg.Clock == nil {
		cfg.Clock = vibesell.SystemClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Sandbox{clock: cfg.Clock, logger: cfg.Logger, roots: roots, certPEM: cfg.CertificatePEM, password: cfg.MailboxPassword, shared: true,
		smtpAddr: cfg.SMTPAddr, imapAddr: cfg.IMAPAddr, passwords: map[string]string{}}, nil
}

// appendOver delivers a reply to a shared sandbox's mailbox over IMAP,
// logged in as the mailbox.
func (s *Sandbox) appendOver(mailbox string, raw []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	email := strings.ToLower(mailbox)
	c, release, err := mail.DialIMAP(ctx, s.account(mail.Address{Email: email}, email, s.password(email)), nil)
	if err != nil {
		return fmt.Errorf("sandbox: deliver to %s: %w", mailbox, err)
	}
	defer release()
	w := c.Append("INBOX", int64(len(raw)), &imap.AppendOptions{Time: s.clock.Now()})
	if _, err := w.Write(raw); err != nil {
		w.Close()
		return fmt.Errorf("sandbox: deliver to %s: %w", mailbox, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("sandbox: deliver to %s: %w", mailbox, err)
	}
	if _, err := w.Wait(); err != nil {
		return fmt.Errorf("sandbox: deliver to %s: %w", mailbox, err)
	}
	return nil
}
