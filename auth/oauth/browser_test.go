package oauth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"vibesell/auth/oauth"
)

// chromium finds a headless-capable Chromium: $CHROMIUM, then the Debian
// package's /usr/bin/chromium, then the PATH. Without one the browser test
// is skipped locally and fails in CI (CI set), where it must run.
func chromium(t testing.TB) string {
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

// A person connecting an app, in a real browser: the app's authorization
// link leads to sign-in, then to the consent page naming the app (marked
// unverified), where it sends them back and the workspace; Allow takes the
// browser back to the app's own address with a code.
func TestBrowserSignsInAndAllows(t *testing.T) {
	t.Parallel()
	path := chromium(t)
	e := setup(t)

	// The app's callback, on its own loopback server, as a desktop app's.
	var mu sync.Mutex
	var got url.Values
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r) // the browser's favicon.ico
			return
		}
		mu.Lock()
		got = r.URL.Query()
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><title>Connected</title><p id="done">You can go back to the app.</p>`))
	}))
	t.Cleanup(app.Close)
	c := e.raw(t)
	c.clientID = registerWithRedirect(t, c, "Desktop Helper", app.URL+"/callback")
	authURL := c.authURL(func(q url.Values) { q.Set("redirect_uri", app.URL+"/callback") })

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.UserDataDir(t.TempDir()),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	step := func(what string, a chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, a); err != nil {
			t.Fatalf("browser: %s: %v", what, err)
		}
	}
	text := func(id string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID(id)))
		if err != nil {
			t.Fatalf("browser: read #%s: %v", id, err)
		}
		return strings.Join(strings.Fields(s), " ")
	}
	location := func() string {
		t.Helper()
		u, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil {
			t.Fatalf("browser: location: %v", err)
		}
		return u
	}

	step("open the app's authorization link", chromedp.Navigate(authURL))
	step("wait for the sign-in form", chromedp.WaitVisible(chromedp.ID("email")))
	if u := location(); !strings.Contains(u, "/app/sign-in?next=") {
		t.Fatalf("a signed-out person was taken to %s, want the sign-in page", u)
	}
	if s := text("main"); !strings.Contains(s, "Sign in to connect an app to your VibeSell workspace.") {
		t.Errorf("the sign-in page says %q", s)
	}
	step("type the email", chromedp.SendKeys(chromedp.ID("email"), "ada@acme.test"))
	step("type the password", chromedp.SendKeys(chromedp.ID("password"), password))
	screenshot(t, ctx, "oauth-1-sign-in")
	step("sign in", chromedp.Submit(chromedp.ID("password")))
	step("wait for the consent page", chromedp.WaitVisible(chromedp.ID("allow")))
	if u := location(); !strings.HasPrefix(u, e.srv.URL+oauth.PathConsent) {
		t.Fatalf("after signing in the browser is at %s, want the consent page", u)
	}
	for id, want := range map[string]string{
		"consent-title": "Connect Desktop Helper to VibeSell?",
		"client-name":   "Desktop Helper unverified",
		"redirect-host": "127.0.0.1",
		"workspace":     "Acme Sales",
	} {
		if got := text(id); got != want {
			t.Errorf("#%s says %q, want %q", id, got, want)
		}
	}
	if s := text("unverified"); !strings.Contains(s, "VibeSell cannot check it") {
		t.Errorf("the unverified warning says %q", s)
	}
	screenshot(t, ctx, "oauth-2-consent")
	step("allow", chromedp.Click(chromedp.ID("allow")))
	step("wait for the app's page", chromedp.WaitVisible(chromedp.ID("done")))
	if u := location(); !strings.HasPrefix(u, app.URL+"/callback?") {
		t.Fatalf("after allowing the browser is at %s, want the app's callback", u)
	}
	mu.Lock()
	q := got
	mu.Unlock()
	if q.Get("code") == "" || q.Get("state") != "st" || q.Get("iss") != e.srv.URL {
		t.Fatalf("the app received %v, want a code, its state and the issuer", q)
	}
	c.verifier = strings.Repeat("v", 43)
	status, body := c.token(url.Values{"grant_type": {"authorization_code"}, "code": {q.Get("code")},
		"redirect_uri": {app.URL + "/callback"}, "code_verifier": {c.verifier}, "resource": {e.srv.URL + "/mcp"}})
	if status != http.StatusOK {
		t.Fatalf("the app's code: %d %v", status, body)
	}

	step("open the connected apps", chromedp.Navigate(e.srv.URL+"/app/connections"))
	step("wait for the list", chromedp.WaitVisible(chromedp.ID("apps")))
	screenshot(t, ctx, "oauth-3-connections")
}

func registerWithRedirect(t testing.TB, c *raw, name, redirect string) string {
	t.Helper()
	status, body := c.postJSON(oauth.PathRegister, map[string]any{"client_name": name, "redirect_uris": []string{redirect}})
	if status != http.StatusCreated {
		t.Fatalf("register: %d %v", status, body)
	}
	return body["client_id"].(string)
}

// screenshot saves the page to $SCREENSHOT_DIR when it is set, to look at
// the pages as a person sees them.
func screenshot(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("SCREENSHOT_DIR")
	if dir == "" {
		return
	}
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
}
