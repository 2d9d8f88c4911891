package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/approvals"
	"vibesell/approvals/approvalstest"
	"vibesell/audience"
	"vibesell/audit"
	"vibesell/auth"
	"vibesell/store/storetest"
	"vibesell/web"
	"vibesell/web/webtest"
	"vibesell/workspace"
	"vibesell/workspace/workspacetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

const password = "correct horse battery staple"

// app is the web app of one test, served on 127.0.0.1, with two
// workspaces and a person in each.
type app struct {
	srv        *httptest.Server
	pool       *pgxpool.Pool
	approvals  *approvals.Service
	accounts   *auth.Accounts
	workspaces *workspace.Service
	acme       workspace.Workspace
	globex     workspace.Workspace
	logs       *errorLog
	audience   *audience.Service
}

// errorLog keeps the messages logged at ERROR, so that a test can say that
// a request was not an error on our side.
type errorLog struct {
	mu       sync.Mutex
	lines    []string
	warnings []string
}

func (l *errorLog) Enabled(_ context.Context, lvl slog.Level) bool { return lvl >= slog.LevelWarn }
func (l *errorLog) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r.Level >= slog.LevelError {
		l.lines = append(l.lines, r.Message)
	} else {
		l.warnings = append(l.warnings, r.Message)
	}
	return nil
}
func (l *errorLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *errorLog) WithGroup(string) slog.Handler      { return l }

func (l *errorLog) errors() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// testAction orders a thing; the web tests only need it to end done.
const testAction = "test_order"

func setup(t *testing.T, options ...func(*app, *web.Deps)) *app {
	t.Helper()
	ctx := context.Background()
	pool := storetest.New(t)
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)

	logs := &errorLog{}
	logger := slog.New(logs)
	svc := approvals.New(approvals.Deps{DB: pool, Clock: vibesell.SystemClock{}, PublicURL: srv.URL, Logger: logger})
	svc.Register(testAction, approvals.ExecutorFuncs{ExecuteFunc: func(ctx context.Context, ex approvals.Execution) (string, error) {
		var args struct{ Item string }
		_ = json.Unmarshal(ex.Approval.Arguments, &args)
		return "Ordered the " + args.Item + ".", nil
	}})
	accounts := auth.NewAccounts(auth.AccountsDeps{DB: pool})
	ws := workspace.New(workspace.Deps{DB: pool, Clock: vibesell.SystemClock{}})
	two := workspacetest.Two(t, pool)
	a := &app{srv: srv, pool: pool, approvals: svc, accounts: accounts, workspaces: ws, acme: two.Acme, globex: two.Globex, logs: logs}
	for _, u := range []auth.NewUser{
		{WorkspaceID: a.acme.ID, Email: "ada@acme.test", Name: "Ada", Password: password, TimeZone: "Europe/Paris"},
		{WorkspaceID: a.globex.ID, Email: "bob@globex.test", Password: password},
	} {
		if _, err := accounts.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	// Acme's dates read in its time zone, which its settings set.
	paris := "Europe/Paris"
	if _, err := ws.SetSender(ctx, a.acme.ID, workspace.SenderChange{TimeZone: &paris}, time.Now()); err != nil {
		t.Fatal(err)
	}
	a.audience = audience.New(audience.Deps{DB: pool, Config: audience.Config{UploadURL: srv.URL + web.LeadsPath}, Approvals: svc})
	cfg := web.Deps{PublicURL: srv.URL, Accounts: accounts, Approvals: svc, Audit: audit.New(audit.Deps{DB: pool}), Workspaces: ws, Audience: a.audience, Logger: logger}
	for _, o := range options {
		o(a, &cfg)
	}
	// After the options: one may build the audience its own way.
	svc.Register(vibesell.ToolImportLeads, audience.ImportAction(a.audience))
	h = web.New(cfg)
	return a
}

// execute carries out an approved approval now, as a River worker would.
func (a *app) execute(t *testing.T, id string) approvals.Approval {
	t.Helper()
	return approvalstest.Execute(t, a.pool, a.approvals, id)
}

