package main

import (
	"context"
	"log/slog"
	"sync/atomic"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/approvals"
	"vibesell/audience"
	"vibesell/auth"
	"vibesell/auth/oauth"
	"vibesell/billing"
	"vibesell/campaigns"
	"vibesell/cards"
	"vibesell/delivery"
	"vibesell/mail"
	"vibesell/mailboxes"
	"vibesell/outbound"
	"vibesell/replies"
	"vibesell/sending"
	"vibesell/store"
	"vibesell/tools"
	"vibesell/webhooks"
	"vibesell/workspace"
)

// services are the feature services, built once per process and shared by
// the tools, the web app and the job workers: the approval executors are
// registered on one approvals.Service, which must be the one that works
// the jobs.
type services struct {
	// engine sends campaigns; nil until serve wires it (and in stdio).
	engine *delivery.Engine
	// notes keep what requests need in memory; nil outside serve.
	notes      *store.Notifications
	clock      vibesell.Clock
	publicURL  string
	workspaces *workspace.Service
	sending    *sending.Service
	approvals  *approvals.Service
	cards      *cards.Service
	billing    *billing.Service
	audience   *audience.Service
	campaigns  *campaigns.Service
	accounts   *auth.Accounts
	sessions   *auth.Sessions
	tokens     *auth.Tokens
	oauth      *oauth.Server
	replies    *replies.Replies
	// approvalMail emails the approvals' reminders once the sandbox mail
	// server runs (remindByMail).
	approvalMail *approvalMail
	answers      *replies.Answers
	// answerSending is what sends the answers to replies, known once the
	// sending engine runs (startMail).
	answerSending *answerSending
	// connections are the mailboxes people connected; nil without a mail
	// secret to seal their passwords with.
	connections *mailboxes.Connections
	// webhooks tell a workspace's endpoints its events; nil without a
	// mail secret to seal their signing secrets with.
	webhooks *webhooks.Service
}

// Sizes of what each replica keeps in memory for requests.
const (
	tokensKept   = 10_000
	sessionsKept = 100_000
	grantsKept   = 10_000
)

