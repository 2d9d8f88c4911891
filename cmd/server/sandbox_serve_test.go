package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"vibesell/mail"
	"vibesell/sandboxmail"
	"vibesell/store/storetest"
)

// `server sandbox serve` runs the sandbox mail server replicas share: a
// replica that knows the key, the addresses and the certificate logs in to
// any mailbox, and the certificate is kept across a restart, so replicas
// started before it go on trusting it.
func TestSandboxServeIsSharedAndKeepsItsCertificate(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewURL(t)
	key := mail.NewRandomSecret()
	secret, _ := mail.ParseSecret(key)
	smtpAddr, imapAddr := freeAddr(t), freeAddr(t)
	certFile := filepath.Join(t.TempDir(), "sandbox.pem")
	serve := func() (stop func()) {
		cmd := exec.Command(binary(t), "sandbox", "serve")
		cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "MAIL_SECRET_KEY="+key, "MAIL_SANDBOX_CERT="+certFile,
			"MAIL_SANDBOX_SMTP_ADDR="+smtpAddr, "MAIL_SANDBOX_IMAP_ADDR="+imapAddr, "LOG_LEVEL=warn")
		stderr := &syncBuffer{}
		cmd.Stdout, cmd.Stderr = io.Discard, stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		storetest.WaitFor(t, "the sandbox to listen", func() bool {
			c, err := net.Dial("tcp", imapAddr)
			if err == nil {
				c.Close()
			}
			select {
			case <-done:
				t.Fatalf("server sandbox serve exited:\n%s", stderr)
			default:
			}
			return err == nil
		})
		return func() {
			cmd.Process.Signal(os.Interrupt)
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				<-done
			}
		}
	}
	login := func(cert []byte) error {
		replica, err := sandboxmail.Connect(sandboxmail.SharedConfig{SMTPAddr: smtpAddr, IMAPAddr: imapAddr, CertificatePEM: cert, MailboxPassword: secret.SandboxPassword})
		if err != nil {
			return err
		}
		mb, err := replica.Mailbox(mail.Address{Email: "dana@getacme.test"})
		if err != nil {
			return err
		}
		c, err := mail.Submission(mb.SMTP, false, 10*time.Second)
		if err != nil {
			return err
		}
		if err := c.DialWithContext(context.Background()); err != nil {
			return err
		}
		return c.Close()
	}

	stop := serve()
	cert, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := login(cert); err != nil {
		t.Fatalf("a replica with the certificate and the key: %v", err)
	}
	stop()
	stop = serve()
	defer stop()
	again, _ := os.ReadFile(certFile)
	if !bytes.Equal(cert, again) {
		t.Fatal("the sandbox made a new certificate when it started again")
	}
	if err := login(cert); err != nil {
		t.Fatalf("after the sandbox's restart, a replica that read its certificate before: %v", err)
	}
	if info, err := os.Stat(certFile + ".key"); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the certificate's key: %v %v, want readable by its owner alone", info.Mode(), err)
	}
}
