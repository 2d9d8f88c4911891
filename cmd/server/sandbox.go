package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/sending"
)

var errSandboxUsage = errors.New("usage: server sandbox ready --workspace SLUG")

// sandbox runs `server sandbox ready`: in the sandbox only, every
// ordered domain and mailbox of the workspace is made ready and warm at
// once, marked as a sandbox shortcut, so a new user sees the engine send
// without waiting out the warmup. With a real provider it refuses.
func (c console) sandbox(ctx context.Context, args []string) error {
	slug, err := c.workspaceArg("sandbox ready", args, true, "the workspace whose ordered domains and mailboxes to make ready", errSandboxUsage)
	if err != nil {
		return err
	}
	return withDatabase(ctx, c.cfg, c.logger, false, func(db *pgxpool.Pool) error {
		ws, err := findWorkspace(ctx, db, slug)
		if err != nil {
			return err
		}
		svc := sending.New(sending.Deps{DB: db, Clock: vibesell.SystemClock{}, Config: c.cfg.Sending})
		r, err := svc.SandboxReady(ctx, ws.ID)
		if err != nil {
			return err
		}
		fmt.Fprintln(c.stdout, r.Sentence())
		return nil
	})
}
