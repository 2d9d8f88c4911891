package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/billing"
	"vibesell/delivery"
	"vibesell/mail"
	"vibesell/mailboxes"
	"vibesell/outbound"
	"vibesell/replies"
	"vibesell/sandboxmail"
	"vibesell/sending"
)

// mailConfig is the sending engine's part of the configuration.
type mailConfig struct {
	// Secret is MAIL_SECRET_KEY, parsed; nil when it is not set.
	Secret *mail.Secret
	// SandboxSMTPAddr and SandboxIMAPAddr are where the sandbox mail
	// server listens, loopback only.
	SandboxSMTPAddr string
	SandboxIMAPAddr string
	// SandboxCert is MAIL_SANDBOX_CERT: the certificate file of a sandbox
	// mail server that `server sandbox serve` runs for several replicas.
	// Set, this server starts no sandbox of its own: it sends to and reads
	// from that one, at SandboxSMTPAddr and SandboxIMAPAddr.
	SandboxCert string
	// MinGap and MaxGap are the gap between two emails of a mailbox; zero:
	// the engine's own. Only a test build sets them (testSendGap).
	MinGap, MaxGap time.Duration
	// DKIMKey is MAIL_DKIM_KEY: the algorithm of the DKIM key a new
	// sending domain gets, rsa (default) or ed25519.
	DKIMKey string
	// BounceLimit is MAIL_BOUNCE_LIMIT as a fraction: a mailbox or
	// campaign whose hard bounces over its last 100 sends pass it pauses.
	BounceLimit float64
	// ComplaintLimit is MAIL_COMPLAINT_LIMIT as a fraction: a mailbox or
	// campaign whose spam complaints over its last 100 sends pass it (two
	// at least) pauses.
	ComplaintLimit float64
	// Outbound is how connected mailboxes' servers are reached:
	// OUTBOUND_MAIL_PORTS and OUTBOUND_CONNECTIONS_PER_MINUTE. Nothing
	// here can let a loopback or private address through.
	Outbound outbound.Deps
}

// loadOutbound reads the outbound guard's ports and limit.
func loadOutbound(getenv func(string) string) (outbound.Deps, error) {
	var c outbound.Deps
	if v := getenv("OUTBOUND_MAIL_PORTS"); v != "" {
		for _, p := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil || n < 1 || n > 65535 {
				return c, &configError{"OUTBOUND_MAIL_PORTS", v, "expected ports separated by commas, such as 25,465,587,143,993"}
			}
			c.Ports = append(c.Ports, n)
		}
	}
	switch v := getenv("OUTBOUND_CONNECTIONS_PER_MINUTE"); v {
	case "":
	case "off":
		c.PerMinute = -1
	default:
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1_000_000 {
			return c, &configError{"OUTBOUND_CONNECTIONS_PER_MINUTE", v, "expected a number of connections per workspace per minute, such as 120, or off"}
		}
		c.PerMinute = n
	}
	return c, nil
}

// percentSetting reads the variable name as a percentage above 0 and
// below 100, as a fraction; def when unset.
func percentSetting(getenv func(string) string, name string, def float64, examples string) (float64, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	pct, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), "%"), 64)
	if err != nil || pct <= 0 || pct >= 100 {
		return def, &configError{name, v, "expected a percentage above 0 and below 100, such as " + examples}
	}
	return pct / 100, nil
}

