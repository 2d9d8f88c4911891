package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell/auth"
)

// cmdUserCreate runs `server user create`: it lets a person sign in to a
// workspace in the web app. A person who already has an account (in
// another workspace) is added to this one and keeps their password.
// Otherwise their account is created: without --password-stdin with a
// strong password printed once; with it, the first line of standard input
// is the password (for scripts and secret managers).
func (c console) cmdUserCreate(fs *flag.FlagSet) func(context.Context, []string) error {
	slug := fs.String("workspace", "", "the `SLUG` of the workspace the person belongs to")
	email := fs.String("email", "", "the `EMAIL` address the person signs in with")
	name := fs.String("name", "", "the person's `NAME`")
	timeZone := fs.String("time-zone", "UTC", "the person's time `ZONE`, such as Europe/Paris, for dates in the web app")
	fromStdin := fs.Bool("password-stdin", false, "read the password from the first line of standard input instead of generating one")
	return func(ctx context.Context, _ []string) error {
		return c.userCreate(ctx, *slug, *email, *name, *timeZone, *fromStdin)
	}
}

func (c console) userCreate(ctx context.Context, slug, email, name, timeZone string, fromStdin bool) error {
	password, generated := "", false
	if fromStdin {
		line, err := bufio.NewReader(c.stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read the password from standard input: %w", err)
		}
		password = strings.TrimRight(line, "\r\n")
	} else {
		password, generated = newPassword(), true
	}
	return withDatabase(ctx, c.cfg, c.logger, false, func(db *pgxpool.Pool) error {
		ws, err := findWorkspace(ctx, db, slug)
		if err != nil {
			return err
		}
		accounts := auth.NewAccounts(auth.AccountsDeps{DB: db})
		if u, err := accounts.AddMember(ctx, ws.ID, email); !errors.Is(err, auth.ErrNoAccount) {
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "%s already has an account; added them to workspace %s. They sign in with the password they have, and choose the workspace in the web app.\n", u.Email, ws.Slug)
			if fromStdin {
				fmt.Fprintln(c.stdout, "The password on standard input was not used.")
			}
			return tellWhereToSignIn(ctx, c.cfg, db, c.logger, c.stdout)
		}
		u, err := accounts.CreateUser(ctx, auth.NewUser{
			WorkspaceID: ws.ID, Email: email, Name: name, Password: password, TimeZone: timeZone,
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(c.stdout, "Created the account %s in workspace %s.\n", u.Email, ws.Slug)
		if err := tellWhereToSignIn(ctx, c.cfg, db, c.logger, c.stdout); err != nil {
			return err
		}
		if generated {
			fmt.Fprintf(c.stdout, "Password (shown only once): %s\n", password)
		}
		return nil
	})
}

// newPassword returns 20 random letters and digits in groups of five
// (about 103 bits), easy to read out and to type.
func newPassword() string {
	const alphabet = "abcdefghijkmnpqrstuvwxyz23456789" // no 0/o, 1/l
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	var s strings.Builder
	for i, c := range b {
		if i > 0 && i%5 == 0 {
			s.WriteByte('-')
		}
		s.WriteByte(alphabet[int(c)%len(alphabet)])
	}
	return s.String()
}
