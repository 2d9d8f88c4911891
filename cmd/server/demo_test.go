package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"vibesell/mail"
	"vibesell/store"
	"vibesell/store/storetest"
	"vibesell/toolkit/toolkittest"
	"vibesell/workspace"
	"vibesell/workspace/workspacetest"
)

var demoAccount = regexp.MustCompile(`Web app account: (\S+) \(no second factor\)\.`)

// `server demo` on a fresh database fills an empty workspace through the
// features: the assistant then reads, through the tools, an offer, a warm
// sandbox setup, leads, and a running campaign with emails sent and
// replies; the printed account signs in with its password alone; a second
// run refuses rather than mixing more sample data in.
func TestDemoFillsAWorkspaceWithASendingCampaign(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL := storetest.NewURL(t)
	getenv := env("DATABASE_URL", dbURL, "LOG_LEVEL", "error", "MAIL_SECRET_KEY", mail.NewRandomSecret())
	db, err := store.Connect(ctx, dbURL, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	ws, err := workspace.Create(ctx, db, "Demo")
	if err != nil {
		t.Fatal(err)
	}

	// Without the key the server signs with, the demo could not send:
	// it says so before making anything.
	if _, err := runCmd(t, env("DATABASE_URL", dbURL, "LOG_LEVEL", "error"), "demo", "--workspace", ws.Slug); err == nil || !strings.Contains(err.Error(), "MAIL_SECRET_KEY") {
		t.Fatalf("a demo without the mail secret key: %v", err)
	}
	out, err := runCmd(t, getenv, "demo", "--workspace", ws.Slug)
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	if testing.Verbose() {
		t.Log(out)
	}
	for _, want := range []string{"sample data", "in the sandbox", "running", "Password (shown only once): "} {
		if !strings.Contains(out, want) {
			t.Errorf("the demo's output lacks %q:\n%s", want, out)
		}
	}
	account := demoAccount.FindStringSubmatch(out)
	password := passwordPrinted.FindStringSubmatch(out)
	if account == nil || password == nil {
		t.Fatalf("the demo printed no account and password:\n%s", out)
	}

	cfg, err := loadConfig(getenv)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := newServices(cfg, db, nil, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	// Signing in takes the email and the password, nothing more.
	if u, _, err := svc.accounts.SignIn(ctx, account[1], password[1], "127.0.0.1"); err != nil || u.WorkspaceID != ws.ID {
		t.Fatalf("sign in as the demo account: %v (workspace %v)", err, u.WorkspaceID)
	}

	c := toolkittest.Connect(t, newMCPServer(svc, slog.New(slog.DiscardHandler)), workspacetest.Principal(ws))
	var wsContext struct {
		Offer *struct {
			CompanyName string `json:"companyName"`
		} `json:"offer"`
		Campaigns struct {
			List []struct {
				Campaign string `json:"campaign"`
				Status   string `json:"status"`
			} `json:"campaigns"`
		} `json:"campaigns"`
	}
	var raw json.RawMessage
	md := c.Result("get_workspace_context", nil, &raw)
	if err := json.Unmarshal(raw, &wsContext); err != nil {
		t.Fatal(err)
	}
	if wsContext.Offer == nil || !strings.Contains(wsContext.Offer.CompanyName, "sample data") {
		t.Errorf("the context's offer does not say it is sample data:\n%s", md)
	}
	if len(wsContext.Campaigns.List) != 1 || wsContext.Campaigns.List[0].Status != "sending" {
		t.Fatalf("the context's campaigns: %+v\n%s", wsContext.Campaigns.List, md)
	}
	type metric struct {
		Value *int `json:"value"`
	}
	var campaign struct {
		Campaign struct {
			Metrics struct {
				Sent    metric `json:"sent"`
				Replied metric `json:"replied"`
			} `json:"metrics"`
		} `json:"campaign"`
	}
	md = c.Result("get_campaign", map[string]any{"campaign": wsContext.Campaigns.List[0].Campaign}, &raw)
	if err := json.Unmarshal(raw, &campaign); err != nil {
		t.Fatal(err)
	}
	if m := campaign.Campaign.Metrics; m.Sent.Value == nil || *m.Sent.Value < 1 || m.Replied.Value == nil || *m.Replied.Value != len(demoReplies) {
		t.Errorf("the campaign has not sent and been answered:\n%s", md)
	}
	var listed struct {
		Replies []struct {
			Classification string `json:"classification"`
		} `json:"replies"`
	}
	md = c.Result("list_replies", nil, &raw)
	if err := json.Unmarshal(raw, &listed); err != nil {
		t.Fatal(err)
	}
	if len(listed.Replies) != len(demoReplies) {
		t.Errorf("%d replies listed, want %d:\n%s", len(listed.Replies), len(demoReplies), md)
	}

	if _, err := runCmd(t, getenv, "demo", "--workspace", ws.Slug); err == nil || !strings.Contains(err.Error(), "already holds data") {
		t.Errorf("a second demo on the same workspace: %v", err)
	}
}