func loadMailConfig(getenv func(string) string) (mailConfig, error) {
	c := mailConfig{
		SandboxSMTPAddr: orDefault(getenv("MAIL_SANDBOX_SMTP_ADDR"), "127.0.0.1:0"),
		SandboxIMAPAddr: orDefault(getenv("MAIL_SANDBOX_IMAP_ADDR"), "127.0.0.1:0"),
	}
	c.DKIMKey = orDefault(getenv("MAIL_DKIM_KEY"), mail.RSA)
	if c.DKIMKey != mail.RSA && c.DKIMKey != mail.Ed25519 {
		return c, &configError{"MAIL_DKIM_KEY", c.DKIMKey, "expected rsa or ed25519"}
	}
	var err error
	if c.BounceLimit, err = percentSetting(getenv, "MAIL_BOUNCE_LIMIT", 0.02, "2 or 2.5"); err != nil {
		return c, err
	}
	if c.ComplaintLimit, err = percentSetting(getenv, "MAIL_COMPLAINT_LIMIT", delivery.DefaultComplaintLimit, "0.3 or 1"); err != nil {
		return c, err
	}
	if c.Outbound, err = loadOutbound(getenv); err != nil {
		return c, err
	}
	if v := getenv("MAIL_SECRET_KEY"); v != "" {
		secret, err := mail.ParseSecret(v)
		if err != nil {
			return c, &configError{"MAIL_SECRET_KEY", "(hidden)", err.Error()}
		}
		c.Secret = &secret
	}
	for name, addr := range map[string]string{"MAIL_SANDBOX_SMTP_ADDR": c.SandboxSMTPAddr, "MAIL_SANDBOX_IMAP_ADDR": c.SandboxIMAPAddr} {
		if err := loopbackAddr(addr); err != nil {
			return c, &configError{name, addr, "expected a loopback host:port such as 127.0.0.1:2525 (the sandbox never listens beyond this machine)"}
		}
	}
	c.SandboxCert = getenv("MAIL_SANDBOX_CERT")
	if c.SandboxCert != "" {
		// Every replica and the sandbox must agree on where it listens,
		// and on the key its mailboxes' passwords come from.
		if strings.HasSuffix(c.SandboxSMTPAddr, ":0") || strings.HasSuffix(c.SandboxIMAPAddr, ":0") {
			return c, &configError{"MAIL_SANDBOX_CERT", c.SandboxCert, "a shared sandbox mail server needs the ports it listens on: set MAIL_SANDBOX_SMTP_ADDR and MAIL_SANDBOX_IMAP_ADDR, such as 127.0.0.1:2525 and 127.0.0.1:1143"}
		}
		if c.Secret == nil {
			return c, &configError{"MAIL_SANDBOX_CERT", c.SandboxCert, "a shared sandbox mail server needs MAIL_SECRET_KEY, the same on every replica and on the sandbox"}
		}
	}
	return c, nil
}

func loopbackAddr(addr string) error {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if port, err := strconv.Atoi(portText); err != nil || port < 0 || port > 65535 {
		return errors.New("not a port")
	}
	if host != "localhost" && host != "127.0.0.1" && host != "::1" {
		return errors.New("not loopback")
	}
	return nil
}

// mailEngine holds the sending engine's parts that run with the server.
type mailEngine struct {
	// Engine sends what running campaigns have due (a River job); nil
	// when nothing can be sent (no mailbox source, or no secret to sign
	// unsubscribe links with).
	Engine *delivery.Engine
	// Watchers read the replies of every mailbox.
	Watchers *replies.Watchers
	// Sandbox is the in-process mail server sandbox mailboxes send to; nil
	// when mailboxes come from a real provider.
	Sandbox *sandboxmail.Sandbox
	// Outbox shows what the sandbox accepted and answers as a lead into
	// it; with no sandbox it says there is none.
	Outbox *sandboxmail.Outbox
	// Secret seals DKIM keys and signs unsubscribe links; nil when none is
	// configured or kept.
	Secret *mail.Secret
}

// startMail starts what the sending engine runs beside the HTTP server;
// the sandbox keeps what it accepts in the outbox on db, which reads the
// DNS records svc's sending setup published.
// Every sending provider today creates its mailboxes in the sandbox (the
// rdap provider only checks domain names), so the sandbox mail server
// always runs; a provider with real mailboxes will not start it.
func startMail(cfg config, db *pgxpool.Pool, svc *services, logger *slog.Logger) (*mailEngine, error) {
	secret, err := mailSecret(cfg, logger)
	if err != nil {
		return nil, err
	}
	m := &mailEngine{Secret: secret}
	outboxLogger := logger.With("component", "outbox")
	if mailboxesInSandbox(cfg.Sending) && cfg.Mail.SandboxCert != "" {
		sandbox, err := sharedSandbox(cfg, svc.clock, logger)
		if err != nil {
			return nil, err
		}
		m.Sandbox = sandbox
		logger.Info("sending to the shared sandbox mail server", "smtp", sandbox.SMTPAddr(), "imap", sandbox.IMAPAddr())
	} else if mailboxesInSandbox(cfg.Sending) {
		sandbox, err := sandboxmail.Start(sandboxmail.Config{
			SMTPAddr: cfg.Mail.SandboxSMTPAddr,
			IMAPAddr: cfg.Mail.SandboxIMAPAddr,
			Logger:   logger.With("component", "sandbox-mail"),
			OnAccept: sandboxmail.KeepAccepted(db, outboxLogger),
		})
		if err != nil {
			return nil, err
		}
		m.Sandbox = sandbox
		logger.Info("the sandbox mail server is running; it keeps every message and never relays one",
			"smtp", sandbox.SMTPAddr(), "imap", sandbox.IMAPAddr())
	}
	m.Outbox = sandboxmail.NewOutbox(sandboxmail.OutboxDeps{DB: db, Records: svc.sending, Sandbox: m.Sandbox, Clock: svc.clock, Logger: outboxLogger})
	return m, nil
}

