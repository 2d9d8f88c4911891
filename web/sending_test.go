package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"vibesell"
	"vibesell/cards"
	"vibesell/mail"
	"vibesell/mailboxes"
	"vibesell/sandboxmail"
	"vibesell/sandboxmail/sandboxmailtest"
	"vibesell/sending"
	"vibesell/sending/sendingtest"
	"vibesell/web"
	"vibesell/workspace"
)

// vendor is a provider that is not the sandbox.
type vendor struct{ *sending.Sandbox }

func (vendor) Name() string { return "vendor" }

// withSending wires a sending service into the app; real says it orders
// from a provider that is not the sandbox.
func withSending(svc **sending.Service, real bool) func(*app, *web.Deps) {
	return func(a *app, cfg *web.Deps) {
		providers := sending.Providers{Availability: sendingtest.FreeNames{}}
		if real {
			providers.Provisioner = vendor{sending.NewSandbox(nil, sending.DefaultConfig())}
		}
		*svc = sending.New(sending.Deps{DB: a.pool, Config: sending.DefaultConfig(), Cards: cards.New(cards.Deps{DB: a.pool, Clock: nil}),
			Offers: workspace.New(workspace.Deps{DB: a.pool, Clock: vibesell.SystemClock{}}), Providers: providers})
		cfg.Sending = *svc
	}
}