// newServices builds the services on db, each given at once all it needs.
// With notes (serve), the tokens, the OAuth grants, the sessions and the
// workspace contexts answer from memory while notes are fresh; nil
// (stdio, the console commands, tests) reads them on every request.
func newServices(cfg config, db *pgxpool.Pool, notes *store.Notifications, logger *slog.Logger) (*services, error) {
	clock := vibesell.SystemClock{}
	s := &services{
		notes:      notes,
		clock:      clock,
		publicURL:  cfg.PublicURL.String(),
		workspaces: workspace.New(workspace.Deps{DB: db, Clock: clock, Notes: notes}),
		accounts:   auth.NewAccounts(auth.AccountsDeps{DB: db, Clock: clock}),
		sessions:   auth.NewSessions(auth.SessionsDeps{DB: db, Limits: cfg.Sessions, Notes: notes, Kept: sessionsKept}),
		tokens:     auth.NewTokens(auth.TokensDeps{DB: db, Notes: notes, Kept: tokensKept}),
		cards:      cards.New(cards.Deps{DB: db, Clock: clock}),
		replies:    replies.NewReplies(replies.RepliesDeps{DB: db}),
	}
	s.approvalMail = &approvalMail{people: s.accounts}
	s.approvals = approvals.New(approvals.Deps{
		DB:           db,
		Clock:        clock,
		PublicURL:    cfg.PublicURL.String(),
		Logger:       logger.With("component", "approvals"),
		Mailer:       s.approvalMail,
		RemindBefore: cfg.ApprovalReminder,
	})
	s.billing = newBilling(cfg, db, clock, logger, s.approvals)
	secret, err := mailSecret(cfg, logger)
	if err != nil {
		return nil, err
	}
	var dkimRecord sending.DKIMRecordFunc
	if secret != nil {
		guard := cfg.Mail.Outbound
		guard.Clock = clock
		s.connections = mailboxes.NewConnections(mailboxes.ConnectionsDeps{DB: db, Secret: *secret, Clock: clock, Guard: outbound.New(guard)})
		// Webhooks connect through a guard of their own ports, with the
		// mail guard's test allowances.
		hooksGuard := cfg.Mail.Outbound
		hooksGuard.Ports, hooksGuard.Clock = webhooks.Ports, clock
		s.webhooks = webhooks.New(webhooks.Deps{DB: db, Secret: *secret, Guard: outbound.New(hooksGuard), Mailer: s.approvalMail,
			PublicURL: cfg.PublicURL.String(), Clock: clock, Logger: logger.With("component", "webhooks")})
		keys := mail.NewKeys(mail.KeysDeps{DB: db, Secret: *secret, Clock: clock})
		dkimRecord = func(ctx context.Context, ws uuid.UUID, domain string) (sending.Record, error) {
			rec, err := keys.Record(ctx, ws, domain)
			return sending.Record{Type: "DKIM", Host: rec.Host, Value: rec.Value}, err
		}
	}
	s.sending = sending.New(sending.Deps{
		DB: db, Clock: clock, Config: cfg.Sending, Cards: s.cards, Offers: s.workspaces, Contexts: s.workspaces, Approvals: s.approvals,
		Limit: s.billing.Limit(billing.Mailboxes), DKIMRecord: dkimRecord,
	})
	s.approvals.Register(vibesell.ToolOrderSendingSetup, sending.NewOrderAction(s.sending))
	// The list check asks the same DNS as the sending setup's checks; the
	// sandbox asks nothing real (as the setup's checks there), unless a
	// DNS server is named.
	var mailDomains audience.MailDomains
	if cfg.Sending.Provider != sending.SandboxName || cfg.Sending.DNSServer != "" {
		mailDomains = audience.NewMailDomains(cfg.Sending.DNSServer)
	}
	s.audience = audience.New(audience.Deps{
		DB:          db,
		Clock:       clock,
		Config:      cfg.Audience,
		Approvals:   s.approvals,
		LeadLimit:   s.billing.Limit(billing.Leads),
		MailDomains: mailDomains,
		// A lead's story (the leads page, get_lead) asks campaigns and
		// the sending engine for their parts.
		StoryCampaigns: leadCampaigns{s},
		StoryMail:      replies.NewLeadHistory(replies.LeadHistoryDeps{DB: db}),
		Webhooks:       s.webhooks,
	})
	s.approvals.Register(vibesell.ToolImportLeads, audience.ImportAction(s.audience))
	mailboxes := sending.CampaignMailboxes(s.sending)
	if s.connections != nil {
		// A person's own mailboxes send campaigns too, at the daily volume
		// of a warm ordered one.
		mailboxes = campaigns.JoinMailboxes(mailboxes, s.connections.CampaignMailboxes(s.sending.Config().EmailsPerMailbox))
	}
	s.campaigns = campaigns.New(campaigns.Deps{
		DB:        db,
		Clock:     clock,
		Config:    cfg.Campaigns,
		Leads:     s.audience,
		Mailboxes: mailboxes,
		Senders:   s.workspaces,
		Approvals: s.approvals,
		Limit:     s.billing.Limit(billing.ActiveCampaigns),
		Counter:   delivery.NewTallies(delivery.TalliesDeps{DB: db, Unsubscribed: s.audience.MailSuppressions()}),
		Composer:  delivery.Preview{},
	})
	s.approvals.Register(vibesell.ToolLaunchCampaign, campaigns.LaunchAction(s.campaigns))
	s.approvals.Register(vibesell.ToolStopCampaign, campaigns.StopAction(s.campaigns))
	s.approvals.Register(vibesell.ToolResumeCampaign, campaigns.ResumeAction(s.campaigns))
	// Answers to replies are sent by the sending engine's dispatcher,
	// which startMail makes once the mailboxes are known.
	s.answerSending = &answerSending{}
	s.answers = replies.NewAnswers(replies.AnswersDeps{DB: db, Approvals: s.approvals, Senders: s.workspaces,
		Suppressor: s.audience.MailSuppressions(), Clock: clock, Sending: s.answerSending})
	s.approvals.Register(vibesell.ToolAnswerReply, replies.AnswerAction(s.answers))
	s.oauth = oauth.New(oauth.Deps{
		PublicURL: cfg.PublicURL.String(),
		DB:        db,
		Clock:     clock,
		Logger:    logger.With("component", "oauth"),
		// Behind a proxy, the limits count the address it forwards, as
		// the web app's sign-in limits do.
		RateLimits:     cfg.OAuthLimits,
		ClientIP:       cfg.clientIP(),
		ClientMetadata: cfg.ClientMetadata,
		Notes:          notes,
		GrantsKept:     grantsKept,
	})
	if cfg.ClientMetadata.AllowLoopback {
		logger.Warn("test build: client ID metadata documents may be fetched from loopback addresses; never run this build in production")
	}
	return s, nil
}

// leadCampaigns is the campaigns' part of a lead's story. The audience is
// built before the campaigns, which read its leads, and tells stories
// only once both exist: the one cycle among the services.
type leadCampaigns struct{ s *services }

func (l leadCampaigns) LeadCampaigns(ctx context.Context, ws uuid.UUID, lead int64) ([]campaigns.LeadCampaign, error) {
	return l.s.campaigns.LeadCampaigns(ctx, ws, lead)
}

func (s *services) toolDeps() tools.Deps {
	return tools.Deps{Workspaces: s.workspaces, Sending: s.sending, Approvals: s.approvals, PublicURL: s.publicURL, Audience: s.audience, Campaigns: s.campaigns, Billing: s.billing,
		Cards: s.cards, Sessions: s.sessions, Replies: s.replies, Answers: s.answers, Connections: s.connections}
}

// answerSending gives the answers to replies what sends them once the
// sending engine runs: until then, and on a server whose engine is off,
// an answer is refused.
type answerSending struct {
	parts atomic.Pointer[replies.SendingParts]
}

func (a *answerSending) SendingParts() (replies.SendingParts, bool) {
	p := a.parts.Load()
	if p == nil {
		return replies.SendingParts{}, false
	}
	return *p, true
}
