package billingtest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// StripeMockVersion is the stripe-mock the request-shape tests run: it
// answers with the fixtures of Stripe's OpenAPI spec and refuses requests
// that do not fit it.
const StripeMockVersion = "v0.203.0"

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// stripeMockBinary builds stripe-mock once into the user's cache (from the
// Go module proxy, or the module cache) and returns its path.
func stripeMockBinary() (string, error) {
	buildOnce.Do(func() {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		dir := filepath.Join(cache, "vibesell", "stripe-mock-"+StripeMockVersion)
		buildPath = filepath.Join(dir, "stripe-mock")
		if _, err := os.Stat(buildPath); err == nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "install", "github.com/stripe/stripe-mock@"+StripeMockVersion)
		cmd.Env = append(os.Environ(), "GOBIN="+dir)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			buildErr = fmt.Errorf("go install github.com/stripe/stripe-mock@%s: %v\n%s", StripeMockVersion, err, out.String())
		}
	})
	return buildPath, buildErr
}

// StripeMock starts stripe-mock on 127.0.0.1 for the test, stops it (by
// its process id) when the test ends, and returns its API base URL. When
// stripe-mock cannot be built it skips the test, or fails it when CI is
// set.
func StripeMock(t testing.TB) string {
	t.Helper()
	bin, err := stripeMockBinary()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("stripe-mock is needed in CI: %v", err)
		}
		t.Skipf("skipping: stripe-mock could not be built: %v", err)
	}
	httpPort, httpsPort := freePort(t), freePort(t)
	// Both addresses are given: with only -http-addr it also opens HTTPS
	// on every interface.
	cmd := exec.Command(bin, "-http-addr", fmt.Sprintf("127.0.0.1:%d", httpPort), "-https-addr", fmt.Sprintf("127.0.0.1:%d", httpsPort))
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start stripe-mock: %v", err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Kill()
		}
		_ = cmd.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", httpPort)
	// stripe-mock loads its spec before it listens; wait for it, boundedly.
	for range 300 {
		if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			c.Close()
			return "http://" + addr
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("stripe-mock did not listen on %s within 30 seconds:\n%s", addr, logs.String())
	return ""
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
