package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
	"vibesell/store/storetest"
	"vibesell/web"
	"vibesell/workspace"
)

func TestMain(m *testing.M) { storetest.Main(m) }

const password = "correct horse battery staple"

// app is the web app of one test, served on 127.0.0.1, with two
// workspaces and a person in each.
type app struct {
	srv       *httptest.Server
	pool      *pgxpool.Pool
	approvals *approvals.Service
	accounts  *auth.Accounts
	acme      workspace.Workspace
	globex    workspace.Workspace
	logs      *errorLog
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

func newApp(t *testing.T, options ...func(*app, *web.Config)) *app {
	t.Helper()
	ctx := context.Background()
	pool := storetest.New(t)
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)

	logs := &errorLog{}
	logger := slog.New(logs)
	svc, err := approvals.NewService(pool, approvals.Config{PublicURL: srv.URL, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	svc.Register(testAction, approvals.ExecutorFuncs{ExecuteFunc: func(ctx context.Context, ex approvals.Execution) (string, error) {
		var args struct{ Item string }
		_ = json.Unmarshal(ex.Approval.Arguments, &args)
		return "Ordered the " + args.Item + ".", nil
	}})
	accounts := auth.NewAccounts(pool, nil)
	ws := workspace.NewService(pool)
	a := &app{srv: srv, pool: pool, approvals: svc, accounts: accounts, logs: logs}
	if a.acme, err = ws.Create(ctx, "Acme Sales"); err != nil {
		t.Fatal(err)
	}
	if a.globex, err = ws.Create(ctx, "Globex"); err != nil {
		t.Fatal(err)
	}
	for _, u := range []auth.NewUser{
		{WorkspaceID: a.acme.ID, Email: "ada@acme.test", Name: "Ada", Password: password, TimeZone: "Europe/Paris"},
		{WorkspaceID: a.globex.ID, Email: "bob@globex.test", Password: password},
	} {
		if _, err := accounts.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	cfg := web.Config{PublicURL: srv.URL, Accounts: accounts, Approvals: svc, Logger: logger}
	for _, o := range options {
		o(a, &cfg)
	}
	h, err = web.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// startWorkers runs the approvals' jobs until the test ends.
func (a *app) startWorkers(t *testing.T) {
	t.Helper()
	workers := river.NewWorkers()
	periodic := approvals.AddWorkers(workers, a.approvals)
	storetest.StartRiver(t, a.pool, &river.Config{Workers: workers, PeriodicJobs: periodic})
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

// browser is an HTTP client with cookies that does not follow redirects,
// sending the Origin a browser would.
type browser struct {
	t      *testing.T
	app    *app
	client *http.Client
	origin string
}

func (a *app) browser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, app: a, origin: a.srv.URL, client: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

type page struct {
	status   int
	body     string
	location string
	header   http.Header
}

func (b *browser) get(path string) page {
	b.t.Helper()
	res, err := b.client.Get(b.app.srv.URL + path)
	if err != nil {
		b.t.Fatal(err)
	}
	return read(b.t, res)
}

func (b *browser) post(path string, form url.Values) page {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, b.app.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if b.origin != "" {
		req.Header.Set("Origin", b.origin)
	}
	res, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	return read(b.t, res)
}

func read(t *testing.T, res *http.Response) page {
	t.Helper()
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return page{status: res.StatusCode, body: string(body), location: res.Header.Get("Location"), header: res.Header}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func (p page) csrf(t *testing.T) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no csrf field in the page:\n%s", p.body)
	}
	return html.UnescapeString(m[1])
}

func (b *browser) signIn(email string) {
	b.t.Helper()
	form := b.get("/app/sign-in")
	p := b.post("/app/sign-in", url.Values{"csrf": {form.csrf(b.t)}, "email": {email}, "password": {password}, "next": {"/app/approvals"}})
	if p.status != http.StatusSeeOther || p.location != "/app/approvals" {
		b.t.Fatalf("sign in as %s: %d %s\n%s", email, p.status, p.location, p.body)
	}
}

func TestSignInSetsASafeSessionCookie(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	b := a.browser(t)
	form := b.get("/app/sign-in?next=/app/approvals/ap_0123456789abcdef")
	if form.status != 200 || !strings.Contains(form.body, `value="/app/approvals/ap_0123456789abcdef"`) {
		t.Fatalf("sign-in page: %d\n%s", form.status, form.body)
	}
	for name, want := range map[string]string{
		"Content-Security-Policy": "default-src 'none'", "X-Frame-Options": "DENY", "Cache-Control": "no-store",
	} {
		if !strings.Contains(form.header.Get(name), want) {
			t.Errorf("%s: %q", name, form.header.Get(name))
		}
	}
	wrong := b.post("/app/sign-in", url.Values{"csrf": {form.csrf(t)}, "email": {"ada@acme.test"}, "password": {"nope nope nope"}})
	if wrong.status != http.StatusUnauthorized || !strings.Contains(wrong.body, "The email or password is not right.") {
		t.Fatalf("wrong password: %d", wrong.status)
	}
	ok := b.post("/app/sign-in", url.Values{"csrf": {form.csrf(t)}, "email": {"ada@acme.test"}, "password": {password},
		"next": {"/app/approvals/ap_0123456789abcdef"}})
	if ok.status != http.StatusSeeOther || ok.location != "/app/approvals/ap_0123456789abcdef" {
		t.Fatalf("sign in: %d %q", ok.status, ok.location)
	}
	var session *http.Cookie
	for _, c := range (&http.Response{Header: ok.header}).Cookies() {
		if c.Name == "vibesell_session" {
			session = c
		}
	}
	if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteLaxMode || session.Secure || session.Path != "/" {
		t.Fatalf("session cookie: %+v", session)
	}
	// An outside destination is not followed.
	b2 := a.browser(t)
	form = b2.get("/app/sign-in")
	p := b2.post("/app/sign-in", url.Values{"csrf": {form.csrf(t)}, "email": {"ada@acme.test"}, "password": {password}, "next": {"//evil.example/x"}})
	if p.location != "/app/approvals" {
		t.Fatalf("next=//evil.example: redirected to %q", p.location)
	}
	// Signing out ends the session.
	list := b2.get("/app/approvals")
	if out := b2.post("/app/sign-out", url.Values{"csrf": {list.csrf(t)}}); out.status != http.StatusSeeOther {
		t.Fatalf("sign out: %d", out.status)
	}
	if again := b2.get("/app/approvals"); again.status != http.StatusSeeOther || !strings.HasPrefix(again.location, "/app/sign-in") {
		t.Fatalf("after sign-out: %d %s", again.status, again.location)
	}
}

func TestSessionCookiesAreSecureOverHTTPS(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	h, err := web.New(web.Config{PublicURL: "https://vibesell.example.test", Accounts: a.accounts, Approvals: a.approvals})
	if err != nil {
		t.Fatal(err)
	}
	get := httptest.NewRecorder()
	h.ServeHTTP(get, httptest.NewRequest(http.MethodGet, "https://vibesell.example.test/app/sign-in", nil))
	token := page{body: get.Body.String()}.csrf(t)
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
	if rec.Code != http.StatusSeeOther || session == nil || !session.Secure || !session.HttpOnly || session.SameSite != http.SameSiteLaxMode {
		t.Fatalf("https sign-in: %d, cookie %+v", rec.Code, session)
	}
}

func TestAnotherWorkspacesApprovalIsNotFound(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	theirs := a.order(t, a.globex, "anvil", true)
	ours := a.order(t, a.acme, "rocket", true)
	b := a.browser(t)
	b.signIn("ada@acme.test")
	if p := b.get(approvals.AppPath(theirs.ID)); p.status != http.StatusNotFound || strings.Contains(p.body, "anvil") {
		t.Fatalf("another workspace's approval: %d", p.status)
	}
	p := b.get(approvals.AppPath(ours.ID))
	if p.status != 200 || !strings.Contains(p.body, "Order the rocket") {
		t.Fatalf("own approval: %d", p.status)
	}
	// Deciding theirs is not found either, and changes nothing.
	if d := b.post(approvals.AppPath(theirs.ID)+"/reject", url.Values{"csrf": {p.csrf(t)}}); d.status != http.StatusNotFound {
		t.Fatalf("rejecting another workspace's approval: %d", d.status)
	}
	if got, _ := a.approvals.Find(context.Background(), a.globex.ID, theirs.ID); got.Status != approvals.Pending {
		t.Fatalf("another workspace's approval is now %s", got.Status)
	}
	if list := b.get("/app/approvals"); strings.Contains(list.body, "anvil") || !strings.Contains(list.body, "Order the rocket") {
		t.Fatal("the list shows another workspace's approval, or not ours")
	}
	if p := b.get("/app/approvals/not-an-id"); p.status != http.StatusNotFound {
		t.Fatalf("malformed id: %d", p.status)
	}
}

func TestApprovalPageShowsEverythingThePersonDecidesOn(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ap := a.order(t, a.acme, "rocket", true)
	b := a.browser(t)
	b.signIn("ada@acme.test")
	p := b.get(approvals.AppPath(ap.ID))
	for _, want := range []string{
		"Order the rocket", "Waiting for a decision", "This cannot be undone.", "Orders the rocket &lt;b&gt;now&lt;/b&gt;.",
		"<li>rocket.com</li>", "<li>ada@rocket.com</li>", "USD 15.00", "Renews every month.", "Decide by",
		"Europe/Paris", "Asked for a decision", "the conversation with the assistant",
		`name="confirm" value="yes" required`, `id="approve"`, `id="reject"`, `name="reason"`,
	} {
		if !strings.Contains(p.body, want) {
			t.Errorf("the approval page lacks %q", want)
		}
	}
	if strings.Contains(p.body, "<b>now</b>") {
		t.Error("server text is not escaped")
	}
}

func TestApprovingFromTheWebApp(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	a.startWorkers(t)
	ap := a.order(t, a.acme, "rocket", true)
	b := a.browser(t)
	b.signIn("ada@acme.test")
	p := b.get(approvals.AppPath(ap.ID))

	// Without ticking "I understand", nothing happens.
	if r := b.post(approvals.AppPath(ap.ID)+"/approve", url.Values{"csrf": {p.csrf(t)}}); r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "Tick the box") {
		t.Fatalf("approve without confirming: %d", r.status)
	}
	r := b.post(approvals.AppPath(ap.ID)+"/approve", url.Values{"csrf": {p.csrf(t)}, "confirm": {"yes"}})
	if r.status != http.StatusSeeOther || r.location != approvals.AppPath(ap.ID)+"?done=approved" {
		t.Fatalf("approve: %d %s\n%s", r.status, r.location, r.body)
	}
	done, err := a.approvals.Wait(context.Background(), a.acme.ID, ap.ID, 30*time.Second)
	if err != nil || done.Status != approvals.Done || *done.DecidedBy != "ada@acme.test" || *done.DecidedVia != "web" {
		t.Fatalf("after approving: %+v %v", done, err)
	}
	p = b.get(approvals.AppPath(ap.ID))
	for _, want := range []string{"Done", "Ordered the rocket.", "Approved by ada@acme.test in the web app", "Started carrying it out"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("the done page lacks %q", want)
		}
	}
	// A second approval (another tab) reports the decision on record.
	if again := b.post(approvals.AppPath(ap.ID)+"/approve", url.Values{"csrf": {p.csrf(t)}, "confirm": {"yes"}}); again.location != approvals.AppPath(ap.ID)+"?done=recorded" {
		t.Fatalf("approving twice: %d %s", again.status, again.location)
	}
}

func TestRejectingWithAReason(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ap := a.order(t, a.acme, "rocket", true)
	b := a.browser(t)
	b.signIn("ada@acme.test")
	p := b.get(approvals.AppPath(ap.ID))
	// A NUL cannot be kept: the person reads why, and nothing is logged.
	if r := b.post(approvals.AppPath(ap.ID)+"/reject", url.Values{"csrf": {p.csrf(t)}, "reason": {"Too\x00expensive"}}); r.status != http.StatusUnprocessableEntity ||
		!strings.Contains(r.body, "The reason holds a control character") || len(a.logs.errors()) > 0 {
		t.Fatalf("a reason with a NUL: %d %v\n%s", r.status, a.logs.errors(), r.body)
	}
	r := b.post(approvals.AppPath(ap.ID)+"/reject", url.Values{"csrf": {p.csrf(t)}, "reason": {"Too expensive this quarter"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("reject: %d", r.status)
	}
	p = b.get(r.location)
	for _, want := range []string{"You rejected it.", "Rejected by ada@acme.test: Too expensive this quarter", "“Too expensive this quarter”"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("the rejected page lacks %q", want)
		}
	}
	if strings.Contains(p.body, `id="approve"`) {
		t.Error("a rejected approval still offers to approve")
	}
	list := b.get("/app/approvals")
	if !strings.Contains(list.body, "Nothing is waiting for a decision.") || !strings.Contains(list.body, "Rejected") {
		t.Fatalf("the list after rejecting:\n%s", list.body)
	}
}

func TestCrossSitePostsAreRefused(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ap := a.order(t, a.acme, "rocket", false)
	b := a.browser(t)
	b.signIn("ada@acme.test")
	token := b.get(approvals.AppPath(ap.ID)).csrf(t)
	path := approvals.AppPath(ap.ID) + "/approve"

	b.origin = "https://evil.example"
	if r := b.post(path, url.Values{"csrf": {token}}); r.status != http.StatusForbidden {
		t.Fatalf("from another origin: %d", r.status)
	}
	b.origin = ""
	if r := b.post(path, url.Values{"csrf": {"forged"}}); r.status != http.StatusForbidden {
		t.Fatalf("without the right token: %d", r.status)
	}
	if r := b.post(path, url.Values{}); r.status != http.StatusForbidden {
		t.Fatalf("without a token: %d", r.status)
	}
	req, _ := http.NewRequest(http.MethodPost, a.srv.URL+path, strings.NewReader(url.Values{"csrf": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	res, err := b.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Body.Close(); res.StatusCode != http.StatusForbidden {
		t.Fatalf("Sec-Fetch-Site cross-site: %d", res.StatusCode)
	}
	// A sign-in form posted from elsewhere, or without its cookie, fails.
	other := a.browser(t)
	if r := other.post("/app/sign-in", url.Values{"csrf": {"x"}, "email": {"ada@acme.test"}, "password": {password}}); r.status != http.StatusForbidden {
		t.Fatalf("sign-in without the form's cookie: %d", r.status)
	}
	if got, _ := a.approvals.Find(context.Background(), a.acme.ID, ap.ID); got.Status != approvals.Pending {
		t.Fatalf("a refused post changed the approval: %s", got.Status)
	}
	// The same post from the app's own page goes through.
	b.origin = a.srv.URL
	if r := b.post(path, url.Values{"csrf": {token}}); r.status != http.StatusSeeOther {
		t.Fatalf("from the app: %d", r.status)
	}
}

func TestFailedSignInsAreLimited(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	b := a.browser(t)
	token := b.get("/app/sign-in").csrf(t)
	var last page
	for range auth.MaxFailuresPerEmail + 1 {
		last = b.post("/app/sign-in", url.Values{"csrf": {token}, "email": {"ada@acme.test"}, "password": {"guess guess guess"}})
	}
	if last.status != http.StatusTooManyRequests || !strings.Contains(last.body, "Too many failed sign-ins. Try again in 15 minutes.") {
		t.Fatalf("after %d failures: %d", auth.MaxFailuresPerEmail+1, last.status)
	}
	if r := b.post("/app/sign-in", url.Values{"csrf": {token}, "email": {"ada@acme.test"}, "password": {password}}); r.status != http.StatusTooManyRequests {
		t.Fatalf("the right password while limited: %d", r.status)
	}
}

func TestPagesNeedASignedInPerson(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ap := a.order(t, a.acme, "rocket", true)
	b := a.browser(t)
	for _, path := range []string{"/app/approvals", approvals.AppPath(ap.ID)} {
		p := b.get(path)
		if p.status != http.StatusSeeOther || p.location != "/app/sign-in?next="+url.QueryEscape(path) {
			t.Fatalf("GET %s signed out: %d %s", path, p.status, p.location)
		}
	}
	if p := b.post(approvals.AppPath(ap.ID)+"/approve", url.Values{"confirm": {"yes"}}); p.status != http.StatusSeeOther ||
		p.location != "/app/sign-in?next="+url.QueryEscape(approvals.AppPath(ap.ID)) {
		t.Fatalf("POST signed out: %d %s", p.status, p.location)
	}
	if p := b.get("/app/nowhere"); p.status != http.StatusNotFound {
		t.Fatalf("unknown page: %d", p.status)
	}
	if p := b.get("/app/"); p.status != http.StatusSeeOther || p.location != "/app/approvals" {
		t.Fatalf("/app/: %d %s", p.status, p.location)
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
	a := newApp(t)
	b := a.browser(t)
	token := b.get("/app/sign-in").csrf(t)
	for _, email := range []string{"a\x00b@x.com", "ada@acme.test\x00", "ada\x1b@acme.test"} {
		p := b.post("/app/sign-in", url.Values{"csrf": {token}, "email": {email}, "password": {password}})
		if p.status != http.StatusUnauthorized || !strings.Contains(p.body, "The email or password is not right.") {
			t.Errorf("email %q: %d\n%s", email, p.status, p.body)
		}
	}
	// A destination with a control character is not followed.
	p := b.post("/app/sign-in", url.Values{"csrf": {token}, "email": {"ada@acme.test"}, "password": {password}, "next": {"/app/approvals\x00x"}})
	if p.status != http.StatusSeeOther || p.location != "/app/approvals" {
		t.Errorf("next with control characters: %d, redirected to %q", p.status, p.location)
	}
	if diff := cmp.Diff([]string(nil), a.logs.errors()); diff != "" {
		t.Errorf("errors logged (-want +got):\n%s", diff)
	}
}

// Bidirectional controls in what the assistant wrote must not reorder what
// the approver reads (a price, a domain), and a client retrying a refused
// approval must not make the page's history grow line by line.
func TestTheApprovalPageShowsWhatIsThere(t *testing.T) {
	t.Parallel()
	a := newApp(t)
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
	p := b.get(approvals.AppPath(ap.ID))
	if p.status != http.StatusOK {
		t.Fatalf("approval page: %d", p.status)
	}
	if i := strings.IndexAny(p.body, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"); i >= 0 {
		t.Errorf("the page holds a bidirectional control: …%s…", p.body[max(0, i-40):min(len(p.body), i+40)])
	}
	if !strings.Contains(p.body, "rocket 00.51$ x") {
		t.Errorf("the assistant's text is not shown as written, without its controls")
	}
	if n := strings.Count(p.body, "Approval refused here"); n != 1 || !strings.Contains(p.body, "12 times in all") {
		t.Errorf("12 refused attempts made %d lines in the history:\n%s", n, p.body)
	}
}

// Behind a proxy that hides the clients' addresses, everyone shares one
// address: others' failed sign-ins must not lock out a person on a browser
// they signed in from before.
func TestOthersFailuresDoNotLockOutAKnownBrowser(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	known := a.browser(t)
	known.signIn("ada@acme.test")
	if p := known.post("/app/sign-out", url.Values{"csrf": {known.get("/app/approvals").csrf(t)}}); p.status != http.StatusSeeOther {
		t.Fatalf("sign out: %d", p.status)
	}

	guesser := a.browser(t)
	token := guesser.get("/app/sign-in").csrf(t)
	for i := range auth.MaxFailuresPerIP + 1 {
		guesser.post("/app/sign-in", url.Values{"csrf": {token}, "email": {fmt.Sprintf("user%d@acme.test", i)}, "password": {"guess guess guess"}})
	}
	stranger := a.browser(t)
	form := stranger.get("/app/sign-in")
	if p := stranger.post("/app/sign-in", url.Values{"csrf": {form.csrf(t)}, "email": {"ada@acme.test"}, "password": {password}}); p.status != http.StatusTooManyRequests {
		t.Errorf("a new browser on the address after %d failures: %d, want the limit", auth.MaxFailuresPerIP+1, p.status)
	}
	known.signIn("ada@acme.test") // fails the test unless let in
}

func TestAProxyWithoutClientIPHeaderIsWarnedOfOnce(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	b := a.browser(t)
	token := b.get("/app/sign-in").csrf(t)
	for range 3 {
		req, _ := http.NewRequest(http.MethodPost, a.srv.URL+"/app/sign-in",
			strings.NewReader(url.Values{"csrf": {token}, "email": {"ada@acme.test"}, "password": {"guess guess guess"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-For", "203.0.113.7")
		res, err := b.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	want := []string{"requests come through a proxy (X-Forwarded-For), but CLIENT_IP_HEADER is not set: " +
		"the sign-in limits count every client as the proxy's one address; set CLIENT_IP_HEADER=X-Forwarded-For if the proxy is trusted"}
	a.logs.mu.Lock()
	defer a.logs.mu.Unlock()
	if diff := cmp.Diff(want, a.logs.warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
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
