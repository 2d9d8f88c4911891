package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell/auth"
	"vibesell/workspace"
)

const tokenUsage = "usage: server token create --workspace SLUG | server token list --workspace SLUG | server token revoke ID"

// tokenCommand runs `server token create|list|revoke`.
func (c console) token(ctx context.Context, args []string) error {
	if len(args) < 1 {
		return errors.New(tokenUsage)
	}
	switch args[0] {
	case "create", "list":
		fs := newFlags("token "+args[0], c.stderr)
		slug := fs.String("workspace", "", "the workspace of the tokens")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *slug == "" || fs.NArg() > 0 {
			return errors.New(tokenUsage)
		}
		return withDatabase(ctx, c.cfg, c.logger, false, func(db *pgxpool.Pool) error {
			ws, err := findWorkspace(ctx, db, *slug)
			if err != nil {
				return err
			}
			if args[0] == "list" {
				return listTokens(ctx, db, ws, c.stdout)
			}
			token, err := auth.NewTokens(db).Create(ctx, ws.ID)
			if err != nil {
				return err
			}
			fmt.Fprintln(c.stdout, token)
			return tellWhereToConnect(ctx, c.cfg, db, c.logger, c.stderr)
		})
	case "revoke":
		if len(args) != 2 {
			return errors.New(tokenUsage)
		}
		return withDatabase(ctx, c.cfg, c.logger, false, func(db *pgxpool.Pool) error {
			id, err := auth.NewTokens(db).Revoke(ctx, args[1])
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "Revoked token %s: every server refuses it within a second.\n", id)
			return nil
		})
	}
	return errors.New(tokenUsage)
}

// listTokens prints one line per token: its id, when it was created and
// when it was last used or revoked.
func listTokens(ctx context.Context, db *pgxpool.Pool, ws workspace.Workspace, stdout io.Writer) error {
	infos, err := auth.NewTokens(db).List(ctx, ws.ID)
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
