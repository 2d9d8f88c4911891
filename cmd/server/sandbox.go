package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/sending"
)

var errSandboxUsage = errors.New("usage: server sandbox ready --workspace SLUG")

// sandboxCommand runs `server sandbox ready`: in the sandbox only, every
// ordered domain and mailbox of the workspace is made ready and warm at
// once, marked as a sandbox shortcut, so a new user sees the engine send
// without waiting out the warmup. With a real provider it refuses.
func sandboxCommand(ctx context.Context, cfg config, logger *slog.Logger, args []string, stdout, stderr io.Writer) error {
	if len(args) < 1 || args[0] != "ready" {
		return errSandboxUsage
	}
	fs := newFlags("sandbox ready", stderr)
	slug := fs.String("workspace", "", "the workspace whose ordered domains and mailboxes to make ready")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *slug == "" || fs.NArg() > 0 {
		return errSandboxUsage
	}
	return withDatabase(ctx, cfg, logger, false, func(db *pgxpool.Pool) error {
		ws, err := findWorkspace(ctx, db, *slug)
		if err != nil {
			return err
		}
		svc := sending.New(sending.Deps{DB: db, Clock: vibesell.SystemClock{}, Config: cfg.Sending})
		r, err := svc.SandboxReady(ctx, ws.ID)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, r.Sentence())
		return nil
	})
}
