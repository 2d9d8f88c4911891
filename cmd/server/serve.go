package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/mark3labs/mcp-go/server"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"vibesell"
	"vibesell/approvals"
	"vibesell/audience"
	"vibesell/audit"
	"vibesell/auth"
	"vibesell/auth/oauth"
	"vibesell/billing"
	"vibesell/delivery"
	"vibesell/mail"
	"vibesell/sandboxmail"
	"vibesell/sending"
	"vibesell/store"
	"vibesell/toolkit"
	"vibesell/tools"
	"vibesell/ui"
	"vibesell/web"
	"vibesell/webhooks"
	"vibesell/workspace"
)

// serve runs the HTTP server and the job workers until ctx ends, then
// shuts down in order: stop taking requests and finish those in flight,
// stop the workers, close the database (and stop the embedded one).
func serve(ctx context.Context, cfg config, logger *slog.Logger, stdout io.Writer) error {
	db, direct, closeDB, err := openDatabase(ctx, cfg, logger, true)
	if err != nil {
		return err
	}
	defer closeDB()
	if err := store.RecordPublicURL(ctx, db, cfg.PublicURL.String()); err != nil {
		return err
	}

	// The first start's banner (how to connect and sign in) is printed
	// once everything has started, so it is the last thing on the screen.
	banner, err := claimFirstStart(ctx, cfg, db)
	if err != nil {
		return err
	}
	if loaded, err := audience.LoadSampleDirectory(ctx, db); err != nil {
		return err
	} else if loaded {
		logger.Info("loaded the sample lead directory: made-up contacts on reserved domains; load a real one with `server directory import FILE`",
			"contacts", audience.SampleSize)
	}

	// The services subscribe to notes as they are built, before notes run.
	// LISTEN needs a session of its own: the direct connection.
	notes := store.NewNotifications(direct, logger.With("component", "notifications"))
	svc, err := newServices(cfg, db, notes, logger)
	if err != nil {
		return err
	}
	notesCtx, stopNotes := context.WithCancel(context.WithoutCancel(ctx))
	notesDone := make(chan struct{})
	go func() {
		defer close(notesDone)
		notes.Run(notesCtx)
	}()
	defer func() {
		stopNotes()
		<-notesDone
	}()
	if err := svc.oauth.Keys().Ensure(ctx); err != nil {
		return fmt.Errorf("oauth signing keys: %w", err)
	}
	if h := cfg.PublicURL.Hostname(); cfg.PublicURL.Scheme != "https" && h != "localhost" && !net.ParseIP(h).IsLoopback() {
		logger.Warn("PUBLIC_URL is not https, so the Claude app and other OAuth clients will refuse to connect; serve VibeSell over https and set PUBLIC_URL to that address",
			"PUBLIC_URL", cfg.PublicURL.String())
	}
	mailParts, err := startMail(cfg, db, svc, logger)
	if err != nil {
		return err
	}
	defer mailParts.Close()
	if err := remindByMail(db, svc, mailParts, logger); err != nil {
		return err
	}
	handler := routes(cfg, db, svc, mailParts.Secret, mailParts.Outbox, logger)
	// The sending engine sends with the job workers; its watchers read
	// replies until the server stops.
	stopWatching, err := mailParts.runEngine(cfg, db, direct, svc, logger)
	if err != nil {
		return err
	}
	defer stopWatching()
	// River's listener and its own queries go direct; the jobs it runs
	// use the services' pool, and features enqueue in their own
	// transactions.
	jobs, err := newJobClient(direct, svc, logger)
	if err != nil {
		return err
	}
	if err := jobs.Start(ctx); err != nil {
		return fmt.Errorf("start job workers: %w", err)
	}

	listener, err := net.Listen("tcp", cfg.ListenAddr)
	if err != nil {
		stopJobs(jobs, cfg, logger)
		return fmt.Errorf("listen on LISTEN_ADDR=%s: %w", cfg.ListenAddr, err)
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		// A request's headers and body must arrive within ReadTimeout: a
		// client that trickles a body would otherwise hold a connection
		// and a goroutine for ever. It does not cut long responses (an
		// event stream): net/http lifts the deadline once the body is read.
		ReadTimeout: cfg.ReadTimeout,
		IdleTimeout: 2 * time.Minute,
		ErrorLog:    slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	logger.Info("VibeSell is serving", "addr", listener.Addr().String(), "mcp", cfg.link("/mcp"))

	// The banner is out before the first request is answered: whoever
	// waits for /readyz and then reads it finds it there.
	io.WriteString(stdout, banner)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(listener) }()
	select {
	case err := <-served:
		stopJobs(jobs, cfg, logger)
		return fmt.Errorf("http server: %w", err)
	case <-ctx.Done():
	}

	logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		logger.Error("requests still running at the shutdown deadline were cut off", "err", err)
	}
	stopJobs(jobs, cfg, logger)
	return nil
}