// order opens an approval in ws; paid ones must be approved in the web app.
func (a *app) order(t *testing.T, ws workspace.Workspace, item string, paid bool) approvals.Approval {
	t.Helper()
	cost := "0.00"
	if paid {
		cost = "15.00"
	}
	ap, _, err := a.approvals.Open(context.Background(), approvals.Request{
		WorkspaceID: ws.ID,
		Action:      testAction,
		Arguments:   map[string]string{"item": item},
		Summary:     "Order the " + item,
		Impact: approvals.Impact{
			What: "Orders the " + item + " <b>now</b>.", Items: []string{item + ".com", "ada@" + item + ".com"},
			Who: "No one is contacted.", When: "At once.",
			CostOnce:    mustMoney(t, cost),
			CostMonthly: mustMoney(t, cost),
			Renewal:     "Renews every month.", Undo: "It cannot be undone.",
		},
		Irreversible: paid,
		DecideHere:   !paid,
	})
	if err != nil {
		t.Fatal(err)
	}
	return ap
}

// browser is a person's browser on the app, with the test's password.
type browser struct{ *webtest.Browser }

func (a *app) browser(t *testing.T) browser { return browser{webtest.New(t, a.srv.URL)} }

func (b browser) signIn(email string) { b.SignIn(email, password, "/app/approvals") }

func TestSignInSetsASafeSessionCookie(t *testing.T) {
	t.Parallel()
	a := setup(t)
	b := a.browser(t)
	form := b.Get("/app/sign-in?next=/app/approvals/ap_0123456789abcdef")
	if form.Status != 200 || !strings.Contains(form.Body, `value="/app/approvals/ap_0123456789abcdef"`) {
		t.Fatalf("sign-in page: %d\n%s", form.Status, form.Body)
	}
	for name, want := range map[string]string{
		"Content-Security-Policy": "default-src 'none'", "X-Frame-Options": "DENY", "Cache-Control": "no-store",
	} {
		if !strings.Contains(form.Header.Get(name), want) {
			t.Errorf("%s: %q", name, form.Header.Get(name))
		}
	}
	wrong := b.Post("/app/sign-in", url.Values{"csrf": {form.CSRF(t)}, "email": {"ada@acme.test"}, "password": {"nope nope nope"}})
	if wrong.Status != http.StatusUnauthorized || !strings.Contains(wrong.Body, "The email or password is not right.") {
		t.Fatalf("wrong password: %d", wrong.Status)
	}
	ok := b.Post("/app/sign-in", url.Values{"csrf": {form.CSRF(t)}, "email": {"ada@acme.test"}, "password": {password},
		"next": {"/app/approvals/ap_0123456789abcdef"}})
	if ok.Status != http.StatusSeeOther || ok.Location != "/app/approvals/ap_0123456789abcdef" {
		t.Fatalf("sign in: %d %q", ok.Status, ok.Location)
	}
	var session *http.Cookie
	for _, c := range (&http.Response{Header: ok.Header}).Cookies() {
		if c.Name == "vibesell_session" {
			session = c
		}
	}
	if session == nil {
		t.Fatal("no session cookie")
	}
	if d := cmp.Diff(cookie{HttpOnly: true, SameSite: http.SameSiteLaxMode, Path: "/"}, cookieOf(session)); d != "" {
		t.Fatalf("session cookie mismatch (-want +got):\n%s", d)
	}
	// An outside destination is not followed.
	b2 := a.browser(t)
	form = b2.Get("/app/sign-in")
	p := b2.Post("/app/sign-in", url.Values{"csrf": {form.CSRF(t)}, "email": {"ada@acme.test"}, "password": {password}, "next": {"//evil.example/x"}})
	if p.Location != "/app/approvals" {
		t.Fatalf("next=//evil.example: redirected to %q", p.Location)
	}
	// Signing out ends the session.
	list := b2.Get("/app/approvals")
	if out := b2.Post("/app/sign-out", url.Values{"csrf": {list.CSRF(t)}}); out.Status != http.StatusSeeOther {
		t.Fatalf("sign out: %d", out.Status)
	}
	if again := b2.Get("/app/approvals"); again.Status != http.StatusSeeOther || !strings.HasPrefix(again.Location, "/app/sign-in") {
		t.Fatalf("after sign-out: %d %s", again.Status, again.Location)
	}
}

