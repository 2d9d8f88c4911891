package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// EmbeddedConfig says where the embedded PostgreSQL keeps its data and how
// it is found.
type EmbeddedConfig struct {
	// DataDir holds everything: the cluster, its log and its settings.
	DataDir string
	// BinDir, when set, is the folder holding initdb and pg_ctl.
	BinDir string
	// ExtraSettings are appended to postgresql.conf at initdb time (tests
	// turn fsync off).
	ExtraSettings map[string]string
	Logger        *slog.Logger
	// BinaryRepositoryURL overrides where missing binaries are downloaded
	// from (a Maven mirror); empty means the library's default.
	BinaryRepositoryURL string

	// onlyDownloaded ignores installed binaries, so tests can reach the
	// download path on a machine that has PostgreSQL.
	onlyDownloaded bool
}

// Embedded is a PostgreSQL cluster in DataDir, started by this process or
// found running. Every process using it holds a shared lock on
// postgres.users; the last one to leave stops it, whoever started it, so a
// one-off command or a stdio client never stops the database under a
// server that came after it.
type Embedded struct {
	cfg      EmbeddedConfig
	settings embeddedSettings
	bin      string
	runAs    *syscall.Credential
	started  bool
	// lock (postgres.lock) is held exclusively while starting or stopping.
	lock *os.File
	// use (postgres.users) is held shared for as long as this process uses
	// the cluster.
	use *os.File
}

// embeddedSettings persist across restarts so the URL stays the same.
type embeddedSettings struct {
	Port     int    `json:"port"`
	User     string `json:"user"`
	Password string `json:"password"`
	Database string `json:"database"`
}

// ErrNoPostgres says no PostgreSQL binaries could be found or fetched; its
// text tells the operator what to do.
var ErrNoPostgres = errors.New("no PostgreSQL binaries found on this machine and none could be downloaded: " +
	"set DATABASE_URL to a PostgreSQL you run, or install PostgreSQL (for example apt-get install postgresql), " +
	"or run `docker compose up`")

