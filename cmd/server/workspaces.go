package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/workspace"
)

// cmdWorkspaceCreate runs `server workspace create NAME`: it prints the
// new slug alone, for scripts.
func (c console) cmdWorkspaceCreate(*flag.FlagSet) func(context.Context, []string) error {
	return func(ctx context.Context, args []string) error {
		return withDatabase(ctx, c.cfg, c.logger, false, func(db *pgxpool.Pool) error {
			ws, err := workspace.New(workspace.Deps{DB: db, Clock: vibesell.SystemClock{}}).Create(ctx, args[0])
			if err != nil {
				return err
			}
			fmt.Fprintln(c.stdout, ws.Slug)
			return nil
		})
	}
}

// cmdWorkspaceList runs `server workspace list`: one line per workspace,
// slug and name.
func (c console) cmdWorkspaceList(*flag.FlagSet) func(context.Context, []string) error {
	return func(ctx context.Context, _ []string) error {
		return withDatabase(ctx, c.cfg, c.logger, false, func(db *pgxpool.Pool) error {
			list, err := workspace.New(workspace.Deps{DB: db, Clock: vibesell.SystemClock{}}).List(ctx)
			if err != nil {
				return err
			}
			if len(list) == 0 {
				fmt.Fprintln(c.stderr, "There is no workspace yet: the server creates the first at its first start, or run `server workspace create NAME`.")
				return nil
			}
			w := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
			for _, ws := range list {
				fmt.Fprintf(w, "%s\t%s\n", ws.Slug, ws.Name)
			}
			return w.Flush()
		})
	}
}

// knownWorkspacesShown is how many workspaces a refusal names before
// pointing to `workspace list`.
const knownWorkspacesShown = 10

// findWorkspace is FindBySlug for the operator's commands: an unknown slug
// is refused with the slugs that exist, so a typo is fixed at once.
func findWorkspace(ctx context.Context, db *pgxpool.Pool, slug string) (workspace.Workspace, error) {
	workspaces := workspace.New(workspace.Deps{DB: db, Clock: vibesell.SystemClock{}})
	ws, err := workspaces.FindBySlug(ctx, slug)
	if vibesell.ErrorCode(err) != vibesell.ENOTFOUND {
		return ws, err
	}
	list, err := workspaces.List(ctx)
	if err != nil {
		return ws, err
	}
	return ws, vibesell.Errorf(vibesell.ENOTFOUND, "%s", unknownWorkspace(slug, list))
}

func unknownWorkspace(slug string, known []workspace.Workspace) string {
	msg := fmt.Sprintf("There is no workspace %q", slug)
	if len(known) == 0 {
		return msg + ", nor any other yet: the server creates the first at its first start, or run `server workspace create NAME`."
	}
	if len(known) == 1 {
		return fmt.Sprintf("%s. The only workspace is %s (%s).", msg, known[0].Slug, known[0].Name)
	}
	var names []string
	for _, ws := range known[:min(len(known), knownWorkspacesShown)] {
		names = append(names, fmt.Sprintf("%s (%s)", ws.Slug, ws.Name))
	}
	if more := len(known) - len(names); more > 0 {
		return fmt.Sprintf("%s. There are %d workspaces, among them %s; `server workspace list` shows them all.",
			msg, len(known), strings.Join(names, ", "))
	}
	return fmt.Sprintf("%s. The workspaces are %s.", msg, strings.Join(names, ", "))
}
