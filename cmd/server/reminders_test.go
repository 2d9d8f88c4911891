package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
	"vibesell/mail"
	"vibesell/store"
	"vibesell/store/storetest"
	"vibesell/workspace/workspacetest"
)

// The approvals' emails take the product's own mail path: composed by
// package mail and submitted over SMTP to the sandbox mail server, to each
// person of the workspace and no one else.
func TestApprovalEmailsGoThroughTheSandboxMailServer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL := storetest.NewURL(t)
	pool, err := store.Connect(ctx, dbURL, 5)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	cfg, err := loadConfig(env("DATABASE_URL", dbURL, "MAIL_SECRET_KEY", mail.NewRandomSecret(), "APPROVAL_REMINDER_BEFORE", "2h"))
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	svc, err := newServices(cfg, pool, nil, logger)
	if err != nil {
		t.Fatal(err)
	}
	m, err := startMail(cfg, pool, svc, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	if err := remindByMail(pool, svc, m, logger); err != nil {
		t.Fatal(err)
	}
	two := workspacetest.Two(t, pool)
	for _, u := range []auth.NewUser{
		{WorkspaceID: two.Acme.ID, Email: "ada@acme.test", Password: flowPassword},
		{WorkspaceID: two.Globex.ID, Email: "bob@globex.test", Password: flowPassword},
	} {
		if _, err := svc.accounts.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	a, _, err := svc.approvals.Open(ctx, approvals.Request{
		WorkspaceID: two.Acme.ID, Action: vibesell.ToolOrderSendingSetup, Arguments: map[string]any{"test": "reminder"},
		Summary: "Buy 1 domain and set up 3 mailboxes",
		Impact: approvals.Impact{What: "Registers getacme.com and creates 3 mailboxes.", Who: "No one is contacted.", When: "At once.",
			CostOnce: vibesell.NewMoney(1500, "USD"), CostMonthly: vibesell.NewMoney(1500, "USD"), Renewal: "Every year.", Undo: "It cannot be undone."},
		Irreversible: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if sent, err := svc.approvals.Remind(ctx, two.Acme.ID, a.ID, approvals.ReminderOpened); !sent || err != nil {
		t.Fatalf("the email: sent %v, %v", sent, err)
	}
	got := m.Sandbox.Accepted()
	type envelope struct{ From, To string }
	var envelopes []envelope
	for _, m := range got {
		envelopes = append(envelopes, envelope{m.From, strings.Join(m.Recipients, ",")})
	}
	if d := cmp.Diff([]envelope{{reminderSender.Email, "ada@acme.test"}}, envelopes); d != "" {
		t.Fatalf("the messages the sandbox accepted mismatch (-want +got):\n%s", d)
	}
	for _, must := range []string{"Subject: Waiting for your approval: Buy 1 domain and set up 3 mailboxes", a.AppURL, "Registers getacme.com"} {
		if !strings.Contains(string(got[0].Raw), must) {
			t.Errorf("the email does not say %q:\n%s", must, got[0].Raw)
		}
	}
	if sent, _ := svc.approvals.Remind(ctx, two.Acme.ID, a.ID, approvals.ReminderOpened); sent {
		t.Error("the same email was sent twice")
	}
	// The web app's outbox shows it to Acme, whose email it is, only.
	for ws, want := range map[uuid.UUID]int{two.Acme.ID: 1, two.Globex.ID: 0} {
		page, err := m.Outbox.List(ctx, ws, 0, 20)
		if err != nil || len(page.Messages) != want {
			t.Errorf("outbox of %s: %d messages (%v), want %d", ws, len(page.Messages), err, want)
		}
	}
}

func TestApprovalReminderRefusesABadDuration(t *testing.T) {
	t.Parallel()
	configRefusal(t, "APPROVAL_REMINDER_BEFORE", "soon")
	configRefusal(t, "APPROVAL_REMINDER_BEFORE", "-1h")
}
