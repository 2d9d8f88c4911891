package main

import (
	"context"
	"errors"
	"io"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/workspace"
)

// errSupportUsage says how the command is called.
var errSupportUsage = errors.New("usage: server support list [--workspace SLUG]")

// support runs `server support list`: the support tickets the
// workspaces opened (contact_support), newest first, for whoever runs this
// server to read and answer. Tickets never leave the server.
func (c console) support(ctx context.Context, args []string) error {
	slug, err := c.workspaceArg("support list", args, false, "only this workspace's tickets (default: every workspace's)", errSupportUsage)
	if err != nil {
		return err
	}
	return withDatabase(ctx, c.cfg, c.logger, false, func(db *pgxpool.Pool) error {
		svc := workspace.NewService(db, vibesell.SystemClock{})
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
