package web_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
	"vibesell/auth/oauth"
	"vibesell/billing"
	"vibesell/billing/billingtest"
	"vibesell/campaigns"
	"vibesell/delivery"
	"vibesell/featuretest"
	"vibesell/mail"
	"vibesell/sandboxmail"
	"vibesell/sandboxmail/sandboxmailtest"
	"vibesell/store"
	"vibesell/store/storetest"
	"vibesell/web"
	"vibesell/web/webtest"
	"vibesell/webhooks"
	"vibesell/workspace"
)

// widths are the screens every page must fit: two phones, a tablet, two
// laptops.
var widths = []int64{360, 390, 768, 1280, 1440}

// longEmail is the signed-in person's address, 60 characters and more, as
// some companies' are.
const longEmail = "alexandra.konstantinopoulou-vanderberghe@northwind-international-holdings.example"

// everyPage is the web app with everything on and data as long as real
// data gets: long addresses, long URLs in email bodies, long company and
// lead names, many approvals, a campaign of several steps, an outbox with
// emails, a lead with a story, an upload, support tickets.
type everyPage struct {
	srv   *httptest.Server
	pages []visit // signed in
	open  []visit // signed out
}

type visit struct{ name, path string }

func setupEveryPage(t *testing.T) *everyPage {
	t.Helper()
	ctx := context.Background()
	pool := storetest.New(t)
	env := featuretest.New(t, pool, time.Now().UTC().Truncate(time.Second), campaigns.Config{})
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	logger := slog.New(slog.DiscardHandler)

	nw, err := env.Workspaces.Create(ctx, "Northwind International Holdings & Cross-Border Logistics Partners")
	if err != nil {
		t.Fatal(err)
	}
	other, err := env.Workspaces.Create(ctx, "Acme Professional Services for Very Long Workspace Names")
	if err != nil {
		t.Fatal(err)
	}
	accounts := auth.NewAccounts(auth.AccountsDeps{DB: pool})
	if _, err := accounts.CreateUser(ctx, auth.NewUser{WorkspaceID: nw.ID, Email: longEmail, Name: "Alexandra", Password: password, TimeZone: "America/Los_Angeles"}); err != nil {
		t.Fatal(err)
	}
	if _, err := accounts.AddMember(ctx, other.ID, longEmail); err != nil {
		t.Fatal(err)
	}
	senderName, postal := "Alexandra Konstantinopoulou-Vanderberghe", "Suite 4100, 1 International Commerce Centre, 1 Austin Road West, Kowloon"
	if _, err := env.Workspaces.SetSender(ctx, nw.ID, workspace.SenderChange{Name: &senderName, PostalAddress: &postal}, env.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := env.Workspaces.OpenTicket(ctx, nw.ID, "bug", fmt.Sprintf("Ticket %d: the import of https://docs.google.com/spreadsheets/d/1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghij/edit#gid=0 stops halfway", i), longEmail); err != nil {
			t.Fatal(err)
		}
	}

	// Leads with long names, companies and addresses, and a campaign of
	// three steps to them.
	var leads []vibesell.Lead
	for i := range 30 {
		leads = append(leads, vibesell.Lead{
			Email:     fmt.Sprintf("maximilian.alexander.featherstonehaugh-%02d@worldwide-enterprise-solutions-consulting.example", i),
			FirstName: "Maximilian Alexander", LastName: fmt.Sprintf("Featherstonehaugh-Montgomery %02d", i),
			Company: "Worldwide Enterprise Solutions and Consulting Incorporated of Greater Manchester", Title: "Senior Vice President of Global Revenue Operations and Strategy",
		})
	}
	env.AddLeads(t, nw.ID, leads...)
	mailbox := "dana.reyes-montgomery.outbound@getnorthwind-international.example"
	env.AddMailbox(t, nw.ID, mailbox, "Dana Reyes-Montgomery", featuretest.Warm)
	q, err := env.Campaigns.SaveSequence(ctx, nw.ID, campaigns.SaveRequest{Steps: []campaigns.Step{
		{Subject: "Shorter onboarding at {{company|your team}}, a question about your logistics partners", Body: "Hi {{first_name|there}},\n\nSee https://www.getnorthwind-international.example/case-studies/cross-border-logistics-onboarding-in-half-the-time?utm_source=email&utm_campaign=q1\n\nDana"},
		{Body: "Hi {{first_name|there}}, a quick nudge.", WaitBusinessDays: 2, SameThread: true},
		{Subject: "One last note about onboarding", Body: "Hi {{first_name|there}}, the last one from me.", WaitBusinessDays: 4},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Campaigns.ApproveSequence(ctx, nw.ID, q.Sequence.ID, 1, longEmail); err != nil {
		t.Fatal(err)
	}
	c, err := env.Campaigns.Stage(ctx, nw.ID, campaigns.StageRequest{Name: "Heads of revenue operations at logistics companies across Europe and Asia", Sequence: q.Sequence.ID,
		WindowStart: 9 * 60, WindowEnd: 17 * 60, Days: []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday},
		DailyCap: 20, Mailboxes: []string{mailbox}})
	if err != nil {
		t.Fatal(err)
	}
	launch, _, err := env.Campaigns.RequestLaunch(ctx, nw.ID, c.Campaign.ID, "the assistant")
	if err != nil {
		t.Fatal(err)
	}

	// Many approvals, some decided, their items long URLs and addresses.
	env.Approvals.Register(testAction, approvals.ExecutorFuncs{ExecuteFunc: func(context.Context, approvals.Execution) (string, error) {
		return "Ordered.", nil
	}})
	var paid approvals.Approval
	for i := range 14 {
		ap, _, err := env.Approvals.Open(ctx, approvals.Request{
			WorkspaceID: nw.ID, Action: testAction, Arguments: map[string]int{"n": i},
			Summary: fmt.Sprintf("Order getnorthwind-international-logistics-%02d.com with two mailboxes for Alexandra Konstantinopoulou", i),
			Impact: approvals.Impact{
				What:  "Registers the domain and creates the mailboxes.",
				Items: []string{fmt.Sprintf("getnorthwind-international-logistics-%02d.com", i), longEmail, "https://www.getnorthwind-international.example/a/very/long/path/that/does/not/break/anywhere/at/all?with=query&and=more"},
				Who:   "No one is contacted.", When: "At once.",
				CostOnce: mustMoney(t, "15.00"), CostMonthly: mustMoney(t, "9.00"), Renewal: "Renews every month.", Undo: "It cannot be undone.",
			},
			Irreversible: true,
		})
		if err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if _, err := env.Approvals.Relay(ctx, nw.ID, ap.ID, approvals.Relayed{Approve: false, Reason: "Not this month: the budget for https://www.getnorthwind-international.example/budget/q1 is spent"}); err != nil {
				t.Fatal(err)
			}
		}
		paid = ap
	}

	// The outbox: emails as the sandbox accepted them, an unsubscribe
	// link and a long URL in their bodies.
	secret := sandboxmailtest.Secret(t)
	keys := mail.NewKeys(mail.KeysDeps{DB: pool, Secret: secret})
	sandbox, sandboxMailbox := sandboxmailtest.Sandbox(t, mail.Address{Name: "Dana Reyes-Montgomery", Email: "dana.reyes-montgomery.outbound@getacme.com"},
		sandboxmail.Config{OnAccept: sandboxmail.KeepAccepted(pool, nil)})
	outbox := sandboxmail.NewOutbox(sandboxmail.OutboxDeps{DB: pool, Records: keyDNS{keys: keys, ws: nw.ID}, Sandbox: sandbox})
	sender := delivery.NewDispatcher(delivery.DispatcherDeps{DB: pool, Keys: keys, Suppressor: env.Audience.MailSuppressions()})
	for i := range 3 {
		to := leads[i].Email
		if _, err := sender.Send(ctx, delivery.Outgoing{
			Step:    delivery.Step{WorkspaceID: nw.ID, CampaignID: c.Campaign.ID, LeadID: int64(i + 1), Step: 1},
			Mailbox: sandboxMailbox,
			Message: mail.Message{To: mail.Address{Name: leads[i].FirstName + " " + leads[i].LastName, Email: to},
				Subject:       "Shorter onboarding at Worldwide Enterprise Solutions and Consulting Incorporated of Greater Manchester",
				Body:          "Hi Maximilian,\n\nSee https://www.getnorthwind-international.example/case-studies/cross-border-logistics-onboarding-in-half-the-time?utm_source=email&utm_campaign=q1&utm_content=a-very-long-identifier-0123456789\n\nDana",
				PostalAddress: postal, UnsubscribeURL: secret.UnsubscribeURL(srv.URL, nw.ID, to)},
		}); err != nil {
			t.Fatal(err)
		}
	}

	// An endpoint with a long address and an event in its log.
	hooks := webhooks.New(webhooks.Deps{DB: pool, Secret: secret, Logger: logger})
	endpoint, _, err := hooks.Create(ctx, nw.ID, "https://93.184.215.14/hooks/northwind-international/revenue-operations/incoming-webhooks-from-vibesell-0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.InTx(ctx, pool, func(tx pgx.Tx) error {
		return hooks.Emit(ctx, tx, nw.ID, webhooks.LeadBounced(webhooks.Lead{Email: leads[0].Email}))
	}); err != nil {
		t.Fatal(err)
	}

	clock := vibesell.NewManualClock(env.Clock.Now())
	plans := billing.DefaultConfig()
	bill := billing.New(billing.Deps{DB: pool, Config: plans, Stripe: billingtest.NewFakeStripe(clock, plans.Plans), Approvals: env.Approvals,
		PublicURL: srv.URL, Clock: clock, Logger: logger})
	oauthServer := oauth.New(oauth.Deps{PublicURL: srv.URL, DB: pool, Logger: logger})
	tokens := auth.NewTokens(auth.TokensDeps{DB: pool})
	for _, by := range []string{auth.CreatedByFirstStart, longEmail} {
		if _, err := tokens.CreateBy(ctx, nw.ID, by); err != nil {
			t.Fatal(err)
		}
	}
	h := web.New(web.Deps{PublicURL: srv.URL, Accounts: accounts, Approvals: env.Approvals, Workspaces: env.Workspaces,
		Audience: env.Audience, Campaigns: env.Campaigns, Upcoming: delivery.NewUpcoming(delivery.UpcomingDeps{DB: pool, Campaigns: env.Campaigns, Clock: env.Clock}),
		Billing: bill, Clock: env.Clock, Logger: logger, OAuth: oauthServer,
		Sending: env.Sending, Outbox: outbox, Webhooks: hooks, Tokens: tokens})
	mux.Handle(web.Prefix, h)
	for _, p := range oauth.Paths {
		mux.Handle(p, oauthServer.Handler())
	}
	mail.UnsubscribeRoutes(mux, secret, env.Audience.MailSuppressions(), func(ctx context.Context, ws uuid.UUID) (mail.Identity, error) {
		i, err := env.Workspaces.Identity(ctx, ws)
		return mail.Identity{Company: i.Company, PostalAddress: i.PostalAddress}, err
	}, logger)

	// The lead with a story, and an upload waiting to be checked, made
	// as a person makes them.
	b := browser{webtest.New(t, srv.URL)}
	b.SignIn(longEmail, password, "/app/leads")
	list := b.Get("/app/leads")
	m := leadRow.FindStringSubmatch(list.Body)
	if m == nil {
		t.Fatalf("no lead on the leads page:\n%s", list.Body)
	}
	csv := "email,first_name,last_name,company,linkedin_profile_url_of_the_person_as_exported\n" +
		"konstantinos.papadopoulos-athanasiou@hellenic-shipping-and-logistics-group.example,Konstantinos,Papadopoulos-Athanasiou,Hellenic Shipping and Logistics Group,https://www.linkedin.com/in/konstantinos-papadopoulos-athanasiou-0123456789abcdef/\n"
	up := b.upload(t, "prospects-from-the-trade-fair-in-hamburg-final-version-2.csv", csv, list.CSRF(t))
	if up.Status != http.StatusSeeOther {
		t.Fatalf("upload: %d\n%s", up.Status, up.Body)
	}
	// An app asks to connect, twice: the first is connected (listed on
	// the connected apps), the second waits on its consent page.
	connect := func() (string, webtest.Page) {
		t.Helper()
		client := registerClient(t, srv.URL, "Northwind Revenue Operations Assistant for Claude Desktop (Alexandra's laptop)")
		verifier := strings.Repeat("v", 43)
		sum := sha256.Sum256([]byte(verifier))
		q := url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {appCallback}, "state": {"st"},
			"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
			"resource": {srv.URL + "/mcp"}, "scope": {"vibesell:read vibesell:write vibesell:act"}}
		to := b.Get(oauth.PathAuthorize + "?" + q.Encode())
		if to.Status != http.StatusSeeOther || !strings.HasPrefix(to.Location, oauth.PathConsent) {
			t.Fatalf("authorize: %d %s\n%s", to.Status, to.Location, to.Body)
		}
		return to.Location, b.Get(to.Location)
	}
	connected, consentPage := connect()
	if p := b.Post(connected, url.Values{"csrf": {consentPage.CSRF(t)}, "decision": {"allow"}, "workspace": {nw.ID.String()}}); p.Status != http.StatusSeeOther {
		t.Fatalf("allow the app: %d\n%s", p.Status, p.Body)
	}
	consent, _ := connect()

	return &everyPage{srv: srv, pages: []visit{
		{"approvals", "/app/approvals"},
		{"approval-paid", approvals.AppPath(paid.ID)},
		{"approval-launch", approvals.AppPath(launch.ID)},
		{"approval-policy", "/app/approval-policies/1"},
		{"leads", "/app/leads"},
		{"lead", "/app/leads/" + m[1]},
		{"upload", up.Location},
		{"campaigns", "/app/campaigns"},
		{"settings", "/app/settings"},
		{"sending", "/app/sending"},
		{"outbox", "/app/outbox"},
		{"outbox-notices", "/app/outbox?show=notices"},
		{"support", "/app/support"},
		{"webhooks", "/app/webhooks"},
		{"webhook-log", "/app/webhooks/" + endpoint.ID},
		{"billing", "/app/billing"},
		{"connections", "/app/connections"},
		{"connect-app", consent},
		{"not-found", "/app/no-such-page"},
	}, open: []visit{
		{"sign-in", "/app/sign-in"},
		{"unsubscribe", strings.TrimPrefix(secret.UnsubscribeURL(srv.URL, nw.ID, leads[0].Email), srv.URL)},
	}}
}

