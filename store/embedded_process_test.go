package store_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"vibesell/store"
	"vibesell/store/storetest"
)

// The tests in this file share the embedded cluster with other processes:
// the test binary itself, re-run as TestEmbeddedUserProcess.

const embeddedUserEnv = "STORE_TEST_EMBEDDED_USER"

// embeddedUser is another process using the cluster in a data folder until
// its standard input closes.
type embeddedUser struct {
	*storetest.Process
	started bool
}

func startEmbeddedUser(t *testing.T, dataDir string) *embeddedUser {
	t.Helper()
	u := &embeddedUser{Process: storetest.StartProcess(t, "TestEmbeddedUserProcess", embeddedUserEnv+"="+dataDir)}
	switch line := u.Expect(t, "STARTED "); line {
	case "true", "false":
		u.started = line == "true"
	default:
		t.Fatalf("user process said %q", line)
	}
	return u
}

// leave closes the process's input: it stops using the cluster and exits.
func (u *embeddedUser) leave(t *testing.T) {
	t.Helper()
	u.Stdin.Close()
	if got := u.Expect(t, "LEFT"); got != "" {
		t.Fatalf("user process left with %q", got)
	}
	if err := u.Cmd.Wait(); err != nil {
		t.Fatalf("user process: %v", err)
	}
}

// TestEmbeddedUserProcess is the other process of the tests above; it does
// nothing when run as a test.
func TestEmbeddedUserProcess(t *testing.T) {
	dataDir := os.Getenv(embeddedUserEnv)
	if dataDir == "" {
		t.Skip("helper process only")
	}
	ctx := context.Background()
	e, err := store.StartEmbedded(ctx, embeddedConfig(dataDir))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("STARTED", e.Started())
	_, _ = io.Copy(io.Discard, os.Stdin)
	if err := e.Stop(ctx); err != nil {
		fmt.Println("LEFT", err)
		return
	}
	fmt.Println("LEFT")
}

func embeddedConfig(dataDir string) store.EmbeddedConfig {
	return store.EmbeddedConfig{DataDir: dataDir, ExtraSettings: map[string]string{"fsync": "off"}}
}

func answers(ctx context.Context, url string) bool {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return false
	}
	defer conn.Close(ctx)
	return conn.Ping(ctx) == nil
}

// Whoever started the cluster, it stays up while any process uses it, and
// the last one to leave stops it.
func TestEmbeddedStaysUpWhileAnyProcessUsesIt(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dataDir := filepath.Join(t.TempDir(), "data")

	starter := startEmbeddedUser(t, dataDir)
	if !starter.started {
		t.Fatal("the first process did not start the cluster")
	}
	here, err := store.StartEmbedded(ctx, embeddedConfig(dataDir))
	if err != nil {
		t.Fatal(err)
	}
	left := false
	t.Cleanup(func() {
		if !left {
			here.Stop(context.Background())
		}
	})
	other := startEmbeddedUser(t, dataDir)
	if here.Started() || other.started {
		t.Fatal("a process that found the cluster running says it started it")
	}

	starter.leave(t)
	if !answers(ctx, here.URL()) {
		t.Fatal("the process that started the cluster stopped it when it left, while two others use it")
	}
	if err := here.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	left = true
	if !answers(ctx, here.URL()) {
		t.Fatal("the cluster stopped while a process still uses it")
	}
	other.leave(t)
	if answers(ctx, here.URL()) {
		t.Fatal("the cluster still runs after the last process using it left")
	}
}

// A process killed outright no longer counts as using the cluster: the last
// one left stops it.
func TestEmbeddedKilledStarterDoesNotKeepTheClusterUp(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dataDir := filepath.Join(t.TempDir(), "data")

	starter := startEmbeddedUser(t, dataDir)
	here, err := store.StartEmbedded(ctx, embeddedConfig(dataDir))
	if err != nil {
		t.Fatal(err)
	}
	if err := starter.Cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = starter.Cmd.Wait()
	if !answers(ctx, here.URL()) {
		t.Fatal("killing the process that started the cluster stopped it")
	}
	if err := here.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if answers(ctx, here.URL()) {
		t.Fatal("the cluster still runs after the last living user left")
	}
}

// A cluster stopped behind its users' backs is started again by a process
// that keeps it running.
func TestEmbeddedKeepRunningStartsAStoppedClusterAgain(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	e, err := store.StartEmbedded(ctx, embeddedConfig(filepath.Join(t.TempDir(), "data")))
	if err != nil {
		t.Fatal(err)
	}
	keepCtx, stopKeeping := context.WithCancel(ctx)
	kept := make(chan struct{})
	go func() { e.KeepRunning(keepCtx, 50*time.Millisecond); close(kept) }()
	t.Cleanup(func() {
		stopKeeping()
		<-kept
		e.Stop(context.Background())
	})

	before := store.PostmasterPID(e)
	if err := store.StopBehindUsers(ctx, e); err != nil {
		t.Fatal(err)
	}
	restarted := func() bool {
		pid := store.PostmasterPID(e)
		return pid != 0 && pid != before && answers(ctx, e.URL())
	}
	for deadline := time.Now().Add(time.Minute); !restarted(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the cluster was not started again within a minute")
		}
	}
}
