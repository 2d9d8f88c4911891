package tools

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"vibesell"
)

// The sandbox shortcut is labelled as such wherever the assistant reads
// the setup: get_sending_setup and get_workspace_context.
func TestTheSandboxShortcutIsLabelled(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t)
	f.planSetup(f.c)
	if _, err := f.svc.PlaceOrder(context.Background(), f.ws.ID, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.SandboxReady(context.Background(), f.ws.ID); err != nil {
		t.Fatal(err)
	}
	var setup sendingSetupOutput
	md := f.c.Result(vibesell.ToolGetSendingSetup, nil, &setup)
	// made is how a domain or mailbox was made ready.
	type made struct {
		Status            string
		Shortcut, Warming bool
	}
	var domains, mailboxes []made
	for _, d := range setup.Domains {
		domains = append(domains, made{Status: d.Status, Shortcut: d.SandboxReadyAt != nil})
	}
	for _, m := range setup.Mailboxes {
		mailboxes = append(mailboxes, made{Status: m.Status, Shortcut: m.SandboxReadyAt != nil, Warming: m.Warmup != nil})
	}
	if d := cmp.Diff([]made{{Status: "ready", Shortcut: true}}, domains); d != "" {
		t.Errorf("domains mismatch (-want +got):\n%s", d)
	}
	if d := cmp.Diff(slices.Repeat([]made{{Status: "warm", Shortcut: true}}, 3), mailboxes); d != "" {
		t.Errorf("mailboxes mismatch (-want +got):\n%s", d)
	}
	mustContain(t, md, "Made ready at once by the sandbox shortcut on", "not by a real preparation",
		"Made ready and warm at once by the sandbox shortcut on", "not by a real warmup", "warm, can send at full volume")
	var ctx workspaceOutput
	md = f.c.Result(vibesell.ToolGetWorkspaceContext, nil, &ctx)
	// The source, the sizing and what comes next are read elsewhere.
	want := &sendingSummaryData{Domains: domainCounts{Ready: 1}, Mailboxes: mailboxCounts{Warm: 3}, Sandbox: true, SandboxShortcut: 3}
	if d := cmp.Diff(want, ctx.SendingSetup, cmpopts.IgnoreFields(sendingSummaryData{}, "Source", "SizingConfirmed", "ReadyToSendOn", "NextStep")); d != "" {
		t.Fatalf("the context's sending setup mismatch (-want +got):\n%s", d)
	}
	mustContain(t, md, "- Sandbox shortcut: 3 mailboxes were made ready and warm at once, not by a real warmup")
}
