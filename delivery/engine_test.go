package delivery_test

import (
	"context"
	"fmt"
	"log/slog"
	netmail "net/mail"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/approvals"
	"vibesell/billing"
	"vibesell/campaigns"
	"vibesell/delivery"
	"vibesell/delivery/deliverytest"
	"vibesell/featuretest"
	"vibesell/mail"
	"vibesell/mailboxes"
	"vibesell/replies"
	"vibesell/sandboxmail"
	"vibesell/sandboxmail/sandboxmailtest"
	"vibesell/sending"
	"vibesell/store"
	"vibesell/store/storetest"
	"vibesell/webhooks"
	"vibesell/workspace"
)

// engineBundle is the engine on real campaigns: the campaigns service
// with what it stands on, the sandbox mail server its mailboxes live in,
// the audience's suppression list and billing's monthly emails.
type engineBundle struct {
	*featuretest.Env
	ctx     context.Context
	ws      uuid.UUID
	sandbox *sandboxmail.Sandbox
	sources mailboxes.Source
	engine  *delivery.Engine
	sender  *delivery.Dispatcher
	// provider is the own mailbox's provider (engineOptions.own).
	provider *sandboxmail.Sandbox
	conns    *mailboxes.Connections
	poller   *replies.Poller
	billing  *billing.Service
	keys     *mail.Keys
}

// Tue 1 Dec 2026, 07:00 UTC.
var engineStart = time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC)

type engineOptions struct {
	noGap       bool
	emailsLimit int // the free plan's monthly emails; 0: the default
	fullVolume  int // what a warm mailbox sends a day; 0: the default
	dkim        string
	// own connects dana@own.test, a person's own mailbox at a provider of
	// their own (a second sandbox, b.provider).
	own bool
	// tracer, when set, sees every query on the test's database.
	tracer pgx.QueryTracer
	// webhooks has the engine emit its webhook events (on no endpoint).
	webhooks bool
}

// laterConnections gives campaigns the connected mailboxes of
// connections made after the campaigns service is.
type laterConnections struct{ c **mailboxes.Connections }

func (l laterConnections) Mailboxes(ctx context.Context, ws uuid.UUID) ([]campaigns.Mailbox, error) {
	return (*l.c).CampaignMailboxes(30).Mailboxes(ctx, ws)
}

func engineSetup(t testing.TB, o engineOptions) *engineBundle {
	t.Helper()
	pool := storetest.New(t)
	if o.tracer != nil {
		cfg, err := pgxpool.ParseConfig(pool.Config().ConnString())
		if err != nil {
			t.Fatal(err)
		}
		store.Configure(cfg)
		cfg.ConnConfig.Tracer = o.tracer
		if pool, err = pgxpool.NewWithConfig(t.Context(), cfg); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
	}
	var conns *mailboxes.Connections
	var more []campaigns.Mailboxes
	if o.own {
		more = append(more, laterConnections{&conns})
	}
	env := featuretest.NewWith(t, pool, engineStart, campaigns.Config{MaxDailyEmails: 1_000_000}, sending.Config{EmailsPerMailbox: o.fullVolume}, more...)
	ctx := t.Context()
	ws, err := workspace.Create(ctx, pool, "Acme Sales")
	if err != nil {
		t.Fatal(err)
	}
	sandbox, err := sandboxmail.Start(sandboxmail.Config{SMTPAddr: "127.0.0.1:0", IMAPAddr: "127.0.0.1:0", Clock: env.Clock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sandbox.Close() })
	secret, err := mail.NewSecret(deliverytest.SecretKey)
	if err != nil {
		t.Fatal(err)
	}
	cfg := billing.DefaultConfig()
	cfg.Plans[0].Limits.EmailsPerMonth = 1_000_000
	if o.emailsLimit > 0 {
		cfg.Plans[0].Limits.EmailsPerMonth = o.emailsLimit
	}
	bill := billing.New(billing.Deps{DB: pool, Config: cfg, Approvals: env.Approvals, PublicURL: "https://vibesell.example.test", Clock: env.Clock,
		Logger: slog.New(slog.DiscardHandler), Meters: map[billing.Metric]billing.Meter{billing.Emails: billing.Counted}})
	sources := mailboxes.Sources{mailboxes.SandboxMailboxes(sandbox, func(ctx context.Context, ws uuid.UUID) ([]mailboxes.OrderedMailbox, error) {
		list, err := env.Sending.ReadyMailboxes(ctx, ws)
		out := make([]mailboxes.OrderedMailbox, len(list))
		for i, r := range list {
			out[i] = mailboxes.OrderedMailbox{WorkspaceID: r.WorkspaceID, Address: mail.Address{Name: r.SenderName, Email: r.Address}, Provider: r.Provider}
		}
		return out, err
	})}
	var provider *sandboxmail.Sandbox
	if o.own {
		var mb mail.Account
		provider, mb = sandboxmailtest.Sandbox(t, mail.Address{Name: "Dana Reyes", Email: "dana@own.test"}, sandboxmail.Config{Clock: env.Clock})
		conns = mailboxes.NewConnections(mailboxes.ConnectionsDeps{DB: pool, Secret: secret, Clock: env.Clock, Roots: provider.Roots(),
			Guard: sandboxmailtest.Guard(t, provider)}) // the provider listens on loopback
		if _, err := conns.Connect(ctx, ws.ID, mailboxes.ConnectRequest{Address: "dana@own.test", SenderName: "Dana Reyes",
			SMTP: mb.SMTP.Settings(), IMAP: mb.IMAP.Settings()}); err != nil {
			t.Fatal(err)
		}
		sources = append(sources, conns.Source())
	}
	suppressions := env.Audience.MailSuppressions()
	keys := mail.NewKeys(mail.KeysDeps{DB: pool, Secret: secret, Clock: env.Clock})
	if o.dkim != "" {
		if err := keys.MakeWith(o.dkim); err != nil {
			t.Fatal(err)
		}
	}
	sender := delivery.NewDispatcher(delivery.DispatcherDeps{DB: pool, Keys: keys, Suppressor: suppressions, Clock: env.Clock})
	var hooks *webhooks.Service
	if o.webhooks {
		hooks = webhooks.New(webhooks.Deps{DB: pool, Secret: secret, Clock: env.Clock, Logger: slog.New(slog.DiscardHandler)})
	}
	engine := delivery.NewEngine(delivery.EngineDeps{DB: pool, Dispatcher: sender, Sources: sources, Campaigns: env.Campaigns, Usage: billingEmails{bill}, Secret: secret, Clock: env.Clock,
		Config: delivery.EngineConfig{PublicURL: "https://vibesell.example.test", NoGap: o.noGap, Webhooks: hooks}})
	return &engineBundle{Env: env, ctx: ctx, ws: ws.ID, sandbox: sandbox, sources: sources, engine: engine, sender: sender, provider: provider, conns: conns,
		poller: replies.NewPoller(replies.PollerDeps{DB: pool, Suppressor: suppressions, Clock: env.Clock}), billing: bill, keys: keys}
}

