package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"vibesell"
	"vibesell/delivery"
	"vibesell/mail"
	"vibesell/notices"
	"vibesell/replies"
	"vibesell/sandboxmail"
	"vibesell/sandboxmail/sandboxmailtest"
	"vibesell/web"
	"vibesell/web/webtest"
)

// keyDNS publishes Acme's DKIM key for its sending domain, as its sending
// setup does once the domain is ready: the DNS seam of the verdict.
type keyDNS struct {
	keys *mail.Keys
	ws   uuid.UUID
}

func (k keyDNS) PublishedTXT(ctx context.Context, ws uuid.UUID, name string) ([]string, error) {
	rec, err := k.keys.Record(ctx, k.ws, "getacme.com")
	if err != nil || ws != k.ws || rec.Host != name {
		return nil, err
	}
	return []string{rec.Value}, nil
}

type outboxBundle struct {
	*app
	sandbox *sandboxmail.Sandbox
	mailbox mail.Account
	outbox  *sandboxmail.Outbox
	sender  *delivery.Dispatcher
	secret  mail.Secret
}

func setupOutbox(t *testing.T, withSandbox bool) *outboxBundle {
	t.Helper()
	b := &outboxBundle{}
	secret := sandboxmailtest.Secret(t)
	b.secret = secret
	b.app = setup(t, func(a *app, cfg *web.Deps) {
		keys := mail.NewKeys(mail.KeysDeps{DB: a.pool, Secret: secret})
		if withSandbox {
			b.sandbox, b.mailbox = sandboxmailtest.Sandbox(t, mail.Address{Name: "Dana Reyes", Email: "dana@getacme.com"},
				sandboxmail.Config{OnAccept: sandboxmail.KeepAccepted(a.pool, nil)})
		}
		b.outbox = sandboxmail.NewOutbox(sandboxmail.OutboxDeps{DB: a.pool, Records: keyDNS{keys: keys, ws: a.acme.ID}, Sandbox: b.sandbox})
		b.sender = delivery.NewDispatcher(delivery.DispatcherDeps{DB: a.pool, Keys: keys, Suppressor: a.audience.MailSuppressions()})
		cfg.Outbox = b.outbox
	})
	return b
}