// sharedSandbox is the sandbox mail server `server sandbox serve` runs,
// as this replica reaches it.
func sharedSandbox(cfg config, clock vibesell.Clock, logger *slog.Logger) (*sandboxmail.Sandbox, error) {
	cert, err := os.ReadFile(cfg.Mail.SandboxCert)
	if err != nil {
		return nil, fmt.Errorf("MAIL_SANDBOX_CERT: read the shared sandbox mail server's certificate (`server sandbox serve` writes it): %w", err)
	}
	return sandboxmail.Connect(sandboxmail.SharedConfig{SMTPAddr: cfg.Mail.SandboxSMTPAddr, IMAPAddr: cfg.Mail.SandboxIMAPAddr, CertificatePEM: cert,
		MailboxPassword: cfg.Mail.Secret.SandboxPassword, Clock: clock, Logger: logger.With("component", "sandbox-mail")})
}

func mailboxesInSandbox(c sending.Config) bool {
	return c.Provider == sending.SandboxName || c.Provider == "rdap"
}

func (m *mailEngine) Close() {
	if m.Sandbox != nil {
		m.Sandbox.Close()
	}
}

// mailSecret is MAIL_SECRET_KEY, or with the embedded database the key
// kept in DATA_DIR (made at the first start); nil when there is neither.
func mailSecret(cfg config, logger *slog.Logger) (*mail.Secret, error) {
	if cfg.Mail.Secret != nil || cfg.DatabaseURL != "" {
		return cfg.Mail.Secret, nil
	}
	secret, err := keptMailSecret(cfg.DataDir, logger)
	if err != nil {
		return nil, err
	}
	return &secret, nil
}

// keptMailSecret is the key an installation with its own embedded database
// makes at its first start and keeps in DATA_DIR, as it keeps the
// database's password there, so it sends with no configuration.
func keptMailSecret(dataDir string, logger *slog.Logger) (mail.Secret, error) {
	path := filepath.Join(dataDir, "mail-secret-key")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := writeNewMailSecret(dataDir, path); err != nil {
			return mail.Secret{}, err
		}
		logger.Info("made the key that seals DKIM keys and signs unsubscribe links; set MAIL_SECRET_KEY to keep it elsewhere", "file", path)
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return mail.Secret{}, fmt.Errorf("read the mail secret key: %w", err)
	}
	secret, err := mail.ParseSecret(strings.TrimSpace(string(b)))
	if err != nil {
		return mail.Secret{}, fmt.Errorf("the mail secret key in %s: %w", path, err)
	}
	return secret, nil
}

