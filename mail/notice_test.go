package mail_test

import (
	"context"
	"strings"
	"testing"

	"vibesell/mail"
)

// A notice to a workspace's people goes through SMTP submission, one
// message per person, and reaches the sandbox like any message.
func TestNoticesReachTheSandbox(t *testing.T) {
	t.Parallel()
	sandbox, err := mail.StartSandbox(mail.SandboxConfig{SMTPAddr: "127.0.0.1:0", IMAPAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sandbox.Close() })
	from := mail.Address{Name: "VibeSell", Email: "approvals@vibesell.test"}
	box, err := sandbox.AddMailbox(from)
	if err != nil {
		t.Fatal(err)
	}
	n := mail.NewNotices(box.SMTP, from, nil)
	body := "Order the sending setup\n\nApprove or reject it here: https://vibesell.example.test/app/approvals/ap_0123456789abcdef\n"
	if err := n.Send(context.Background(), []string{"ada@acme.test", "sam@acme.test"}, "Waiting for your approval: Order the sending setup", body); err != nil {
		t.Fatal(err)
	}
	got := sandbox.Accepted()
	if len(got) != 2 {
		t.Fatalf("the sandbox accepted %d messages, want 2", len(got))
	}
	for i, to := range []string{"ada@acme.test", "sam@acme.test"} {
		raw := string(got[i].Raw)
		if got[i].From != from.Email || len(got[i].Recipients) != 1 || got[i].Recipients[0] != to {
			t.Errorf("message %d: from %s to %v", i, got[i].From, got[i].Recipients)
		}
		for _, must := range []string{"Subject: Waiting for your approval: Order the sending setup", "https://vibesell.example.test/app/approvals/ap_0123456789abcdef"} {
			if !strings.Contains(raw, must) {
				t.Errorf("message %d does not hold %q:\n%s", i, must, raw)
			}
		}
	}
}
