package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/store"
)

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

	var words []string
	if len(args) > 1 {
		words = args[1:]
	}
	if len(words) > 0 && (words[0] == "help" || words[0] == "-h" || words[0] == "--help") {
		fmt.Fprint(stdout, usage())
		return nil
	}
	do, err := con.parse(words)
	if err != nil {
		return err
	}
	return do(ctx)
}

// command is one thing the binary does. The flags its define registers are
// the one source of its usage line ([command.synopsis] writes it from
// them), so no usage text can name a flag the command lacks or leave out
// one it has; readme_test.go holds the README to the same lines.
type command struct {
	name string // the words that select it: "token create"
	args string // its positional arguments as usage shows them ("NAME", "ID", "FILE"); "" for none
	// joinArgs: args is one value whose words may come unquoted (a
	// workspace's name).
	joinArgs bool
	// optionalArgs: args may also be left out (audit verify reads its
	// EXPORT from standard input then).
	optionalArgs bool
	required     []string // the flags it cannot do without, in the order usage shows them
	about        string   // what it does, in the usage's list
	// longRunning commands (serve, stdio) run until stopped or until their
	// client goes away, instead of doing one thing and exiting.
	longRunning bool
	// define registers the command's flags on fs (with a `METAVAR` in
	// each help text) and returns what runs it, given the positional
	// arguments once they are checked against args.
	define func(c console, fs *flag.FlagSet) func(ctx context.Context, args []string) error
}

// commands is everything the binary runs, in the order usage lists it.
var commands = []command{
	{name: "serve", about: "run the MCP server and web app (the default)", longRunning: true, define: console.cmdServe},
	{name: "stdio", required: []string{"workspace"}, about: "speak MCP over standard input and output", longRunning: true, define: console.cmdStdio},
	{name: "migrate", about: "apply database migrations and exit", define: console.cmdMigrate},
	{name: "workspace create", args: "NAME", joinArgs: true, about: "create a workspace and print its slug", define: console.cmdWorkspaceCreate},
	{name: "workspace list", about: "list the workspaces: slug and name", define: console.cmdWorkspaceList},
	{name: "token create", required: []string{"workspace"}, about: "print a new bearer token for the workspace", define: console.cmdTokenCreate},
	{name: "token list", required: []string{"workspace"}, about: "list the workspace's tokens (ids, never the tokens)", define: console.cmdTokenList},
	{name: "token revoke", args: "ID", about: "revoke a token, by id or by the token itself", define: console.cmdTokenRevoke},
	{name: "user create", required: []string{"workspace", "email"}, about: "create a web app account (prints a password unless one comes on standard input)", define: console.cmdUserCreate},
	{name: "support list", about: "print the support tickets the workspaces opened", define: console.cmdSupportList},
	{name: "directory import", args: "FILE", about: "load a CSV of contacts into the lead directory", define: console.cmdDirectoryImport},
	{name: "oauth rotate-keys", about: "sign access tokens with a new key from now on", define: console.cmdOAuthRotateKeys},
	{name: "audit export", required: []string{"workspace"}, about: "write the workspace's audit chain as JSON lines", define: console.cmdAuditExport},
	{name: "audit verify", args: "[EXPORT]", optionalArgs: true, about: "check an exported chain (EXPORT, or standard input) or the database's (--workspace), naming the first record altered, removed or reordered", define: console.cmdAuditVerify},
	{name: "sandbox serve", about: "run the sandbox mail server alone, for several replicas to share", longRunning: true, define: console.cmdSandboxServe},
	{name: "sandbox ready", required: []string{"workspace"}, about: "in the sandbox, make every ordered domain and mailbox ready and warm at once", define: console.cmdSandboxReady},
	{name: "demo", required: []string{"workspace"}, about: "in the sandbox, fill an empty workspace with sample data and print a web app sign-in", define: console.cmdDemo},
}

// flags returns the command's flags, defined on a set of their own; the
// body define returns is dropped, never run.
func (cmd command) flags() *flag.FlagSet {
	fs := newFlags(cmd.name, io.Discard)
	cmd.define(console{}, fs)
	return fs
}

// synopsis is the command's usage line, written from its flags: the
// required ones in their order, then the others as [--flag METAVAR] by name,
// then the positional arguments.
func (cmd command) synopsis(fs *flag.FlagSet) string {
	words := []string{"server", cmd.name}
	flagWords := func(f *flag.Flag) string {
		metavar, _ := flag.UnquoteUsage(f)
		if isBoolFlag(f) {
			return "--" + f.Name
		}
		if !strings.Contains(f.Usage, "`") {
			metavar = strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		}
		return "--" + f.Name + " " + metavar
	}
	for _, name := range cmd.required {
		words = append(words, flagWords(fs.Lookup(name)))
	}
	fs.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(cmd.required, f.Name) {
			words = append(words, "["+flagWords(f)+"]")
		}
	})
	if cmd.args != "" {
		words = append(words, cmd.args)
	}
	return strings.Join(words, " ")
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// usage is the binary's help: every command's usage line and what it does.
func usage() string {
	var b strings.Builder
	b.WriteString("Usage: server [command]\n\nCommands:\n")
	// What each does starts in one column; a usage line too long for it
	// (user create) pushes its text along rather than every other's.
	const column = 35
	for _, cmd := range commands {
		line := strings.TrimPrefix(cmd.synopsis(cmd.flags()), "server ")
		fmt.Fprintf(&b, "  %-*s %s\n", max(column-1, len(line)+2), line, cmd.about)
	}
	b.WriteString("\nConfiguration comes from the environment; see the README.\n")
	return b.String()
}

