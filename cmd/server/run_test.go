package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell/auth"
	"vibesell/store"
	"vibesell/store/storetest"
	"vibesell/toolkit/toolkittest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// env builds a getenv from pairs.
func env(pairs ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		m[pairs[i]] = pairs[i+1]
	}
	return func(k string) string { return m[k] }
}

// syncBuffer is written by a server goroutine while the test reads it.
type syncBuffer = toolkittest.LogBuffer

func runCmd(t *testing.T, getenv func(string) string, args ...string) (string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), append([]string{"server"}, args...), getenv, strings.NewReader(""), &stdout, &stderr)
	return stdout.String(), err
}

func TestConfigRefusesBadValuesNamingTheVariable(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, value string }{
		{"LISTEN_ADDR", "localhost"},
		{"LISTEN_ADDR", "127.0.0.1:99999"},
		{"PUBLIC_URL", "ftp://example.com"},
		{"PUBLIC_URL", "example.com"},
		{"LOG_LEVEL", "loud"},
		{"LOG_FORMAT", "xml"},
		{"DATABASE_URL", "postgres://a b@/x?sslmode=nonsense"},
		{"SHUTDOWN_TIMEOUT", "soon"},
		{"READ_TIMEOUT", "-1s"},
		{"WEB_REQUEST_TIMEOUT", "soon"},
		{"MCP_SESSION_MEMORY_TTL", "5ms"},
		{"MCP_SESSIONS_PER_WORKSPACE", "0"},
		{"MCP_SESSION_INFO_BYTES", "lots"},
		{"MCP_SESSION_MEMORY_PER_WORKSPACE", "0"},
		{"MCP_SESSION_MEMORY_PER_REPLICA", "many"},
		{"ALLOWED_ORIGINS", "claude.ai"},
		{"STRIPE_SECRET_KEY", "pk_live_123"},
		{"STRIPE_WEBHOOK_SECRET", "abc123def"},
		{"STRIPE_API_BASE", "127.0.0.1:12111"},
		{"BILLING_PLANS", "free,starter"},
		{"BILLING_PLANS", `[{"id":"starter","name":"Starter","price":{"minor":4900,"currency":"USD"},"stripePrice":"price_1","limits":{"mailboxes":1,"leadsPerMonth":1,"activeCampaigns":1,"emailsPerMonth":1}}]`},
		{"OAUTH_REGISTER_LIMIT", "0"},
		{"OAUTH_TOKEN_LIMIT", "fast"},
		{"OAUTH_METADATA_LIMIT", "-3"},
		{"MAIL_SECRET_KEY", "too-short"},
		{"MAIL_SANDBOX_SMTP_ADDR", "0.0.0.0:2525"},
		{"MAIL_SANDBOX_IMAP_ADDR", "mail.example.com:143"},
		{"MAIL_SANDBOX_IMAP_ADDR", "127.0.0.1"},
		{"MAIL_SANDBOX_CERT", "/var/lib/vibesell/sandbox.pem"}, // a shared sandbox without its ports
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

// configRefusal starts the server with name=value and returns the message
// that refuses it, which must be one line starting with the variable; it
// fails the test (and returns "") when start-up goes on.
func configRefusal(t *testing.T, name, value string) string {
	t.Helper()
	_, err := runCmd(t, env(name, value), "migrate")
	if err == nil {
		t.Errorf("%s=%q: start-up went on", name, value)
		return ""
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, name+"=") || strings.Contains(msg, "\n") {
		t.Errorf("%s=%q: message %q should be one line starting with the variable", name, value, msg)
	}
	return msg
}

func TestWorkspaceAndTokenCommands(t *testing.T) {
	t.Parallel()
	url := storetest.NewURL(t)
	getenv := env("DATABASE_URL", url, "LOG_LEVEL", "error")

	if _, err := runCmd(t, getenv, "migrate"); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	out, err := runCmd(t, getenv, "workspace", "create", "Acme", "Sales")
	if err != nil {
		t.Fatal(err)
	}
	if out != "acme-sales\n" {
		t.Fatalf("workspace create printed %q, want the slug alone", out)
	}
	out, err = runCmd(t, getenv, "workspace", "create", "Acme Sales")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^acme-sales-[0-9a-f]{6}\n$`).MatchString(out) {
		t.Fatalf("second workspace with the same name got slug %q", out)
	}

	out, err = runCmd(t, getenv, "token", "create", "--workspace", "acme-sales")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^vs_[A-Za-z0-9_-]{43}\n$`).MatchString(out) {
		t.Fatalf("token create printed %q, want the token alone", out)
	}
	token := strings.TrimSpace(out)

	ctx := context.Background()
	pool := connect(t, url)
	p, err := auth.NewTokens(auth.TokensDeps{DB: pool}).Authenticate(ctx, token)
	if err != nil {
		t.Fatalf("the printed token does not authenticate: %v", err)
	}
	if p.WorkspaceSlug != "acme-sales" {
		t.Fatalf("token acts for %q", p.WorkspaceSlug)
	}
	var stored int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM api_tokens WHERE position($1::bytea in token_hash) > 0", []byte(token)).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != 0 {
		t.Fatal("the token itself is stored")
	}

	if _, err := runCmd(t, getenv, "token", "create", "--workspace", "nope"); err == nil || !strings.HasPrefix(err.Error(), `There is no workspace "nope". The workspaces are acme-sales (Acme Sales), acme-sales-`) {
		t.Fatalf("token for an unknown workspace: %v", err)
	}
	for _, args := range [][]string{{"token", "create"}, {"workspace", "create"}, {"frobnicate"}, {"serve", "extra"}, {"stdio"}} {
		if _, err := runCmd(t, getenv, args...); err == nil {
			t.Errorf("%v succeeded", args)
		}
	}
	if out, err := runCmd(t, getenv, "help"); err != nil || !strings.Contains(out, "token create --workspace SLUG") {
		t.Fatalf("help: %q %v", out, err)
	}
}