const appCallback = "https://claude.ai/api/mcp/auth_callback"

// registerClient registers an app as MCP clients do (dynamic client
// registration) and returns its client id.
func registerClient(t *testing.T, base, name string) string {
	t.Helper()
	body, err := json.Marshal(map[string]any{"client_name": name, "redirect_uris": []string{appCallback}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(base+oauth.PathRegister, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var client struct {
		ID string `json:"client_id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&client); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("register %s: %d (%v)", name, resp.StatusCode, err)
	}
	return client.ID
}

// Every page fits every screen from 360 to 1,440 pixels wide, with
// nothing sideways and nothing cut off, and passes axe-core with no
// serious or critical violation; the keyboard reaches the navigation and
// the primary buttons, with a visible focus. The screenshots of each page
// at each width are kept in test-artifacts/web/.
func TestBrowserEveryPageFitsEveryScreen(t *testing.T) {
	if testing.Short() {
		t.Skip("the browser test of every page takes a minute; it runs without -short")
	}
	t.Parallel()
	axe := axeSource(t)
	e := setupEveryPage(t)
	artifacts, err := filepath.Abs(filepath.Join("..", "test-artifacts", "web"))
	if err != nil {
		t.Fatal(err)
	}
	_ = os.RemoveAll(artifacts)
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	tab := webtest.NewTab(t, webtest.ChromiumWithin(t, 5*time.Minute))
	// The pages allow no script of their own (their CSP); the checker is
	// the test's, put in by the browser's debugging protocol.
	tab.Step("let the test's checker in", chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		if _, err := cdp.Call(ctx, target, page.SetBypassCSP, page.SetBypassCSPParams{Enabled: true}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, target, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: axe})
		return err
	}))
	check := func(width int64, v visit) {
		t.Helper()
		tab.Step("open "+v.path, chromedp.Navigate(e.srv.URL+v.path))
		for _, p := range overflow(t, tab) {
			t.Errorf("%s at %d px: %s", v.name, width, p)
		}
		for _, p := range axeViolations(t, tab) {
			t.Errorf("%s at %d px: axe-core: %s", v.name, width, p)
		}
		shot(t, tab, filepath.Join(artifacts, fmt.Sprintf("%d", width), v.name+".png"))
	}
	for _, w := range widths {
		if err := os.MkdirAll(filepath.Join(artifacts, fmt.Sprint(w)), 0o755); err != nil {
			t.Fatal(err)
		}
		tab.Step(fmt.Sprintf("resize to %d px", w), chromedp.EmulateViewport(w, 800))
		for _, v := range e.open {
			check(w, v)
		}
	}
	tab.Step("resize", chromedp.EmulateViewport(1280, 800))
	tab.Step("open the sign-in page", chromedp.Navigate(e.srv.URL+"/app/sign-in"))
	tab.Step("type the email", chromedp.SendKeys(chromedp.ID("email"), longEmail))
	tab.Step("type the password", chromedp.SendKeys(chromedp.ID("password"), password))
	tab.Step("sign in", chromedp.Submit(chromedp.ID("password")))
	tab.Step("wait for the approvals", chromedp.WaitVisible(chromedp.ID("past")))
	for _, w := range widths {
		tab.Step(fmt.Sprintf("resize to %d px", w), chromedp.EmulateViewport(w, 800))
		for _, v := range e.pages {
			check(w, v)
		}
		if w < 640 {
			menuOpens(t, tab, e.srv.URL, w, filepath.Join(artifacts, fmt.Sprint(w), "menu-open.png"))
		}
	}

	// The keyboard: from the top of a page, Tab goes to the skip link,
	// the pages and the account, then the page's own controls, each
	// showing where it is.
	tab.Step("resize", chromedp.EmulateViewport(1280, 800))
	keyboard(t, tab, e.srv.URL+"/app/approvals", "Skip to content", "Sign out", "Approvals", "Leads", "Campaigns", "Outbox", "Billing", "Connected apps", "Save")
	keyboard(t, tab, e.srv.URL+e.pages[1].path, "Skip to content", "Sign out", "Approvals", "Approve", "Reject")
	tab.Step("resize", chromedp.EmulateViewport(390, 800))
	keyboard(t, tab, e.srv.URL+e.pages[1].path, "Skip to content", "Menu", "Approvals", "Connected apps", "Sign out", "Approve", "Reject")
	t.Logf("%d pages at %d widths in %s; screenshots in %s", len(e.pages)+len(e.open), len(widths), time.Since(start).Round(time.Second), artifacts)
}

// overflow lists what makes the page wider than the screen or lies
// outside it: the document's own width, then each element sticking out.
func overflow(t *testing.T, tab *webtest.Tab) []string {
	t.Helper()
	found, err := chromedp.Run(tab.Ctx, chromedp.Evaluate[[]string](`(() => {
		const out = [], W = document.documentElement.clientWidth;
		if (document.documentElement.scrollWidth > W) out.push("the document is " + document.documentElement.scrollWidth + " px wide");
		const describe = el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\s+/).join(".") : "");
		// What is visually hidden (for screen readers) or inside a region
		// that scrolls sideways on purpose is not sticking out.
		const apart = el => {
			for (let a = el; a && a !== document.body; a = a.parentElement) {
				const s = getComputedStyle(a);
				if (a.classList.contains("skip") || s.clipPath !== "none") return true;
				if (a !== el && (s.overflowX === "auto" || s.overflowX === "scroll")) return true;
			}
			return false;
		};
		for (const el of document.body.querySelectorAll("*")) {
			if (apart(el)) continue;
			const r = el.getBoundingClientRect();
			if (r.width === 0 && r.height === 0) continue;
			if (getComputedStyle(el).visibility === "hidden") continue;
			if (r.right > W + 1 || r.left < -1) {
				out.push(describe(el) + " spans " + Math.round(r.left) + " to " + Math.round(r.right) + " px: " + JSON.stringify((el.textContent || "").trim().slice(0, 60)));
			} else if (el.scrollWidth > el.clientWidth + 1 && ["hidden", "clip"].includes(getComputedStyle(el).overflowX) && !el.matches("input, textarea, select")) {
				out.push(describe(el) + " cuts off its content (" + el.scrollWidth + " px in " + el.clientWidth + ")");
			}
			if (out.length > 8) break;
		}
		return out;
	})()`))
	if err != nil {
		t.Fatalf("browser: measure the page: %v", err)
	}
	return found
}

// axeViolations runs axe-core on the page and lists its serious and
// critical violations, each with the elements it found.
func axeViolations(t *testing.T, tab *webtest.Tab) []string {
	t.Helper()
	type violation struct {
		ID     string `json:"id"`
		Impact string `json:"impact"`
		Help   string `json:"help"`
		Nodes  []struct {
			Target  []any  `json:"target"`
			HTML    string `json:"html"`
			Summary string `json:"failureSummary"`
		} `json:"nodes"`
	}
	violations, err := chromedp.Run(tab.Ctx, chromedp.Evaluate[[]violation](`axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations.filter(v => v.impact === "serious" || v.impact === "critical"))`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("browser: run axe-core: %v", err)
	}
	var out []string
	for _, v := range violations {
		var where []string
		for i, n := range v.Nodes {
			if i == 3 {
				where = append(where, fmt.Sprintf("and %d more", len(v.Nodes)-3))
				break
			}
			where = append(where, fmt.Sprintf("%v %s (%s)", n.Target, n.HTML, strings.ReplaceAll(n.Summary, "\n", " ")))
		}
		out = append(out, fmt.Sprintf("%s (%s): %s; at %s", v.ID, v.Impact, v.Help, strings.Join(where, "; ")))
	}
	return out
}

// menuOpens opens the menu of a small screen, without any script of the
// page's, and finds every page and the sign-out in it, on the screen.
func menuOpens(t *testing.T, tab *webtest.Tab, base string, width int64, file string) {
	t.Helper()
	tab.Step("open the approvals", chromedp.Navigate(base+"/app/approvals"))
	tab.Step("open the menu", chromedp.Click(`details.menu > summary`, chromedp.NodeVisible))
	shown, err := chromedp.Run(tab.Ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("details.menu a, details.menu button")]
		.filter(el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.left >= 0 && r.right <= document.documentElement.clientWidth; })
		.map(el => el.textContent.trim())`))
	if err != nil {
		t.Fatalf("browser: read the menu: %v", err)
	}
	for _, want := range []string{"Approvals", "Leads", "Campaigns", "Settings", "Sending", "Outbox", "Support", "Billing", "Connected apps", "Sign out"} {
		if !contains(shown, want) {
			t.Errorf("at %d px the open menu does not show %q on the screen: %q", width, want, shown)
		}
	}
	for _, p := range overflow(t, tab) {
		t.Errorf("the open menu at %d px: %s", width, p)
	}
	for _, p := range axeViolations(t, tab) {
		t.Errorf("the open menu at %d px: axe-core: %s", width, p)
	}
	shot(t, tab, file)
}