func TestSessionCookiesAreSecureOverHTTPS(t *testing.T) {
	t.Parallel()
	a := setup(t)
	h := web.New(web.Deps{PublicURL: "https://vibesell.example.test", Accounts: a.accounts, Approvals: a.approvals, Workspaces: a.workspaces})
	get := httptest.NewRecorder()
	h.ServeHTTP(get, httptest.NewRequest(http.MethodGet, "https://vibesell.example.test/app/sign-in", nil))
	token := webtest.Page{Body: get.Body.String()}.CSRF(t)
	form := url.Values{"csrf": {token}, "email": {"ada@acme.test"}, "password": {password}}
	req := httptest.NewRequest(http.MethodPost, "https://vibesell.example.test/app/sign-in", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://vibesell.example.test")
	for _, c := range get.Result().Cookies() {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var session *http.Cookie
	for _, c := range rec.Result().Cookies() {
		if c.Name == "__Host-vibesell_session" {
			session = c
		}
	}
	if rec.Code != http.StatusSeeOther || session == nil {
		t.Fatalf("https sign-in: %d, session cookie set %v", rec.Code, session != nil)
	}
	if d := cmp.Diff(cookie{Secure: true, HttpOnly: true, SameSite: http.SameSiteLaxMode, Path: "/"}, cookieOf(session)); d != "" {
		t.Fatalf("https session cookie mismatch (-want +got):\n%s", d)
	}
}

func TestAnotherWorkspacesApprovalIsNotFound(t *testing.T) {
	t.Parallel()
	a := setup(t)
	theirs := a.order(t, a.globex, "anvil", true)
	ours := a.order(t, a.acme, "rocket", true)
	b := a.browser(t)
	b.signIn("ada@acme.test")
	if p := b.Get(approvals.AppPath(theirs.ID)); p.Status != http.StatusNotFound || strings.Contains(p.Body, "anvil") {
		t.Fatalf("another workspace's approval: %d", p.Status)
	}
	p := b.Get(approvals.AppPath(ours.ID))
	if p.Status != 200 || !strings.Contains(p.Body, "Order the rocket") {
		t.Fatalf("own approval: %d", p.Status)
	}
	// Deciding theirs is not found either, and changes nothing.
	if d := b.Post(approvals.AppPath(theirs.ID)+"/reject", url.Values{"csrf": {p.CSRF(t)}}); d.Status != http.StatusNotFound {
		t.Fatalf("rejecting another workspace's approval: %d", d.Status)
	}
	if got, _ := a.approvals.Find(context.Background(), a.globex.ID, theirs.ID); got.Status != approvals.Pending {
		t.Fatalf("another workspace's approval is now %s", got.Status)
	}
	if list := b.Get("/app/approvals"); strings.Contains(list.Body, "anvil") || !strings.Contains(list.Body, "Order the rocket") {
		t.Fatal("the list shows another workspace's approval, or not ours")
	}
	if p := b.Get("/app/approvals/not-an-id"); p.Status != http.StatusNotFound {
		t.Fatalf("malformed id: %d", p.Status)
	}
}

func TestApprovalPageShowsEverythingThePersonDecidesOn(t *testing.T) {
	t.Parallel()
	a := setup(t)
	ap := a.order(t, a.acme, "rocket", true)
	b := a.browser(t)
	b.signIn("ada@acme.test")
	p := b.Get(approvals.AppPath(ap.ID))
	for _, want := range []string{
		"Order the rocket", "Waiting for a decision", "This cannot be undone.", "Orders the rocket &lt;b&gt;now&lt;/b&gt;.",
		"<li>rocket.com</li>", "<li>ada@rocket.com</li>", "USD 15.00", "Renews every month.", "Decide by",
		"Europe/Paris", "Asked for a decision", "the conversation, relayed by the assistant",
		`name="confirm" value="yes" required`, `id="approve"`, `id="reject"`, `name="reason"`,
	} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("the approval page lacks %q", want)
		}
	}
	if strings.Contains(p.Body, "<b>now</b>") {
		t.Error("server text is not escaped")
	}
}