// orderSetup picks a lookalike of acme.com with Ada Lovelace's addresses
// on it, and orders them, as an approved order would.
func orderSetup(t *testing.T, svc *sending.Service, ws uuid.UUID) {
	t.Helper()
	ctx := context.Background()
	req := sending.ProposeDomainsRequest{CompanyDomain: "acme.com", Count: 1}
	var answers []cards.Answer
	for {
		o, err := svc.ProposeDomains(ctx, ws, req, answers)
		if err != nil {
			t.Fatal(err)
		}
		if o.Card == nil {
			break
		}
		answers = append(answers, cards.Answer{Card: o.Card.ID, Answer: o.Card.Choices[0].ID})
	}
	ereq := sending.ProposeEmailRequest{SenderNames: []string{"Ada Lovelace"}}
	e, err := svc.ProposeEmail(ctx, ws, ereq, nil)
	if err != nil || e.Card == nil {
		t.Fatalf("propose email: no card; settled %v, notes %q (%v)", e.Result != nil, e.Notes, err)
	}
	if _, err := svc.ProposeEmail(ctx, ws, ereq, []cards.Answer{{Card: e.Card.ID, Answer: "first_name"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.PlaceOrder(ctx, ws, nil); err != nil {
		t.Fatal(err)
	}
}

// A person in the sandbox makes the ordered setup ready and warm with one
// button, and the page says it was a sandbox shortcut.
func TestBrowserSandboxShortcut(t *testing.T) {
	t.Parallel()
	var svc *sending.Service
	a := setup(t, withSending(&svc, false))
	orderSetup(t, svc, a.acme.ID)

	tab := signedInTab(t, a.srv.URL+"/app/sending", "ada@acme.test")
	step := tab.Step
	step("wait for the button", chromedp.WaitVisible(chromedp.ID("sandbox-ready")))
	if before := tab.Text("main"); !strings.Contains(before, "Being prepared") || strings.Contains(before, "sandbox shortcut, not a real warmup") {
		t.Fatalf("before the shortcut:\n%s", before)
	}
	tab.Screenshot("sending-before")
	step("make everything ready", chromedp.Click(chromedp.ID("sandbox-ready")))
	step("wait for the notice", chromedp.WaitVisible(`//div[@class="notice"][contains(., "a sandbox shortcut")]`))
	tab.Screenshot("sending-after")
	after := tab.Text("main")
	for _, want := range []string{"Made 1 domain and 3 mailboxes ready, and the mailboxes warm, at once: a sandbox shortcut.",
		"Warm " + sending.SandboxShortcutLabel, "Ready " + sending.SandboxShortcutLabel} {
		if !strings.Contains(after, want) {
			t.Errorf("after the shortcut the page lacks %q:\n%s", want, after)
		}
	}
	if strings.Contains(after, "Make everything ready and warm now") {
		t.Errorf("the button stays once everything is warm")
	}
}

func TestSendingPageIsTheWorkspacesOwn(t *testing.T) {
	t.Parallel()
	var svc *sending.Service
	a := setup(t, withSending(&svc, false))
	orderSetup(t, svc, a.acme.ID)
	bob := a.browser(t)
	bob.SignIn("bob@globex.test", password, "/app/sending")
	p := bob.Get("/app/sending")
	if p.Status != 200 || strings.Contains(p.Body, "getacme") || strings.Contains(p.Body, "sandbox-ready") || !strings.Contains(p.Body, "No domains yet.") {
		t.Fatalf("Globex's sending page: %d\n%s", p.Status, p.Body)
	}
	refused := bob.Post("/app/sending/sandbox-ready", url.Values{"csrf": {p.CSRF(t)}})
	if refused.Status != 422 || !strings.Contains(refused.Body, "Nothing is ordered yet") {
		t.Errorf("Globex's shortcut: %d", refused.Status)
	}
	st, err := svc.Summary(context.Background(), a.acme.ID)
	if err != nil || st.SandboxShortcuts() != 0 {
		t.Errorf("Globex's button touched Acme's setup: %d (%v)", st.SandboxShortcuts(), err)
	}
}

func TestSendingPageWithARealProviderHasNoShortcut(t *testing.T) {
	t.Parallel()
	var svc *sending.Service
	a := setup(t, withSending(&svc, true))
	ada := a.browser(t)
	ada.SignIn("ada@acme.test", password, "/app/sending")
	p := ada.Get("/app/sending")
	if p.Status != 200 || strings.Contains(p.Body, "sandbox-ready") || strings.Contains(p.Body, "runs in the sandbox") {
		t.Fatalf("sending page with a real provider: %d\n%s", p.Status, p.Body)
	}
	if r := ada.Post("/app/sending/sandbox-ready", url.Values{"csrf": {p.CSRF(t)}}); r.Status != 404 {
		t.Errorf("the shortcut with a real provider: %d", r.Status)
	}
}

// A person connects an existing mailbox: a wrong password is refused with
// what the server said, the right one is saved, and the page never shows a
// password back.
func TestConnectAMailbox(t *testing.T) {
	t.Parallel()
	sandbox, mb := sandboxmailtest.Sandbox(t, mail.Address{Email: "dana@getacme.com"}, sandboxmail.Config{})
	secret := sandboxmailtest.Secret(t)
	var svc *sending.Service
	a := setup(t, withSending(&svc, false), func(a *app, cfg *web.Deps) {
		cfg.Connections = mailboxes.NewConnections(mailboxes.ConnectionsDeps{DB: a.pool, Secret: secret, Roots: sandbox.Roots(),
			Guard: sandboxmailtest.Guard(t, sandbox)}) // the sandbox listens on loopback
	})
	ada := a.browser(t)
	ada.SignIn("ada@acme.test", password, "/app/sending")
	page := ada.Get("/app/sending")
	if page.Status != 200 || !strings.Contains(page.Body, "No mailbox of your own is connected.") {
		t.Fatalf("sending page: %d", page.Status)
	}
	smtpHost, smtpPort, _ := strings.Cut(sandbox.SMTPAddr(), ":")
	imapHost, imapPort, _ := strings.Cut(sandbox.IMAPAddr(), ":")
	form := func(smtpPassword string) url.Values {
		return url.Values{"csrf": {page.CSRF(t)}, "address": {"dana@getacme.com"}, "sender_name": {"Dana Reyes"},
			"smtp_host": {smtpHost}, "smtp_port": {smtpPort}, "smtp_security": {"starttls"}, "smtp_username": {"dana@getacme.com"}, "smtp_password": {smtpPassword},
			"imap_host": {imapHost}, "imap_port": {imapPort}, "imap_security": {"starttls"}, "imap_username": {"dana@getacme.com"}, "imap_password": {mb.IMAP.Password}}
	}

	wrong := ada.Post("/app/sending/connect", form("not-the-password"))
	if wrong.Status != 422 || !strings.Contains(wrong.Body, "VibeSell could not sign in to the sending server "+sandbox.SMTPAddr()+" as dana@getacme.com") ||
		!strings.Contains(wrong.Body, `value="dana@getacme.com"`) || strings.Contains(wrong.Body, "not-the-password") || strings.Contains(wrong.Body, mb.IMAP.Password) {
		t.Fatalf("a wrong password: %d\n%s", wrong.Status, wrong.Body)
	}
	ok := ada.Post("/app/sending/connect", form(mb.SMTP.Password))
	if ok.Status != 303 || ok.Location != "/app/sending?done=connected#connected" {
		t.Fatalf("connect: %d %s\n%s", ok.Status, ok.Location, ok.Body)
	}
	page = ada.Get("/app/sending?done=connected")
	if !strings.Contains(page.Body, "Connected. VibeSell signed in to both servers") || !strings.Contains(page.Body, "<strong>dana@getacme.com</strong>") ||
		strings.Contains(page.Body, mb.SMTP.Password) {
		t.Fatalf("after connecting:\n%s", page.Body)
	}

	bob := a.browser(t)
	bob.SignIn("bob@globex.test", password, "/app/sending")
	globex := bob.Get("/app/sending")
	if strings.Contains(globex.Body, "dana@getacme.com") {
		t.Fatal("Globex sees Acme's connected mailbox")
	}
	if r := bob.Post("/app/sending/disconnect", url.Values{"csrf": {globex.CSRF(t)}, "address": {"dana@getacme.com"}}); r.Status != 404 {
		t.Errorf("Globex disconnecting Acme's mailbox: %d", r.Status)
	}
	if r := ada.Post("/app/sending/disconnect", url.Values{"csrf": {page.CSRF(t)}, "address": {"dana@getacme.com"}}); r.Status != 303 {
		t.Errorf("disconnect: %d", r.Status)
	}
	if p := ada.Get("/app/sending"); !strings.Contains(p.Body, "No mailbox of your own is connected.") {
		t.Error("still connected after disconnecting")
	}
}
