package main

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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
	key, err := mail.NewKeys(f.pool, f.mailSecret, nil).Record(ctx, f.two.Acme.ID, domain)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{key.Value}, published); diff != "" {
		t.Errorf("the published DKIM record is not the engine's key (-want +got):\n%s", diff)
	}
}