func connect(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := store.Connect(context.Background(), url, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// testServer is a serve command running in the test process.
type testServer struct {
	addr   string
	stdout *syncBuffer
	stderr *syncBuffer
	cancel context.CancelFunc
	done   chan error
	// restart starts the server again on a fresh address: the one
	// freeAddr found can be taken by another process before the server
	// binds it, on a machine busy with other tests.
	restart func(t *testing.T)
}

func startServer(t *testing.T, pairs ...string) *testServer {
	t.Helper()
	s := &testServer{stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan error, 1)}
	s.restart = func(t *testing.T) {
		s.addr = freeAddr(t)
		ctx, cancel := context.WithCancel(context.Background())
		s.cancel = cancel
		getenv := env(append(pairs, "LISTEN_ADDR", s.addr)...)
		go func() { s.done <- run(ctx, []string{"server"}, getenv, strings.NewReader(""), s.stdout, s.stderr) }()
	}
	s.restart(t)
	t.Cleanup(func() { s.stop(t) })
	return s
}

func (s *testServer) waitReady(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for tries := 1; time.Now().Before(deadline); {
		select {
		case err := <-s.done:
			if errors.Is(err, syscall.EADDRINUSE) && tries < 3 {
				tries++
				s.restart(t)
				continue
			}
			s.done <- err
			t.Fatalf("server exited before becoming ready: %v\n%s", err, s.stderr)
		default:
		}
		resp, err := http.Get("http://" + s.addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("server on %s not ready within 60s\n%s", s.addr, s.stderr)
}

func (s *testServer) stop(t *testing.T) {
	t.Helper()
	if s.cancel == nil {
		return
	}
	s.cancel()
	s.cancel = nil
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("server exited with %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Error("server did not stop within 60s")
	}
}

var tokenInGreeting = regexp.MustCompile(`Authorization: Bearer (vs_\S+)`)

func TestServeGreetsOnceAndShutsDownCleanly(t *testing.T) {
	t.Parallel()
	url := storetest.NewURL(t)
	s := startServer(t, "DATABASE_URL", url, "LOG_LEVEL", "warn")
	s.waitReady(t)

	resp, err := http.Get("http://" + s.addr + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	}
	resp.Body.Close()
	greeting := s.stdout.String()
	if !strings.Contains(greeting, "http://"+s.addr+"/mcp") {
		t.Fatalf("greeting does not give the MCP URL:\n%s", greeting)
	}
	m := tokenInGreeting.FindStringSubmatch(greeting)
	if m == nil {
		t.Fatalf("greeting has no token:\n%s", greeting)
	}
	if _, err := auth.NewTokens(auth.TokensDeps{DB: connect(t, url)}).Authenticate(context.Background(), m[1]); err != nil {
		t.Fatalf("greeting token does not authenticate: %v", err)
	}
	s.stop(t)
	if _, err := http.Get("http://" + s.addr + "/healthz"); err == nil {
		t.Fatal("still serving after shutdown")
	}

	again := startServer(t, "DATABASE_URL", url, "LOG_LEVEL", "warn")
	again.waitReady(t)
	if out := again.stdout.String(); out != "" {
		t.Fatalf("second start greeted again:\n%s", out)
	}
}

func TestTwoServersStartingAtOnceOnAnEmptyDatabaseBothBecomeReady(t *testing.T) {
	t.Parallel()
	url := storetest.NewEmptyURL(t)
	a := startServer(t, "DATABASE_URL", url, "LOG_LEVEL", "warn")
	b := startServer(t, "DATABASE_URL", url, "LOG_LEVEL", "warn")
	a.waitReady(t)
	b.waitReady(t)
	greetings := strings.Count(a.stdout.String()+b.stdout.String(), "Authorization: Bearer")
	if greetings != 1 {
		t.Fatalf("the installation was greeted %d times, want once", greetings)
	}
}

// With no DATABASE_URL the server runs its own PostgreSQL; commands run
// while it serves use that database; a restart finds the data intact.
func TestEmbeddedServerSharesItsDatabaseAndKeepsData(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(t.TempDir(), "data")
	s := startServer(t, "DATA_DIR", dataDir, "LOG_LEVEL", "warn")
	s.waitReady(t)

	getenv := env("DATA_DIR", dataDir, "LOG_LEVEL", "warn")
	out, err := runCmd(t, getenv, "token", "create", "--workspace", "my-workspace")
	if err != nil {
		t.Fatalf("token create beside a running server: %v", err)
	}
	if !strings.HasPrefix(out, "vs_") {
		t.Fatalf("token create printed %q", out)
	}
	resp, err := http.Get("http://" + s.addr + "/readyz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the command stopped the server's database: %v %v", resp, err)
	}
	resp.Body.Close()
	s.stop(t)

	// Nothing runs now: a command starts the database itself and stops it.
	if _, err := runCmd(t, getenv, "workspace", "create", "Second"); err != nil {
		t.Fatal(err)
	}
	restarted := startServer(t, "DATA_DIR", dataDir, "LOG_LEVEL", "warn")
	restarted.waitReady(t)
	if restarted.stdout.String() != "" {
		t.Fatal("the restarted server greeted again: its data was lost")
	}
	slugs, err := runCmd(t, getenv, "token", "create", "--workspace", "second")
	if err != nil || !strings.HasPrefix(slugs, "vs_") {
		t.Fatalf("workspace made while stopped is gone after restart: %q %v", slugs, err)
	}
}

// The built binary exits 0 on SIGTERM and SIGINT after a clean shutdown.
func TestBinaryExitsZeroOnSignals(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	url := storetest.NewURL(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		addr := freeAddr(t)
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), "DATABASE_URL="+url, "LISTEN_ADDR="+addr, "LOG_LEVEL=warn")
		var stderr syncBuffer
		cmd.Stdout = io.Discard
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		s := &testServer{addr: addr, stderr: &stderr, done: make(chan error, 1)}
		go func() { s.done <- cmd.Wait() }()
		s.waitReady(t)
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-s.done:
			if err != nil {
				t.Fatalf("after %v the server exited with %v\n%s", sig, err, stderr.String())
			}
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("server ignored %v", sig)
		}
	}
}
