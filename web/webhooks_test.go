package web_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"vibesell/outbound"
	"vibesell/sandboxmail/sandboxmailtest"
	"vibesell/store"
	"vibesell/web"
	"vibesell/webhooks"
)

// withWebhooks wires webhooks into the app; loopback lets its endpoints be
// the test's receivers on 127.0.0.1.
func withWebhooks(t *testing.T, svc **webhooks.Service, loopback bool) func(*app, *web.Deps) {
	return func(a *app, cfg *web.Deps) {
		guardCfg := outbound.Deps{Ports: webhooks.Ports, PerMinute: -1}
		if loopback {
			guardCfg.Allow = []netip.AddrPort{netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), 0)}
		}
		*svc = webhooks.New(webhooks.Deps{DB: a.pool, Secret: sandboxmailtest.Secret(t), Guard: outbound.New(guardCfg), Logger: slog.New(slog.DiscardHandler)})
		cfg.Webhooks = *svc
	}
}

var endpointLink = regexp.MustCompile(`href="/app/webhooks/(we_[0-9a-f]+)"`)

// A person adds an endpoint (a private address refused with a sentence),
// sees its secret once, follows its delivery log, sends an event again,
// disables and deletes it; another workspace reaches none of it.
func TestWebhooksPages(t *testing.T) {
	t.Parallel()
	var svc *webhooks.Service
	a := setup(t, withWebhooks(t, &svc, true))
	var fail atomic.Bool
	fail.Store(true)
	var got atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		got.Add(1)
		if fail.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(receiver.Close)

	ada := a.browser(t)
	ada.SignIn("ada@acme.test", password, "/app/webhooks")
	page := ada.Get("/app/webhooks")
	if page.Status != 200 || !strings.Contains(page.Body, "No endpoints yet.") || !strings.Contains(page.Body, `href="/app/webhooks"`) {
		t.Fatalf("webhooks page: %d\n%s", page.Status, page.Body)
	}
	refused := ada.Post("/app/webhooks", url.Values{"csrf": {page.CSRF(t)}, "url": {"http://10.0.0.7/hooks"}})
	if refused.Status != 422 || !strings.Contains(refused.Body, "VibeSell can&#39;t send webhooks to 10.0.0.7: 10.0.0.7 is a private network address, not on the public internet.") ||
		!strings.Contains(refused.Body, `value="http://10.0.0.7/hooks"`) {
		t.Fatalf("a private address: %d\n%s", refused.Status, refused.Body)
	}
	added := ada.Post("/app/webhooks", url.Values{"csrf": {page.CSRF(t)}, "url": {receiver.URL + "/in"}})
	secret := regexp.MustCompile(`whsec_[0-9a-f]+`).FindString(added.Body)
	m := endpointLink.FindStringSubmatch(added.Body)
	if added.Status != 200 || secret == "" || m == nil || !strings.Contains(added.Body, "it is not shown again") {
		t.Fatalf("add an endpoint: %d\n%s", added.Status, added.Body)
	}
	id := m[1]
	if p := ada.Get("/app/webhooks"); strings.Contains(p.Body, secret) || !strings.Contains(p.Body, receiver.URL+"/in") {
		t.Error("the secret is shown again, or the endpoint is not listed")
	}

	if err := store.InTx(t.Context(), a.pool, func(tx pgx.Tx) error {
		return svc.Emit(t.Context(), tx, a.acme.ID, webhooks.LeadUnsubscribed(webhooks.Lead{Email: "sam@acme-corp.example"}))
	}); err != nil {
		t.Fatal(err)
	}
	log, err := svc.Deliveries(t.Context(), a.acme.ID, id, 10)
	if err != nil || len(log) != 1 {
		t.Fatalf("log %v, %v", log, err)
	}
	w := &webhooks.DeliverWorker{Service: svc}
	work := func(send int) error {
		return w.Work(t.Context(), &river.Job[webhooks.DeliverArgs]{JobRow: &rivertype.JobRow{Attempt: 1},
			Args: webhooks.DeliverArgs{WorkspaceID: a.acme.ID, EndpointID: id, EventID: log[0].EventID, Send: send}})
	}
	if err := work(1); err == nil {
		t.Fatal("a 503 is not tried again")
	}
	logPage := ada.Get("/app/webhooks/" + id)
	for _, want := range []string{"lead.unsubscribed", "Failing, tried again later", "The endpoint answered 503 (Service Unavailable) instead of a 2xx status.", "Send again"} {
		if !strings.Contains(logPage.Body, want) {
			t.Errorf("the delivery log lacks %q:\n%s", want, logPage.Body)
		}
	}
	again := ada.Post("/app/webhooks/"+id+"/events/"+log[0].EventID+"/send-again", url.Values{"csrf": {logPage.CSRF(t)}})
	if again.Status != 303 || again.Location != "/app/webhooks/"+id+"?done=sent-again" {
		t.Fatalf("send again: %d %s\n%s", again.Status, again.Location, again.Body)
	}
	fail.Store(false)
	if err := work(2); err != nil {
		t.Fatal(err)
	}
	if p := ada.Get("/app/webhooks/" + id); !strings.Contains(p.Body, "Delivered") || got.Load() != 2 {
		t.Errorf("after sending again (%d requests):\n%s", got.Load(), p.Body)
	}

	bob := a.browser(t)
	bob.SignIn("bob@globex.test", password, "/app/webhooks")
	globex := bob.Get("/app/webhooks")
	if strings.Contains(globex.Body, receiver.URL) {
		t.Fatal("Globex sees Acme's endpoint")
	}
	for _, path := range []string{"/disable", "/delete", "/events/" + log[0].EventID + "/send-again"} {
		if r := bob.Post("/app/webhooks/"+id+path, url.Values{"csrf": {globex.CSRF(t)}}); r.Status != 404 {
			t.Errorf("Globex posting %s to Acme's endpoint: %d", path, r.Status)
		}
	}
	if r := bob.Get("/app/webhooks/" + id); r.Status != 404 {
		t.Errorf("Globex reading Acme's delivery log: %d", r.Status)
	}

	if r := ada.Post("/app/webhooks/"+id+"/disable", url.Values{"csrf": {page.CSRF(t)}}); r.Status != 303 || r.Location != "/app/webhooks?done=disabled" {
		t.Fatalf("disable: %d %s", r.Status, r.Location)
	}
	if p := ada.Get("/app/webhooks?done=disabled"); !strings.Contains(p.Body, "Disabled by a person.") || !strings.Contains(p.Body, "it receives no events until you enable it") {
		t.Errorf("after disabling:\n%s", p.Body)
	}
	if r := ada.Post("/app/webhooks/"+id+"/delete", url.Values{"csrf": {page.CSRF(t)}}); r.Status != 303 {
		t.Fatalf("delete: %d", r.Status)
	}
	if p := ada.Get("/app/webhooks"); !strings.Contains(p.Body, "No endpoints yet.") {
		t.Error("the endpoint stays after deleting it")
	}
	if r := ada.Post("/app/webhooks", url.Values{"url": {receiver.URL}}); r.Status != 403 {
		t.Errorf("a form without its CSRF token: %d", r.Status)
	}
}

// In a browser, without script, a person adds an endpoint and is shown its
// signing secret.
func TestBrowserAddWebhook(t *testing.T) {
	t.Parallel()
	var svc *webhooks.Service
	a := setup(t, withWebhooks(t, &svc, true))
	receiver := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(receiver.Close)
	tab := signedInTab(t, a.srv.URL+"/app/webhooks", "ada@acme.test")
	tab.Step("wait for the form", chromedp.WaitVisible(chromedp.ID("url")))
	tab.Step("type the address", chromedp.SendKeys(chromedp.ID("url"), receiver.URL+"/crm"))
	tab.Step("add it", chromedp.Click(chromedp.ID("add-endpoint")))
	tab.Step("wait for the secret", chromedp.WaitVisible(chromedp.ID("webhook-secret")))
	tab.Screenshot("webhooks-added")
	if text := tab.Text("main"); !strings.Contains(text, "whsec_") || !strings.Contains(text, receiver.URL+"/crm") {
		t.Errorf("after adding:\n%s", text)
	}
}
