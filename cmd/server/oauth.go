package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell/auth/oauth"
)

// oauthCommand runs `server oauth rotate-keys`: a new signing key for
// access tokens. Every replica signs with it from its next token; tokens
// signed with the old key keep working until they expire.
func oauthCommand(ctx context.Context, cfg config, logger *slog.Logger, args []string, stdout io.Writer) error {
	if len(args) != 1 || args[0] != "rotate-keys" {
		return errors.New("usage: server oauth rotate-keys")
	}
	return withDatabase(ctx, cfg, logger, false, func(db *pgxpool.Pool) error {
		s, err := oauth.New(oauth.Config{PublicURL: cfg.PublicURL.String(), DB: db, Logger: logger})
		if err != nil {
			return err
		}
		kid, err := s.Keys().Rotate(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Access tokens are now signed with key %s. Tokens signed with the previous key work until they expire, within the hour.\n", kid)
		return nil
	})
}