func TestApprovingFromTheWebApp(t *testing.T) {
	t.Parallel()
	a := setup(t)
	ap := a.order(t, a.acme, "rocket", true)
	b := a.browser(t)
	b.signIn("ada@acme.test")
	p := b.Get(approvals.AppPath(ap.ID))

	// Without ticking "I understand", nothing happens.
	if r := b.Post(approvals.AppPath(ap.ID)+"/approve", url.Values{"csrf": {p.CSRF(t)}}); r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, "Tick the box") {
		t.Fatalf("approve without confirming: %d", r.Status)
	}
	r := b.Post(approvals.AppPath(ap.ID)+"/approve", url.Values{"csrf": {p.CSRF(t)}, "confirm": {"yes"}})
	if r.Status != http.StatusSeeOther || r.Location != approvals.AppPath(ap.ID)+"?done=approved" {
		t.Fatalf("approve: %d %s\n%s", r.Status, r.Location, r.Body)
	}
	if d := cmp.Diff(decision{Status: approvals.Done, By: "ada@acme.test", Via: approvals.ViaWeb}, decisionOf(a.execute(t, ap.ID))); d != "" {
		t.Fatalf("after approving mismatch (-want +got):\n%s", d)
	}
	p = b.Get(approvals.AppPath(ap.ID))
	for _, want := range []string{"Done", "Ordered the rocket.", "Approved by ada@acme.test in the web app", "Started carrying it out"} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("the done page lacks %q", want)
		}
	}
	// A second approval (another tab) reports the decision on record.
	if again := b.Post(approvals.AppPath(ap.ID)+"/approve", url.Values{"csrf": {p.CSRF(t)}, "confirm": {"yes"}}); again.Location != approvals.AppPath(ap.ID)+"?done=recorded" {
		t.Fatalf("approving twice: %d %s", again.Status, again.Location)
	}
}

