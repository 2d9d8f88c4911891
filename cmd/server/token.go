package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell/auth"
	"vibesell/workspace"
)

// cmdTokenCreate runs `server token create`: it prints a new bearer token
// for the workspace, and on standard error where to use it.
func (c console) cmdTokenCreate(fs *flag.FlagSet) func(context.Context, []string) error {
	slug := fs.String("workspace", "", "the `SLUG` of the workspace the token acts for")
	return func(ctx context.Context, _ []string) error {
		return withDatabase(ctx, c.cfg, c.logger, false, func(db *pgxpool.Pool) error {
			ws, err := findWorkspace(ctx, db, *slug)
			if err != nil {
				return err
			}
			token, err := auth.NewTokens(auth.TokensDeps{DB: db}).CreateBy(ctx, ws.ID, auth.CreatedByCommandLine)
			if err != nil {
				return err
			}
			fmt.Fprintln(c.stdout, token)
			return tellWhereToConnect(ctx, c.cfg, db, c.logger, c.stderr)
		})
	}
}

// cmdTokenList runs `server token list`.
func (c console) cmdTokenList(fs *flag.FlagSet) func(context.Context, []string) error {
	slug := fs.String("workspace", "", "the `SLUG` of the workspace whose tokens to list")
	return func(ctx context.Context, _ []string) error {
		return withDatabase(ctx, c.cfg, c.logger, false, func(db *pgxpool.Pool) error {
			ws, err := findWorkspace(ctx, db, *slug)
			if err != nil {
				return err
			}
			return listTokens(ctx, db, ws, c.stdout)
		})
	}
}

// cmdTokenRevoke runs `server token revoke ID`, ID being a token's id or
// the token itself.
func (c console) cmdTokenRevoke(*flag.FlagSet) func(context.Context, []string) error {
	return func(ctx context.Context, args []string) error {
		return withDatabase(ctx, c.cfg, c.logger, false, func(db *pgxpool.Pool) error {
			id, err := auth.NewTokens(auth.TokensDeps{DB: db}).Revoke(ctx, args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "Revoked token %s: every server refuses it within a second.\n", id)
			return nil
		})
	}
}

// listTokens prints one line per token: its id, when it was created and
// when it was last used or revoked.
func listTokens(ctx context.Context, db *pgxpool.Pool, ws workspace.Workspace, stdout io.Writer) error {
	infos, err := auth.NewTokens(auth.TokensDeps{DB: db}).List(ctx, ws.ID)
	if err != nil {
		return err
	}
	if len(infos) == 0 {
		fmt.Fprintf(stdout, "Workspace %s has no tokens. Create one with: server token create --workspace %s\n", ws.Slug, ws.Slug)
		return nil
	}
	for _, i := range infos {
		used := "never used"
		if i.LastUsedAt != nil {
			used = "last used " + spellTime(*i.LastUsedAt)
		}
		if i.RevokedAt != nil {
			used += ", revoked " + spellTime(*i.RevokedAt)
		}
		fmt.Fprintf(stdout, "%s  created %s, %s\n", i.ID, spellTime(i.CreatedAt), used)
	}
	return nil
}

// spellTime writes a moment as people read it: "Tue 2 Dec 2026, 09:00 UTC".
func spellTime(t time.Time) string { return t.UTC().Format("Mon 2 Jan 2006, 15:04 UTC") }