// StartEmbedded starts the cluster in cfg.DataDir, creating it on first use,
// or connects to it when another process already runs it.
func StartEmbedded(ctx context.Context, cfg EmbeddedConfig) (*Embedded, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	dataDir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return nil, fmt.Errorf("resolve DATA_DIR: %w", err)
	}
	cfg.DataDir = dataDir
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, fmt.Errorf("create DATA_DIR %s: %w", dataDir, err)
	}
	e := &Embedded{cfg: cfg}

	// Two processes starting at once must not both run initdb or pg_ctl
	// start on one folder: a file lock orders them.
	lock, err := os.OpenFile(filepath.Join(dataDir, "postgres.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	e.lock = lock
	if err := flock(ctx, lock, syscall.LOCK_EX); err != nil {
		lock.Close()
		return nil, err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)

	if err := e.prepare(ctx); err != nil {
		lock.Close()
		return nil, err
	}
	// Taken while holding the start lock, so a process stopping the
	// cluster either sees this user or has finished stopping before
	// prepare looked.
	use, err := os.OpenFile(filepath.Join(dataDir, "postgres.users"), os.O_CREATE|os.O_RDWR, 0o600)
	if err == nil {
		err = flock(ctx, use, syscall.LOCK_SH)
		if err != nil {
			use.Close()
		}
	}
	if err != nil {
		lock.Close()
		return nil, fmt.Errorf("register as a user of the embedded PostgreSQL: %w", err)
	}
	e.use = use
	return e, nil
}

// flock takes a lock of the given kind (LOCK_EX or LOCK_SH), waiting for it
// until ctx ends.
func flock(ctx context.Context, f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (e *Embedded) root() string   { return filepath.Join(e.cfg.DataDir, "postgres") }
func (e *Embedded) pgdata() string { return filepath.Join(e.root(), "data") }

func (e *Embedded) prepare(ctx context.Context) error {
	log := e.cfg.Logger
	if err := e.loadSettings(); err != nil {
		return err
	}
	if err := e.chooseUser(); err != nil {
		return err
	}
	bin, err := e.findBinaries(ctx)
	if err != nil {
		return err
	}
	e.bin = bin

	if _, err := os.Stat(filepath.Join(e.pgdata(), "PG_VERSION")); errors.Is(err, os.ErrNotExist) {
		if err := e.initdb(ctx); err != nil {
			return err
		}
	}

	if e.running(ctx) {
		log.Info("using the embedded PostgreSQL already running", "data", e.pgdata())
	} else {
		if err := e.start(ctx); err != nil {
			return err
		}
		e.started = true
	}
	return e.ensureDatabase(ctx)
}

func (e *Embedded) running(ctx context.Context) bool {
	return e.pgctl(ctx, "status", "-D", e.pgdata()) == nil
}

func (e *Embedded) start(ctx context.Context) error {
	e.cfg.Logger.Info("starting embedded PostgreSQL", "data", e.pgdata(), "port", e.settings.Port)
	logFile := filepath.Join(e.root(), "postgres.log")
	if err := e.pgctl(ctx, "start", "-D", e.pgdata(), "-l", logFile, "-w", "-t", "60"); err != nil {
		return fmt.Errorf("start embedded PostgreSQL (log in %s): %w", logFile, err)
	}
	return nil
}

// KeepRunning starts the cluster again whenever it stops while this
// process uses it (someone ran pg_ctl stop, the machine's OOM killer took
// the postmaster), checking every interval until ctx ends. The pool then
// reconnects by itself.
func (e *Embedded) KeepRunning(ctx context.Context, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if e.postmasterAlive() {
			continue
		}
		if err := e.restart(ctx); err != nil && ctx.Err() == nil {
			e.cfg.Logger.Error("the embedded PostgreSQL stopped and could not be started again", "err", err)
		}
	}
}

// postmasterAlive is the cheap look, every few seconds: whether the process
// postmaster.pid names lives, with no process started and no connection
// opened (each would cost the database a fork).
func (e *Embedded) postmasterAlive() bool {
	pid := e.postmasterPID()
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// postmasterPID is the pid postmaster.pid records, 0 when there is none.
func (e *Embedded) postmasterPID() int {
	b, err := os.ReadFile(filepath.Join(e.pgdata(), "postmaster.pid"))
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, _ := strconv.Atoi(strings.TrimSpace(first))
	return pid
}

func (e *Embedded) restart(ctx context.Context) error {
	if err := flock(ctx, e.lock, syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(e.lock.Fd()), syscall.LOCK_UN)
	if e.running(ctx) {
		return nil
	}
	e.cfg.Logger.Warn("the embedded PostgreSQL stopped while in use; starting it again", "data", e.pgdata())
	return e.start(ctx)
}

func (e *Embedded) loadSettings() error {
	path := filepath.Join(e.cfg.DataDir, "postgres.json")
	b, err := os.ReadFile(path)
	if err == nil {
		if err := json.Unmarshal(b, &e.settings); err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		return nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	e.settings = embeddedSettings{Port: port, User: "vibesell", Password: randomHex(24), Database: "vibesell"}
	b, _ = json.MarshalIndent(e.settings, "", "  ")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// chooseUser picks who runs the database processes. initdb and postgres
// refuse to run as root, so root hands them to an unprivileged account.
func (e *Embedded) chooseUser() error {
	if os.Geteuid() != 0 {
		return nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		e.runAs = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: false, Groups: []uint32{}}
		return nil
	}
	return errors.New("running as root, and neither a \"postgres\" nor a \"nobody\" user exists to run the embedded PostgreSQL: " +
		"create one (useradd --system postgres), run as a normal user, or set DATABASE_URL")
}

// findBinaries looks for initdb and pg_ctl where PostgreSQL is usually
// installed, newest version first, and downloads them as a last resort.
func (e *Embedded) findBinaries(ctx context.Context) (string, error) {
	downloaded := filepath.Join(e.cfg.DataDir, "postgres-binaries", "bin")
	var candidates []string
	if !e.cfg.onlyDownloaded {
		candidates = installedBinaryDirs(ctx, e.cfg.BinDir)
	}
	candidates = append(candidates, downloaded)
	for _, dir := range candidates {
		if usable(dir) {
			return dir, nil
		}
	}
	if e.cfg.BinDir != "" {
		return "", fmt.Errorf("PG_BIN_DIR=%s holds no initdb and pg_ctl", e.cfg.BinDir)
	}
	e.cfg.Logger.Info("no PostgreSQL found on this machine; downloading it once", "into", filepath.Dir(downloaded))
	if err := downloadBinaries(ctx, filepath.Dir(downloaded), e.cfg.BinaryRepositoryURL); err != nil {
		e.cfg.Logger.Warn("downloading PostgreSQL failed", "err", err)
		return "", ErrNoPostgres
	}
	if !usable(downloaded) {
		return "", ErrNoPostgres
	}
	return downloaded, nil
}

// installedBinaryDirs lists where installed PostgreSQL binaries may be, in
// order of preference.
func installedBinaryDirs(ctx context.Context, binDir string) []string {
	var dirs []string
	if binDir != "" {
		dirs = append(dirs, binDir)
	}
	if out, err := exec.CommandContext(ctx, "pg_config", "--bindir").Output(); err == nil {
		dirs = append(dirs, strings.TrimSpace(string(out)))
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		dirs = append(dirs, filepath.Dir(p))
	}
	installed, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(installed, func(i, j int) bool { return versionOf(installed[i]) > versionOf(installed[j]) })
	return append(dirs, installed...)
}

func usable(dir string) bool {
	for _, name := range []string{"initdb", "pg_ctl", "postgres"} {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
			return false
		}
	}
	return true
}

func versionOf(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

func (e *Embedded) initdb(ctx context.Context) error {
	e.cfg.Logger.Info("creating the embedded PostgreSQL cluster", "data", e.pgdata())
	if err := os.MkdirAll(e.root(), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", e.root(), err)
	}
	// A half-made cluster from an interrupted first start is useless; start
	// that part over, never anything with a PG_VERSION in it.
	if err := os.RemoveAll(e.pgdata()); err != nil {
		return fmt.Errorf("clear %s: %w", e.pgdata(), err)
	}
	pwfile := filepath.Join(e.root(), "initdb.pw")
	if err := os.WriteFile(pwfile, []byte(e.settings.Password+"\n"), 0o600); err != nil {
		return fmt.Errorf("write password file: %w", err)
	}
	defer os.Remove(pwfile)
	if err := e.handOver(); err != nil {
		return err
	}
	if err := e.run(ctx, "initdb", "-D", e.pgdata(), "-U", e.settings.User, "--pwfile", pwfile,
		"--auth=scram-sha-256", "--encoding=UTF8", "--locale=C"); err != nil {
		return fmt.Errorf("initdb: %w", err)
	}
	settings := map[string]string{
		"listen_addresses":        "'127.0.0.1'",
		"port":                    strconv.Itoa(e.settings.Port),
		"unix_socket_directories": "''",
		"max_connections":         "200",
	}
	for k, v := range e.cfg.ExtraSettings {
		settings[k] = v
	}
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var conf strings.Builder
	conf.WriteString("\n# Written by VibeSell: loopback only, fixed port.\n")
	for _, k := range keys {
		fmt.Fprintf(&conf, "%s = %s\n", k, settings[k])
	}
	f, err := os.OpenFile(filepath.Join(e.pgdata(), "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("open postgresql.conf: %w", err)
	}
	if _, err := f.WriteString(conf.String()); err != nil {
		f.Close()
		return fmt.Errorf("write postgresql.conf: %w", err)
	}
	return f.Close()
}

// handOver gives the cluster folder to the unprivileged user and makes sure
// that user can reach it: a folder on the way that others cannot enter (a
// 0700 temporary folder, /root) gets search permission only, never read.
func (e *Embedded) handOver() error {
	if e.runAs == nil {
		return nil
	}
	if err := filepath.Walk(e.root(), func(path string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, int(e.runAs.Uid), int(e.runAs.Gid))
	}); err != nil {
		return fmt.Errorf("give %s to the database user: %w", e.root(), err)
	}
	for dir := filepath.Dir(e.root()); ; dir = filepath.Dir(dir) {
		info, err := os.Stat(dir)
		if err != nil {
			return fmt.Errorf("inspect %s: %w", dir, err)
		}
		if info.Mode().Perm()&0o001 == 0 {
			e.cfg.Logger.Info("letting the database user pass through a folder", "folder", dir)
			if err := os.Chmod(dir, info.Mode().Perm()|0o001); err != nil {
				return fmt.Errorf("let the database user reach %s: %w", dir, err)
			}
		}
		if dir == "/" || dir == filepath.Dir(dir) {
			return nil
		}
	}
}

func (e *Embedded) pgctl(ctx context.Context, args ...string) error {
	return e.run(ctx, "pg_ctl", args...)
}

func (e *Embedded) run(ctx context.Context, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(e.bin, name), args...)
	cmd.Dir = e.root()
	cmd.Env = []string{"PATH=" + e.bin + ":/usr/bin:/bin", "LC_ALL=C", "HOME=" + e.root()}
	if e.runAs != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: e.runAs}
	}
	// The postmaster must outlive a cancelled start-up context and must not
	// receive the terminal's Ctrl-C before we stop it cleanly.
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

func (e *Embedded) ensureDatabase(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, e.url("postgres"))
	if err != nil {
		return fmt.Errorf("connect to embedded PostgreSQL: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)",
		e.settings.Database).Scan(&exists); err != nil {
		return fmt.Errorf("look for database: %w", err)
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{e.settings.Database}.Sanitize())
	if err != nil {
		return fmt.Errorf("create database: %w", err)
	}
	return nil
}

func (e *Embedded) url(database string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword(e.settings.User, e.settings.Password),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(e.settings.Port)),
		Path:     "/" + database,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// URL is the connection string of the application database.
func (e *Embedded) URL() string { return e.url(e.settings.Database) }

// AdminURL connects to the maintenance database, for creating others.
func (e *Embedded) AdminURL() string { return e.url("postgres") }

// Started reports whether this process started the cluster (rather than
// finding it running).
func (e *Embedded) Started() bool { return e.started }

// Stop ends this process's use of the cluster, and shuts the cluster down
// when no other process uses it any more.
func (e *Embedded) Stop(ctx context.Context) error {
	defer e.lock.Close()
	defer e.use.Close()
	if err := flock(ctx, e.lock, syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(e.lock.Fd()), syscall.LOCK_UN)
	// Our shared lock turns exclusive only when no one else holds one.
	err := syscall.Flock(int(e.use.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		e.cfg.Logger.Info("leaving the embedded PostgreSQL running: another process uses it", "data", e.pgdata())
		return nil
	}
	if err != nil {
		return fmt.Errorf("check for other users of the embedded PostgreSQL: %w", err)
	}
	if !e.running(ctx) {
		return nil
	}
	e.cfg.Logger.Info("stopping embedded PostgreSQL", "data", e.pgdata())
	if err := e.pgctl(ctx, "stop", "-D", e.pgdata(), "-m", "fast", "-w", "-t", "60"); err != nil {
		return fmt.Errorf("stop embedded PostgreSQL: %w", err)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