// Deciding an approval that expired says it expired: nothing was
// recorded and nothing done, whether it expired while the page was open
// (the decision finds it past its time) or was expired before.
func TestDecidingAnExpiredApprovalSaysItExpired(t *testing.T) {
	t.Parallel()
	a := setup(t)
	b := a.browser(t)
	b.signIn("ada@acme.test")
	for _, c := range []struct {
		name, verb string
		paid       bool
		sweep      bool // the periodic expiry ran before the click
	}{
		{"approving, past its time", "approve", false, false},
		{"approving a paid one, without the box", "approve", true, false},
		{"rejecting, past its time", "reject", false, false},
		{"approving, expired before", "approve", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ap := a.order(t, a.acme, "rocket "+c.name, c.paid)
			p := b.Get(approvals.AppPath(ap.ID))
			if _, err := a.pool.Exec(context.Background(), `UPDATE approvals SET created_at = now() - interval '1 hour', expires_at = now() - interval '1 minute' WHERE id = $1`, ap.ID); err != nil {
				t.Fatal(err)
			}
			if c.sweep {
				if _, err := a.approvals.ExpireDue(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			r := b.Post(approvals.AppPath(ap.ID)+"/"+c.verb, url.Values{"csrf": {p.CSRF(t)}})
			if r.Status != http.StatusSeeOther || r.Location != approvals.AppPath(ap.ID)+"?done=expired" {
				t.Fatalf("%s: %d %s, want 303 to ?done=expired", c.verb, r.Status, r.Location)
			}
			got, err := a.approvals.Find(context.Background(), a.acme.ID, ap.ID)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(decision{Status: approvals.NotDone}, decisionOf(got)); d != "" {
				t.Errorf("after the click mismatch (-want +got):\n%s", d)
			}
			page := b.Get(r.Location)
			if !strings.Contains(page.Body, "This approval expired on") || !strings.Contains(page.Body, "your decision was not recorded") {
				t.Errorf("the page after the click does not say it expired:\n%s", page.Body)
			}
			if again := b.Get(approvals.AppPath(ap.ID) + "?done=recorded"); !strings.Contains(again.Body, "This approval expired on") {
				t.Errorf("?done=recorded of an expired approval does not say it expired")
			}
		})
	}
}

func TestRejectingWithAReason(t *testing.T) {
	t.Parallel()
	a := setup(t)
	ap := a.order(t, a.acme, "rocket", true)
	b := a.browser(t)
	b.signIn("ada@acme.test")
	p := b.Get(approvals.AppPath(ap.ID))
	// A NUL cannot be kept: the person reads why, and nothing is logged.
	if r := b.Post(approvals.AppPath(ap.ID)+"/reject", url.Values{"csrf": {p.CSRF(t)}, "reason": {"Too\x00expensive"}}); r.Status != http.StatusUnprocessableEntity ||
		!strings.Contains(r.Body, "The reason holds a control character") || len(a.logs.errors()) > 0 {
		t.Fatalf("a reason with a NUL: %d %v\n%s", r.Status, a.logs.errors(), r.Body)
	}
	r := b.Post(approvals.AppPath(ap.ID)+"/reject", url.Values{"csrf": {p.CSRF(t)}, "reason": {"Too expensive this quarter"}})
	if r.Status != http.StatusSeeOther {
		t.Fatalf("reject: %d", r.Status)
	}
	p = b.Get(r.Location)
	for _, want := range []string{"You rejected it.", "Rejected by ada@acme.test: Too expensive this quarter", "“Too expensive this quarter”"} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("the rejected page lacks %q", want)
		}
	}
	if strings.Contains(p.Body, `id="approve"`) {
		t.Error("a rejected approval still offers to approve")
	}
	list := b.Get("/app/approvals")
	if !strings.Contains(list.Body, "Nothing is waiting for a decision.") || !strings.Contains(list.Body, "Rejected") {
		t.Fatalf("the list after rejecting:\n%s", list.Body)
	}
}

