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
