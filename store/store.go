// Package store owns the connection to PostgreSQL: the pool, transactions,
// the schema (goose migrations plus River's tables), the embedded server
// used when no DATABASE_URL is given, and fresh databases for tests.
package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	pgxuuid "github.com/vgarvardt/pgx-google-uuid/v5"

	"vibesell/migrations"
)

// migrationLockKey serialises schema changes across replicas that start at
// the same moment on one database. Any constant works; it only has to be the
// same for every process of this program.
const migrationLockKey int64 = 0x76696265_73656c6c // "vibesell"

// Connect opens a pool and checks that the database answers.
func Connect(ctx context.Context, url string, maxConns int32) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	return connect(ctx, cfg, maxConns)
}

func connect(ctx context.Context, cfg *pgxpool.Config, maxConns int32) (*pgxpool.Pool, error) {
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	Configure(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open pool: %w", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("reach database: %w", err)
	}
	return pool, nil
}

// ConnectPooled opens a pool through a connection pooler in transaction
// mode (PgBouncer): each transaction may run on another server
// connection, so no statement may stay prepared on one. Unless url names
// its own default_query_exec_mode (PgBouncer 1.21 and later keep prepared
// statements across server connections with max_prepared_statements, and
// cache_statement is then the fastest), statements run with
// cache_describe: each is described once per connection and then sent
// unnamed, in one round trip, as before.
func ConnectPooled(ctx context.Context, url string, maxConns int32) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	if !strings.Contains(url, "default_query_exec_mode") {
		cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
	}
	return connect(ctx, cfg, maxConns)
}

// Configure prepares cfg's connections the way every pool of this program
// needs: a uuid.UUID (every workspace id of every query) is sent and read
// as PostgreSQL's 16 bytes. Without the codec, pgx takes it for a
// driver.Valuer and sends its text, which PostgreSQL parses again: a
// twelfth of the Go time of a one-statement call, by the profile.
func Configure(cfg *pgxpool.Config) {
	after := cfg.AfterConnect
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		pgxuuid.Register(conn.TypeMap())
		if after != nil {
			return after(ctx, conn)
		}
		return nil
	}
}

// InTx runs fn in a transaction, committing when fn returns nil and rolling
// back otherwise. Jobs that follow a state change are enqueued on the same
// tx so they exist only if the change does.
func InTx(ctx context.Context, pool *pgxpool.Pool, fn func(pgx.Tx) error) (err error) {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	if err = fn(tx); err != nil {
		return err
	}
	if err = tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// Migrate applies the goose migrations and River's own, holding a
// session-level advisory lock so that concurrent starts run them once and
// the others wait, then find nothing left to do.
func Migrate(ctx context.Context, pool *pgxpool.Pool, logger *slog.Logger) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquire connection for migration lock: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLockKey); err != nil {
		return fmt.Errorf("take migration lock: %w", err)
	}
	defer func() {
		// A lost connection drops the lock by itself; nothing to add then.
		_, _ = conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrationLockKey)
	}()

	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS,
		goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return fmt.Errorf("prepare migrations: %w", err)
	}
	results, err := provider.Up(ctx)
	if err != nil {
		return fmt.Errorf("apply migrations: %w", err)
	}
	// Each migration is a debug line; the operator hears one line saying
	// how many were applied (none on a routine start).
	for _, r := range results {
		logger.Debug("applied migration", "file", r.Source.Path, "took", r.Duration)
	}

	migrator, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Logger: slog.New(warningsOnly{logger.Handler()})})
	if err != nil {
		return fmt.Errorf("prepare job queue migrations: %w", err)
	}
	res, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return fmt.Errorf("apply job queue migrations: %w", err)
	}
	for _, v := range res.Versions {
		logger.Debug("applied job queue migration", "version", v.Version)
	}
	if _, err := pool.Exec(ctx, jobTableStorage); err != nil {
		return fmt.Errorf("set the job table's autovacuum: %w", err)
	}
	if len(results) > 0 || len(res.Versions) > 0 {
		logger.Info("applied database migrations", "schema", len(results), "job_queue", len(res.Versions))
	}
	return nil
}

// warningsOnly passes on a library's warnings and errors and drops its
// progress messages: River logs each migration it applies (and "No
// migrations to apply" at every start), and Migrate logs each one itself,
// in the same words as the goose migrations.
type warningsOnly struct{ slog.Handler }

func (h warningsOnly) Enabled(ctx context.Context, level slog.Level) bool {
	return level >= slog.LevelWarn && h.Handler.Enabled(ctx, level)
}

func (h warningsOnly) WithAttrs(attrs []slog.Attr) slog.Handler {
	return warningsOnly{h.Handler.WithAttrs(attrs)}
}

func (h warningsOnly) WithGroup(name string) slog.Handler {
	return warningsOnly{h.Handler.WithGroup(name)}
}

// ErrNotMigrated says the database answers but its schema is behind this
// binary.
var ErrNotMigrated = errors.New("database schema is not up to date")

// Ready reports whether the database answers and holds every migration this
// binary knows.
func Ready(ctx context.Context, pool *pgxpool.Pool) error {
	var applied int64
	err := pool.QueryRow(ctx,
		`SELECT coalesce(max(version_id), 0) FROM goose_db_version WHERE is_applied`).Scan(&applied)
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	want, err := latestMigration()
	if err != nil {
		return err
	}
	if applied < want {
		return fmt.Errorf("%w: at %d, want %d", ErrNotMigrated, applied, want)
	}
	return nil
}

func latestMigration() (int64, error) {
	entries, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		return 0, err
	}
	var latest int64
	for _, name := range entries {
		v, err := goose.NumericComponent(name)
		if err != nil {
			return 0, fmt.Errorf("migration %s: %w", name, err)
		}
		latest = max(latest, v)
	}
	return latest, nil
}
