package main

import (
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/approvals"
	"vibesell/billing"
	"vibesell/campaigns"
	"vibesell/sending"
)

// newBilling builds billing on the approvals service, with the meters of
// the limits the features use (mailboxes ordered, leads imported this
// month, campaigns running) and the executor of plan changes. The
// features it limits are built after it and hold to its limits.
func newBilling(cfg config, db *pgxpool.Pool, clock vibesell.Clock, logger *slog.Logger, appr *approvals.Service) *billing.Service {
	svc := billing.New(billing.Deps{
		DB:        db,
		Config:    cfg.Billing,
		Approvals: appr,
		PublicURL: cfg.PublicURL.String(),
		Clock:     clock,
		Logger:    logger.With("component", "billing"),
		// Leads and emails are counted by billing as the import and the
		// engine use them.
		Meters: map[billing.Metric]billing.Meter{
			billing.Mailboxes:       billing.MeterFunc(sending.OrderedMailboxes),
			billing.Leads:           billing.Counted,
			billing.ActiveCampaigns: billing.MeterFunc(campaigns.Running),
			billing.Emails:          billing.Counted,
		},
	})
	appr.Register(vibesell.ToolUpgradePlan, svc.ChangeExecutor())
	if !svc.Configured() {
		logger.Info("billing is not configured (no STRIPE_SECRET_KEY): every workspace uses the free plan's limits")
	}
	return svc
}