// findCommand picks the command words name (none is serve) and returns the
// words after its name. Words that name no command are answered with the
// usage of those that start the same (`server token`) or of all of them.
func findCommand(words []string) (command, []string, error) {
	if len(words) == 0 {
		words = []string{"serve"}
	}
	if cmd, ok := commandNamed(words); ok {
		return cmd, words[len(strings.Fields(cmd.name)):], nil
	}
	var group []string
	for _, cmd := range commands {
		if strings.Fields(cmd.name)[0] == words[0] {
			group = append(group, cmd.synopsis(cmd.flags()))
		}
	}
	if len(group) > 0 {
		return command{}, nil, errors.New("usage: " + strings.Join(group, " | "))
	}
	return command{}, nil, fmt.Errorf("unknown command %q\n\n%s", words[0], usage())
}

// commandNamed is the command whose name words start with.
func commandNamed(words []string) (command, bool) {
	for _, cmd := range commands {
		name := strings.Fields(cmd.name)
		if len(words) >= len(name) && slices.Equal(words[:len(name)], name) {
			return cmd, true
		}
	}
	return command{}, false
}

// parse finds the command words name and parses its flags and arguments;
// what it returns runs the command. A flag the command does not define, a
// required flag left out or empty, or arguments other than its own are
// answered with its usage line; -h prints it with what each flag is.
func (c console) parse(words []string) (func(context.Context) error, error) {
	cmd, rest, err := findCommand(words)
	if err != nil {
		return nil, err
	}
	fs := newFlags(cmd.name, c.stderr)
	body := cmd.define(c, fs)
	errUsage := errors.New("usage: " + cmd.synopsis(fs))
	fs.Usage = func() {
		fmt.Fprintln(c.stderr, errUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(rest); errors.Is(err, flag.ErrHelp) {
		return func(context.Context) error { return nil }, nil // -h: fs.Usage has answered
	} else if err != nil {
		return nil, err
	}
	for _, name := range cmd.required {
		if fs.Lookup(name).Value.String() == "" {
			return nil, errUsage
		}
	}
	args := fs.Args()
	if n := len(strings.Fields(cmd.args)); len(args) != n && !(cmd.joinArgs && len(args) > n) && !(cmd.optionalArgs && len(args) == 0) {
		return nil, errUsage
	}
	if cmd.joinArgs && len(args) > 0 {
		args = []string{strings.Join(args, " ")}
	}
	return func(ctx context.Context) error { return body(ctx, args) }, nil
}

func (c console) cmdServe(*flag.FlagSet) func(context.Context, []string) error {
	return func(ctx context.Context, _ []string) error { return serve(ctx, c.cfg, c.logger, c.stdout) }
}

func (c console) cmdStdio(fs *flag.FlagSet) func(context.Context, []string) error {
	slug := fs.String("workspace", "", "the `SLUG` of the workspace this connection acts for")
	return func(ctx context.Context, _ []string) error {
		return serveStdio(ctx, c.cfg, c.logger, *slug, c.stdin, c.stdout)
	}
}

func (c console) cmdMigrate(*flag.FlagSet) func(context.Context, []string) error {
	return func(ctx context.Context, _ []string) error {
		return withDatabase(ctx, c.cfg, c.logger, false, func(*pgxpool.Pool) error {
			fmt.Fprintln(c.stderr, "The database schema is up to date.")
			return nil
		})
	}
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
	db, _, closeDB, err := openDatabase(ctx, cfg, logger, longRunning)
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

// openDatabase connects and migrates. It returns the pool for queries and
// the pool for what needs a session of its own (the same pool unless
// DATABASE_DIRECT_URL is set: see config.DatabaseDirectURL). The returned
// func closes the pools and leaves the embedded PostgreSQL, which stops
// when no other process uses it.
func openDatabase(ctx context.Context, cfg config, logger *slog.Logger, longRunning bool) (db, direct *pgxpool.Pool, closeAll func(), err error) {
	dbURL := cfg.DatabaseURL
	var embedded *store.Embedded
	if dbURL == "" {
		embedded, err = store.StartEmbedded(ctx, store.EmbeddedConfig{
			DataDir: cfg.DataDir,
			BinDir:  cfg.PGBinDir,
			Logger:  logger,
		})
		if err != nil {
			return nil, nil, nil, err
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
	if cfg.DatabaseDirectURL == "" {
		db, err = store.Connect(ctx, dbURL, 0)
		direct = db
	} else {
		// River's own queries and listener and the notifications' one
		// connection: a few.
		direct, err = store.Connect(ctx, cfg.DatabaseDirectURL, directConns)
		if err == nil {
			if db, err = store.ConnectPooled(ctx, dbURL, 0); err != nil {
				direct.Close()
			}
		}
	}
	if err != nil {
		stopEmbedded()
		return nil, nil, nil, err
	}
	closePools := func() {
		db.Close()
		if direct != db {
			direct.Close()
		}
	}
	// The migrations hold a session's advisory lock: direct.
	if err := store.Migrate(ctx, direct, logger); err != nil {
		closePools()
		stopEmbedded()
		return nil, nil, nil, err
	}
	stopKeeping := func() {}
	if embedded != nil && longRunning {
		stopKeeping = keepEmbeddedRunning(ctx, embedded)
	}
	return db, direct, func() { stopKeeping(); closePools(); stopEmbedded() }, nil
}

// directConns is the size of the direct pool beside a pooler: River's
// producer, completer, leader election and listener.
const directConns = 6

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