// routes lists everything the HTTP server answers. mailSecret signs the
// unsubscribe links in every message sent; without one no link can be
// made, so none is answered.
func routes(cfg config, db *pgxpool.Pool, svc *services, mailSecret *mail.Secret, outbox *sandboxmail.Outbox, logger *slog.Logger) http.Handler {
	webApp := web.New(web.Deps{
		PublicURL:  cfg.PublicURL.String(),
		Accounts:   svc.accounts,
		Approvals:  svc.approvals,
		Audit:      audit.New(audit.Deps{DB: db}),
		Workspaces: svc.workspaces,
		Audience:   svc.audience,
		Campaigns:  svc.campaigns,
		// The next emails are worked out with the engine's own defaults
		// (gaps, tries), which wireEngine builds it with.
		Upcoming:    delivery.NewUpcoming(delivery.UpcomingDeps{DB: db, Campaigns: svc.campaigns, Clock: svc.clock}),
		Clock:       svc.clock,
		Logger:      logger.With("component", "web"),
		ClientIP:    cfg.clientIP(),
		OAuth:       svc.oauth,
		Billing:     svc.billing,
		Outbox:      outbox,
		Replies:     svc.replies,
		Answers:     svc.answers,
		Sending:     svc.sending,
		Connections: svc.connections,
		Webhooks:    svc.webhooks,
		Tokens:      svc.tokens,

		RequestTimeout: cfg.WebRequestTimeout,
		SupportEmail:   cfg.SupportEmail,
		JobsKept:       completedJobsKept,
	})
	mux := http.NewServeMux()
	mux.Handle(web.Prefix, webApp)
	// The privacy page and the terms live at the root, where the Claude
	// connector directory and people link them.
	for _, path := range web.PublicPaths {
		mux.Handle("GET "+path, webApp)
	}
	mux.Handle(billing.WebhookPath, svc.billing.WebhookHandler())
	mux.HandleFunc("GET /{$}", toTheWebApp)
	// Browsers ask for /favicon.ico on pages that link no icon (the
	// unsubscribe page): the app's icon answers instead of a 404.
	mux.HandleFunc("GET /favicon.ico", web.Favicon)
	mcpServer := newMCPServer(svc, logger)
	mux.Handle("/mcp", toolkit.NewHTTPHandler(mcpServer, toolkit.HTTPOptions{
		Tokens:         svc.tokens,
		Sessions:       svc.sessions,
		PublicURL:      cfg.PublicURL,
		AllowedOrigins: cfg.AllowedOrigins,
		Logger:         logger.With("component", "mcp"),
		Authenticate: func(next http.Handler) http.Handler {
			return svc.oauth.RequireBearer(svc.tokens, toolkit.ScopeOf(tools.Registry(svc.toolDeps())), logger.With("component", "mcp"), next)
		},
		SessionMemoryTTL: cfg.SessionMemoryTTL,
		SessionMemory:    cfg.SessionMemory,
		Available:        databaseAvailable(db, svc.notes),
	}))
	authorizationServer := svc.oauth.Handler()
	for _, path := range oauth.Paths {
		mux.Handle(path, authorizationServer)
	}
	if mailSecret != nil {
		mail.UnsubscribeRoutes(mux, *mailSecret, svc.audience.MailSuppressions(), unsubscribeSender(svc.workspaces), logger.With("component", "unsubscribe"))
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
		defer cancel()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if err := store.Ready(ctx, db); err != nil {
			logger.Warn("not ready", "err", err)
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, "not ready\n")
			return
		}
		io.WriteString(w, "ready\n")
	})
	return forbidFraming(mux)
}