type billingEmails struct{ b *billing.Service }

func (u billingEmails) UseEmails(ctx context.Context, tx pgx.Tx, ws uuid.UUID, n int) error {
	return u.b.Use(ctx, tx, ws, billing.Emails, n)
}

var twoSteps = []campaigns.Step{
	{Subject: "Lists at {{company|your team}}", Body: "Hi {{first_name|there}},\n\nYour reps build prospect lists by hand. We do it for them, checked and ready each Monday.\n\nWorth a short call next week?\n\nSam"},
	{Body: "Hi {{first_name|there}}, a quick nudge on my note below. Would a ten-minute call help?", WaitBusinessDays: 2, SameThread: true},
}

type campaignSpec struct {
	leads          []vibesell.Lead
	mailboxes      []string
	dailyCap       int
	stopForCompany bool
}

// launch stages the campaign (09:00 to 17:00, Monday to Friday, in UTC
// for leads without a zone) and launches it as a person in the web app
// would.
func (b *engineBundle) launch(t testing.TB, s campaignSpec) string {
	t.Helper()
	b.AddLeads(t, b.ws, s.leads...)
	for _, m := range s.mailboxes {
		if m != "dana@own.test" { // connected, not ordered
			b.AddMailbox(t, b.ws, m, "Sam Lee", featuretest.Warm)
		}
	}
	q, err := b.Campaigns.SaveSequence(b.ctx, b.ws, campaigns.SaveRequest{Steps: twoSteps})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Campaigns.ApproveSequence(b.ctx, b.ws, q.Sequence.ID, 1, "ada"); err != nil {
		t.Fatal(err)
	}
	addr, zone := "Acme Sales, 1 Market St, San Francisco, CA 94105", "UTC"
	c, err := b.Campaigns.Stage(b.ctx, b.ws, campaigns.StageRequest{Name: "Heads of sales", Sequence: q.Sequence.ID,
		WindowStart: 9 * 60, WindowEnd: 17 * 60, Days: []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday},
		DailyCap: s.dailyCap, StopForCompany: s.stopForCompany, Mailboxes: s.mailboxes,
		Sender: workspace.SenderChange{PostalAddress: &addr, TimeZone: &zone}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Blockers) > 0 {
		t.Fatalf("blockers: %q", c.Blockers)
	}
	a, _, err := b.Campaigns.RequestLaunch(b.ctx, b.ws, c.Campaign.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if done := b.Decide(t, b.ws, a.ID, true, approvals.ViaWeb); done.Status != approvals.Done {
		t.Fatalf("launch: %s %v", done.Status, done.Outcome)
	}
	return c.Campaign.ID
}

func (b *engineBundle) tick(t testing.TB) delivery.TickResult {
	t.Helper()
	res, err := b.engine.Tick(b.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func (b *engineBundle) campaign(t testing.TB, id string) campaigns.StagedCampaign {
	t.Helper()
	c, err := b.Campaigns.Campaign(b.ctx, b.ws, id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// accepted is one message the sandbox accepted, read back.
type accepted struct {
	at        time.Time
	from, to  string
	messageID string
	inReplyTo string
	subject   string
}

func (b *engineBundle) delivered(t testing.TB) []accepted {
	t.Helper()
	var out []accepted
	for _, a := range b.sandbox.Accepted() {
		m, err := netmail.ReadMessage(strings.NewReader(string(a.Raw)))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, accepted{at: a.At, from: a.From, to: a.Recipients[0], messageID: m.Header.Get("Message-Id"),
			inReplyTo: m.Header.Get("In-Reply-To"), subject: m.Header.Get("Subject")})
	}
	return out
}

func TestEngineSimulatedWeek(t *testing.T) {
	b := engineSetup(t, engineOptions{})
	zones := map[string]string{}
	var leads []vibesell.Lead
	for i, zone := range []string{"Europe/Berlin", "America/New_York", "Asia/Tokyo", "", "America/Los_Angeles", "Europe/Berlin", "Australia/Sydney", "", "Asia/Kolkata", "America/New_York"} {
		email := fmt.Sprintf("lead%d@company%d.test", i, i)
		leads = append(leads, vibesell.Lead{Email: email, FirstName: fmt.Sprintf("Lead%d", i), Company: fmt.Sprintf("Company %d", i), TimeZone: zone})
		zones[email] = zone
		if zone == "" {
			zones[email] = "UTC" // the workspace's
		}
	}
	mailboxes := []string{"sam@getacme.test", "kai@getacme.test"}
	id := b.launch(t, campaignSpec{leads: leads, mailboxes: mailboxes, dailyCap: 3})

	// A tick every 10 minutes for a week.
	for b.Clock.Now().Before(engineStart.AddDate(0, 0, 7)) {
		b.tick(t)
		b.Clock.Advance(10 * time.Minute)
	}
	got := b.delivered(t)

	t.Run("every email in the lead's window, on a weekday of the lead's zone", func(t *testing.T) {
		for _, r := range got {
			loc, _ := time.LoadLocation(zones[r.to])
			local := r.at.In(loc)
			if h := local.Hour(); h < 9 || h >= 17 || local.Weekday() == time.Saturday || local.Weekday() == time.Sunday {
				t.Errorf("%s got an email at %s, outside 09:00 to 17:00 Monday to Friday", r.to, local.Format(time.RFC1123))
			}
		}
	})
	t.Run("each mailbox at most its daily cap a day, with a gap between two emails", func(t *testing.T) {
		perDay := map[string]int{}
		last := map[string]time.Time{}
		for _, r := range got {
			perDay[r.from+" "+r.at.UTC().Format(time.DateOnly)]++
			if prev, ok := last[r.from]; ok && r.at.Sub(prev) < 2*time.Minute {
				t.Errorf("%s sent twice within %s", r.from, r.at.Sub(prev))
			}
			last[r.from] = r.at
		}
		for day, n := range perDay {
			if n > 3 {
				t.Errorf("%s: %d emails, the cap is 3", day, n)
			}
		}
	})
	t.Run("every lead gets both steps once, the follow-up from the same mailbox, in the thread, two business days on", func(t *testing.T) {
		type lead struct{ first, second *accepted }
		byLead := map[string]*lead{}
		for i := range got {
			r := &got[i]
			l := byLead[r.to]
			if l == nil {
				l = &lead{}
				byLead[r.to] = l
			}
			switch {
			case l.first == nil:
				l.first = r
			case l.second == nil:
				l.second = r
			default:
				t.Errorf("%s got a third email", r.to)
			}
		}
		if len(byLead) != len(leads) {
			t.Fatalf("%d leads written to, want %d", len(byLead), len(leads))
		}
		for to, l := range byLead {
			if l.second == nil {
				t.Errorf("%s got no follow-up within the week", to)
				continue
			}
			if l.second.from != l.first.from || l.second.inReplyTo != l.first.messageID || !strings.HasPrefix(l.second.subject, "Re: ") {
				t.Errorf("%s: follow-up from %s in reply to %s (%q), first from %s as %s", to, l.second.from, l.second.inReplyTo, l.second.subject, l.first.from, l.first.messageID)
			}
			loc, _ := time.LoadLocation(zones[to])
			y, m, d := l.first.at.In(loc).Date()
			if earliest := time.Date(y, m, d+2, 9, 0, 0, 0, loc); l.second.at.Before(earliest) && l.first.at.In(loc).Weekday() <= time.Wednesday {
				t.Errorf("%s: follow-up %s, first email %s: fewer than 2 business days", to, l.second.at, l.first.at)
			}
		}
	})
	t.Run("rotation: new leads spread across the mailboxes", func(t *testing.T) {
		firsts := map[string]int{}
		seen := map[string]bool{}
		for _, r := range got {
			if !seen[r.to] {
				seen[r.to] = true
				firsts[r.from]++
			}
		}
		if diff := cmp.Diff(map[string]int{"sam@getacme.test": 5, "kai@getacme.test": 5}, firsts); diff != "" {
			t.Errorf("first emails per mailbox (-want +got):\n%s", diff)
		}
	})
	t.Run("the campaign is finished and its metrics count the week", func(t *testing.T) {
		got := b.finishedMetrics(t, id)
		want := []counts{{20, 20, 0, 0, 0, 0}, {10, 10, 0, 0, 0, 0}, {10, 10, 0, 0, 0, 0}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("metrics: total, step 1, step 2 (-want +got):\n%s", diff)
		}
	})
}

// A deployed engine keeps a gap between two emails of a mailbox, so one
// tick sends one email from each mailbox however many leads are due, in
// one claim each. BenchmarkBusyDay's paced day (replies/) is shaped on
// this.
func TestADeployedTickSendsOneEmailAMailbox(t *testing.T) {
	b := engineSetup(t, engineOptions{})
	var leads []vibesell.Lead
	for i := range 12 {
		leads = append(leads, vibesell.Lead{Email: fmt.Sprintf("lead%d@company%d.test", i, i), FirstName: "Pat", Company: fmt.Sprintf("Company %d", i)})
	}
	mailboxes := []string{"sam@getacme.test", "kai@getacme.test", "lou@getacme.test"}
	b.launch(t, campaignSpec{leads: leads, mailboxes: mailboxes, dailyCap: 20})
	b.Clock.Set(engineStart.Add(3 * time.Hour)) // inside the window
	b.tick(t)
	perMailbox := map[string]int{}
	for _, r := range b.delivered(t) {
		perMailbox[r.from]++
	}
	want := map[string]int{"sam@getacme.test": 1, "kai@getacme.test": 1, "lou@getacme.test": 1}
	if diff := cmp.Diff(want, perMailbox); diff != "" {
		t.Errorf("emails of one tick per mailbox, 12 leads due (-want +got):\n%s", diff)
	}
}

// launch → emails arrive in the sandbox → a lead replies into the
// sandbox's IMAP inbox → the watcher reads it over IDLE, classifies it,
// and the engine stops that lead and their company; the metrics count it.
func TestEngineFullPath(t *testing.T) {
	b := engineSetup(t, engineOptions{noGap: true})
	leads := []vibesell.Lead{
		{Email: "ana@alpha.test", FirstName: "Ana", Company: "Alpha"},
		{Email: "bob@alpha.test", FirstName: "Bob", Company: "Alpha"},
		{Email: "cid@gamma.test", FirstName: "Cid", Company: "Gamma"},
	}
	id := b.launch(t, campaignSpec{leads: leads, mailboxes: []string{"sam@getacme.test"}, dailyCap: 10, stopForCompany: true})

	b.Clock.Set(time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC))
	if res := b.tick(t); res.Sent != 3 {
		t.Fatalf("first tick sent %d, want 3", res.Sent)
	}
	if c := b.campaign(t, id); c.Campaign.Status != campaigns.Sending {
		t.Errorf("status %s after the first send, want sending", c.Campaign.Status)
	}
	var toAna accepted
	for _, r := range b.delivered(t) {
		if r.to == "ana@alpha.test" {
			toAna = r
		}
	}

	watchers := replies.NewWatchers(replies.WatchersDeps{Poller: b.poller, Sources: b.sources, Interval: time.Hour})
	if n, err := watchers.Sync(b.ctx); err != nil || n != 1 {
		t.Fatalf("watchers: %d, %v", n, err)
	}
	defer watchers.Stop()
	reply := fmt.Sprintf("From: Ana <ana@alpha.test>\nTo: sam@getacme.test\nSubject: Re: %s\nDate: Tue, 1 Dec 2026 10:00:00 +0000\nMessage-ID: <r1@alpha.test>\nIn-Reply-To: %s\n\nInterested, let's talk on Thursday.\n",
		toAna.subject, toAna.messageID)
	if err := b.sandbox.DeliverReply("sam@getacme.test", deliverytest.CRLF(reply)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	var classification, rule string
	for {
		err := b.Pool.QueryRow(b.ctx, `SELECT classification, rule FROM mail_replies WHERE workspace_id = $1`, b.ws).Scan(&classification, &rule)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reply was not read within 30 seconds: %v", err)
		}
		if time.Since(deadline.Add(-30*time.Second)) > 5*time.Second {
			// go-imap's memory server may miss the announcement of a
			// message delivered as it starts idling: a poll catches up.
			if _, err := b.poller.Poll(b.ctx, b.ws, mustMailbox(t, b, "sam@getacme.test")); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if classification != replies.Interested {
		t.Errorf("classified %s (%s), want interested", classification, rule)
	}
	// The reply names the lead it answers as the campaign has them.
	if page, err := replies.NewReplies(replies.RepliesDeps{DB: b.Pool}).List(b.ctx, b.ws, replies.ListOptions{}); err != nil || len(page.Replies) != 1 || page.Replies[0].LeadName != "Ana, Alpha" {
		t.Errorf("the reply listed: %+v, %v; want it to name Ana, Alpha", page.Replies, err)
	}

	// Thursday: the follow-ups are due. Only Cid, at another company, gets
	// one.
	b.Clock.Set(time.Date(2026, 12, 3, 9, 30, 0, 0, time.UTC))
	res := b.tick(t)
	if res.Sent != 1 {
		t.Errorf("follow-ups sent %d, want 1 (Cid's)", res.Sent)
	}
	all := b.delivered(t)
	if last := all[len(all)-1]; last.to != "cid@gamma.test" {
		t.Errorf("the follow-up went to %s, want cid@gamma.test", last.to)
	}
	// The next tick finds every lead done or stopped.
	b.Clock.Advance(10 * time.Minute)
	b.tick(t)
	got := b.finishedMetrics(t, id)
	want := []counts{{4, 4, 1, 1, 0, 0}, {3, 3, 1, 1, 0, 0}, {1, 1, 0, 0, 0, 0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metrics: total, step 1, step 2 (-want +got):\n%s", diff)
	}
}

// counts are a campaign's metrics, for comparing.
type counts struct{ Sent, Delivered, Replied, Positive, Bounced, Unsubscribed int }

// finishedMetrics checks the campaign is finished and returns its
// metrics: in total, then step by step.
func (b *engineBundle) finishedMetrics(t *testing.T, id string) []counts {
	t.Helper()
	c := b.campaign(t, id)
	if c.Campaign.Status != campaigns.Finished {
		t.Errorf("status %s, want finished (every lead had every step or was stopped)", c.Campaign.Status)
	}
	m, err := b.Campaigns.MetricsOf(b.ctx, b.ws, c.Campaign, c.Sequence)
	if err != nil {
		t.Fatal(err)
	}
	of := func(c campaigns.Counts) counts {
		return counts{*c.Sent, *c.Delivered, *c.Replied, *c.PositiveReplies, *c.Bounced, *c.Unsubscribed}
	}
	out := []counts{of(m.Counts)}
	for _, st := range m.Steps {
		out = append(out, of(st.Counts))
	}
	return out
}

func mustMailbox(t testing.TB, b *engineBundle, address string) mail.Account {
	t.Helper()
	list, err := b.sources.Mailboxes(b.ctx, b.ws)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(list, func(m mailboxes.WorkspaceMailbox) bool { return m.Address.Email == address })
	if i < 0 {
		t.Fatalf("no mailbox %s", address)
	}
	return list[i].Account
}

// A hard bounce suppresses its address at once; past 2% of the last sends
// the mailbox pauses itself and the campaign with it, saying why; only a
// person resumes it, and then it sends again.
func TestEngineAutoPause(t *testing.T) {
	b := engineSetup(t, engineOptions{noGap: true, webhooks: true})
	var leads []vibesell.Lead
	for i := range 10 {
		leads = append(leads, vibesell.Lead{Email: fmt.Sprintf("p%d@prospect%d.test", i, i), FirstName: "Pat"})
	}
	id := b.launch(t, campaignSpec{leads: leads[:5], mailboxes: []string{"sam@getacme.test"}, dailyCap: 5})
	b.Clock.Set(time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC))
	if res := b.tick(t); res.Sent != 5 {
		t.Fatalf("sent %d, want 5", res.Sent)
	}
	var bounced accepted
	for _, r := range b.delivered(t) {
		if r.to == "p0@prospect0.test" {
			bounced = r
		}
	}
	dsn := fmt.Sprintf(`From: MAILER-DAEMON@mx.prospect0.test
To: sam@getacme.test
Subject: Undelivered Mail Returned to Sender
Date: Tue, 1 Dec 2026 09:31:00 +0000
Message-ID: <dsn1@mx.prospect0.test>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="b1"

--b1
Content-Type: text/plain

Your message could not be delivered.

--b1
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.prospect0.test

Final-Recipient: rfc822; p0@prospect0.test
Action: failed
Status: 5.1.1

--b1
Content-Type: text/rfc822-headers

Message-ID: %s

--b1--
`, bounced.messageID)
	if err := b.sandbox.DeliverReply("sam@getacme.test", deliverytest.CRLF(dsn)); err != nil {
		t.Fatal(err)
	}
	if n, err := b.poller.Poll(b.ctx, b.ws, mustMailbox(t, b, "sam@getacme.test")); err != nil || n != 1 {
		t.Fatalf("poll: %d, %v", n, err)
	}
	if s, err := b.Audience.MailSuppressions().Suppressed(b.ctx, b.ws, "p0@prospect0.test"); err != nil || !s {
		t.Errorf("the hard bounce is not suppressed: %v %v", s, err)
	}

	b.Clock.Advance(time.Hour)
	res := b.tick(t)
	c := b.campaign(t, id)
	if res.Sent != 0 || c.Campaign.Status != campaigns.Paused || !c.Campaign.PausedAutomatically ||
		!strings.Contains(*c.Campaign.PausedReason, "1 of the last 5 emails sent from sam@getacme.test bounced for good (20.0%; the limit is 2%)") {
		t.Fatalf("after the bounce: sent %d, status %s, automatic %v, reason %v", res.Sent, c.Campaign.Status, c.Campaign.PausedAutomatically, c.Campaign.PausedReason)
	}
	// The pause is the workspace's campaign.paused event, with why, once.
	var events int
	if err := b.Pool.QueryRow(b.ctx, `SELECT count(*) FROM webhook_events WHERE workspace_id = $1 AND type = 'campaign.paused'
		AND body->'data'->'campaign'->>'id' = $2 AND body->'data'->>'why' = $3`, b.ws, id, *c.Campaign.PausedReason).Scan(&events); err != nil || events != 1 {
		t.Errorf("campaign.paused events: %d (%v), want 1", events, err)
	}

	t.Run("only a person resumes it, and it sends again", func(t *testing.T) {
		a, _, err := b.Campaigns.RequestResume(b.ctx, b.ws, id, "")
		if err != nil {
			t.Fatal(err)
		}
		if a.DecideHere {
			t.Error("the resume of an automatic pause may be decided in the conversation")
		}
		b.Decide(t, b.ws, a.ID, true, approvals.ViaWeb)
		b.Clock.Set(time.Date(2026, 12, 3, 9, 30, 0, 0, time.UTC))
		if res := b.tick(t); res.Sent != 4 {
			t.Errorf("after the resume: sent %d follow-ups, want 4 (not the bounced address)", res.Sent)
		}
		if c := b.campaign(t, id); c.Campaign.Status != campaigns.Sending {
			t.Errorf("status %s, want sending", c.Campaign.Status)
		}
	})
}

// The plan's monthly emails run out: the campaign pauses itself with the
// limit as the reason, and nothing beyond the limit goes out.
func TestEngineEmailsLimit(t *testing.T) {
	b := engineSetup(t, engineOptions{noGap: true, emailsLimit: 2})
	leads := []vibesell.Lead{{Email: "a@a.test"}, {Email: "b@b.test"}, {Email: "c@c.test"}}
	id := b.launch(t, campaignSpec{leads: leads, mailboxes: []string{"sam@getacme.test"}, dailyCap: 10})
	b.Clock.Set(time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC))
	res := b.tick(t)
	c := b.campaign(t, id)
	if res.Sent != 2 || len(b.sandbox.Accepted()) != 2 || c.Campaign.Status != campaigns.Paused || !c.Campaign.PausedAutomatically ||
		!strings.Contains(*c.Campaign.PausedReason, "The plan's monthly emails are used up: The Free plan allows 2 emails this month") {
		t.Fatalf("sent %d (%d accepted), status %s, reason %v", res.Sent, len(b.sandbox.Accepted()), c.Campaign.Status, c.Campaign.PausedReason)
	}
}

func dsn(n int, recipient, status, messageID string) []byte {
	return deliverytest.CRLF(fmt.Sprintf(`From: Mail Delivery Subsystem <mailer-daemon@mx.prospect.test>
To: sam@getacme.test
Subject: Delivery Status Notification
Date: Tue, 1 Dec 2026 10:00:00 +0000
Message-ID: <dsn%d@mx.prospect.test>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="b1"

--b1
Content-Type: text/plain

Delivery to %[2]s failed.

--b1
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.prospect.test

Final-Recipient: rfc822; %[2]s
Action: failed
Status: %[3]s

--b1
Content-Type: text/rfc822-headers

Message-ID: %[4]s

--b1--
`, n, recipient, status, messageID))
}

// A soft bounce is tried again after its back-off (15 minutes, then an
// hour), with the same Message-ID; after the last try bounces too, the
// address is suppressed, and nothing more goes to it.
func TestEngineSoftBounceRetries(t *testing.T) {
	b := engineSetup(t, engineOptions{noGap: true})
	id := b.launch(t, campaignSpec{leads: []vibesell.Lead{{Email: "full@prospect.test", FirstName: "Flo"}}, mailboxes: []string{"sam@getacme.test"}, dailyCap: 10})
	b.Clock.Set(time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC))
	mb := mustMailbox(t, b, "sam@getacme.test")
	var sends []time.Time
	messageID := ""
	for try := 1; try <= 3; try++ {
		if res := b.tick(t); res.Sent != 1 {
			t.Fatalf("try %d: sent %d", try, res.Sent)
		}
		got := b.delivered(t)
		if messageID == "" {
			messageID = got[0].messageID
		}
		if last := got[len(got)-1]; last.messageID != messageID || last.to != "full@prospect.test" {
			t.Errorf("try %d went out as %s to %s, want %s", try, last.messageID, last.to, messageID)
		}
		sends = append(sends, b.Clock.Now())
		if err := b.sandbox.DeliverReply("sam@getacme.test", dsn(try, "full@prospect.test", "4.2.2", messageID)); err != nil {
			t.Fatal(err)
		}
		if _, err := b.poller.Poll(b.ctx, b.ws, mb); err != nil {
			t.Fatal(err)
		}
		// Not again before the back-off ends.
		b.Clock.Advance(10 * time.Minute)
		if res := b.tick(t); res.Sent != 0 {
			t.Fatalf("try %d: resent within 10 minutes", try)
		}
		b.Clock.Advance(time.Duration(15*(1<<(2*(try-1))))*time.Minute - 10*time.Minute + time.Minute)
	}
	if suppressed, err := b.Audience.MailSuppressions().Suppressed(b.ctx, b.ws, "full@prospect.test"); err != nil || !suppressed {
		t.Errorf("after the third soft bounce the address is not suppressed (%v)", err)
	}
	b.Clock.Set(time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)) // the follow-up's day
	if res := b.tick(t); res.Sent != 0 || res.Suppressed != 1 || len(b.delivered(t)) != 3 {
		t.Errorf("after the suppression: sent %d more (%d suppressed), %d in all", res.Sent, res.Suppressed, len(b.delivered(t)))
	}
	if c := b.campaign(t, id); c.Campaign.Status != campaigns.Finished {
		t.Errorf("status %s, want finished: its only lead is suppressed", c.Campaign.Status)
	}
	if sends[1].Sub(sends[0]) < 15*time.Minute || sends[2].Sub(sends[1]) < time.Hour {
		t.Errorf("tries at %v: closer than the back-off", sends)
	}
}

// One lead unsubscribes with the link, another asks to be removed in a
// reply: neither gets the follow-up, both count as unsubscribed, and the
// campaign finishes.
func TestEngineUnsubscribes(t *testing.T) {
	b := engineSetup(t, engineOptions{noGap: true})
	leads := []vibesell.Lead{{Email: "ana@alpha.test", FirstName: "Ana"}, {Email: "ben@beta.test", FirstName: "Ben"}}
	id := b.launch(t, campaignSpec{leads: leads, mailboxes: []string{"sam@getacme.test"}, dailyCap: 10})
	b.Clock.Set(time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC))
	if res := b.tick(t); res.Sent != 2 {
		t.Fatalf("sent %d, want 2", res.Sent)
	}
	if err := b.Audience.MailSuppressions().Suppress(b.ctx, b.ws, "ana@alpha.test", "unsubscribed"); err != nil {
		t.Fatal(err)
	}
	var toBen accepted
	for _, r := range b.delivered(t) {
		if r.to == "ben@beta.test" {
			toBen = r
		}
	}
	reply := fmt.Sprintf("From: ben@beta.test\nTo: sam@getacme.test\nSubject: Re: hi\nDate: Tue, 1 Dec 2026 11:00:00 +0000\nMessage-ID: <u1@beta.test>\nIn-Reply-To: %s\n\nPlease remove me from your list.\n", toBen.messageID)
	if err := b.sandbox.DeliverReply("sam@getacme.test", deliverytest.CRLF(reply)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.poller.Poll(b.ctx, b.ws, mustMailbox(t, b, "sam@getacme.test")); err != nil {
		t.Fatal(err)
	}
	b.Clock.Set(time.Date(2026, 12, 3, 9, 30, 0, 0, time.UTC))
	if res := b.tick(t); res.Sent != 0 {
		t.Errorf("follow-ups sent %d, want none", res.Sent)
	}
	b.Clock.Advance(10 * time.Minute)
	b.tick(t)
	want := []counts{{2, 2, 1, 0, 0, 2}, {2, 2, 1, 0, 0, 2}, {0, 0, 0, 0, 0, 0}}
	if diff := cmp.Diff(want, b.finishedMetrics(t, id)); diff != "" {
		t.Errorf("metrics: total, step 1, step 2 (-want +got):\n%s", diff)
	}
}

// arf is a feedback-loop report (RFC 5965) as a mailbox provider sends
// one: a human-readable part, the machine-readable report, and the
// reported message, whole (with Original-Rcpt-To) or its headers only
// (without: the recipient is read from the reported To).
func arf(reportID, recipient, messageID string, headersOnly bool) string {
	rcpt, original := "Original-Rcpt-To: <"+recipient+">\n", "message/rfc822"
	body := "\nHi Pat,\n\nYour reps build prospect lists by hand.\n"
	if headersOnly {
		rcpt, original, body = "", "text/rfc822-headers", ""
	}
	return fmt.Sprintf(`From: Mail Provider Feedback Loop <fbl@feedback.mailprovider.test>
To: sam@getacme.test
Subject: FW: Lists at Prospect
Date: Tue, 1 Dec 2026 10:05:00 +0000
Message-ID: <%s@feedback.mailprovider.test>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=feedback-report;
	boundary="part1_13d.2e68ed54_boundary"

--part1_13d.2e68ed54_boundary
Content-Type: text/plain; charset="US-ASCII"
Content-Transfer-Encoding: 7bit

This is an email abuse report for an email message received from IP
192.0.2.1 on Tue, 1 Dec 2026 09:30:00 +0000. For more information
about this format please see https://www.rfc-editor.org/rfc/rfc5965.

--part1_13d.2e68ed54_boundary
Content-Type: message/feedback-report

Feedback-Type: abuse
User-Agent: MailProviderFBL/2.1
Version: 1
Original-Mail-From: <sam@getacme.test>
%sArrival-Date: Tue, 1 Dec 2026 09:30:00 +0000
Reporting-MTA: dns; mx.mailprovider.test
Source-IP: 192.0.2.1
Reported-Domain: getacme.test

--part1_13d.2e68ed54_boundary
Content-Type: %s
Content-Disposition: inline

From: Sam Lee <sam@getacme.test>
To: Pat <%s>
Subject: Lists at Prospect
Date: Tue, 1 Dec 2026 09:30:00 +0000
Message-ID: %s
%s
--part1_13d.2e68ed54_boundary--
`, reportID, rcpt, original, recipient, messageID, body)
}

// Feedback-loop reports arrive in the mailbox: each is matched to the
// email it reports, kept as a complaint with its rule, and suppresses the
// address at once; one complaint does not pause anything, a second within
// the last 100 emails pauses the mailbox and its campaign, saying why.
func TestEngineComplaints(t *testing.T) {
	b := engineSetup(t, engineOptions{noGap: true})
	var leads []vibesell.Lead
	for i := range 5 {
		leads = append(leads, vibesell.Lead{Email: fmt.Sprintf("p%d@prospect%d.test", i, i), FirstName: "Pat"})
	}
	id := b.launch(t, campaignSpec{leads: leads, mailboxes: []string{"sam@getacme.test"}, dailyCap: 5})
	b.Clock.Set(time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC))
	if res := b.tick(t); res.Sent != 5 {
		t.Fatalf("sent %d, want 5", res.Sent)
	}
	sent := map[string]accepted{}
	for _, r := range b.delivered(t) {
		sent[r.to] = r
	}
	mb := mustMailbox(t, b, "sam@getacme.test")
	complain := func(t *testing.T, n int, recipient string, headersOnly bool) {
		t.Helper()
		report := arf(fmt.Sprintf("arf%d", n), recipient, sent[recipient].messageID, headersOnly)
		if err := b.sandbox.DeliverReply("sam@getacme.test", deliverytest.CRLF(report)); err != nil {
			t.Fatal(err)
		}
		if got, err := b.poller.Poll(b.ctx, b.ws, mb); err != nil || got != 1 {
			t.Fatalf("poll: %d, %v", got, err)
		}
		var classification, rule, matchedBy string
		var lead int64
		err := b.Pool.QueryRow(b.ctx, `SELECT r.classification, r.rule, r.matched_by, r.lead_id FROM mail_replies r WHERE r.workspace_id = $1 AND r.message_id = $2`,
			b.ws, fmt.Sprintf("<arf%d@feedback.mailprovider.test>", n)).Scan(&classification, &rule, &matchedBy, &lead)
		if err != nil {
			t.Fatal(err)
		}
		var to string
		if err := b.Pool.QueryRow(b.ctx, `SELECT recipient FROM mail_sends WHERE workspace_id = $1 AND lead_id = $2`, b.ws, lead).Scan(&to); err != nil {
			t.Fatal(err)
		}
		want := []string{"complaint", "a feedback-loop report (Feedback-Type: abuse) from fbl@feedback.mailprovider.test says " + recipient + " marked the email as spam", "thread", recipient}
		if diff := cmp.Diff(want, []string{classification, rule, matchedBy, to}); diff != "" {
			t.Errorf("the report as kept (-want +got):\n%s", diff)
		}
		if s, err := b.Audience.MailSuppressions().Suppressed(b.ctx, b.ws, recipient); err != nil || !s {
			t.Errorf("the address that complained is not suppressed: %v %v", s, err)
		}
	}

	complain(t, 1, "p0@prospect0.test", false)
	b.Clock.Advance(time.Hour)
	b.tick(t)
	if c := b.campaign(t, id); c.Campaign.Status != campaigns.Sending {
		t.Fatalf("after one complaint: status %s (%v), want sending", c.Campaign.Status, c.Campaign.PausedReason)
	}

	complain(t, 2, "p1@prospect1.test", true)
	b.Clock.Advance(time.Hour)
	b.tick(t)
	c := b.campaign(t, id)
	want := "VibeSell paused mailbox sam@getacme.test for its spam complaints: 2 of the last 5 emails sent from sam@getacme.test were marked as spam by their recipients (40.0%; the limit is 0.3%). Their addresses are suppressed; check who the campaign writes to and what it says before it sends again."
	if c.Campaign.Status != campaigns.Paused || !c.Campaign.PausedAutomatically || c.Campaign.PausedReason == nil || *c.Campaign.PausedReason != want {
		t.Fatalf("after two complaints: status %s, automatic %v, reason %v", c.Campaign.Status, c.Campaign.PausedAutomatically, c.Campaign.PausedReason)
	}
}

// A stop that commits after a step was claimed and before it is handed
// over sends nothing: the stop is read again when the step is marked,
// right before DATA, and the step is left to be claimed again if the
// campaign resumes.
func TestEngineStopBetweenClaimAndSend(t *testing.T) {
	b := engineSetup(t, engineOptions{noGap: true})
	leads := []vibesell.Lead{{Email: "p0@prospect0.test", FirstName: "Pat"}, {Email: "p1@prospect1.test", FirstName: "Lee"}}
	id := b.launch(t, campaignSpec{leads: leads, mailboxes: []string{"sam@getacme.test"}, dailyCap: 5})
	b.Clock.Set(time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC))
	delivery.SetAfterClaim(b.sender, func() {
		if _, err := b.Campaigns.Pause(b.ctx, b.ws, id, "stopped by the person", false); err != nil {
			t.Error(err)
		}
	})
	if res := b.tick(t); res.Sent != 0 {
		t.Errorf("sent %d after the stop, want 0", res.Sent)
	}
	if got := b.delivered(t); len(got) != 0 {
		t.Errorf("the sandbox received %d messages after the stop", len(got))
	}
}

