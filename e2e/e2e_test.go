package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"vibesell/auth"
	"vibesell/store"
	"vibesell/store/storetest"
	"vibesell/toolkit/toolkittest"
	"vibesell/workspace"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// repoRoot is the module root: tests run in e2e/.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod in %s: run the tests from the module (go test ./e2e)", root)
	}
	return root
}

// buildServer builds cmd/server into the test's temp dir: the binary a
// person runs, not a test double (with tags, the test build that a test
// names and says why).
func buildServer(t *testing.T, tags ...string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "server")
	cmd := exec.Command("go", "build", "-tags", strings.Join(tags, ","), "-o", bin, "./cmd/server")
	cmd.Dir = repoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/server: %v\n%s", err, out)
	}
	return bin
}

// syncBuffer collects a process's output while the test reads it.
type syncBuffer = toolkittest.LogBuffer

// server is the built binary serving HTTP on a loopback port.
type server struct {
	addr   string // host:port it listens on
	url    string // its /mcp endpoint
	stderr *syncBuffer
}

// startServer runs bin serve on a free loopback port with the given extra
// environment and waits until /readyz answers; it is stopped (SIGINT, then
// kill) when the test ends.
func startServer(t *testing.T, bin string, env ...string) *server {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), append([]string{"LISTEN_ADDR=" + addr, "LOG_LEVEL=warn"}, env...)...)
	s := &server{addr: addr, url: "http://" + addr + "/mcp", stderr: &syncBuffer{}}
	cmd.Stdout, cmd.Stderr = io.Discard, s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			t.Fatalf("the server exited before it was ready: %v\n%s", err, s.stderr)
		default:
		}
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the server on %s was not ready within 60s\n%s", addr, s.stderr)
	return nil
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// newWorkspace creates a workspace and a bearer token for it in the
// database at dbURL.
func newWorkspace(t *testing.T, dbURL, name string) (workspace.Workspace, string) {
	t.Helper()
	ctx := context.Background()
	pool, err := store.Connect(ctx, dbURL, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ws, err := workspace.Create(ctx, pool, name)
	if err != nil {
		t.Fatal(err)
	}
	token, err := auth.NewTokens(auth.TokensDeps{DB: pool}).Create(ctx, ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	return ws, token
}

// needTool returns the path of a program the test needs. Without it the
// test is skipped on a developer's machine and fails in CI (CI is set), so
// CI cannot pass by checking nothing.
func needTool(t *testing.T, name, why string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	msg := fmt.Sprintf("%s is not installed (%s): install Node.js 20 or newer with npm", name, why)
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg + "; skipped because CI is not set")
	return ""
}

// npmCI installs the locked node_modules of dir (npm ci) unless a
// complete install newer than the lockfile is there. Several test binaries
// may run at once: a lock file in the temp dir keeps them from installing
// into the same folder together.
func npmCI(t *testing.T, dir string) {
	t.Helper()
	lockfile := filepath.Join(dir, "package-lock.json")
	lockInfo, err := os.Stat(lockfile)
	if err != nil {
		t.Fatalf("%s: %v", lockfile, err)
	}
	sum := sha256.Sum256([]byte(dir))
	lock, err := os.OpenFile(filepath.Join(os.TempDir(), "vibesell-npm-"+hex.EncodeToString(sum[:8])+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)

	// npm writes node_modules/.package-lock.json last: its presence means
	// a finished install.
	if done, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json")); err == nil && !done.ModTime().Before(lockInfo.ModTime()) {
		return
	}
	npm := needTool(t, "npm", "it installs the packages locked in "+lockfile)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
	}
	t.Logf("npm ci in %s took %s", filepath.Base(dir), time.Since(start).Round(100*time.Millisecond))
}

// tail returns the last n lines of s, each cut to 300 characters (a log
// line may carry a whole stack).
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		if len(l) > 300 {
			lines[i] = l[:300] + "…"
		}
	}
	return strings.Join(lines, "\n")
}
