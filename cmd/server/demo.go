package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/approvals"
	"vibesell/audience"
	"vibesell/auth"
	"vibesell/campaigns"
	"vibesell/cards"
	"vibesell/mailboxes"
	"vibesell/replies"
	"vibesell/sending"
	"vibesell/workspace"
)

// cmdDemo runs `server demo`: it fills an empty workspace with sample
// data, in the sandbox, through the features' own methods (the ones the
// tools and the web app call), so that a reviewer or a new user sees a
// whole journey at once: an offer, a ready sending setup, leads from the
// sample directory, an approved sequence, and a running campaign that
// has sent emails and got replies. It prints how to sign in to the web
// app with an account of its own (a password, no second factor).
func (c console) cmdDemo(fs *flag.FlagSet) func(context.Context, []string) error {
	slug := fs.String("workspace", "", "the `SLUG` of the empty workspace to fill (server workspace create makes one)")
	email := fs.String("email", "", "the `EMAIL` of the web account it creates (default: demo@SLUG.vibesell.test)")
	return func(ctx context.Context, _ []string) error { return c.demo(ctx, *slug, *email) }
}

// demoMark is what every name the demo gives says: the data is sample
// data, and its emails never leave the sandbox.
const demoMark = "(sample data)"

// demoLeads is how many leads of the sample directory the demo imports:
// a few per mailbox, so the campaign keeps sending after the demo ends.
const demoLeads = 12

// demoReplies are the answers the demo writes as its first leads would,
// one a class the replies inbox shows differently.
var demoReplies = []string{
	"Sounds interesting. Could we talk on Thursday afternoon? (sample reply written by server demo)",
	"Not right now, thanks. Try me again next quarter. (sample reply written by server demo)",
}

func (c console) demo(ctx context.Context, slug, email string) error {
	return withDatabase(ctx, c.cfg, c.logger, false, func(db *pgxpool.Pool) error {
		ws, err := findWorkspace(ctx, db, slug)
		if err != nil {
			return err
		}
		if email == "" {
			email = "demo@" + ws.Slug + ".vibesell.test"
		}
		svc, err := newServices(c.cfg, db, nil, c.logger)
		if err != nil {
			return err
		}
		if !svc.sending.Sandbox() {
			return vibesell.Errorf(vibesell.EINVALID, "The demo fills a workspace only in the sandbox (SENDING_PROVIDER=sandbox): with a real provider it would order real domains and send real email.")
		}
		if err := demoRefuseFilled(ctx, svc, ws); err != nil {
			return err
		}
		// The demo's sandbox mail server is its own, for as long as it
		// runs: on ports of its own, so a server running beside it (on
		// MAIL_SANDBOX_SMTP_ADDR) keeps its own.
		cfg := c.cfg
		cfg.Mail.SandboxSMTPAddr, cfg.Mail.SandboxIMAPAddr = "127.0.0.1:0", "127.0.0.1:0"
		m, err := startMail(cfg, db, svc, c.logger)
		if err != nil {
			return err
		}
		defer m.Close()
		if err := m.wireEngine(cfg, db, db, svc, c.logger); err != nil {
			return err
		}
		if m.Engine == nil {
			return errors.New("the demo's campaign cannot send without the mail secret key: set MAIL_SECRET_KEY to the one the server uses")
		}
		if _, err := audience.LoadSampleDirectory(ctx, db); err != nil {
			return err
		}
		password := newPassword()
		u, err := svc.accounts.CreateUser(ctx, auth.NewUser{WorkspaceID: ws.ID, Email: email, Name: "Demo reviewer", Password: password, TimeZone: "UTC"})
		if err != nil {
			return err
		}
		d := demoRun{svc: svc, ws: ws.ID, by: u.Email, byUser: u.ID, m: m, db: db}
		report, err := d.fill(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.stdout, "Filled workspace %s with sample data, in the sandbox: no email left this server.\n", ws.Slug)
		fmt.Fprintln(c.stdout, report)
		fmt.Fprintf(c.stdout, "Web app account: %s (no second factor).\n", u.Email)
		if err := tellWhereToSignIn(ctx, c.cfg, db, c.logger, c.stdout); err != nil {
			return err
		}
		fmt.Fprintf(c.stdout, "Password (shown only once): %s\n", password)
		return nil
	})
}