// A stop still in flight when a claimed step is marked (a pause written
// and not yet committed) is waited for, then read: nothing goes out. The
// mark locks every campaign of its steps for share, not only those it
// already sees stopped.
func TestEngineStopInFlightAtTheMarkIsWaitedFor(t *testing.T) {
	b := engineSetup(t, engineOptions{noGap: true})
	leads := []vibesell.Lead{{Email: "p0@prospect0.test", FirstName: "Pat"}, {Email: "p1@prospect1.test", FirstName: "Lee"}}
	id := b.launch(t, campaignSpec{leads: leads, mailboxes: []string{"sam@getacme.test"}, dailyCap: 5})
	b.Clock.Set(time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC))
	var once sync.Once
	committed := make(chan error, 1)
	delivery.SetAfterClaim(b.sender, func() {
		once.Do(func() {
			tx, err := b.Pool.Begin(b.ctx)
			if err != nil {
				committed <- err
				return
			}
			if _, err := tx.Exec(b.ctx, `UPDATE campaigns SET status = 'paused', paused_reason = 'stopped by the person', paused_at = now()
				WHERE workspace_id = $1 AND id = $2`, b.ws, id); err != nil {
				tx.Rollback(b.ctx)
				committed <- err
				return
			}
			go func() {
				// The pause commits once something waits for its lock
				// (the mark), or after five seconds when nothing does.
				for range 500 {
					var waiting int
					if err := b.Pool.QueryRow(b.ctx, `SELECT count(*) FROM pg_stat_activity
						WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil || waiting > 0 {
						break
					}
					time.Sleep(10 * time.Millisecond)
				}
				committed <- tx.Commit(b.ctx)
			}()
		})
	})
	res := b.tick(t)
	if err := <-committed; err != nil {
		t.Fatal(err)
	}
	if res.Sent != 0 {
		t.Errorf("sent %d while the stop was being committed, want 0", res.Sent)
	}
	if got := b.delivered(t); len(got) != 0 {
		t.Errorf("the sandbox received %d messages after the stop", len(got))
	}
}

// A person's own connected mailbox sends a campaign through its own
// provider, unsigned by VibeSell (its provider signs; our key is in no DNS
// of that domain), and its replies are read from its own IMAP server.
func TestEngineSendsFromAConnectedMailbox(t *testing.T) {
	b := engineSetup(t, engineOptions{noGap: true, own: true})
	leads := []vibesell.Lead{{Email: "p0@prospect0.test", FirstName: "Pat"}, {Email: "p1@prospect1.test", FirstName: "Lee"}}
	b.launch(t, campaignSpec{leads: leads, mailboxes: []string{"dana@own.test"}, dailyCap: 5})
	b.Clock.Set(time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC))
	if res := b.tick(t); res.Sent != 2 {
		t.Fatalf("sent %d, want 2", res.Sent)
	}
	if n := len(b.sandbox.Accepted()); n != 0 {
		t.Errorf("VibeSell's sandbox received %d messages; they go through the person's provider", n)
	}
	got := b.provider.Accepted()
	var to []string
	for _, a := range got {
		to = append(to, a.From+" -> "+a.Recipients[0])
		if strings.Contains(string(a.Raw), "DKIM-Signature:") {
			t.Errorf("VibeSell signed a message of the person's own mailbox:\n%s", a.Raw)
		}
	}
	slices.Sort(to)
	if diff := cmp.Diff([]string{"dana@own.test -> p0@prospect0.test", "dana@own.test -> p1@prospect1.test"}, to); diff != "" {
		t.Errorf("the provider's messages mismatch (-want +got):\n%s", diff)
	}
	m, err := netmail.ReadMessage(strings.NewReader(string(got[0].Raw)))
	if err != nil {
		t.Fatal(err)
	}
	reply := fmt.Sprintf("From: %s\r\nTo: dana@own.test\r\nSubject: Re: %s\r\nMessage-ID: <r1@prospect.test>\r\nIn-Reply-To: %s\r\n\r\nYes, interested. Thursday?\r\n",
		got[0].Recipients[0], m.Header.Get("Subject"), m.Header.Get("Message-Id"))
	if err := b.provider.DeliverReply("dana@own.test", []byte(reply)); err != nil {
		t.Fatal(err)
	}
	own, err := b.conns.Mailboxes(b.ctx, b.ws)
	if err != nil || len(own) != 1 {
		t.Fatalf("connected mailboxes: %d (%v)", len(own), err)
	}
	if kept, err := b.poller.Poll(b.ctx, b.ws, own[0]); err != nil || kept != 1 {
		t.Errorf("replies read from the own mailbox: %d (%v), want 1", kept, err)
	}
}
