package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/mail"
	"vibesell/mailboxes"
	"vibesell/sandboxmail"
	"vibesell/sandboxmail/sandboxmailtest"
	"vibesell/toolkit/toolkittest"
	"vibesell/workspace/workspacetest"
)

// get_sending_setup lists the person's connected mailboxes with their
// servers, and never a password.
func TestSendingSetupListsConnectedMailboxes(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t)
	sandbox, mb := sandboxmailtest.Sandbox(t, mail.Address{Email: "dana@getacme.com"}, sandboxmail.Config{})
	secret := sandboxmailtest.Secret(t)
	conns := f.connections(secret, sandbox.Roots(), sandboxmailtest.Guard(t, sandbox)) // the sandbox listens on loopback
	if _, err := conns.Connect(context.Background(), f.ws.ID, mailboxes.ConnectRequest{Address: "dana@getacme.com",
		SMTP: mb.SMTP.Settings(), IMAP: mb.IMAP.Settings()}); err != nil {
		t.Fatal(err)
	}
	d := Deps{Workspaces: f.workspaces, Sending: f.svc, Approvals: f.approvals, Connections: conns}
	c := toolkittest.Connect(t, NewServer(d, nil), workspacetest.Principal(f.ws))
	var raw json.RawMessage
	md := c.Result(vibesell.ToolGetSendingSetup, nil, &raw)
	var out sendingSetupOutput
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	server := func(s mail.ServerSettings) mailServerData {
		return mailServerData{Host: s.Host, Port: s.Port, Security: s.Security}
	}
	want := []connectedData{{Address: "dana@getacme.com", SMTP: server(mb.SMTP.Settings()), IMAP: server(mb.IMAP.Settings()), ConnectedAt: f.clock.Now(), CheckedAt: f.clock.Now()}}
	if want[0].SMTP.Security != "starttls" {
		t.Fatalf("the sandbox's SMTP server takes %s, want starttls", want[0].SMTP.Security)
	}
	if d := cmp.Diff(want, out.Connected); d != "" {
		t.Fatalf("connected mismatch (-want +got):\n%s", d)
	}
	mustContain(t, md, "### Connected mailboxes (the person's own)", "- dana@getacme.com: sends through 127.0.0.1:")
	if strings.Contains(string(raw), mb.SMTP.Password) || strings.Contains(md, mb.SMTP.Password) {
		t.Fatal("a password is in the tool result")
	}
	other := toolkittest.Connect(t, NewServer(d, nil), workspacetest.Principal(f.other))
	var theirs sendingSetupOutput
	other.Result(vibesell.ToolGetSendingSetup, nil, &theirs)
	// Empty, not null: connecting is available, and none are connected.
	if d := cmp.Diff([]connectedData{}, theirs.Connected); d != "" {
		t.Errorf("another workspace's connected mismatch (-want +got):\n%s", d)
	}
}
