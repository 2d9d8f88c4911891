package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell/store"
	"vibesell/web"
)

// withServerAddress returns cfg with the public URL every link of this
// process starts with. Only the server knows where it runs: it records its
// PUBLIC_URL at start, and every other process on the database (a stdio
// client, user create, token create) uses that, so that an approval's
// appUrl or a sign-in link leads to the web app actually serving. known is
// false when no server has recorded an address and PUBLIC_URL is not set
// here either: a link would then be a guess.
func withServerAddress(ctx context.Context, cfg config, db *pgxpool.Pool, logger *slog.Logger) (config, bool, error) {
	recorded, err := store.PublicURL(ctx, db)
	if err != nil {
		return cfg, false, err
	}
	if recorded == "" {
		return cfg, cfg.PublicURLSet, nil
	}
	u, err := url.Parse(recorded)
	if err != nil {
		return cfg, false, fmt.Errorf("the recorded public URL %q: %w", recorded, err)
	}
	if cfg.PublicURLSet && u.String() != cfg.PublicURL.String() {
		logger.Warn("PUBLIC_URL here differs from the address the server recorded at its last start; links use the server's",
			"PUBLIC_URL", cfg.PublicURL.String(), "server", recorded)
	}
	cfg.PublicURL = u
	return cfg, true, nil
}

// tellWhereToSignIn prints the web app's sign-in link, or, when no server
// has said where it runs, why there is none.
func tellWhereToSignIn(ctx context.Context, cfg config, db *pgxpool.Pool, logger *slog.Logger, w io.Writer) error {
	cfg, known, err := withServerAddress(ctx, cfg, db, logger)
	if err != nil {
		return err
	}
	if !known {
		fmt.Fprintln(w, "No server has run on this database yet, so where to sign in is not known: start it (`server serve`), then sign in at its address followed by /app/sign-in.")
		return nil
	}
	fmt.Fprintf(w, "Sign in at %s\n", cfg.link("/app/sign-in"))
	return nil
}

// tellWhereToConnect says, after a new token, where MCP clients connect.
// It goes to standard error: standard output is the token alone, for
// scripts.
func tellWhereToConnect(ctx context.Context, cfg config, db *pgxpool.Pool, logger *slog.Logger, w io.Writer) error {
	cfg, known, err := withServerAddress(ctx, cfg, db, logger)
	if err != nil {
		return err
	}
	if !known {
		fmt.Fprintln(w, "No server has run on this database yet, so its address is not known: once it runs (`server serve`), connect MCP clients to its address followed by /mcp, with the header Authorization: Bearer and this token.")
		return nil
	}
	fmt.Fprintf(w, "Connect MCP clients to %s with the header Authorization: Bearer and this token.\n", cfg.link("/mcp"))
	return nil
}

// stdioAddress is the address a stdio client's approval links use. Those
// pages are served by the server, not by the stdio process: without a
// server having run, the links are PUBLIC_URL's guess, and the log says so.
func stdioAddress(ctx context.Context, cfg config, db *pgxpool.Pool, logger *slog.Logger) (config, error) {
	cfg, known, err := withServerAddress(ctx, cfg, db, logger)
	if err != nil {
		return cfg, err
	}
	if !known {
		logger.Warn("no server has run on this database yet: approval links point to PUBLIC_URL, and approving in the web app needs the server running there (`server serve` beside this client)",
			"PUBLIC_URL", cfg.PublicURL.String())
	}
	return cfg, nil
}

// toTheWebApp answers the server's root: a person who opens the address
// the banner or a link gave lands in the web app (signed in: the
// approvals; otherwise the sign-in page, which says what this is and how
// to get an account).
func toTheWebApp(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, web.Prefix, http.StatusFound)
}
