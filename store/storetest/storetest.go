// Package storetest gives each test its own PostgreSQL database, cloned
// from a template migrated once per schema version, so tests run in
// parallel and never see each other's rows.
//
// Tests use TEST_DATABASE_URL (a role allowed to create databases) when it
// is set; otherwise the package starts an embedded PostgreSQL once per test
// binary, which Main stops at the end.
package storetest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"vibesell/migrations"
	"vibesell/store"
)

var (
	setupOnce sync.Once
	setupErr  error
	adminURL  string
	template  string
	embedded  *store.Embedded
	mainRan   bool
)

// Main runs the tests of a package that uses [New], then stops the
// embedded PostgreSQL if it was started. Call it from TestMain.
func Main(m *testing.M) {
	mainRan = true
	code := m.Run()
	if embedded != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := embedded.Stop(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "storetest:", err)
		}
		cancel()
		os.RemoveAll(embeddedDir)
	}
	os.Exit(code)
}

var embeddedDir string

// New returns a pool on a fresh, migrated database that is dropped when the
// test ends.
func New(t testing.TB) *pgxpool.Pool {
	t.Helper()
	u := NewURL(t)
	ctx := context.Background()
	pool, err := store.Connect(ctx, u, 8)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// NewURL creates a fresh, migrated database and returns its connection
// string, for tests that start processes of their own.
func NewURL(t testing.TB) string {
	t.Helper()
	return newDatabase(t, true)
}

// NewEmptyURL creates a fresh database with no schema at all, for tests of
// migration itself.
func NewEmptyURL(t testing.TB) string {
	t.Helper()
	return newDatabase(t, false)
}

func newDatabase(t testing.TB, migrated bool) string {
	t.Helper()
	if !mainRan {
		t.Fatal("storetest: call storetest.Main(m) from TestMain in this package")
	}
	setupOnce.Do(func() { setupErr = setup() })
	if setupErr != nil {
		t.Fatalf("storetest: %v", setupErr)
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		t.Fatalf("storetest: connect: %v", err)
	}
	defer admin.Close(ctx)
	name := "vibesell_test_" + randomHex(8)
	create := "CREATE DATABASE " + pgx.Identifier{name}.Sanitize()
	if migrated {
		create += " TEMPLATE " + pgx.Identifier{template}.Sanitize()
	}
	if _, err := admin.Exec(ctx, create); err != nil {
		t.Fatalf("storetest: create database: %v", err)
	}
	t.Cleanup(func() {
		admin, err := pgx.Connect(ctx, adminURL)
		if err != nil {
			t.Errorf("storetest: connect to drop %s: %v", name, err)
			return
		}
		defer admin.Close(ctx)
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Errorf("storetest: drop %s: %v", name, err)
		}
	})
	return withDatabase(adminURL, name)
}

// AdminURL returns the connection string used to create test databases
// (available after the first call to [New] or [NewURL]).
func AdminURL() string { return adminURL }

func setup() error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	adminURL = os.Getenv("TEST_DATABASE_URL")
	if adminURL == "" {
		dir, err := os.MkdirTemp("", "vibesell-test-pg-")
		if err != nil {
			return err
		}
		embeddedDir = dir
		embedded, err = store.StartEmbedded(ctx, store.EmbeddedConfig{
			DataDir: dir,
			// Durability buys nothing for throwaway test data.
			ExtraSettings: map[string]string{"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"},
		})
		if err != nil {
			return fmt.Errorf("start embedded PostgreSQL for tests (or set TEST_DATABASE_URL): %w", err)
		}
		adminURL = embedded.AdminURL()
	}
	hash, err := schemaHash()
	if err != nil {
		return err
	}
	template = "vibesell_tmpl_" + hash
	return ensureTemplate(ctx)
}

// ensureTemplate migrates the template once; test binaries of other
// packages running at the same time wait on the advisory lock.
func ensureTemplate(ctx context.Context) error {
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", redact(adminURL), err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock(7600001)"); err != nil {
		return err
	}
	defer admin.Exec(ctx, "SELECT pg_advisory_unlock(7600001)")
	var ready bool
	err = admin.QueryRow(ctx, "SELECT datistemplate FROM pg_database WHERE datname = $1", template).Scan(&ready)
	if err == nil && ready {
		return nil
	}
	// A template left half-made by an interrupted run is dropped and redone.
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{template}.Sanitize()+" WITH (FORCE)"); err != nil {
		return err
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{template}.Sanitize()); err != nil {
		return fmt.Errorf("create template: %w", err)
	}
	pool, err := store.Connect(ctx, withDatabase(adminURL, template), 4)
	if err != nil {
		return err
	}
	err = store.Migrate(ctx, pool, slog.New(slog.DiscardHandler))
	pool.Close()
	if err != nil {
		return fmt.Errorf("migrate template: %w", err)
	}
	_, err = admin.Exec(ctx, "ALTER DATABASE "+pgx.Identifier{template}.Sanitize()+" WITH is_template true")
	return err
}

// schemaHash names the template after everything that shapes the schema,
// so a changed migration gets a new template instead of a stale one.
func schemaHash() (string, error) {
	h := sha256.New()
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		return "", err
	}
	sort.Strings(names)
	for _, n := range names {
		b, err := fs.ReadFile(migrations.FS, n)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%s\x00", n, b)
	}
	migrator, err := rivermigrate.New(riverpgxv5.New(nil), nil)
	if err != nil {
		return "", err
	}
	all := migrator.AllVersions()
	fmt.Fprintf(h, "river:%d", all[len(all)-1].Version)
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

func withDatabase(raw, name string) string {
	u, err := url.Parse(raw)
	if err != nil {
		panic(fmt.Sprintf("storetest: bad database url: %v", err))
	}
	u.Path = "/" + name
	return u.String()
}

func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable url)"
	}
	return u.Redacted()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
