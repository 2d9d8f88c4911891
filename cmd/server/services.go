package main

import (
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/approvals"
	"vibesell/audience"
	"vibesell/auth"
	"vibesell/auth/oauth"
	"vibesell/billing"
	"vibesell/campaigns"
	"vibesell/cards"
	"vibesell/mail"
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
	engine *mail.Engine
	// notes keep what requests need in memory; nil outside serve.
	notes      *store.Notifications
	clock      vibesell.Clock
	publicURL  string
	workspaces *workspace.Service
	sending    *sending.Service
	approvals  *approvals.Service
	billing    *billing.Service
	audience   *audience.Service
	campaigns  *campaigns.Service
	accounts   *auth.Accounts
	sessions   *auth.Sessions
	tokens     *auth.Tokens
	oauth      *oauth.Server
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
	}
	s.sessions.SetLimits(cfg.Sessions)
	var err error
	s.approvals, err = approvals.NewService(db, clock, approvals.Config{
		PublicURL: cfg.PublicURL.String(),
		Logger:    logger.With("component", "approvals"),
	})
	if err != nil {
		return nil, fmt.Errorf("approvals: %w", err)
	}
	s.sending = sending.New(sending.Deps{
		DB: db, Clock: clock, Config: cfg.Sending, Cards: cards.NewService(db, clock), Offers: s.workspaces, Approvals: s.approvals,
	})
	s.approvals.Register(vibesell.ToolOrderSendingSetup, sending.NewOrderAction(s.sending))
	s.audience = audience.New(db, clock, cfg.Audience, s.approvals)
	s.approvals.Register(vibesell.ToolImportLeads, audience.ImportAction(s.audience))
	s.campaigns = campaigns.New(db, clock, cfg.Campaigns, s.audience, sending.CampaignMailboxes(s.sending), s.workspaces, s.approvals)
	s.approvals.Register(vibesell.ToolLaunchCampaign, campaigns.LaunchAction(s.campaigns))
	s.approvals.Register(vibesell.ToolStopCampaign, campaigns.StopAction(s.campaigns))
	s.approvals.Register(vibesell.ToolResumeCampaign, campaigns.ResumeAction(s.campaigns))
	s.campaigns.SetCounter(mail.NewTallies(db, s.audience.MailSuppressions()))
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
	s.billing = newBilling(cfg, db, clock, logger, s.sending, s.approvals)
	return s, nil
}

func (s *services) toolDeps() tools.Deps {
	return tools.Deps{Clock: s.clock, Workspaces: s.workspaces, Sending: s.sending, Approvals: s.approvals, PublicURL: s.publicURL, Audience: s.audience, Campaigns: s.campaigns, Billing: s.billing}
}

// Sizes of what each replica keeps in memory for requests.
const (
	tokensKept   = 10_000
	sessionsKept = 100_000
)

// keepInMemory makes the tokens, the sessions and the workspace contexts
// answer from memory while notes are fresh. It must run before the MCP
// server is built (its context cache subscribes when made).
func (s *services) keepInMemory(notes *store.Notifications) {
	s.notes = notes
	s.tokens.KeepInMemory(notes, tokensKept)
	s.sessions.KeepInMemory(notes, sessionsKept)
	s.workspaces.KeepContextsFresh(notes)
}
