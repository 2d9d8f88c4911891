package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell/auth"
	"vibesell/mail"
	"vibesell/notices"
)

// reminderSender is the address the approvals' emails come from, a
// mailbox of the sandbox mail server.
var reminderSender = mail.Address{Name: "VibeSell", Email: "approvals@vibesell.test"}

// remindByMail gives the approvals their mail path to the workspace's
// people: through the sandbox mail server, whose accepted messages the
// outbox shows. Without the sandbox (no product mail server is configured
// yet) approvals send no emails, and the log says so.
func remindByMail(db *pgxpool.Pool, svc *services, m *mailEngine, logger *slog.Logger) error {
	if m.Sandbox == nil {
		logger.Warn("approvals waiting for the web app are not emailed: no mail server for VibeSell's own emails")
		return nil
	}
	box, err := m.Sandbox.AddMailbox(reminderSender)
	if err != nil {
		return fmt.Errorf("the approvals' sandbox mailbox: %w", err)
	}
	svc.approvalMail.notices.Store(notices.New(notices.Deps{DB: db, Endpoint: box.SMTP, From: reminderSender, Clock: svc.clock}))
	return nil
}

// approvalMail is the approvals' mail path: the workspace's people from
// the accounts, sent as notices through the sandbox mail server. The
// approvals are built before that server starts (its outbox reads the
// sending setup, which opens approvals), so the notices come once it runs
// ([remindByMail]); until then, and on a server without it, no one is
// emailed, as the approvals do without a mailer.
type approvalMail struct {
	people  *auth.Accounts
	notices atomic.Pointer[notices.Notices]
}

func (a *approvalMail) People(ctx context.Context, ws uuid.UUID) ([]string, error) {
	if a.notices.Load() == nil {
		return nil, nil
	}
	return a.people.MemberEmails(ctx, ws)
}

func (a *approvalMail) Send(ctx context.Context, ws uuid.UUID, to []string, subject, body string) error {
	n := a.notices.Load()
	if n == nil {
		return errors.New("no mail server for VibeSell's own emails")
	}
	return n.Send(ctx, ws, to, subject, body)
}
