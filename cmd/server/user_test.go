package main

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/auth"
	"vibesell/store/storetest"
	"vibesell/workspace"
)

// `server user create` for an email that already has an account adds the
// person to the workspace, keeping their one password; they then sign in
// once and belong to both.
func TestUserCreateAddsAnExistingPersonToAnotherWorkspace(t *testing.T) {
	t.Parallel()
	url := storetest.NewURL(t)
	pool := connect(t, url)
	ctx := context.Background()
	wss := workspace.New(workspace.Deps{DB: pool, Clock: vibesell.SystemClock{}})
	acme, err := wss.Create(ctx, "Acme Sales")
	if err != nil {
		t.Fatal(err)
	}
	globex, err := wss.Create(ctx, "Globex")
	if err != nil {
		t.Fatal(err)
	}
	command := env("DATABASE_URL", url, "LOG_LEVEL", "error")

	out, _, err := runCmdIn(t, command, "", "user", "create", "--workspace", acme.Slug, "--email", "Ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`Password \(shown only once\): (\S+)\n`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("creating the account printed no password:\n%s", out)
	}
	password := m[1]

	t.Run("a second workspace adds the person without a new password", func(t *testing.T) {
		out, _, err := runCmdIn(t, command, "", "user", "create", "--workspace", globex.Slug, "--email", "ada@example.com")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "ada@example.com already has an account; added them to workspace "+globex.Slug+".") ||
			strings.Contains(out, "Password") {
			t.Fatalf("adding the person printed:\n%s", out)
		}
		u, _, err := auth.NewAccounts(auth.AccountsDeps{DB: pool}).SignIn(ctx, "ada@example.com", password, "127.0.0.1")
		if err != nil {
			t.Fatalf("sign in with the first password: %v", err)
		}
		want := []auth.Membership{
			{WorkspaceID: acme.ID, Slug: acme.Slug, Name: acme.Name},
			{WorkspaceID: globex.ID, Slug: globex.Slug, Name: globex.Name},
		}
		if diff := cmp.Diff(want, u.Workspaces); diff != "" {
			t.Fatalf("workspaces (-want +got):\n%s", diff)
		}
	})
	t.Run("again in the same workspace is refused", func(t *testing.T) {
		_, _, err := runCmdIn(t, command, "", "user", "create", "--workspace", globex.Slug, "--email", "ada@example.com")
		if err == nil || err.Error() != "ada@example.com already belongs to the workspace "+globex.Slug+"." {
			t.Fatalf("err = %v, want that they already belong to it", err)
		}
	})
}

// With --password-stdin the account's password is the first line of
// standard input, and none is generated or printed.
func TestUserCreateTakesThePasswordFromStandardInput(t *testing.T) {
	t.Parallel()
	url := storetest.NewURL(t)
	pool := connect(t, url)
	ctx := context.Background()
	acme, err := workspace.New(workspace.Deps{DB: pool, Clock: vibesell.SystemClock{}}).Create(ctx, "Acme Sales")
	if err != nil {
		t.Fatal(err)
	}
	const password = "correct horse battery staple"
	out, _, err := runCmdIn(t, env("DATABASE_URL", url, "LOG_LEVEL", "error"), password+"\n",
		"user", "create", "--workspace", acme.Slug, "--email", "ada@example.com", "--name", "Ada Lovelace", "--time-zone", "Europe/Paris", "--password-stdin")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "Password") {
		t.Errorf("a password was printed:\n%s", out)
	}
	u, _, err := auth.NewAccounts(auth.AccountsDeps{DB: pool}).SignIn(ctx, "ada@example.com", password, "127.0.0.1")
	if err != nil {
		t.Fatalf("sign in with the password given on standard input: %v", err)
	}
	if u.Name == nil || *u.Name != "Ada Lovelace" || u.TimeZone.String() != "Europe/Paris" {
		t.Errorf("the account's name and zone are %v and %v", u.Name, u.TimeZone)
	}
}