// writeNewMailSecret writes a fresh key unless another process starting at
// the same time wrote one first; the key appears whole or not at all.
func writeNewMailSecret(dataDir, path string) error {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return fmt.Errorf("make DATA_DIR=%s: %w", dataDir, err)
	}
	f, err := os.CreateTemp(dataDir, ".mail-secret-key-*")
	if err != nil {
		return fmt.Errorf("keep the mail secret key in %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	_, err = f.WriteString(mail.NewRandomSecret() + "\n")
	if err := errors.Join(err, f.Close()); err != nil {
		return fmt.Errorf("keep the mail secret key in %s: %w", path, err)
	}
	// CreateTemp made it 0600; a link never replaces a key already there.
	if err := os.Link(f.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("keep the mail secret key in %s: %w", path, err)
	}
	return nil
}

// wireEngine builds the engine and the reply watchers over the mailboxes
// the workspaces can send from. Sources are listed in one place: the
// mailboxes ordered through the sending setup (today in the sandbox mail
// server) and the mailboxes people connected of their own.
func (m *mailEngine) wireEngine(cfg config, db, sessions *pgxpool.Pool, svc *services, logger *slog.Logger) error {
	var sources mailboxes.Sources
	if m.Sandbox != nil {
		sources = append(sources, mailboxes.SandboxMailboxes(m.Sandbox, readyMailboxes(svc.sending)))
	}
	if svc.connections != nil {
		sources = append(sources, svc.connections.Source())
	}
	if len(sources) == 0 || m.Secret == nil {
		logger.Warn("the sending engine is off: launched campaigns send nothing on this server",
			"why", map[bool]string{true: "no MAIL_SECRET_KEY to sign unsubscribe links with", false: "no mailbox can send"}[m.Secret == nil])
		return nil
	}
	clock := svc.clock
	suppressions := svc.audience.MailSuppressions()
	keys := mail.NewKeys(mail.KeysDeps{DB: db, Secret: *m.Secret, Clock: clock})
	if err := keys.MakeWith(cfg.Mail.DKIMKey); err != nil {
		return err
	}
	sender := delivery.NewDispatcher(delivery.DispatcherDeps{DB: db, Keys: keys, Suppressor: suppressions, Clock: clock})
	m.Engine = delivery.NewEngine(delivery.EngineDeps{
		DB: db, Sessions: sessions, Dispatcher: sender, Sources: sources, Campaigns: svc.campaigns, Usage: emailUsage{svc.billing}, Secret: *m.Secret, Clock: clock,
		Config: delivery.EngineConfig{
			PublicURL:      cfg.PublicURL.String(),
			BounceLimit:    cfg.Mail.BounceLimit,
			ComplaintLimit: cfg.Mail.ComplaintLimit,
			MinGap:         cfg.Mail.MinGap,
			MaxGap:         cfg.Mail.MaxGap,
			Logger:         logger.With("component", "sending-engine"),
			Webhooks:       svc.webhooks,
		},
	})
	svc.answerSending.parts.Store(&replies.SendingParts{Dispatcher: sender, Sources: sources, Secret: *m.Secret, PublicURL: cfg.PublicURL.String()})
	poller := replies.NewPoller(replies.PollerDeps{DB: db, Suppressor: suppressions, Clock: clock, Logger: logger.With("component", "replies"),
		Webhooks: svc.webhooks})
	m.Watchers = replies.NewWatchers(replies.WatchersDeps{Poller: poller, Sources: sources, Interval: 5 * time.Minute, Logger: logger.With("component", "replies")})
	return nil
}

// readyMailboxes lists the sending setup's ready mailboxes for the sandbox
// source: every provider today makes its mailboxes in the sandbox.
func readyMailboxes(send *sending.Service) mailboxes.OrderedFunc {
	return func(ctx context.Context, ws uuid.UUID) ([]mailboxes.OrderedMailbox, error) {
		list, err := send.ReadyMailboxes(ctx, ws)
		if err != nil {
			return nil, err
		}
		out := make([]mailboxes.OrderedMailbox, len(list))
		for i, r := range list {
			out[i] = mailboxes.OrderedMailbox{WorkspaceID: r.WorkspaceID, Address: mail.Address{Name: r.SenderName, Email: r.Address}, Provider: r.Provider}
		}
		return out, nil
	}
}

// emailUsage counts each send against the plan's monthly emails.
type emailUsage struct{ b *billing.Service }

func (u emailUsage) UseEmails(ctx context.Context, tx pgx.Tx, ws uuid.UUID, n int) error {
	return u.b.Use(ctx, tx, ws, billing.Emails, n)
}

// runEngine wires the engine (svc.engine, which the job workers run) and
// starts the reply watchers; stop stops them and waits.
func (m *mailEngine) runEngine(cfg config, db, sessions *pgxpool.Pool, svc *services, logger *slog.Logger) (stop func(), err error) {
	if err := m.wireEngine(cfg, db, sessions, svc, logger); err != nil {
		return nil, err
	}
	svc.engine = m.Engine
	if m.Watchers == nil {
		return func() {}, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.Watchers.Run(ctx, 30*time.Second)
	}()
	return func() { cancel(); <-done }, nil
}

// cmdSandboxServe runs `server sandbox serve`: the sandbox mail server
// alone, for several replicas to share (each started with the same
// MAIL_SANDBOX_CERT, addresses and MAIL_SECRET_KEY), so a message sent by
// any replica, and a reply to it, is in one place whichever replica
// stops. It keeps what it accepts in the database's outbox, as a
// replica's own sandbox does, until SIGINT or SIGTERM.
func (c console) cmdSandboxServe(*flag.FlagSet) func(context.Context, []string) error {
	return func(ctx context.Context, _ []string) error { return c.sandboxServe(ctx) }
}

func (c console) sandboxServe(ctx context.Context) error {
	if c.cfg.Mail.SandboxCert == "" {
		return errors.New("server sandbox serve writes its certificate to MAIL_SANDBOX_CERT, for the replicas to read: set it, with MAIL_SANDBOX_SMTP_ADDR, MAIL_SANDBOX_IMAP_ADDR and MAIL_SECRET_KEY, the same on every replica")
	}
	cert, err := sandboxCertificate(c.cfg.Mail.SandboxCert)
	if err != nil {
		return err
	}
	return withDatabase(ctx, c.cfg, c.logger, true, func(db *pgxpool.Pool) error {
		sandbox, err := sandboxmail.Start(sandboxmail.Config{
			Certificate:     &cert,
			SMTPAddr:        c.cfg.Mail.SandboxSMTPAddr,
			IMAPAddr:        c.cfg.Mail.SandboxIMAPAddr,
			Logger:          c.logger.With("component", "sandbox-mail"),
			OnAccept:        sandboxmail.KeepAccepted(db, c.logger.With("component", "outbox")),
			MailboxPassword: c.cfg.Mail.Secret.SandboxPassword,
		})
		if err != nil {
			return err
		}
		defer sandbox.Close()
		c.logger.Info("the shared sandbox mail server is running; it keeps every message and never relays one",
			"smtp", sandbox.SMTPAddr(), "imap", sandbox.IMAPAddr(), "certificate", c.cfg.Mail.SandboxCert)
		<-ctx.Done()
		return nil
	})
}

// sandboxCertificate is the shared sandbox's certificate: the one kept at
// path (MAIL_SANDBOX_CERT) and its key beside it (path.key, readable by
// its owner alone), made and kept there the first time. Kept, it survives
// a restart of the sandbox, and the replicas that read it go on trusting
// it.
func sandboxCertificate(path string) (tls.Certificate, error) {
	certPEM, errCert := os.ReadFile(path)
	keyPEM, errKey := os.ReadFile(path + ".key")
	if errCert == nil && errKey == nil {
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return cert, fmt.Errorf("MAIL_SANDBOX_CERT: the certificate kept in %s and its key in %s.key: %w (remove both to make new ones)", path, path, err)
		}
		return cert, nil
	}
	certPEM, keyPEM, err := sandboxmail.NewCertificate()
	if err != nil {
		return tls.Certificate{}, err
	}
	if err := writeFileAtomically(path+".key", keyPEM, 0o600); err != nil {
		return tls.Certificate{}, fmt.Errorf("MAIL_SANDBOX_CERT: keep the key: %w", err)
	}
	if err := writeFileAtomically(path, certPEM, 0o644); err != nil {
		return tls.Certificate{}, fmt.Errorf("MAIL_SANDBOX_CERT: %w", err)
	}
	return tls.X509KeyPair(certPEM, keyPEM)
}

