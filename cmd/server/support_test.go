package main

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/store/storetest"
	"vibesell/workspace"
	"vibesell/workspace/workspacetest"
)

// `server support list` prints the tickets the workspaces opened, so that
// whoever runs the server reads them: every workspace's, or one's.
func TestSupportListPrintsTheTickets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL := storetest.NewURL(t)
	getenv := env("DATABASE_URL", dbURL, "LOG_LEVEL", "error")
	if _, err := runCmd(t, getenv, "migrate"); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	pool := connect(t, dbURL)
	two := workspacetest.Two(t, pool)
	svc := workspace.New(workspace.Deps{DB: pool, Clock: vibesell.SystemClock{}})
	acme, err := svc.OpenTicket(ctx, two.Acme.ID, "bug", "The card stays blank\nafter Approve", "sam@acme.test")
	if err != nil {
		t.Fatal(err)
	}
	globex, err := svc.OpenTicket(ctx, two.Globex.ID, "billing", "Where is my invoice?", "")
	if err != nil {
		t.Fatal(err)
	}

	t.Run("every workspace", func(t *testing.T) {
		out, err := runCmd(t, getenv, "support", "list")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"2 support tickets, newest first:",
			acme.Reference() + "  open  workspace acme  bug", "(answer to sam@acme.test)", "    The card stays blank\n    after Approve\n",
			globex.Reference() + "  open  workspace globex  billing", "(no reply address given)", "    Where is my invoice?\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("the list lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("one workspace", func(t *testing.T) {
		out, err := runCmd(t, getenv, "support", "list", "--workspace", "globex")
		if err != nil {
			t.Fatal(err)
		}
		want := "1 support ticket, newest first:\n\n" + globex.Reference() + "  open  workspace globex  billing  " +
			vibesell.FormatTime(globex.CreatedAt) + "  (no reply address given)\n    Where is my invoice?\n"
		if diff := cmp.Diff(want, out); diff != "" {
			t.Errorf("support list --workspace globex (-want +got):\n%s", diff)
		}
	})
	t.Run("unknown workspace", func(t *testing.T) {
		if _, err := runCmd(t, getenv, "support", "list", "--workspace", "initech"); err == nil || !strings.HasPrefix(err.Error(), `There is no workspace "initech".`) {
			t.Errorf("an unknown workspace: %v", err)
		}
	})
}
