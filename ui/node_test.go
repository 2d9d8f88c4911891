package ui_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The card's tests need Node (to build it and to drive the browser), its
// packages (installed here with npm ci when missing or stale) and
// Chromium. Locally a missing tool skips the test with the way to get it;
// in CI (CI set) it fails, so a green CI always means the card was tested.

func inCI() bool { return os.Getenv("CI") != "" }

// need skips (or, in CI, fails) the test when a tool is missing.
func need(t *testing.T, what, how string) {
	t.Helper()
	if inCI() {
		t.Fatalf("%s is missing in CI: %s", what, how)
	}
	t.Skipf("%s is missing, so this test cannot run here: %s", what, how)
}

// uiDir is this package's folder (tests run in it).
func uiDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func nodeBin(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		need(t, "node", "install Node 20 or later (apt-get install nodejs npm)")
	}
	return node
}

var (
	npmOnce sync.Once
	npmErr  string
)

// nodeModules makes sure ui/node_modules holds exactly what
// package-lock.json pins, running npm ci when it is missing or was
// installed from another lock file.
func nodeModules(t *testing.T) {
	t.Helper()
	nodeBin(t)
	npmOnce.Do(func() { npmErr = installNodeModules(uiDir(t)) })
	if npmErr != "" {
		if strings.HasPrefix(npmErr, "missing:") {
			need(t, "npm", strings.TrimPrefix(npmErr, "missing:"))
		}
		t.Fatal(npmErr)
	}
}

func installNodeModules(dir string) string {
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return err.Error()
	}
	sum := sha256.Sum256(lock)
	want := hex.EncodeToString(sum[:])
	stamp := filepath.Join(dir, "node_modules", ".vibesell-lock-sha256")
	if got, err := os.ReadFile(stamp); err == nil && string(got) == want {
		return ""
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "missing:install npm (it comes with Node)"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "npm ci in ui/: " + err.Error() + "\n" + out.String()
	}
	if err := os.WriteFile(stamp, []byte(want), 0o644); err != nil {
		return err.Error()
	}
	return ""
}

// chromiumBin finds a Chromium: $CHROMIUM, then the usual names.
func chromiumBin(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	need(t, "Chromium", "apt-get install -y chromium (or set CHROMIUM to a Chromium binary)")
	return ""
}

// runNode runs a Node script in ui/ and returns its combined output.
func runNode(t *testing.T, timeout time.Duration, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBin(t), args...)
	cmd.Dir = uiDir(t)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}
