package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell/auth/oauth"
)

// cmdOAuthRotateKeys runs `server oauth rotate-keys`: a new signing key for
// access tokens. Every replica signs with it from its next token; tokens
// signed with the old key keep working until they expire.
func (c console) cmdOAuthRotateKeys(*flag.FlagSet) func(context.Context, []string) error {
	return c.oauthRotateKeys
}

func (c console) oauthRotateKeys(ctx context.Context, _ []string) error {
	return withDatabase(ctx, c.cfg, c.logger, false, func(db *pgxpool.Pool) error {
		s := oauth.New(oauth.Deps{PublicURL: c.cfg.PublicURL.String(), DB: db, Logger: c.logger})
		kid, err := s.Keys().Rotate(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.stdout, "Access tokens are now signed with key %s. Tokens signed with the previous key work until they expire, within the hour.\n", kid)
		return nil
	})
}
