package webtest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Chromium starts a headless Chromium for one test and returns the
// context to drive it with chromedp: at most 90 seconds, closed when the
// test ends. It finds Chromium at $CHROMIUM, the Debian package's
// /usr/bin/chromium, then on the PATH; without one the test is skipped
// locally and fails in CI (CI set), where browser tests must run.
func Chromium(t testing.TB) context.Context {
	t.Helper()
	return ChromiumWithin(t, 90*time.Second)
}

// ChromiumWithin is Chromium for a test whose browser work may take up to
// timeout (a large upload).
func ChromiumWithin(t testing.TB, timeout time.Duration) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.UserDataDir(t.TempDir()),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelBrowser := chromedp.NewContext(actx)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	t.Cleanup(func() {
		cancel()
		cancelBrowser()
		cancelAlloc()
	})
	return ctx
}

func chromiumPath(t testing.TB) string {
	t.Helper()
	for _, p := range []string{os.Getenv("CHROMIUM"), "/usr/bin/chromium"} {
		if p != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no Chromium found (CI is set, so the browser test must run): install it with `apt-get install -y chromium` or set CHROMIUM")
	}
	t.Skip("no Chromium found: install it with `apt-get install -y chromium` (or set CHROMIUM) to run the browser test")
	return ""
}
