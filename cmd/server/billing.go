package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/approvals"
	"vibesell/billing"
	"vibesell/sending"
	"vibesell/store"
)

// newBilling builds billing on the other services: the limits it can
// count today (mailboxes, from the sending setup), the approvals of plan
// changes, and its executor.
func newBilling(cfg config, db *pgxpool.Pool, clock vibesell.Clock, logger *slog.Logger, send *sending.Service, appr *approvals.Service) *billing.Service {
	svc := billing.New(db, billing.Options{
		Config:    cfg.Billing,
		Approvals: appr,
		PublicURL: cfg.PublicURL.String(),
		Clock:     clock,
		Logger:    logger.With("component", "billing"),
		// Leads, active campaigns and emails get their meters with the
		// features that import, launch and send.
		Meters: map[billing.Metric]billing.Meter{billing.Mailboxes: orderedMailboxes(send)},
	})
	appr.Register(vibesell.ToolUpgradePlan, svc.ChangeExecutor())
	if !svc.Configured() {
		logger.Info("billing is not configured (no STRIPE_SECRET_KEY): every workspace uses the free plan's limits")
	}
	return svc
}

// orderedMailboxes counts the mailboxes a workspace has ordered (being
// prepared, ready or warming; not those only planned), read through the
// sending setup's own queries on the caller's transaction.
func orderedMailboxes(send *sending.Service) billing.Meter {
	return billing.MeterFunc(func(ctx context.Context, db store.DBTX, ws uuid.UUID) (int, error) {
		b := &pgx.Batch{}
		done := send.QueueRows(b, ws)
		if err := db.SendBatch(ctx, b).Close(); err != nil {
			return 0, fmt.Errorf("read sending setup: %w", err)
		}
		rows, err := done()
		if err != nil {
			return 0, err
		}
		n := 0
		for _, m := range send.SetupFrom(rows).Mailboxes {
			if m.Status != "planned" {
				n++
			}
		}
		return n, nil
	})
}
