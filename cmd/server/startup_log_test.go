package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"vibesell/mail"
	"vibesell/store/storetest"
)

// loggedProcess is the built server with its standard output and error in
// one stream, in the order a terminal shows them.
type loggedProcess struct {
	*testServer
	cmd *exec.Cmd
	out *syncBuffer
}

func startLogged(t *testing.T, envs ...string) *loggedProcess {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(binary(t))
	cmd.Env = append(append(os.Environ(), "LISTEN_ADDR="+addr), envs...)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &loggedProcess{testServer: &testServer{addr: addr, stderr: out, done: make(chan error, 1)}, cmd: cmd, out: out}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
	})
	return p
}

// waitFor waits until the output holds n lines containing s.
func (p *loggedProcess) waitFor(t *testing.T, s string, n int) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); strings.Count(p.out.String(), s) < n; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d lines with %q not printed within 2 minutes:\n%s", n, s, p.out)
		}
	}
}

// signal stops the server as an operator does and returns what it printed
// from then on.
func (p *loggedProcess) signal(t *testing.T, sig syscall.Signal) string {
	t.Helper()
	before := len(p.out.String())
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.done:
		if err != nil {
			t.Fatalf("after %v the server exited with %v\n%s", sig, err, p.out)
		}
	case <-time.After(time.Minute):
		t.Fatalf("the server did not stop within a minute of %v\n%s", sig, p.out)
	}
	return p.out.String()[before:]
}

// warnings are the WARN and ERROR lines of a text log.
func warnings(log string) []string {
	var found []string
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
			found = append(found, line)
		}
	}
	return found
}

// What the person running VibeSell sees (issue 29): on the first start the
// banner (URL, token, how to sign in) comes last, after a few start-up
// lines, and stays last while the server runs (River's job counts every
// few seconds are debug); a clean shutdown warns of nothing, also while
// the reply readers wait in IDLE on the sandbox's mailboxes.
func TestStartUpOutputEndsWithTheBannerAndShutdownIsQuiet(t *testing.T) {
	t.Parallel()
	t.Run("first start", func(t *testing.T) {
		t.Parallel()
		p := startLogged(t, "DATABASE_URL="+storetest.NewEmptyURL(t), "LOG_LEVEL=info", "MAIL_SECRET_KEY="+mail.NewRandomSecret())
		p.waitReady(t)
		p.waitFor(t, "/app/sign-in", 1)
		// River reports its producer's job counts every 5 seconds.
		time.Sleep(6 * time.Second)
		out := p.out.String()
		start := strings.Index(out, "\nVibeSell created your first workspace")
		if start < 0 {
			t.Fatalf("no banner:\n%s", out)
		}
		before, banner := out[:start], out[start:]
		if !strings.HasSuffix(strings.TrimSpace(banner), "/app/sign-in") {
			t.Errorf("something was printed after the banner:\n%s", out)
		}
		if !strings.Contains(before, "VibeSell is serving") {
			t.Errorf("the banner came before the server was serving:\n%s", out)
		}
		if lines := strings.Count(before, "\n"); lines > 10 {
			t.Errorf("%d lines before the banner at LOG_LEVEL=info, want at most 10:\n%s", lines, before)
		}
		if strings.Contains(out, "job counts") {
			t.Errorf("River's job counts logged at info:\n%s", out)
		}
		if w := warnings(out); len(w) > 0 {
			t.Errorf("the first start warned:\n%s", strings.Join(w, "\n"))
		}
		if w := warnings(p.signal(t, syscall.SIGTERM)); len(w) > 0 {
			t.Errorf("a clean shutdown on SIGTERM warned:\n%s", strings.Join(w, "\n"))
		}
	})
	t.Run("reading replies", func(t *testing.T) {
		t.Parallel()
		key := mail.NewRandomSecret()
		f := setupFlowWith(t, "MAIL_SECRET_KEY", key)
		f.planSetup()
		if _, err := f.svc.sending.PlaceOrder(context.Background(), f.two.Acme.ID, nil); err != nil {
			t.Fatal(err)
		}
		dbURL := f.pool.Config().ConnString()
		if _, err := runCmd(t, env("DATABASE_URL", dbURL, "LOG_LEVEL", "error"), "sandbox", "ready", "--workspace", f.two.Acme.Slug); err != nil {
			t.Fatal(err)
		}
		// The warning came from a race (the sandbox cutting a connection
		// its reader had just closed), so the server is stopped four times.
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGTERM, syscall.SIGINT} {
			p := startLogged(t, "DATABASE_URL="+dbURL, "LOG_LEVEL=debug", "MAIL_SECRET_KEY="+key)
			p.waitReady(t)
			p.waitFor(t, "reading replies as they arrive (IDLE)", 3)
			if w := warnings(p.signal(t, sig)); len(w) > 0 {
				t.Errorf("a clean shutdown on %v, with 3 mailboxes read in IDLE, warned:\n%s", sig, strings.Join(w, "\n"))
			}
		}
	})
}
