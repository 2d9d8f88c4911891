package main

import (
	"context"
	"fmt"
	"log/slog"

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
	"vibesell/sandboxmail"
	"vibesell/sending"
	"vibesell/store"
	"vibesell/tools"
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
	answers    *replies.Answers
	// outbox keeps what the sandbox mail server accepts (serve attaches
	// the sandbox to it when there is one).
	outbox *sandboxmail.Outbox
	// connections are the mailboxes people connected; nil without a mail
	// secret to seal their passwords with.
	connections *mailboxes.Connections
}

func newServices(cfg config, db *pgxpool.Pool, logger *slog.Logger) (*services, error) {
	clock := vibesell.SystemClock{}
	s := &services{
		clock:      clock,
		publicURL:  cfg.PublicURL.String(),
		workspaces: workspace.NewService(db, clock),
		accounts:   auth.NewAccounts(db, clock),
		sessions:   auth.NewSessions(db),
		tokens:     auth.NewTokens(db),
		cards:      cards.NewService(db, clock),
		replies:    replies.NewReplies(db),
	}
	s.sessions.SetLimits(cfg.Sessions)
	var err error
	s.approvals, err = approvals.NewService(db, clock, approvals.Config{
		PublicURL:    cfg.PublicURL.String(),
		Logger:       logger.With("component", "approvals"),
		RemindBefore: cfg.ApprovalReminder,
	})
	if err != nil {
		return nil, fmt.Errorf("approvals: %w", err)
	}
	s.billing = newBilling(cfg, db, clock, logger, s.approvals)
	secret, err := mailSecret(cfg, logger)
	if err != nil {
		return nil, err
	}
	var dkimRecord sending.DKIMRecordFunc
	if secret != nil {
		s.connections = mailboxes.NewConnections(db, *secret, clock, nil)
		guard := cfg.Mail.Outbound
		guard.Clock = clock
		s.connections.UseGuard(outbound.New(guard))
		keys := mail.NewKeys(db, *secret, clock)
		dkimRecord = func(ctx context.Context, ws uuid.UUID, domain string) (sending.Record, error) {
			rec, err := keys.Record(ctx, ws, domain)
			return sending.Record{Type: "DKIM", Host: rec.Host, Value: rec.Value}, err
		}
	}
	s.sending = sending.New(sending.Deps{
		DB: db, Clock: clock, Config: cfg.Sending, Cards: s.cards, Offers: s.workspaces, Contexts: s.workspaces, Approvals: s.approvals,
		Limit: s.billing.Limit(billing.Mailboxes), DKIMRecord: dkimRecord,
	})
	s.outbox = sandboxmail.NewOutbox(db, s.sending, clock, logger.With("component", "outbox"))
	s.approvals.Register(vibesell.ToolOrderSendingSetup, sending.NewOrderAction(s.sending))
	s.audience = audience.New(db, clock, cfg.Audience, s.approvals)
	s.audience.SetLeadLimit(s.billing.Limit(billing.Leads))
	// The list check asks the same DNS as the sending setup's checks; the
	// sandbox asks nothing real (as the setup's checks there), unless a
	// DNS server is named.
	if cfg.Sending.Provider != sending.SandboxName || cfg.Sending.DNSServer != "" {
		s.audience.SetMailDomains(audience.NewMailDomains(cfg.Sending.DNSServer))
	}
	s.approvals.Register(vibesell.ToolImportLeads, audience.ImportAction(s.audience))
	mailboxes := sending.CampaignMailboxes(s.sending)
	if s.connections != nil {
		// A person's own mailboxes send campaigns too, at the daily volume
		// of a warm ordered one.
		mailboxes = campaigns.JoinMailboxes(mailboxes, s.connections.CampaignMailboxes(s.sending.Config().EmailsPerMailbox))
	}
	s.campaigns = campaigns.New(db, clock, cfg.Campaigns, s.audience, mailboxes, s.workspaces, s.approvals)
	s.campaigns.SetCampaignLimit(s.billing.Limit(billing.ActiveCampaigns))
	s.approvals.Register(vibesell.ToolLaunchCampaign, campaigns.LaunchAction(s.campaigns))
	s.approvals.Register(vibesell.ToolStopCampaign, campaigns.StopAction(s.campaigns))
	s.approvals.Register(vibesell.ToolResumeCampaign, campaigns.ResumeAction(s.campaigns))
	s.campaigns.SetCounter(delivery.NewTallies(db, s.audience.MailSuppressions()))
	s.campaigns.SetComposer(delivery.Preview{})
	// A lead's story (the leads page, get_lead) asks campaigns and the
	// sending engine for their parts.
	s.audience.SetStorySources(s.campaigns, replies.NewLeadHistory(db))
	// Answers to replies are sent by the sending engine's dispatcher,
	// which wireEngine names once the mailboxes are known.
	s.answers = replies.NewAnswers(db, s.approvals, s.workspaces, s.audience.MailSuppressions(), clock)
	s.approvals.Register(vibesell.ToolAnswerReply, replies.AnswerAction(s.answers))
	s.oauth, err = oauth.New(oauth.Config{
		PublicURL: cfg.PublicURL.String(),
		DB:        db,
		Clock:     clock,
		Logger:    logger.With("component", "oauth"),
		// Behind a proxy, the limits count the address it forwards, as
		// the web app's sign-in limits do.
		RateLimits:     cfg.OAuthLimits,
		ClientIP:       cfg.clientIP(),
		ClientMetadata: cfg.ClientMetadata,
	})
	if cfg.ClientMetadata.AllowLoopback {
		logger.Warn("test build: client ID metadata documents may be fetched from loopback addresses; never run this build in production")
	}
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	return s, nil
}

func (s *services) toolDeps() tools.Deps {
	return tools.Deps{Clock: s.clock, Workspaces: s.workspaces, Sending: s.sending, Approvals: s.approvals, PublicURL: s.publicURL, Audience: s.audience, Campaigns: s.campaigns, Billing: s.billing,
		Cards: s.cards, Sessions: s.sessions, Replies: s.replies, Answers: s.answers, Connections: s.connections}
}

// Sizes of what each replica keeps in memory for requests.
const (
	tokensKept   = 10_000
	sessionsKept = 100_000
	grantsKept   = 10_000
)

// keepInMemory makes the tokens, the OAuth grants, the sessions and the
// workspace contexts answer from memory while notes are fresh. It must run before the MCP
// server is built (its context cache subscribes when made).
func (s *services) keepInMemory(notes *store.Notifications) {
	s.notes = notes
	s.tokens.KeepInMemory(notes, tokensKept)
	s.oauth.KeepGrantsInMemory(notes, grantsKept)
	s.sessions.KeepInMemory(notes, sessionsKept)
	s.workspaces.KeepContextsFresh(notes)
}