// keyboard tabs through the page from its top and checks that the focus
// reaches each of want, in that order, showing an outline each time. It
// opens the small screens' menu with Enter when it reaches it.
func keyboard(t *testing.T, tab *webtest.Tab, page string, want ...string) {
	t.Helper()
	tab.Step("open "+page, chromedp.Navigate(page))
	var reached []string
	next := 0
	for range 120 {
		tab.Step("press Tab", chromedp.KeyEvent(kb.Tab))
		type focused struct {
			Name    string `json:"name"`
			Tag     string `json:"tag"`
			Outline bool   `json:"outline"`
		}
		focus, err := chromedp.Run(tab.Ctx, chromedp.Evaluate[focused](`(() => {
			const el = document.activeElement, s = getComputedStyle(el);
			const label = el.labels && el.labels.length ? el.labels[0].textContent : "";
			return {name: (label || el.textContent || el.value || "").trim().replace(/\s+/g, " "), tag: el.tagName,
				outline: s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2};
		})()`))
		if err != nil {
			t.Fatalf("browser: read the focus: %v", err)
		}
		reached = append(reached, focus.Name)
		if !focus.Outline {
			t.Errorf("%s: the focus on %q shows no outline", page, focus.Name)
		}
		if focus.Tag == "SUMMARY" {
			tab.Step("press Enter on "+focus.Name, chromedp.KeyEvent(kb.Enter))
		}
		if strings.HasPrefix(focus.Name, want[next]) {
			if next++; next == len(want) {
				return
			}
		}
	}
	t.Errorf("%s: tabbing did not reach %q (in order %q); it reached %q", page, want[next], want, reached)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func shot(t *testing.T, tab *webtest.Tab, file string) {
	t.Helper()
	buf, err := chromedp.Run(tab.Ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("browser: screenshot: %v", err)
	}
	if err := os.WriteFile(file, buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

// axeSource is axe-core's script, from the npm package that
// testdata/axe/package-lock.json pins, installed there with npm ci when
// it is missing or was installed from another lock file.
func axeSource(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("testdata", "axe")
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(lock)
	stamp := filepath.Join(dir, "node_modules", ".vibesell-lock-sha256")
	if got, err := os.ReadFile(stamp); err != nil || string(got) != hex.EncodeToString(sum[:]) {
		npm, err := exec.LookPath("npm")
		if err != nil {
			if os.Getenv("CI") != "" {
				t.Fatal("npm is missing in CI: install Node 20 or later with npm")
			}
			t.Skip("npm is missing, so axe-core cannot be installed: install Node 20 or later with npm")
		}
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("npm ci in web/testdata/axe: %v\n%s", err, out.String())
		}
		if err := os.WriteFile(stamp, []byte(hex.EncodeToString(sum[:])), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src, err := os.ReadFile(filepath.Join(dir, "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}