// forbidFraming is the one rule for framing: no page of the server may be
// shown inside another site's frame, where a click on Unsubscribe,
// Approve or Connect could be stolen by what is drawn over it. A handler
// may set a fuller Content-Security-Policy of its own (the web app does);
// it keeps frame-ancestors 'none'. The cards are not framed from here:
// they travel inside MCP results.
func forbidFraming(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", "frame-ancestors 'none'")
		next.ServeHTTP(w, r)
	})
}

// databaseAvailable says whether the database answers: at no cost while
// its notifications are fresh (the listening connection answered within a
// second), and otherwise by asking it.
func databaseAvailable(db *pgxpool.Pool, notes *store.Notifications) func(context.Context) error {
	if notes == nil {
		return nil // without notifications, nothing tells an outage from a quiet spell cheaply
	}
	return func(ctx context.Context) error {
		if notes.Fresh() {
			return nil
		}
		return db.Ping(ctx)
	}
}

// newJobClient builds the River client that runs every feature's jobs.
func newJobClient(db *pgxpool.Pool, svc *services, logger *slog.Logger) (*river.Client[pgx.Tx], error) {
	workers := river.NewWorkers()
	var periodic []*river.PeriodicJob
	periodic = append(periodic, auth.AddWorkers(workers, svc.sessions, svc.clock)...)
	periodic = append(periodic, auth.AddAccountWorkers(workers, svc.accounts)...)
	periodic = append(periodic, approvals.AddWorkers(workers, svc.approvals)...)
	periodic = append(periodic, sending.AddWorkers(workers, svc.sending)...)
	periodic = append(periodic, oauth.AddWorkers(workers, svc.oauth)...)
	if svc.engine != nil {
		periodic = append(periodic, delivery.AddWorkers(workers, svc.engine)...)
	}
	if svc.webhooks != nil {
		periodic = append(periodic, webhooks.AddWorkers(workers, svc.webhooks)...)
	}
	client, err := river.NewClient(riverpgxv5.New(db), jobConfig(workers, periodic, logger))
	if err != nil {
		return nil, fmt.Errorf("create job client: %w", err)
	}
	return client, nil
}

// jobConfig is the River configuration of the server's job client.
func jobConfig(workers *river.Workers, periodic []*river.PeriodicJob, logger *slog.Logger) *river.Config {
	return &river.Config{
		Queues:       map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 10}},
		Workers:      workers,
		PeriodicJobs: periodic,
		// River reports its routine (started, stopped, the producer's job
		// counts every few seconds) at info: for the person running the
		// server that is debug. Its warnings and errors stay as they are.
		Logger: slog.New(infoAsDebug{logger.With("component", "jobs").Handler()}),
		// Every job's timeout is at most the approvals' execution timeout
		// (River's default job timeout is a minute), so this rescues a job
		// whose worker died without ever rescuing one still running.
		RescueStuckJobsAfter: approvals.RescueStuckJobsAfter,
		// See store.CompletedJobRetention.
		CompletedJobRetentionPeriod: store.CompletedJobRetention,
	}
}

// completedJobsKept is how long River keeps a finished job's row, as the
// privacy page says it.
const completedJobsKept = store.CompletedJobRetention

// infoAsDebug passes a library's info records on at debug, for a library
// whose info is routine progress.
type infoAsDebug struct{ slog.Handler }

func (h infoAsDebug) Enabled(ctx context.Context, l slog.Level) bool {
	return h.Handler.Enabled(ctx, quieter(l))
}

func (h infoAsDebug) Handle(ctx context.Context, r slog.Record) error {
	r.Level = quieter(r.Level)
	return h.Handler.Handle(ctx, r)
}

func (h infoAsDebug) WithAttrs(as []slog.Attr) slog.Handler {
	return infoAsDebug{h.Handler.WithAttrs(as)}
}

func (h infoAsDebug) WithGroup(name string) slog.Handler {
	return infoAsDebug{h.Handler.WithGroup(name)}
}

func quieter(l slog.Level) slog.Level {
	if l == slog.LevelInfo {
		return slog.LevelDebug
	}
	return l
}

func stopJobs(jobs *river.Client[pgx.Tx], cfg config, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := jobs.Stop(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		logger.Error("stopping job workers", "err", err)
	}
}

