package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/workspace"
)

const supportUsage = "usage: server support list [--workspace SLUG]"

// supportCommand runs `server support list`: the support tickets the
// workspaces opened (contact_support), newest first, for whoever runs this
// server to read and answer. Tickets never leave the server.
func supportCommand(ctx context.Context, cfg config, logger *slog.Logger, args []string, stdout, stderr io.Writer) error {
	if len(args) < 1 || args[0] != "list" {
		return errors.New(supportUsage)
	}
	fs := newFlags("support list", stderr)
	slug := fs.String("workspace", "", "only this workspace's tickets (default: every workspace's)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return errors.New(supportUsage)
	}
	return withDatabase(ctx, cfg, logger, false, func(db *pgxpool.Pool) error {
		svc := workspace.NewService(db, vibesell.SystemClock{})
		var tickets []workspace.Ticket
		var err error
		if *slug == "" {
			tickets, err = svc.EveryTicket(ctx)
		} else {
			var ws workspace.Workspace
			if ws, err = svc.FindBySlug(ctx, *slug); err != nil {
				return err
			}
			tickets, err = svc.Tickets(ctx, ws.ID)
		}
		if err != nil {
			return err
		}
		fmt.Fprint(stdout, ticketList(tickets))
		return nil
	})
}

// ticketList writes tickets for the operator: one block per ticket, the
// message indented under its heading.
func ticketList(tickets []workspace.Ticket) string {
	if len(tickets) == 0 {
		return "No support tickets.\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s, newest first:\n", vibesell.Plural(len(tickets), "support ticket", "support tickets"))
	for _, t := range tickets {
		reply := "no reply address given"
		if t.ReplyTo != "" {
			reply = "answer to " + t.ReplyTo
		}
		fmt.Fprintf(&b, "\n%s  %s  workspace %s  %s  %s  (%s)\n", t.Reference(), t.Status, t.Workspace, t.Topic, vibesell.FormatTime(t.CreatedAt), reply)
		for line := range strings.SplitSeq(t.Message, "\n") {
			fmt.Fprintf(&b, "    %s\n", line)
		}
	}
	return b.String()
}
