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

// supportCommand runs `server support list`: the support tickets the
// workspaces opened (contact_support), newest first, for whoever runs this
// server to read and answer. Tickets never leave the server.
func (c console) support(ctx context.Context, args []string) error {
	if len(args) < 1 || args[0] != "list" {
		return errSupportUsage
	}
	fs := newFlags("support list", c.stderr)
	slug := fs.String("workspace", "", "only this workspace's tickets (default: every workspace's)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return errSupportUsage
	}
	return withDatabase(ctx, c.cfg, c.logger, false, func(db *pgxpool.Pool) error {
		svc := workspace.NewService(db, vibesell.SystemClock{})
		var tickets []workspace.Ticket
		var err error
		if *slug == "" {
			tickets, err = svc.EveryTicket(ctx)
		} else {
			var ws workspace.Workspace
			if ws, err = findWorkspace(ctx, db, *slug); err != nil {
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