// claimFirstStart creates the first workspace on an empty database and
// returns, once for the installation, the banner that says how to connect
// to it ("" on every other start).
func claimFirstStart(ctx context.Context, cfg config, db *pgxpool.Pool) (string, error) {
	var ws workspace.Workspace
	var token string
	var first bool
	err := store.InTx(ctx, db, func(tx pgx.Tx) error {
		var err error
		first, err = workspace.ClaimFirstStart(ctx, tx, func(ctx context.Context) (uuid.UUID, error) {
			var err error
			if ws, err = workspace.Create(ctx, tx, "My workspace"); err != nil {
				return uuid.Nil, err
			}
			if token, err = auth.CreateTokenBy(ctx, tx, ws.ID, auth.CreatedByFirstStart); err != nil {
				return uuid.Nil, err
			}
			return ws.ID, nil
		})
		return err
	})
	if err != nil {
		return "", fmt.Errorf("first start: %w", err)
	}
	if !first {
		return "", nil
	}
	return fmt.Sprintf(`
VibeSell created your first workspace, %q (slug %s).

Connect an MCP client to:
  URL:    %s
  Header: Authorization: Bearer %s

This token is shown only once. Make another any time with:
  go run ./cmd/server token create --workspace %s

Approvals that cost money are decided in the web app. Create your account with:
  go run ./cmd/server user create --workspace %s --email you@example.com
It prints your password; then sign in at:
  %s

`, ws.Name, ws.Slug, cfg.link("/mcp"), token, ws.Slug, ws.Slug, cfg.link("/app/sign-in")), nil
}

// newMCPServer builds the MCP server with every tool of the product.
func newMCPServer(svc *services, logger *slog.Logger) *server.MCPServer {
	s := tools.NewServer(svc.toolDeps(), &toolkit.Options{
		Version:       version,
		Logger:        logger.With("component", "tools"),
		CardHTML:      ui.CardHTML,
		Gate:          gate,
		ServerOptions: []server.ServerOption{server.WithHooks(toolkit.RecordSessions(svc.sessions, logger))},
	})
	if conformanceFixture != nil {
		conformanceFixture(s, logger)
	}
	return s
}

// conformanceFixture adds the tools, resources and prompts the official
// conformance suite calls by name (test_simple_text, test://static-text,
// test_simple_prompt…) in a build for that suite only
// (conformance_fixture.go, built with -tags vibesell_conformance, which
// e2e/conformance_test.go builds). In every other build it is nil: a
// person's server never lists them.
var conformanceFixture func(s *server.MCPServer, logger *slog.Logger)

// gate refuses a call whose tool needs a scope the caller was not granted.
// Over HTTP the resource server has already answered such a call with a
// 403 step-up; this holds for every transport, whatever sits in front.
func gate(ctx context.Context, p auth.Principal, tool string, n toolkit.Needs) error {
	if !vibesell.ScopeCovers(p.Scopes, n.Scope) {
		return vibesell.Errorf(vibesell.EUNAUTHORIZED,
			"This connection may not call %s: it needs the %s scope, which the person did not grant. Ask them to connect VibeSell again and allow it.", tool, n.Scope)
	}
	return nil
}

// version is stamped at build time (-ldflags "-X main.version=…").
var version = "dev"

// serveStdio speaks MCP on stdin and stdout for one workspace; everything
// else (logs, the embedded database's messages) goes to stderr.
func serveStdio(ctx context.Context, cfg config, logger *slog.Logger, slug string, stdin io.Reader, stdout io.Writer) error {
	return withDatabase(ctx, cfg, logger, true, func(db *pgxpool.Pool) error {
		ws, err := findWorkspace(ctx, db, slug)
		if err != nil {
			return err
		}
		cfg, err := stdioAddress(ctx, cfg, db, logger)
		if err != nil {
			return err
		}
		svc, err := newServices(cfg, db, nil, logger)
		if err != nil {
			return err
		}
		p := auth.Principal{WorkspaceID: ws.ID, WorkspaceSlug: ws.Slug, Scopes: vibesell.Scopes()}
		err = toolkit.ServeStdio(ctx, newMCPServer(svc, logger), p, stdin, stdout, logger)
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
			return fmt.Errorf("stdio: %w", err)
		}
		return nil
	})
}

// unsubscribeSender names a workspace's sender on the unsubscribe page.
func unsubscribeSender(ws *workspace.Service) mail.IdentityOf {
	return func(ctx context.Context, id uuid.UUID) (mail.Identity, error) {
		i, err := ws.Identity(ctx, id)
		return mail.Identity{Company: i.Company, PostalAddress: i.PostalAddress}, err
	}
}
