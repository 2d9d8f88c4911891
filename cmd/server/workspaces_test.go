package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"vibesell"
	"vibesell/store/storetest"
	"vibesell/workspace"
)

// `workspace list` prints one line per workspace, and every command given
// an unknown workspace names the ones that exist.
func TestWorkspaceListAndUnknownSlugs(t *testing.T) {
	t.Parallel()
	url := storetest.NewURL(t)
	getenv := env("DATABASE_URL", url, "LOG_LEVEL", "error")
	workspaces := workspace.New(workspace.Deps{DB: connect(t, url), Clock: vibesell.SystemClock{}})
	ctx := context.Background()

	// Each command that takes --workspace, given the slug "acme".
	commands := map[string][]string{
		"stdio":        {"stdio", "--workspace", "acme"},
		"token create": {"token", "create", "--workspace", "acme"},
		"user create":  {"user", "create", "--workspace", "acme", "--email", "a@example.com"},
	}
	refusals := func(t *testing.T, want string) {
		t.Helper()
		for name, args := range commands {
			_, _, err := runCmdIn(t, getenv, "", args...)
			if err == nil {
				t.Errorf("%s: an unknown workspace was accepted", name)
				continue
			}
			if got := err.Error(); got != want {
				t.Errorf("%s refused with\n  %s\nwant\n  %s", name, got, want)
			}
		}
	}

	t.Run("none yet", func(t *testing.T) {
		out, stderr, err := runCmdIn(t, getenv, "", "workspace", "list")
		if err != nil || out != "" || !strings.Contains(stderr, "There is no workspace yet") {
			t.Fatalf("workspace list on an empty installation: %v %q %q", err, out, stderr)
		}
		refusals(t, `There is no workspace "acme", nor any other yet: the server creates the first at its first start, or run `+"`server workspace create NAME`.")
	})

	if _, err := workspaces.Create(ctx, "Acme Sales"); err != nil {
		t.Fatal(err)
	}
	t.Run("one", func(t *testing.T) {
		refusals(t, `There is no workspace "acme". The only workspace is acme-sales (Acme Sales).`)
	})

	if _, err := workspaces.Create(ctx, "Beta"); err != nil {
		t.Fatal(err)
	}
	t.Run("a few", func(t *testing.T) {
		out, _, err := runCmdIn(t, getenv, "", "workspace", "list")
		if err != nil {
			t.Fatal(err)
		}
		if want := "acme-sales  Acme Sales\nbeta        Beta\n"; out != want {
			t.Errorf("workspace list printed\n%s\nwant\n%s", out, want)
		}
		refusals(t, `There is no workspace "acme". The workspaces are acme-sales (Acme Sales), beta (Beta).`)
	})

	for i := range 10 {
		if _, err := workspaces.Create(ctx, fmt.Sprintf("Team %02d", i)); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("many", func(t *testing.T) {
		out, _, err := runCmdIn(t, getenv, "", "workspace", "list")
		if err != nil {
			t.Fatal(err)
		}
		if lines := strings.Count(out, "\n"); lines != 12 {
			t.Errorf("workspace list printed %d lines for 12 workspaces:\n%s", lines, out)
		}
		refusals(t, `There is no workspace "acme". There are 12 workspaces, among them acme-sales (Acme Sales), beta (Beta), `+
			`team-00 (Team 00), team-01 (Team 01), team-02 (Team 02), team-03 (Team 03), team-04 (Team 04), team-05 (Team 05), `+
			`team-06 (Team 06), team-07 (Team 07); `+"`server workspace list` shows them all.")
	})
}
