package tools

import (
	"context"
	"testing"

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
	if len(setup.Mailboxes) != 3 || setup.Domains[0].SandboxReadyAt == nil || setup.Domains[0].Status != "ready" {
		t.Fatalf("setup: %+v", setup)
	}
	for _, m := range setup.Mailboxes {
		if m.Status != "warm" || m.SandboxReadyAt == nil || m.Warmup != nil {
			t.Errorf("%s: %+v", m.Address, m)
		}
	}
	mustContain(t, md, "Made ready at once by the sandbox shortcut on", "not by a real preparation",
		"Made ready and warm at once by the sandbox shortcut on", "not by a real warmup", "warm, can send at full volume")
	var ctx workspaceOutput
	md = f.c.Result(vibesell.ToolGetWorkspaceContext, nil, &ctx)
	if ctx.SendingSetup == nil || ctx.SendingSetup.SandboxShortcut != 3 || ctx.SendingSetup.Mailboxes.Warm != 3 {
		t.Fatalf("context: %+v", ctx.SendingSetup)
	}
	mustContain(t, md, "- Sandbox shortcut: 3 mailboxes were made ready and warm at once, not by a real warmup")
}