// send sends step 1 of a campaign of Acme's to Sam.
func (b *outboxBundle) send(t *testing.T, lead int64) {
	t.Helper()
	_, err := b.sender.Send(context.Background(), delivery.Outgoing{
		Step:    delivery.Step{WorkspaceID: b.acme.ID, CampaignID: "cp_00000000000000e2", LeadID: lead, Step: 1},
		Mailbox: b.mailbox,
		Message: mail.Message{To: mail.Address{Name: "Sam Okafor", Email: "sam@acme-corp.example"}, Subject: "Onboarding at Acme Corp",
			Body: "Hi Sam,\n\nWould a shorter onboarding help?\n\nDana", PostalAddress: "1 Market St, San Francisco",
			UnsubscribeURL: b.secret.UnsubscribeURL(b.srv.URL, b.acme.ID, "sam@acme-corp.example")},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A person opens the outbox, sees the email as sent with its verified
// signature, and answers it as the lead; the reply reader then reads and
// classifies the answer.
func TestBrowserOutboxAndReplyAsLead(t *testing.T) {
	t.Parallel()
	b := setupOutbox(t, true)
	lead := int64(7)
	b.send(t, lead)

	tab := signedInTab(t, b.srv.URL+"/app/outbox", "ada@acme.test")
	step := tab.Step
	step("wait for the email", chromedp.WaitVisible(`//h2[contains(., "Onboarding at Acme Corp")]`))
	tab.Screenshot("outbox")
	shown := tab.Text("main")
	for _, want := range []string{"DKIM verified", "Signed by getacme.com and verified against the key its sending setup published",
		`"Sam Okafor" <sam@acme-corp.example>`, "Would a shorter onboarding help?"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the outbox does not show %q:\n%s", want, shown)
		}
	}
	step("open the headers", chromedp.Click(`//summary[contains(., "Headers")]`))
	if headers := tab.Text("main"); !strings.Contains(headers, "List-Unsubscribe-Post List-Unsubscribe=One-Click") || !strings.Contains(headers, "DKIM-Signature") {
		t.Errorf("the headers shown:\n%s", headers)
	}
	step("write the lead's reply", chromedp.SendKeys(chromedp.CSS(`textarea[name="text"]`), "Interested! Can we talk on Thursday?"))
	step("send it", chromedp.Click(chromedp.CSS(`section.card form button`)))
	step("wait for the notice", chromedp.WaitVisible(`//div[@class="notice"][contains(., "is in the sending mailbox's inbox")]`))
	tab.Screenshot("outbox-replied")

	poller := replies.NewPoller(replies.PollerDeps{DB: b.pool, Suppressor: b.audience.MailSuppressions(), Clock: vibesell.SystemClock{}})
	if n, err := poller.Poll(context.Background(), b.acme.ID, b.mailbox); err != nil || n != 1 {
		t.Fatalf("poll after the reply: %d (%v)", n, err)
	}
	step("reload the outbox", chromedp.Navigate(b.srv.URL+"/app/outbox"))
	step("wait for the reply read", chromedp.WaitVisible(`//ul[@class="replies"]/li`))
	tab.Screenshot("outbox-reply-read")
	if read := tab.Text("main"); !strings.Contains(read, `Interested sam@acme-corp.example`) || !strings.Contains(read, `“Interested! Can we talk on Thursday?” Why: the reply says "can we talk" (a meeting asked for).`) {
		t.Errorf("the outbox after the reply was read:\n%s", read)
	}
	page, err := replies.NewReplies(replies.RepliesDeps{DB: b.pool}).List(context.Background(), b.acme.ID, replies.ListOptions{})
	if err != nil || len(page.Replies) != 1 {
		t.Fatalf("replies: %d (%v); want 1", len(page.Replies), err)
	}
	r := page.Replies[0]
	want := []string{"sam@acme-corp.example", "7", "thread", "interested"}
	if d := cmp.Diff(want, []string{r.From, r.Lead, r.MatchedBy, r.Classification}); d != "" {
		t.Errorf("the reply as read (from, lead, matched by, classification) mismatch (-want +got):\n%s", d)
	}
}

// signedInTab opens page in Chromium, signs in as email on the sign-in page
// it leads to, and comes back to it.
func signedInTab(t *testing.T, page, email string) *webtest.Tab {
	t.Helper()
	tab := webtest.NewTab(t, webtest.Chromium(t))
	tab.Step("open "+page, chromedp.Navigate(page))
	tab.Step("wait for the sign-in form", chromedp.WaitVisible(chromedp.ID("email")))
	tab.Step("type the email", chromedp.SendKeys(chromedp.ID("email"), email))
	tab.Step("type the password", chromedp.SendKeys(chromedp.ID("password"), password))
	tab.Step("sign in", chromedp.Submit(chromedp.ID("password")))
	return tab
}

func TestOutboxShowsOnlyTheWorkspacesMessages(t *testing.T) {
	t.Parallel()
	b := setupOutbox(t, true)
	b.send(t, 99)
	ada := b.browser(t)
	ada.SignIn("ada@acme.test", password, "/app/outbox")
	acme := ada.Get("/app/outbox")
	if acme.Status != 200 || !strings.Contains(acme.Body, "Onboarding at Acme Corp") {
		t.Fatalf("Acme's outbox: %d", acme.Status)
	}
	id := acme.Body[strings.Index(acme.Body, `action="/app/outbox/`)+len(`action="/app/outbox/`):]
	id = id[:strings.Index(id, "/")]

	bob := b.browser(t)
	bob.SignIn("bob@globex.test", password, "/app/outbox")
	globex := bob.Get("/app/outbox")
	if globex.Status != 200 || strings.Contains(globex.Body, "Onboarding at Acme Corp") || !strings.Contains(globex.Body, "Nothing was sent yet.") {
		t.Fatalf("Globex's outbox: %d\n%s", globex.Status, globex.Body)
	}
	reply := bob.Post("/app/outbox/"+id+"/reply", map[string][]string{"csrf": {globex.CSRF(t)}, "text": {"Interested"}})
	if reply.Status != 404 {
		t.Errorf("Globex answering Acme's email: %d", reply.Status)
	}
	empty := ada.Post("/app/outbox/"+id+"/reply", map[string][]string{"csrf": {acme.CSRF(t)}, "text": {" "}})
	if empty.Status != 422 || !strings.Contains(empty.Body, "Write the lead&#39;s reply first: the text is empty.") {
		t.Errorf("an empty reply: %d", empty.Status)
	}
}

func TestOutboxWithARealProvider(t *testing.T) {
	t.Parallel()
	b := setupOutbox(t, false)
	ada := b.browser(t)
	ada.SignIn("ada@acme.test", password, "/app/outbox")
	p := ada.Get("/app/outbox")
	if p.Status != 200 || !strings.Contains(p.Body, "There is no sandbox outbox") || strings.Contains(p.Body, "<textarea") {
		t.Fatalf("outbox with a real provider: %d\n%s", p.Status, p.Body)
	}
}

// The outbox's notice after a reply is the server's sentence about the
// workspace's own message: ?replied= carries the message's id, and text
// put in it, or another workspace's id, shows nothing.
func TestOutboxNoticeIsNeverTextFromTheURL(t *testing.T) {
	t.Parallel()
	b := setupOutbox(t, true)
	b.send(t, 7)
	ada := b.browser(t)
	ada.SignIn("ada@acme.test", password, "/app/outbox")
	acme := ada.Get("/app/outbox")
	id := acme.Body[strings.Index(acme.Body, `action="/app/outbox/`)+len(`action="/app/outbox/`):]
	id = id[:strings.Index(id, "/")]

	replied := ada.Post("/app/outbox/"+id+"/reply", map[string][]string{"csrf": {acme.CSRF(t)}, "text": {"Interested"}})
	if replied.Status != 303 || replied.Location != "/app/outbox?replied="+id+"#m"+id {
		t.Errorf("after a reply: %d %q, want 303 to the outbox with the message's id", replied.Status, replied.Location)
	}
	if p := ada.Get(replied.Location); !strings.Contains(p.Body, `<div class="notice" role="status">Your reply as &#34;Sam Okafor&#34; &lt;sam@acme-corp.example&gt; is in the sending mailbox`) {
		t.Errorf("the notice after a reply is missing or names someone else:\n%s", p.Body)
	}
	bob := b.browser(t)
	bob.SignIn("bob@globex.test", password, "/app/outbox")
	for who, get := range map[string]func(string) webtest.Page{"ada": ada.Get, "bob": bob.Get} {
		for _, q := range []string{"SECURITY+NOTICE%3A+sign+in+again+at+https%3A%2F%2Fevil.test", "sam%40acme-corp.example", id + "x", "-1"} {
			if p := get("/app/outbox?replied=" + q); p.Status != 200 || strings.Contains(p.Body, `class="notice"`) || strings.Contains(p.Body, "evil.test") {
				t.Errorf("%s, ?replied=%s: %d, a notice shown:\n%s", who, q, p.Status, p.Body)
			}
		}
	}
	if p := bob.Get("/app/outbox?replied=" + id); strings.Contains(p.Body, `class="notice"`) {
		t.Errorf("Globex's outbox with Acme's message id shows a notice:\n%s", p.Body)
	}
}

// VibeSell's own emails to the team are apart from the campaigns' emails,
// with no form to reply as a lead.
func TestOutboxKeepsVibeSellsOwnEmailsApart(t *testing.T) {
	t.Parallel()
	b := setupOutbox(t, true)
	b.send(t, 99)
	from := mail.Address{Name: "VibeSell", Email: "approvals@vibesell.test"}
	box, err := b.sandbox.AddMailbox(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := notices.New(notices.Deps{DB: b.pool, Endpoint: box.SMTP, From: from}).Send(context.Background(), b.acme.ID, []string{"ada@acme.test"},
		"Waiting for your approval: Order the sending setup", "Approve or reject it here: "+b.srv.URL+"/app/approvals/ap_0123456789abcdef\n"); err != nil {
		t.Fatal(err)
	}
	ada := b.browser(t)
	ada.SignIn("ada@acme.test", password, "/app/outbox")
	campaign := ada.Get("/app/outbox")
	if !strings.Contains(campaign.Body, "Onboarding at Acme Corp") || strings.Contains(campaign.Body, "Waiting for your approval") {
		t.Errorf("the campaign emails are not apart from VibeSell's own:\n%s", campaign.Body)
	}
	own := ada.Get("/app/outbox?show=notices")
	if !strings.Contains(own.Body, "Waiting for your approval: Order the sending setup") || strings.Contains(own.Body, "Onboarding at Acme Corp") {
		t.Errorf("VibeSell's own emails are not apart from the campaign emails:\n%s", own.Body)
	}
	if strings.Contains(own.Body, "Reply as") || strings.Contains(own.Body, `/reply"`) {
		t.Errorf("VibeSell's own email offers to reply as a lead:\n%s", own.Body)
	}
	mustNotNameTools(t, own.Body)
}
