package main

import (
	"context"
	"fmt"
	"log/slog"

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
	svc.approvals.SetMailer(approvalMail{people: svc.accounts, notices: notices.New(db, box.SMTP, reminderSender, svc.clock)})
	return nil
}

// approvalMail is the approvals' mail path: the workspace's people from
// the accounts, sent as notices.
type approvalMail struct {
	people  *auth.Accounts
	notices *notices.Notices
}

func (a approvalMail) People(ctx context.Context, ws uuid.UUID) ([]string, error) {
	return a.people.MemberEmails(ctx, ws)
}

func (a approvalMail) Send(ctx context.Context, ws uuid.UUID, to []string, subject, body string) error {
	return a.notices.Send(ctx, ws, to, subject, body)
}
