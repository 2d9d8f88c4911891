package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"vibesell/delivery"
	"vibesell/mail"
	"vibesell/sending"
)

// `server sandbox ready` makes the ordered sandbox setup ready and warm at
// once; an order publishes the key the engine signs with.
func TestSandboxReadyCommand(t *testing.T) {
	t.Parallel()
	f := setupFlow(t)
	ctx := context.Background()
	getenv := env("DATABASE_URL", f.pool.Config().ConnString(), "LOG_LEVEL", "error")

	_, err := runCmd(t, getenv, "sandbox", "ready", "--workspace", f.two.Acme.Slug)
	if err == nil || !strings.HasPrefix(err.Error(), "Nothing is ordered yet") {
		t.Fatalf("before the order: %v", err)
	}
	if _, err := runCmd(t, getenv, "sandbox", "ready"); err == nil || err.Error() != "usage: server sandbox ready --workspace SLUG" {
		t.Errorf("without a workspace: %v", err)
	}
	f.planSetup()
	plan, err := f.svc.sending.PlaceOrder(ctx, f.two.Acme.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := runCmd(t, getenv, "sandbox", "ready", "--workspace", f.two.Acme.Slug)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Made 1 domain and 3 mailboxes ready, and the mailboxes warm, at once: a sandbox shortcut. They can send at full volume now.\n"; out != want {
		t.Errorf("output: %q", out)
	}
	st, err := f.svc.sending.Summary(ctx, f.two.Acme.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st.MailboxCount(sending.MailboxWarm) != 3 || st.SandboxShortcuts() != 3 {
		t.Errorf("after the shortcut: %d warm, %d by the shortcut", st.MailboxCount(sending.MailboxWarm), st.SandboxShortcuts())
	}

	domain := plan.Domains[0].Name
	published, err := f.svc.sending.PublishedTXT(ctx, f.two.Acme.ID, "vs1._domainkey."+domain)
	if err != nil {
		t.Fatal(err)
	}
	key, err := mail.NewKeys(mail.KeysDeps{DB: f.pool, Secret: f.mailSecret}).Record(ctx, f.two.Acme.ID, domain)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{key.Value}, published); diff != "" {
		t.Errorf("the published DKIM record and the engine's key mismatch (-want +got):\n%s", diff)
	}
}

// The sandbox mail server the server starts keeps what it accepts in the
// outbox, under the workspace whose send it was.
func TestTheSandboxKeepsWhatItAcceptsInTheOutbox(t *testing.T) {
	t.Parallel()
	f := setupFlow(t)
	ctx := context.Background()
	cfg, err := loadConfig(env("DATABASE_URL", f.pool.Config().ConnString(), "MAIL_SECRET_KEY", mail.NewRandomSecret()))
	if err != nil {
		t.Fatal(err)
	}
	engine, err := startMail(cfg, f.pool, f.svc, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(engine.Close)
	if !engine.Outbox.Sandbox() {
		t.Fatal("the outbox does not know the sandbox")
	}
	mb, err := engine.Sandbox.AddMailbox(mail.Address{Email: "dana@getacme.com"})
	if err != nil {
		t.Fatal(err)
	}
	sender := delivery.NewDispatcher(delivery.DispatcherDeps{DB: f.pool, Keys: mail.NewKeys(mail.KeysDeps{DB: f.pool, Secret: *engine.Secret}), Suppressor: f.svc.audience.MailSuppressions()})
	_, err = sender.Send(ctx, delivery.Outgoing{
		Step:    delivery.Step{WorkspaceID: f.two.Acme.ID, CampaignID: "cp_00000000000000c1", LeadID: 1, Step: 1},
		Mailbox: mb,
		Message: mail.Message{To: mail.Address{Email: "sam@acme-corp.example"}, Subject: "Hello", Body: "Hi Sam", PostalAddress: "1 Market St",
			UnsubscribeURL: engine.Secret.UnsubscribeURL("https://vibesell.example.test", f.two.Acme.ID, "sam@acme-corp.example")},
	})
	if err != nil {
		t.Fatal(err)
	}
	acme, err := engine.Outbox.List(ctx, f.two.Acme.ID, 0, 20)
	if err != nil || len(acme.Messages) != 1 {
		t.Fatalf("Acme's outbox: %d messages (%v); want 1", len(acme.Messages), err)
	}
	if got := acme.Messages[0].Subject; got != "Hello" {
		t.Fatalf("Acme's message: subject %q, want Hello", got)
	}
	globex, err := engine.Outbox.List(ctx, f.two.Globex.ID, 0, 20)
	if err != nil || len(globex.Messages) != 0 {
		t.Fatalf("Globex's outbox: %d (%v)", len(globex.Messages), err)
	}
}
