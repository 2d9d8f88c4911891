package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"vibesell"
	"vibesell/approvals"
	"vibesell/store/storetest"
	"vibesell/workspace"
)

// runCmdIn runs a command in this process with the given standard input,
// returning its standard output and standard error.
func runCmdIn(t *testing.T, getenv func(string) string, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), append([]string{"server"}, args...), getenv, strings.NewReader(stdin), &stdout, &stderr)
	return stdout.String(), stderr.String(), err
}

// Every process on the server's database hands out the links of the
// server actually running, whatever its own PUBLIC_URL default says; with
// no server yet, a link that would be a guess is not printed.
func TestEveryProcessHandsOutTheLinksOfTheRunningServer(t *testing.T) {
	t.Parallel()
	url := storetest.NewURL(t)
	pool := connect(t, url)
	ctx := context.Background()
	ws, err := workspace.Create(ctx, pool, "Links Co")
	if err != nil {
		t.Fatal(err)
	}
	// A command run with no PUBLIC_URL of its own: its default would be
	// http://127.0.0.1:8080.
	command := env("DATABASE_URL", url, "LOG_LEVEL", "error")

	t.Run("before any server ran, no link is guessed", func(t *testing.T) {
		out, _, err := runCmdIn(t, command, "", "user", "create", "--workspace", ws.Slug, "--email", "early@example.com")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, "http") || !strings.Contains(out, "No server has run on this database yet") {
			t.Fatalf("user create before any server printed:\n%s", out)
		}
		_, stderr, err := runCmdIn(t, command, "", "token", "create", "--workspace", ws.Slug)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(stderr, "http") || !strings.Contains(stderr, "No server has run on this database yet") {
			t.Fatalf("token create before any server said:\n%s", stderr)
		}
	})

	s := startServer(t, "DATABASE_URL", url, "LOG_LEVEL", "warn", "PUBLIC_URL", "https://sell.example.test")
	s.waitReady(t)
	s.stop(t)

	t.Run("user create", func(t *testing.T) {
		out, _, err := runCmdIn(t, command, "", "user", "create", "--workspace", ws.Slug, "--email", "ana@example.com")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "Sign in at https://sell.example.test/app/sign-in\n") {
			t.Fatalf("user create printed:\n%s", out)
		}
	})
	t.Run("token create", func(t *testing.T) {
		_, stderr, err := runCmdIn(t, command, "", "token", "create", "--workspace", ws.Slug)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stderr, "Connect MCP clients to https://sell.example.test/mcp ") {
			t.Fatalf("token create said:\n%s", stderr)
		}
	})
	t.Run("stdio approval links", func(t *testing.T) {
		// The approval is opened by another process whose own address is
		// wrong on purpose: the link is built by the process that shows it.
		other := approvals.New(approvals.Deps{DB: pool, Clock: vibesell.SystemClock{}, PublicURL: "http://wrong.invalid"})
		other.Register("order_sending_setup", approvals.ExecutorFuncs{})
		usd := vibesell.NewMoney(1500, "USD")
		a, _, err := other.Open(ctx, approvals.Request{
			WorkspaceID: ws.ID, Action: "order_sending_setup", Arguments: map[string]any{"n": 1},
			Summary: "Order 1 domain",
			Impact: approvals.Impact{What: "Orders 1 domain.", Items: []string{"example.com"}, Who: "No one is contacted.",
				When: "At once.", CostOnce: usd, CostMonthly: usd, Renewal: "Renews yearly.", Undo: "Cannot be undone."},
			Irreversible: true, TTL: time.Hour,
		})
		if err != nil {
			t.Fatal(err)
		}
		in := strings.Join([]string{
			stdioInitialize,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_pending_approvals","arguments":{}}}`,
		}, "\n") + "\n"
		out, stderr, err := runCmdIn(t, command, in, "stdio", "--workspace", ws.Slug)
		if err != nil {
			t.Fatalf("stdio: %v\n%s", err, stderr)
		}
		want := "https://sell.example.test/app/approvals/" + a.ID
		if !strings.Contains(out, want) || strings.Contains(out, "127.0.0.1") {
			t.Fatalf("stdio's approval links are not %s:\n%s", want, out)
		}
	})
}