// writeFileAtomically replaces path with b: a replica starting meanwhile
// reads the old certificate or the new one, never half of one.
func writeFileAtomically(path string, b []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".sandbox-cert-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(b)
	if err := errors.Join(err, f.Chmod(mode), f.Close()); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// cmdSandboxReady runs `server sandbox ready`: in the sandbox only, every
// ordered domain and mailbox of the workspace is made ready and warm at
// once, marked as a sandbox shortcut, so a new user sees the engine send
// without waiting out the warmup. With a real provider it refuses.
func (c console) cmdSandboxReady(flags *flag.FlagSet) func(context.Context, []string) error {
	slug := flags.String("workspace", "", "the `SLUG` of the workspace whose ordered domains and mailboxes to make ready")
	return func(ctx context.Context, _ []string) error { return c.sandboxReady(ctx, *slug) }
}

func (c console) sandboxReady(ctx context.Context, slug string) error {
	return withDatabase(ctx, c.cfg, c.logger, false, func(db *pgxpool.Pool) error {
		ws, err := findWorkspace(ctx, db, slug)
		if err != nil {
			return err
		}
		svc := sending.New(sending.Deps{DB: db, Clock: vibesell.SystemClock{}, Config: c.cfg.Sending})
		r, err := svc.SandboxReady(ctx, ws.ID)
		if err != nil {
			return err
		}
		fmt.Fprintln(c.stdout, r.Sentence())
		return nil
	})
}