// demoRefuseFilled refuses a workspace that holds anything the demo would
// make: it never mixes sample data with a person's own.
func demoRefuseFilled(ctx context.Context, svc *services, ws workspace.Workspace) error {
	offer, err := svc.workspaces.FindOffer(ctx, ws.ID)
	if err != nil {
		return err
	}
	setup, err := svc.sending.Summary(ctx, ws.ID)
	if err != nil {
		return err
	}
	leads, err := svc.audience.ImportedLeads(ctx, ws.ID)
	if err != nil {
		return err
	}
	listed, err := svc.campaigns.List(ctx, ws.ID, 1)
	if err != nil {
		return err
	}
	if offer != nil || len(setup.Domains) > 0 || len(leads) > 0 || len(listed) > 0 {
		return vibesell.Errorf(vibesell.ECONFLICT, "Workspace %s already holds data (an offer, a sending setup, leads or campaigns): the demo fills only an empty workspace. Make one with `server workspace create Demo` and run the demo on its slug.", ws.Slug)
	}
	return nil
}

// demoRun is one filling of a workspace.
type demoRun struct {
	svc    *services
	ws     uuid.UUID
	by     string // the demo account, who decides the approvals
	byUser uuid.UUID
	m      *mailEngine
	db     *pgxpool.Pool
}

// fill walks the journey a person takes with the assistant, in order, and
// says what it made.
func (d demoRun) fill(ctx context.Context) (string, error) {
	name, address, zone := "Dana Demo", "Sample Co (sample data), 1 Example Street, Springfield, USA", "UTC"
	if _, err := d.svc.workspaces.SaveOfferAndSender(ctx, d.ws, workspace.Offer{
		CompanyName:   "Sample Co " + demoMark,
		CompanyDomain: "sampleco.com",
		Product:       "a shared inbox for small support teams (sample data made by server demo)",
		Audience:      "heads of support and customer success at software companies",
		Value:         "answer customers twice as fast without hiring",
		CallToAction:  "a 20-minute call",
	}, workspace.SenderChange{PostalAddress: &address, Name: &name, TimeZone: &zone}); err != nil {
		return "", fmt.Errorf("save the offer: %w", err)
	}
	if _, err := d.svc.workspaces.Remember(ctx, d.ws, "company", "This workspace holds sample data made by `server demo`: its emails go to the sandbox mail server and never leave it."); err != nil {
		return "", fmt.Errorf("remember: %w", err)
	}
	domains, mailboxCount, err := d.sendingSetup(ctx)
	if err != nil {
		return "", err
	}
	imported, err := d.leads(ctx)
	if err != nil {
		return "", err
	}
	campaign, sent, got, err := d.campaign(ctx)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("- offer: Sample Co %s\n- sending setup: %s and %s, ready and warm (a sandbox shortcut)\n- leads: %s from the sample directory\n- campaign %s: running, %s sent, %s received",
		demoMark, vibesell.Plural(domains, "domain", "domains"), vibesell.Plural(mailboxCount, "mailbox", "mailboxes"),
		vibesell.Count(imported), campaign, vibesell.Plural(sent, "email", "emails"), vibesell.Plural(got, "reply", "replies")), nil
}

// settle answers a flow's questions with the first choice (or pick, when
// a question offers it), as a person relaying their answers would, until
// the flow settles.
func settle[T any](ask func([]cards.Answer) (sending.Outcome[T], error), pick string) (*T, error) {
	var answers []cards.Answer
	for range 20 {
		out, err := ask(answers)
		if err != nil {
			return nil, err
		}
		if out.Card == nil {
			return out.Result, nil
		}
		choice := out.Card.Choices[0].ID
		for _, c := range out.Card.Choices {
			if c.ID == pick {
				choice = pick
			}
		}
		answers = append(answers, cards.Answer{Card: out.Card.ID, Answer: choice})
	}
	return nil, errors.New("the sending setup kept asking: more than 20 questions")
}

