package oauth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"vibesell/auth"
	"vibesell/auth/oauth"
	"vibesell/web/webtest"
)

// A person connecting an app, in a real browser: the app's authorization
// link leads to sign-in, then to the consent page naming the app (marked
// unverified), where it sends them back and the workspace; Allow takes the
// browser back to the app's own address with a code.
func TestBrowserSignsInAndAllows(t *testing.T) {
	t.Parallel()
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

	tab := webtest.NewTab(t, webtest.Chromium(t))
	step, text, location := tab.Step, tab.Text, tab.Location

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
	tab.Screenshot("oauth-1-sign-in")
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
	tab.Screenshot("oauth-2-consent")
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
	tab.Screenshot("oauth-3-connections")
}

func registerWithRedirect(t testing.TB, c *raw, name, redirect string) string {
	t.Helper()
	status, body := c.postJSON(oauth.PathRegister, map[string]any{"client_name": name, "redirect_uris": []string{redirect}})
	if status != http.StatusCreated {
		t.Fatalf("register: %d %v", status, body)
	}
	return body["client_id"].(string)
}

// A person in two workspaces, in a real browser: the consent page lists
// both with neither picked, Allow does nothing until one is picked (the
// browser itself asks), and the app is then connected to the one picked.
func TestBrowserPicksTheWorkspace(t *testing.T) {
	t.Parallel()
	e := setup(t)
	if _, err := auth.NewAccounts(auth.AccountsDeps{DB: e.pool}).AddMember(context.Background(), e.globex.ID, "ada@acme.test"); err != nil {
		t.Fatal(err)
	}
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><title>Connected</title><p id="done">You can go back to the app.</p>`))
	}))
	t.Cleanup(app.Close)
	c := e.raw(t)
	c.clientID = registerWithRedirect(t, c, "Desktop Helper", app.URL+"/callback")
	authURL := c.authURL(func(q url.Values) { q.Set("redirect_uri", app.URL+"/callback") })
	tab := webtest.NewTab(t, webtest.Chromium(t))
	ctx, step, text, location := tab.Ctx, tab.Step, tab.Text, tab.Location

	step("open the app's authorization link", chromedp.Navigate(authURL))
	step("wait for the sign-in form", chromedp.WaitVisible(chromedp.ID("email")))
	step("type the email", chromedp.SendKeys(chromedp.ID("email"), "ada@acme.test"))
	step("type the password", chromedp.SendKeys(chromedp.ID("password"), password))
	step("sign in", chromedp.Submit(chromedp.ID("password")))
	step("wait for the consent page", chromedp.WaitVisible(chromedp.ID("workspaces")))
	consent := location()
	if got := text("workspaces"); got != "Which workspace will it work in? Acme Sales Globex" {
		t.Errorf("the workspaces to pick from read %q", got)
	}
	picked, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#workspaces input:checked').length`))
	if err != nil || picked != 0 {
		t.Fatalf("%d workspaces picked beforehand (%v), want none", picked, err)
	}
	tab.Screenshot("oauth-4-pick-workspace")
	step("allow without picking", chromedp.Click(chromedp.ID("allow")))
	step("still on the page", chromedp.WaitVisible(chromedp.ID("workspaces")))
	if u := location(); u != consent {
		t.Fatalf("Allow without a workspace went to %s", u)
	}
	step("pick Globex", chromedp.Click(chromedp.CSS(`#workspaces input[value="`+e.globex.ID.String()+`"]`)))
	step("allow", chromedp.Click(chromedp.ID("allow")))
	step("wait for the app's page", chromedp.WaitVisible(chromedp.ID("done")))
	if u := location(); !strings.HasPrefix(u, app.URL+"/callback?") || !strings.Contains(u, "code=") {
		t.Fatalf("after allowing the browser is at %s, want the app's callback with a code", u)
	}
	conns, err := e.oauth.Connections(context.Background(), e.globex.ID)
	if err != nil {
		t.Fatal(err)
	}
	type connection struct{ App, Person string }
	var got []connection
	for _, c := range conns {
		got = append(got, connection{c.ClientName, c.Person})
	}
	if diff := cmp.Diff([]connection{{"Desktop Helper", "ada@acme.test"}}, got); diff != "" {
		t.Fatalf("Globex's connections mismatch (-want +got):\n%s", diff)
	}
	if conns, _ := e.oauth.Connections(context.Background(), e.acme.ID); len(conns) != 0 {
		t.Fatalf("Acme has %d connections, want none", len(conns))
	}
}
