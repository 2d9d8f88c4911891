package main

import (
	"context"
	"flag"
	"io"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/workspace"
)

// cmdSupportList runs `server support list`: the support tickets the
// workspaces opened (contact_support), newest first, for whoever runs this
// server to read and answer. Tickets never leave the server.
func (c console) cmdSupportList(fs *flag.FlagSet) func(context.Context, []string) error {
	only := fs.String("workspace", "", "only the tickets of the workspace with this `SLUG` (default: every workspace's)")
	return func(ctx context.Context, _ []string) error { return c.supportList(ctx, *only) }
}

func (c console) supportList(ctx context.Context, slug string) error {
	return withDatabase(ctx, c.cfg, c.logger, false, func(db *pgxpool.Pool) error {
		svc := workspace.New(workspace.Deps{DB: db, Clock: vibesell.SystemClock{}})
		var tickets []workspace.Ticket
		var err error
		if slug == "" {
			tickets, err = svc.EveryTicket(ctx)
		} else {
			var ws workspace.Workspace
			if ws, err = findWorkspace(ctx, db, slug); err != nil {
				return err
			}
			tickets, err = svc.Tickets(ctx, ws.ID)
		}
		if err != nil {
			return err
		}
		_, err = io.WriteString(c.stdout, ticketList(tickets))
		return err
	})
}
