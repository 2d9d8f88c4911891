package main

import (
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/emersion/go-smtp"
	"github.com/google/uuid"

	"vibesell/store/storetest"
)

func TestMailConfigRefusesBadValuesNamingTheVariable(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, value string }{
		{"MAIL_SECRET_KEY", "too-short"},
		{"MAIL_SANDBOX_SMTP_ADDR", "0.0.0.0:2525"},
		{"MAIL_SANDBOX_IMAP_ADDR", "mail.example.com:143"},
		{"MAIL_SANDBOX_IMAP_ADDR", "127.0.0.1"},
		{"MAIL_DKIM_KEY", "dsa"},
		{"MAIL_BOUNCE_LIMIT", "0"},
		{"MAIL_BOUNCE_LIMIT", "two"},
		{"MAIL_COMPLAINT_LIMIT", "0"},
		{"MAIL_COMPLAINT_LIMIT", "0.3 percent"},
		{"OUTBOUND_MAIL_PORTS", "587,smtp"},
		{"OUTBOUND_MAIL_PORTS", "0"},
		{"OUTBOUND_CONNECTIONS_PER_MINUTE", "0"},
		{"OUTBOUND_CONNECTIONS_PER_MINUTE", "many"},
	}
	for _, c := range cases {
		msg := configRefusal(t, c.name, c.value)
		if c.name == "MAIL_SECRET_KEY" && strings.Contains(msg, c.value) {
			t.Errorf("the message shows the secret: %q", msg)
		}
	}
}

func TestServeRunsTheSandboxMailServer(t *testing.T) {
	t.Parallel()
	smtpAddr, imapAddr := freeAddr(t), freeAddr(t)
	s := startServer(t, "DATABASE_URL", storetest.NewURL(t), "LOG_LEVEL", "warn",
		"MAIL_SANDBOX_SMTP_ADDR", smtpAddr, "MAIL_SANDBOX_IMAP_ADDR", imapAddr)
	s.waitReady(t)

	c, err := smtp.Dial(smtpAddr)
	if err != nil {
		t.Fatalf("the sandbox SMTP server is not listening: %v", err)
	}
	if err := c.Hello("test.example"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := c.Extension("STARTTLS"); !ok {
		t.Error("the sandbox SMTP server does not offer STARTTLS")
	}
	if ok, _ := c.Extension("AUTH"); ok {
		t.Error("the sandbox SMTP server offers AUTH before TLS")
	}
	c.Close()

	conn, err := net.Dial("tcp", imapAddr)
	if err != nil {
		t.Fatalf("the sandbox IMAP server is not listening: %v", err)
	}
	greeting := make([]byte, 256)
	n, _ := conn.Read(greeting)
	conn.Close()
	if !strings.HasPrefix(string(greeting[:n]), "* OK") || !strings.Contains(string(greeting[:n]), "STARTTLS") {
		t.Errorf("IMAP greeting = %q", greeting[:n])
	}

	s.stop(t)
	if c, err := net.Dial("tcp", smtpAddr); err == nil {
		c.Close()
		t.Error("the sandbox SMTP server still listens after shutdown")
	}
}

func TestKeptMailSecretIsMadeOnceAndReadBack(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	logger := slog.New(slog.DiscardHandler)
	first, err := keptMailSecret(dir, logger)
	if err != nil {
		t.Fatal(err)
	}
	again, err := keptMailSecret(dir, logger)
	if err != nil {
		t.Fatal(err)
	}
	ws := uuid.New()
	if first.UnsubscribeToken(ws, "a@b.example") != again.UnsubscribeToken(ws, "a@b.example") {
		t.Error("the second start read another key")
	}
	info, err := os.Stat(filepath.Join(dir, "mail-secret-key"))
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("the key file is readable by others: %v", perm)
	}
}