// sendingSetup chooses addresses under the brand, sizes them, picks the
// proposed domain and addresses, orders them through an approval the
// demo account decides, and makes them ready and warm.
func (d demoRun) sendingSetup(ctx context.Context) (domains, mailboxCount int, err error) {
	if _, err := settle(func(a []cards.Answer) (sending.Outcome[sending.SourceChoice], error) {
		return d.svc.sending.ChooseSource(ctx, d.ws, sending.ChooseSourceRequest{}, a)
	}, string(sending.SourceOwnNames)); err != nil {
		return 0, 0, fmt.Errorf("choose the source: %w", err)
	}
	if _, err := d.svc.sending.ConfirmSizing(ctx, d.ws, sending.SizingRequest{DailyVolume: 90}); err != nil {
		return 0, 0, fmt.Errorf("confirm the sizing: %w", err)
	}
	if _, err := settle(func(a []cards.Answer) (sending.Outcome[sending.DomainsChoice], error) {
		return d.svc.sending.ProposeDomains(ctx, d.ws, sending.ProposeDomainsRequest{}, a)
	}, ""); err != nil {
		return 0, 0, fmt.Errorf("pick the domains: %w", err)
	}
	if _, err := settle(func(a []cards.Answer) (sending.Outcome[sending.EmailStep], error) {
		return d.svc.sending.ProposeEmail(ctx, d.ws, sending.ProposeEmailRequest{SenderNames: []string{"Dana Demo"}}, a)
	}, "first_name"); err != nil {
		return 0, 0, fmt.Errorf("pick the addresses: %w", err)
	}
	order, _, err := d.svc.sending.RequestOrder(ctx, d.ws, d.by)
	if err != nil {
		return 0, 0, fmt.Errorf("ask for the order: %w", err)
	}
	if err := d.approve(ctx, order.ID); err != nil {
		return 0, 0, fmt.Errorf("order: %w", err)
	}
	if _, err := d.svc.sending.SandboxReady(ctx, d.ws); err != nil {
		return 0, 0, fmt.Errorf("make the setup ready: %w", err)
	}
	setup, err := d.svc.sending.Summary(ctx, d.ws)
	if err != nil {
		return 0, 0, err
	}
	return len(setup.Domains), setup.MailboxCount(sending.MailboxWarm), nil
}

// approve decides an approval as the demo account in the web app would,
// and carries it out at once, as the job the decision queued would (that
// job, run later by a server, then finds it done and does nothing).
func (d demoRun) approve(ctx context.Context, id string) error {
	user := d.byUser
	if _, _, err := d.svc.approvals.Decide(ctx, d.ws, id, approvals.Decision{Approve: true, By: d.by, ByUser: &user, Via: approvals.ViaWeb,
		Reason: "Sample data: approved by server demo, in the sandbox."}); err != nil {
		return err
	}
	if err := d.svc.approvals.Execute(ctx, d.ws, id, 1, 1); err != nil {
		return err
	}
	a, err := d.svc.approvals.Find(ctx, d.ws, id)
	if err != nil {
		return err
	}
	if a.Status != approvals.Done {
		return fmt.Errorf("approval %s ended %s", id, a.Status)
	}
	return nil
}

// leads describes the target, confirms filters the sample directory
// answers, and imports a few of its contacts through an approval.
func (d demoRun) leads(ctx context.Context) (int, error) {
	if _, err := d.svc.audience.SaveDescription(ctx, d.ws, audience.Description{
		Who:     "heads of support at software companies (sample data)",
		Problem: "too many customer emails for a small team",
	}); err != nil {
		return 0, fmt.Errorf("describe the target: %w", err)
	}
	saved, err := d.svc.audience.SaveFilters(ctx, d.ws, audience.Filters{Regions: []string{"Europe", "Americas", "Asia", "Oceania", "Africa"}}, nil)
	if err != nil {
		return 0, fmt.Errorf("save the filters: %w", err)
	}
	if _, err := d.svc.audience.Confirm(ctx, d.ws, saved.Target.FiltersVersion); err != nil {
		return 0, fmt.Errorf("confirm the filters: %w", err)
	}
	imp, _, err := d.svc.audience.RequestImport(ctx, d.ws, audience.ImportRequest{Count: demoLeads, RequestedBy: d.by})
	if err != nil {
		return 0, fmt.Errorf("ask for the import: %w", err)
	}
	if err := d.approve(ctx, imp.ID); err != nil {
		return 0, fmt.Errorf("import: %w", err)
	}
	leads, err := d.svc.audience.ImportedLeads(ctx, d.ws)
	return len(leads), err
}

