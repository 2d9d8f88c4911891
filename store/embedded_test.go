package store_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"vibesell/store"
)

// The embedded cluster starts (as root on CI machines, through an
// unprivileged user), keeps its data across a restart, and is shared with a
// second process instead of being started twice.
func TestEmbeddedRestartKeepsDataAndIsShared(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	cfg := store.EmbeddedConfig{DataDir: filepath.Join(dir, "data"),
		ExtraSettings: map[string]string{"fsync": "off"}}

	first, err := store.StartEmbedded(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			first.Stop(context.Background())
		}
	})
	if !first.Started() {
		t.Fatal("the first start does not say it started the cluster")
	}
	if os.Geteuid() == 0 {
		info, err := os.Stat(filepath.Join(dir, "data", "postgres", "data"))
		if err != nil {
			t.Fatal(err)
		}
		if uid := info.Sys().(*syscall.Stat_t).Uid; uid == 0 {
			t.Fatal("running as root, the cluster folder is still owned by root")
		}
	}
	execSQL(t, ctx, first.URL(), "CREATE TABLE kept (note text)", "INSERT INTO kept VALUES ('first start')")

	// A second user finds the cluster running and uses it; its leaving
	// leaves the cluster up for the first.
	second, err := store.StartEmbedded(ctx, store.EmbeddedConfig{DataDir: cfg.DataDir})
	if err != nil {
		t.Fatal(err)
	}
	if second.Started() {
		t.Fatal("a second user says it started a cluster that was running")
	}
	if second.URL() != first.URL() {
		t.Fatalf("second URL %q differs from first %q", second.URL(), first.URL())
	}
	if err := second.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	execSQL(t, ctx, first.URL(), "INSERT INTO kept VALUES ('after the second process left')")

	if err := first.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	stopped = true
	if conn, err := pgx.Connect(ctx, first.URL()); err == nil {
		conn.Close(ctx)
		t.Fatal("the cluster still answers after Stop")
	}

	restarted, err := store.StartEmbedded(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer restarted.Stop(context.Background())
	conn, err := pgx.Connect(ctx, restarted.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM kept").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("after restart the table holds %d rows, want 2", n)
	}
	var addr string
	if err := conn.QueryRow(ctx, "SHOW listen_addresses").Scan(&addr); err != nil {
		t.Fatal(err)
	}
	if addr != "127.0.0.1" {
		t.Fatalf("listen_addresses = %q, want loopback only", addr)
	}
}

// With no binaries installed and the download refused, start-up stops with
// a message that says what to do.
func TestEmbeddedWithoutBinariesSaysWhatToDo(t *testing.T) {
	t.Parallel()
	repo := httptest.NewServer(http.NotFoundHandler())
	defer repo.Close()
	cfg := store.EmbeddedConfig{DataDir: t.TempDir(), BinaryRepositoryURL: repo.URL}
	store.OnlyDownloaded(&cfg)
	_, err := store.StartEmbedded(context.Background(), cfg)
	if !errors.Is(err, store.ErrNoPostgres) {
		t.Fatalf("err = %v, want ErrNoPostgres", err)
	}
	for _, want := range []string{"DATABASE_URL", "install PostgreSQL", "docker compose up"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not mention %q", err, want)
		}
	}
}

func execSQL(t *testing.T, ctx context.Context, url string, statements ...string) {
	t.Helper()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, s := range statements {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}
