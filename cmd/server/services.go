package main

import (
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
	"vibesell/auth/oauth"
	"vibesell/billing"
	"vibesell/cards"
	"vibesell/sending"
	"vibesell/tools"
	"vibesell/workspace"
)

// services are the feature services, built once per process and shared by
// the tools, the web app and the job workers: the approval executors are
// registered on one approvals.Service, which must be the one that works
// the jobs.
type services struct {
	clock      vibesell.Clock
	workspaces *workspace.Service
	sending    *sending.Service
	approvals  *approvals.Service
	billing    *billing.Service
	accounts   *auth.Accounts
	sessions   *auth.Sessions
	tokens     *auth.Tokens
	oauth      *oauth.Server
}

func newServices(cfg config, db *pgxpool.Pool, logger *slog.Logger) (*services, error) {
	clock := vibesell.SystemClock{}
	s := &services{
		clock:      clock,
		workspaces: workspace.NewService(db),
		accounts:   auth.NewAccounts(db, clock),
		sessions:   auth.NewSessions(db),
		tokens:     auth.NewTokens(db),
	}
	var err error
	s.approvals, err = approvals.NewService(db, approvals.Config{
		PublicURL: cfg.PublicURL.String(),
		Clock:     clock,
		Logger:    logger.With("component", "approvals"),
	})
	if err != nil {
		return nil, fmt.Errorf("approvals: %w", err)
	}
	s.sending = sending.New(sending.Deps{
		DB: db, Clock: clock, Config: cfg.Sending, Cards: cards.NewService(db, clock), Offers: s.workspaces, Approvals: s.approvals,
	})
	s.approvals.Register(vibesell.ToolOrderSendingSetup, sending.NewOrderAction(s.sending))
	s.oauth, err = oauth.New(oauth.Config{
		PublicURL: cfg.PublicURL.String(),
		DB:        db,
		Clock:     clock,
		Logger:    logger.With("component", "oauth"),
	})
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	s.billing = newBilling(cfg, db, clock, logger, s.sending, s.approvals)
	return s, nil
}

func (s *services) toolDeps() tools.Deps {
	return tools.Deps{Clock: s.clock, Workspaces: s.workspaces, Sending: s.sending, Approvals: s.approvals, Billing: s.billing}
}