func TestCrossSitePostsAreRefused(t *testing.T) {
	t.Parallel()
	a := setup(t)
	ap := a.order(t, a.acme, "rocket", false)
	b := a.browser(t)
	b.signIn("ada@acme.test")
	token := b.Get(approvals.AppPath(ap.ID)).CSRF(t)
	path := approvals.AppPath(ap.ID) + "/approve"

	b.Origin = "https://evil.example"
	if r := b.Post(path, url.Values{"csrf": {token}}); r.Status != http.StatusForbidden {
		t.Fatalf("from another origin: %d", r.Status)
	}
	b.Origin = ""
	if r := b.Post(path, url.Values{"csrf": {"forged"}}); r.Status != http.StatusForbidden {
		t.Fatalf("without the right token: %d", r.Status)
	}
	if r := b.Post(path, url.Values{}); r.Status != http.StatusForbidden {
		t.Fatalf("without a token: %d", r.Status)
	}
	req, _ := http.NewRequest(http.MethodPost, a.srv.URL+path, strings.NewReader(url.Values{"csrf": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	if r := b.Do(req); r.Status != http.StatusForbidden {
		t.Fatalf("Sec-Fetch-Site cross-site: %d", r.Status)
	}
	// A sign-in form posted from elsewhere, or without its cookie, fails.
	other := a.browser(t)
	if r := other.Post("/app/sign-in", url.Values{"csrf": {"x"}, "email": {"ada@acme.test"}, "password": {password}}); r.Status != http.StatusForbidden {
		t.Fatalf("sign-in without the form's cookie: %d", r.Status)
	}
	if got, _ := a.approvals.Find(context.Background(), a.acme.ID, ap.ID); got.Status != approvals.Pending {
		t.Fatalf("a refused post changed the approval: %s", got.Status)
	}
	// The same post from the app's own page goes through.
	b.Origin = a.srv.URL
	if r := b.Post(path, url.Values{"csrf": {token}}); r.Status != http.StatusSeeOther {
		t.Fatalf("from the app: %d", r.Status)
	}
}

func TestFailedSignInsAreLimited(t *testing.T) {
	t.Parallel()
	a := setup(t)
	b := a.browser(t)
	token := b.Get("/app/sign-in").CSRF(t)
	var last webtest.Page
	for range auth.MaxFailuresPerEmail + 1 {
		last = b.Post("/app/sign-in", url.Values{"csrf": {token}, "email": {"ada@acme.test"}, "password": {"guess guess guess"}})
	}
	if last.Status != http.StatusTooManyRequests || !strings.Contains(last.Body, "Too many failed sign-ins. Try again in 15 minutes.") {
		t.Fatalf("after %d failures: %d", auth.MaxFailuresPerEmail+1, last.Status)
	}
	if r := b.Post("/app/sign-in", url.Values{"csrf": {token}, "email": {"ada@acme.test"}, "password": {password}}); r.Status != http.StatusTooManyRequests {
		t.Fatalf("the right password while limited: %d", r.Status)
	}
}

func TestPagesNeedASignedInPerson(t *testing.T) {
	t.Parallel()
	a := setup(t)
	ap := a.order(t, a.acme, "rocket", true)
	b := a.browser(t)
	for _, path := range []string{"/app/approvals", approvals.AppPath(ap.ID)} {
		p := b.Get(path)
		if p.Status != http.StatusSeeOther || p.Location != "/app/sign-in?next="+url.QueryEscape(path) {
			t.Fatalf("GET %s signed out: %d %s", path, p.Status, p.Location)
		}
	}
	if p := b.Post(approvals.AppPath(ap.ID)+"/approve", url.Values{"confirm": {"yes"}}); p.Status != http.StatusSeeOther ||
		p.Location != "/app/sign-in?next="+url.QueryEscape(approvals.AppPath(ap.ID)) {
		t.Fatalf("POST signed out: %d %s", p.Status, p.Location)
	}
	if p := b.Get("/app/nowhere"); p.Status != http.StatusNotFound {
		t.Fatalf("unknown page: %d", p.Status)
	}
	if p := b.Get("/app/"); p.Status != http.StatusSeeOther || p.Location != "/app/approvals" {
		t.Fatalf("/app/: %d %s", p.Status, p.Location)
	}
}

func TestClientIPFromHeader(t *testing.T) {
	t.Parallel()
	ip := web.ClientIPFromHeader("X-Forwarded-For")
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = "10.0.0.1:5555"
	if got := ip(r); got != "10.0.0.1" {
		t.Fatalf("without the header: %s", got)
	}
	r.Header.Add("X-Forwarded-For", "6.6.6.6, 203.0.113.7")
	if got := ip(r); got != "203.0.113.7" {
		t.Fatalf("with the header: %s", got)
	}
}

func TestSignInWithAControlCharacterIsAWrongEmail(t *testing.T) {
	t.Parallel()
	a := setup(t)
	b := a.browser(t)
	token := b.Get("/app/sign-in").CSRF(t)
	for _, email := range []string{"a\x00b@x.com", "ada@acme.test\x00", "ada\x1b@acme.test"} {
		p := b.Post("/app/sign-in", url.Values{"csrf": {token}, "email": {email}, "password": {password}})
		if p.Status != http.StatusUnauthorized || !strings.Contains(p.Body, "The email or password is not right.") {
			t.Errorf("email %q: %d\n%s", email, p.Status, p.Body)
		}
	}
	// A destination with a control character is not followed.
	p := b.Post("/app/sign-in", url.Values{"csrf": {token}, "email": {"ada@acme.test"}, "password": {password}, "next": {"/app/approvals\x00x"}})
	if p.Status != http.StatusSeeOther || p.Location != "/app/approvals" {
		t.Errorf("next with control characters: %d, redirected to %q", p.Status, p.Location)
	}
	if diff := cmp.Diff([]string(nil), a.logs.errors()); diff != "" {
		t.Errorf("errors logged mismatch (-want +got):\n%s", diff)
	}
}

// Bidirectional controls in what the assistant wrote must not reorder what
// the approver reads (a price, a domain), and a client retrying a refused
// approval must not make the page's history grow line by line.
func TestTheApprovalPageShowsWhatIsThere(t *testing.T) {
	t.Parallel()
	a := setup(t)
	ap := a.order(t, a.acme, "rocket\u202e 00.51$ \u2067x\u2069", true)
	for range 12 {
		_, _, err := a.approvals.Decide(context.Background(), a.acme.ID, ap.ID,
			approvals.Decision{Approve: true, By: "the assistant", Via: approvals.ViaConversation})
		if err == nil {
			t.Fatal("a paid approval was approved from the conversation")
		}
	}
	b := a.browser(t)
	b.signIn("ada@acme.test")
	p := b.Get(approvals.AppPath(ap.ID))
	if p.Status != http.StatusOK {
		t.Fatalf("approval page: %d", p.Status)
	}
	if i := strings.IndexAny(p.Body, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"); i >= 0 {
		t.Errorf("the page holds a bidirectional control: …%s…", p.Body[max(0, i-40):min(len(p.Body), i+40)])
	}
	if !strings.Contains(p.Body, "rocket 00.51$ x") {
		t.Errorf("the assistant's text is not shown as written, without its controls")
	}
	if n := strings.Count(p.Body, "Approval refused here"); n != 1 || !strings.Contains(p.Body, "12 times in all") {
		t.Errorf("12 refused attempts made %d lines in the history:\n%s", n, p.Body)
	}
}

// Behind a proxy that hides the clients' addresses, everyone shares one
// address: others' failed sign-ins must not lock out a person on a browser
// they signed in from before.
func TestOthersFailuresDoNotLockOutAKnownBrowser(t *testing.T) {
	t.Parallel()
	a := setup(t)
	known := a.browser(t)
	known.signIn("ada@acme.test")
	if p := known.Post("/app/sign-out", url.Values{"csrf": {known.Get("/app/approvals").CSRF(t)}}); p.Status != http.StatusSeeOther {
		t.Fatalf("sign out: %d", p.Status)
	}

	guesser := a.browser(t)
	token := guesser.Get("/app/sign-in").CSRF(t)
	for i := range auth.MaxFailuresPerIP + 1 {
		guesser.Post("/app/sign-in", url.Values{"csrf": {token}, "email": {fmt.Sprintf("user%d@acme.test", i)}, "password": {"guess guess guess"}})
	}
	stranger := a.browser(t)
	form := stranger.Get("/app/sign-in")
	if p := stranger.Post("/app/sign-in", url.Values{"csrf": {form.CSRF(t)}, "email": {"ada@acme.test"}, "password": {password}}); p.Status != http.StatusTooManyRequests {
		t.Errorf("a new browser on the address after %d failures: %d, want the limit", auth.MaxFailuresPerIP+1, p.Status)
	}
	known.signIn("ada@acme.test") // fails the test unless let in
}

func TestAProxyWithoutClientIPHeaderIsWarnedOfOnce(t *testing.T) {
	t.Parallel()
	a := setup(t)
	b := a.browser(t)
	token := b.Get("/app/sign-in").CSRF(t)
	for range 3 {
		req, _ := http.NewRequest(http.MethodPost, a.srv.URL+"/app/sign-in",
			strings.NewReader(url.Values{"csrf": {token}, "email": {"ada@acme.test"}, "password": {"guess guess guess"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-For", "203.0.113.7")
		b.Do(req)
	}
	want := []string{"requests come through a proxy (X-Forwarded-For), but CLIENT_IP_HEADER is not set: " +
		"the sign-in limits count every client as the proxy's one address; set CLIENT_IP_HEADER=X-Forwarded-For if the proxy is trusted"}
	a.logs.mu.Lock()
	defer a.logs.mu.Unlock()
	if diff := cmp.Diff(want, a.logs.warnings); diff != "" {
		t.Errorf("warnings mismatch (-want +got):\n%s", diff)
	}
}

func mustMoney(t *testing.T, amount string) vibesell.Money {
	t.Helper()
	m, err := vibesell.ParseMoney(amount, "USD")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The page tells the truth about money: a sandbox amount says that
// nothing is charged wherever the person is asked to agree to it, and a
// free action only a person may approve asks them to tick nothing about
// money, but says why it waits for them.
func TestApprovalPageSaysWhatApprovingCosts(t *testing.T) {
	t.Parallel()
	a := setup(t)
	open := func(t *testing.T, item, cost string, sandbox bool, personOnly string) approvals.Approval {
		t.Helper()
		ap, _, err := a.approvals.Open(context.Background(), approvals.Request{
			WorkspaceID: a.acme.ID, Action: testAction, Arguments: map[string]string{"item": item},
			Summary: "Order the " + item,
			Impact: approvals.Impact{
				What: "Orders the " + item + ".", Who: "No one is contacted.", When: "At once.",
				CostOnce: mustMoney(t, cost), CostMonthly: mustMoney(t, cost),
				Renewal: "Nothing renews.", Undo: "Nothing is kept.", Sandbox: sandbox, PersonOnly: personOnly,
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		return ap
	}
	b := a.browser(t)
	b.signIn("ada@acme.test")

	t.Run("a sandbox amount", func(t *testing.T) {
		p := b.Get(approvals.AppPath(open(t, "kite", "60.00", true, "").ID))
		for _, want := range []string{
			"I understand that in the sandbox, USD 60.00 now and USD 60.00 a month are sandbox amounts: nothing is charged.",
			"USD 60.00 <span class=\"muted small\">(a sandbox amount: nothing is charged)</span>",
		} {
			if !strings.Contains(p.Body, want) {
				t.Errorf("the page lacks %q", want)
			}
		}
		for _, unwanted := range []string{"This cannot be undone.", "I understand that this costs"} {
			if strings.Contains(p.Body, unwanted) {
				t.Errorf("the page says %q", unwanted)
			}
		}
	})

	t.Run("a free action only a person may approve", func(t *testing.T) {
		why := "It costs nothing, but it goes 10 leads over this month's allowance of 1,000 leads, so only a person signed in to the VibeSell web app can approve it, not the assistant."
		ap := open(t, "kettle", "0.00", false, why)
		p := b.Get(approvals.AppPath(ap.ID))
		if !strings.Contains(p.Body, html.EscapeString(why)) {
			t.Errorf("the page does not say why it waits for a person")
		}
		if strings.Contains(p.Body, `name="confirm"`) || strings.Contains(p.Body, "USD 0.00 now") {
			t.Errorf("the page asks to agree to pay nothing")
		}
		r := b.Post(approvals.AppPath(ap.ID)+"/approve", url.Values{"csrf": {p.CSRF(t)}})
		if r.Status != http.StatusSeeOther {
			t.Errorf("approving without a box to tick: %d", r.Status)
		}
	})
}

// cookie is what a test checks of the session cookie.
type cookie struct {
	Secure, HttpOnly bool
	SameSite         http.SameSite
	Path             string
}

func cookieOf(c *http.Cookie) cookie {
	return cookie{Secure: c.Secure, HttpOnly: c.HttpOnly, SameSite: c.SameSite, Path: c.Path}
}

// decision is what a test checks of a decided approval: its status, who
// decided and where ("" while undecided).
type decision struct {
	Status  approvals.Status
	By, Via string
}

func decisionOf(a approvals.Approval) decision {
	return decision{Status: a.Status, By: orEmpty(a.DecidedBy), Via: orEmpty(a.DecidedVia)}
}

func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
