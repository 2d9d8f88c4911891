package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/store"
)

const usage = `Usage: server [command]

Commands:
  serve                              run the MCP server and web app (the default)
  stdio --workspace SLUG             speak MCP over standard input and output
  migrate                            apply database migrations and exit
  workspace create NAME              create a workspace and print its slug
  workspace list                     list the workspaces: slug and name
  token create --workspace SLUG      print a new bearer token for the workspace
  token list --workspace SLUG        list the workspace's tokens (ids, never the tokens)
  token revoke ID                    revoke a token, by id or by the token itself
  user create --workspace SLUG --email EMAIL   create a web app account (prints a password)
  support list [--workspace SLUG]    print the support tickets the workspaces opened
  directory import FILE              load a CSV of contacts into the lead directory
  oauth rotate-keys                  sign access tokens with a new key from now on
  sandbox ready --workspace SLUG     in the sandbox, make every ordered domain and mailbox ready and warm at once

Configuration comes from the environment; see the README.
`

// console is what a command that runs and exits (workspace, token, user…)
// works with: the configuration, the log, and the terminal it answers on.
type console struct {
	cfg            config
	logger         *slog.Logger
	stdin          io.Reader
	stdout, stderr io.Writer
}

// run is the whole program; main only supplies the process's environment.
func run(ctx context.Context, args []string, getenv func(string) string,
	stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, err := loadConfig(getenv)
	if err != nil {
		return err
	}
	logger := newLogger(cfg, stderr)
	con := console{cfg: cfg, logger: logger, stdin: stdin, stdout: stdout, stderr: stderr}

	var cmd []string
	if len(args) > 1 {
		cmd = args[1:]
	}
	name := "serve"
	if len(cmd) > 0 {
		name = cmd[0]
		cmd = cmd[1:]
	}
	switch name {
	case "serve":
		if err := noArgs("serve", cmd); err != nil {
			return err
		}
		return serve(ctx, cfg, logger, stdout)
	case "stdio":
		fs := newFlags("stdio", stderr)
		slug := fs.String("workspace", "", "the workspace this connection acts for")
		if err := fs.Parse(cmd); err != nil {
			return err
		}
		if *slug == "" || fs.NArg() > 0 {
			return errors.New("usage: server stdio --workspace SLUG")
		}
		return serveStdio(ctx, cfg, logger, *slug, stdin, stdout)
	case "migrate":
		if err := noArgs("migrate", cmd); err != nil {
			return err
		}
		return withDatabase(ctx, cfg, logger, false, func(*pgxpool.Pool) error {
			fmt.Fprintln(stderr, "The database schema is up to date.")
			return nil
		})
	case "workspace":
		return con.workspace(ctx, cmd)
	case "token":
		return con.token(ctx, cmd)
	case "user":
		return con.user(ctx, cmd)
	case "support":
		return con.support(ctx, cmd)
	case "directory":
		return con.directory(ctx, cmd)
	case "oauth":
		return con.oauth(ctx, cmd)
	case "sandbox":
		return con.sandbox(ctx, cmd)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		return fmt.Errorf("unknown command %q\n\n%s", name, usage)
	}
}

func noArgs(name string, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("%s takes no arguments, got %q", name, strings.Join(args, " "))
	}
	return nil
}

// workspaceArg parses the arguments of a command shaped `NAME VERB
// [--workspace SLUG]` (name is "NAME VERB"): they must start with the verb,
// and the flag is needed when required says so. Anything else is usage.
func (c console) workspaceArg(name string, args []string, required bool, help string, usage error) (string, error) {
	verb := name[strings.LastIndexByte(name, ' ')+1:]
	if len(args) < 1 || args[0] != verb {
		return "", usage
	}
	fs := newFlags(name, c.stderr)
	slug := fs.String("workspace", "", help)
	if err := fs.Parse(args[1:]); err != nil {
		return "", err
	}
	if fs.NArg() > 0 || (required && *slug == "") {
		return "", usage
	}
	return *slug, nil
}

func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

func newLogger(cfg config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if cfg.LogFormat == "json" {
		h = slog.NewJSONHandler(w, opts)
	}
	// While the database is down, every component would log its
	// failures: one line a second says it.
	return slog.New(store.QuietOutages(h))
}

// withDatabase opens the database (the embedded one when DATABASE_URL is
// empty), applies migrations, runs fn and closes everything it opened. A
// refusal from fn is returned as its sentence alone. longRunning processes
// (serve, stdio) start the embedded database again if it stops under them.
func withDatabase(ctx context.Context, cfg config, logger *slog.Logger, longRunning bool, fn func(*pgxpool.Pool) error) error {
	db, closeDB, err := openDatabase(ctx, cfg, logger, longRunning)
	if err != nil {
		return err
	}
	defer closeDB()
	if err := fn(db); err != nil {
		if vibesell.ErrorCode(err) != vibesell.EINTERNAL {
			return errors.New(vibesell.ErrorMessage(err))
		}
		return err
	}
	return nil
}

// openDatabase connects and migrates. The returned func closes the pool and
// leaves the embedded PostgreSQL, which stops when no other process uses it.
func openDatabase(ctx context.Context, cfg config, logger *slog.Logger, longRunning bool) (*pgxpool.Pool, func(), error) {
	dbURL := cfg.DatabaseURL
	var embedded *store.Embedded
	if dbURL == "" {
		var err error
		embedded, err = store.StartEmbedded(ctx, store.EmbeddedConfig{
			DataDir: cfg.DataDir,
			BinDir:  cfg.PGBinDir,
			Logger:  logger,
		})
		if err != nil {
			return nil, nil, err
		}
		dbURL = embedded.URL()
	}
	stopEmbedded := func() {
		if embedded == nil {
			return
		}
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if err := embedded.Stop(stopCtx); err != nil {
			logger.Error("stopping embedded PostgreSQL failed", "err", err)
		}
	}
	pool, err := store.Connect(ctx, dbURL, 0)
	if err != nil {
		stopEmbedded()
		return nil, nil, err
	}
	if err := store.Migrate(ctx, pool, logger); err != nil {
		pool.Close()
		stopEmbedded()
		return nil, nil, err
	}
	stopKeeping := func() {}
	if embedded != nil && longRunning {
		stopKeeping = keepEmbeddedRunning(ctx, embedded)
	}
	return pool, func() { stopKeeping(); pool.Close(); stopEmbedded() }, nil
}

// embeddedCheckEvery is how often a long-running process looks whether the
// embedded database still answers.
const embeddedCheckEvery = 2 * time.Second

// keepEmbeddedRunning starts the embedded database again whenever it stops
// while this process runs; the returned func ends that and waits for it.
func keepEmbeddedRunning(ctx context.Context, embedded *store.Embedded) func() {
	keepCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		embedded.KeepRunning(keepCtx, embeddedCheckEvery)
	}()
	return func() { cancel(); <-done }
}