// campaign saves and approves a sequence, stages a campaign that may send
// at any hour of any day, launches it through an approval, has the engine
// send what is due, and answers the first emails as their leads would.
func (d demoRun) campaign(ctx context.Context) (id string, sent, got int, err error) {
	seq, err := d.svc.campaigns.SaveSequence(ctx, d.ws, campaigns.SaveRequest{Name: "Sample sequence " + demoMark, Steps: []campaigns.Step{
		{Subject: "Support at {{company|your team}}", Body: "Hi {{first_name|there}},\n\nHow many customer emails does your team answer a day? Sample Co helps small support teams answer twice as fast.\n\nWorth a 20-minute call?\n\nDana\n\n(This is sample data from the VibeSell sandbox.)"},
		{Body: "Hi {{first_name|there}}, a short nudge on my note above. Is support email a pain this quarter?\n\nDana", WaitBusinessDays: 3, SameThread: true},
	}})
	if err != nil {
		return "", 0, 0, fmt.Errorf("save the sequence: %w", err)
	}
	if _, err := d.svc.campaigns.ApproveSequence(ctx, d.ws, seq.Sequence.ID, seq.Sequence.Version, d.by); err != nil {
		return "", 0, 0, fmt.Errorf("approve the sequence: %w", err)
	}
	if _, err := d.svc.campaigns.CheckFirstEmail(ctx, d.ws, campaigns.CheckRequest{Sequence: seq.Sequence.ID}); err != nil {
		return "", 0, 0, fmt.Errorf("check the first email: %w", err)
	}
	every := []time.Weekday{time.Sunday, time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday}
	staged, err := d.svc.campaigns.Stage(ctx, d.ws, campaigns.StageRequest{Name: "Sample campaign " + demoMark, Sequence: seq.Sequence.ID,
		WindowStart: 0, WindowEnd: 24 * 60, Days: every})
	if err != nil {
		return "", 0, 0, fmt.Errorf("stage the campaign: %w", err)
	}
	id = staged.Campaign.ID
	launch, _, err := d.svc.campaigns.RequestLaunch(ctx, d.ws, id, d.by)
	if err != nil {
		return "", 0, 0, fmt.Errorf("ask for the launch: %w", err)
	}
	if err := d.approve(ctx, launch.ID); err != nil {
		return "", 0, 0, fmt.Errorf("launch: %w", err)
	}
	// The engine sends one email per mailbox a tick (the next waits its
	// gap), as the server's job would every few seconds.
	res, err := d.m.Engine.Tick(ctx)
	if err != nil {
		return "", 0, 0, fmt.Errorf("send: %w", err)
	}
	if res.Sent == 0 {
		return "", 0, 0, fmt.Errorf("the engine sent nothing (%d held, %d failed)", res.Held, res.Failed)
	}
	got, err = d.reply(ctx)
	return id, res.Sent, got, err
}

// reply answers the first campaign emails in the sandbox as their leads,
// as a person does on the outbox page, and reads the mailboxes as the
// reply watchers would.
func (d demoRun) reply(ctx context.Context) (int, error) {
	page, err := d.m.Outbox.List(ctx, d.ws, 0, 20)
	if err != nil {
		return 0, err
	}
	answered := 0
	for _, msg := range page.Messages {
		if msg.Notice || answered == len(demoReplies) {
			continue
		}
		if _, err := d.m.Outbox.ReplyAsLead(ctx, d.ws, msg.ID, demoReplies[answered]); err != nil {
			return 0, fmt.Errorf("reply as a lead: %w", err)
		}
		answered++
	}
	sources := mailboxes.Sources{mailboxes.SandboxMailboxes(d.m.Sandbox, readyMailboxes(d.svc.sending))}
	list, err := sources.Mailboxes(ctx, d.ws)
	if err != nil {
		return 0, err
	}
	poller := replies.NewPoller(replies.PollerDeps{DB: d.db, Suppressor: d.svc.audience.MailSuppressions(), Clock: d.svc.clock, Webhooks: d.svc.webhooks})
	for _, mb := range list {
		if _, err := poller.Poll(ctx, d.ws, mb.Account); err != nil {
			return 0, fmt.Errorf("read the replies of %s: %w", mb.Address.Email, err)
		}
	}
	kept, err := d.svc.replies.List(ctx, d.ws, replies.ListOptions{})
	return len(kept.Replies), err
}
