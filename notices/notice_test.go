package notices_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/delivery/deliverytest"
	"vibesell/mail"
	"vibesell/notices"
	"vibesell/sandboxmail"
	"vibesell/workspace"
)

// A notice to a workspace's people goes through SMTP submission, one
// message per person, reaches the sandbox like any message, and shows in
// that workspace's outbox only.
func TestNoticesReachTheSandbox(t *testing.T) {
	b := deliverytest.Setup(t)
	other, err := workspace.Create(b.Ctx, b.DB, "Globex")
	if err != nil {
		t.Fatal(err)
	}
	outbox := sandboxmail.NewOutbox(sandboxmail.OutboxDeps{DB: b.DB, Records: deliverytest.KeyRecords{Keys: b.Keys}, Sandbox: b.Sandbox, Clock: b.Clock})
	keep := sandboxmail.KeepAccepted(b.DB, nil)
	b.OnAccept.Store(&keep)

	from := mail.Address{Name: "VibeSell", Email: "approvals@vibesell.test"}
	box, err := b.Sandbox.AddMailbox(from)
	if err != nil {
		t.Fatal(err)
	}
	n := notices.New(notices.Deps{DB: b.DB, Endpoint: box.SMTP, From: from, Clock: b.Clock})
	body := "Order the sending setup\n\nApprove or reject it here: https://vibesell.example.test/app/approvals/ap_0123456789abcdef\n"
	to := []string{"ada@acme.test", "sam@acme.test"}
	if err := n.Send(b.Ctx, b.Workspace, to, "Waiting for your approval: Order the sending setup", body); err != nil {
		t.Fatal(err)
	}
	got := b.Sandbox.Accepted()
	if len(got) != 2 {
		t.Fatalf("the sandbox accepted %d messages, want 2", len(got))
	}
	for i, to := range to {
		raw := string(got[i].Raw)
		if diff := cmp.Diff([]string{from.Email, to}, append([]string{got[i].From}, got[i].Recipients...)); diff != "" {
			t.Errorf("message %d's envelope mismatch (-want +got):\n%s", i, diff)
		}
		for _, must := range []string{"Subject: Waiting for your approval: Order the sending setup", "https://vibesell.example.test/app/approvals/ap_0123456789abcdef"} {
			if !strings.Contains(raw, must) {
				t.Errorf("message %d does not hold %q:\n%s", i, must, raw)
			}
		}
	}

	page, err := outbox.List(b.Ctx, b.Workspace, 0, 20)
	if err != nil {
		t.Fatal(err)
	}
	var shown []string
	for _, m := range page.Messages {
		shown = append(shown, m.Recipients[0]+": "+m.Subject)
		if !m.Notice {
			t.Errorf("%s is not marked as VibeSell's own email", m.Subject)
		}
	}
	// VibeSell's own emails are apart from the campaigns'.
	if campaign, err := outbox.ListOf(b.Ctx, b.Workspace, sandboxmail.CampaignEmails, 0, 20); err != nil || len(campaign.Messages) != 0 {
		t.Errorf("the campaign emails hold %d of VibeSell's own (%v)", len(campaign.Messages), err)
	}
	if own, err := outbox.ListOf(b.Ctx, b.Workspace, sandboxmail.NoticeEmails, 0, 20); err != nil || len(own.Messages) != 2 {
		t.Errorf("VibeSell's own emails: %d, want 2 (%v)", len(own.Messages), err)
	}
	if _, err := outbox.ReplyAsLead(b.Ctx, b.Workspace, page.Messages[0].ID, "Thanks"); vibesell.ErrorCode(err) != vibesell.EINVALID {
		t.Errorf("replying as the lead to VibeSell's own email: %v", err)
	}
	want := []string{"sam@acme.test: Waiting for your approval: Order the sending setup", "ada@acme.test: Waiting for your approval: Order the sending setup"}
	if diff := cmp.Diff(want, shown); diff != "" {
		t.Errorf("the workspace's outbox mismatch (-want +got):\n%s", diff)
	}
	theirs, err := outbox.List(b.Ctx, other.ID, 0, 20)
	if err != nil || len(theirs.Messages) != 0 {
		t.Errorf("another workspace's outbox shows %d messages (%v)", len(theirs.Messages), err)
	}
}
