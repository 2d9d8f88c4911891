package tools

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/approvals"
	"vibesell/store/storetest"
	"vibesell/toolkit/toolkittest"
	"vibesell/workspace"
	"vibesell/workspace/workspacetest"
)

// workspaceBundle is a workspace tools test: a client acting for Acme, one
// acting for Globex, and what they were built from.
type workspaceBundle struct {
	c, other *toolkittest.Client
	two      workspacetest.Pair
	deps     Deps
}

func setupWorkspace(t *testing.T) workspaceBundle {
	t.Helper()
	pool := storetest.New(t)
	clock := vibesell.NewManualClock(friday)
	appr, err := approvals.NewService(pool, clock, approvals.Config{PublicURL: appURL, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	appr.Register("test_action", approvals.ExecutorFuncs{})
	d := Deps{Clock: clock, Workspaces: workspace.NewService(pool, clock), Approvals: appr, PublicURL: appURL}
	two := workspacetest.Two(t, pool)
	connect := func(ws workspace.Workspace) *toolkittest.Client {
		return toolkittest.Connect(t, NewServer(d, nil), workspacetest.Principal(ws))
	}
	return workspaceBundle{c: connect(two.Acme), other: connect(two.Globex), two: two, deps: d}
}

var offerArgs = map[string]any{
	"companyName": "Acme", "companyDomain": "https://www.acme.com/", "product": "Anvils that never miss",
	"audience": "Coyotes in the south-west", "value": "Finally catch the bird", "callToAction": "Book a demo",
	"proofPoints": []string{"Sold 10,000"}, "price": map[string]any{"amount": 1450, "currency": "inr", "period": "month"},
}

var playbookArgs = map[string]any{
	"tone": "Warm", "angles": []string{"Funding"}, "dos": []string{"Be brief"}, "donts": []string{"No hype"},
	"objections": []map[string]string{{"objection": "Too pricey", "answer": "Pays back in a month"}},
}

func nextTool(s nextStepData) string { return textOf(s.Tool) }

func TestGetWorkspaceContext(t *testing.T) {
	t.Parallel()
	b := setupWorkspace(t)

	t.Run("a new workspace", func(t *testing.T) {
		var got workspaceOutput
		md := b.c.Result("get_workspace_context", nil, &got)
		if got.Workspace.Slug != b.two.Acme.Slug || got.Offer != nil || got.Playbook != nil || got.Plan != nil || nextTool(got.NextStep) != "save_offer" {
			t.Errorf("a new workspace's context: %+v", got)
		}
		mustContain(t, md, "## Workspace Acme (slug acme)", "### Offer\nNot saved yet", "Plan: not available", "(tool save_offer)")
	})

	b.c.Result("save_offer", offerArgs, nil)
	b.c.Result("save_playbook", playbookArgs, nil)
	b.c.Result("remember", map[string]any{"fact": "Prefers to be called Sam", "about": "person"}, nil)
	b.c.Result("contact_support", map[string]any{"message": "Where is my card?", "topic": "bug"}, nil)
	t.Run("what was saved", func(t *testing.T) {
		var got workspaceOutput
		md := b.c.Result("get_workspace_context", nil, &got)
		want := priceData{Amount: "1450.00", Currency: "INR", Period: new("month")}
		if diff := cmp.Diff(&want, got.Offer.Price); diff != "" {
			t.Errorf("price (-want +got):\n%s", diff)
		}
		if got.Playbook.Tone != "Warm" || len(got.Memory) != 1 || got.OpenSupportTickets != 1 || got.NextStep.Tool != nil {
			t.Errorf("after everything was saved: %+v", got)
		}
		mustContain(t, md, "- Price: INR 1,450.00 per month", "Prefers to be called Sam", "Open support tickets: 1.",
			"The offer and the playbook are saved. The next part is the sending setup")
	})

	// An approval waits for a person: it comes first, with where to decide.
	a, _, err := b.deps.Approvals.Open(context.Background(), approvals.Request{
		WorkspaceID: b.two.Acme.ID, Action: "test_action", Arguments: map[string]any{}, Summary: "Launch campaign Spring",
		Impact: approvals.Impact{What: "x", Who: "x", When: "x", Renewal: "x", Undo: "x",
			CostOnce: vibesell.NewMoney(0, "USD"), CostMonthly: vibesell.NewMoney(2500, "USD")},
		TTL: time.Hour,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("an approval waiting", func(t *testing.T) {
		var got workspaceOutput
		md := b.c.Result("get_workspace_context", nil, &got)
		if got.NextStep.Tool != nil {
			t.Errorf("next tool %q while a person's decision waits", *got.NextStep.Tool)
		}
		mustContain(t, md, "**Next step:** An approval is waiting for the person's decision: "+a.ID+" (Launch campaign Spring;",
			"only a signed-in person can approve it, in the web app at "+a.AppURL)
	})
	t.Run("another workspace", func(t *testing.T) {
		var got workspaceOutput
		b.other.Result("get_workspace_context", nil, &got)
		if got.Workspace.Slug != b.two.Globex.Slug || got.Offer != nil || len(got.Memory) != 0 || nextTool(got.NextStep) != "save_offer" {
			t.Errorf("another workspace sees: %+v", got)
		}
	})
}

// Two servers on one database, as two replicas: each keeps the contexts it
// read, and still shows what the other wrote at once.
func TestWorkspaceContextIsFreshAcrossReplicas(t *testing.T) {
	t.Parallel()
	b := setupWorkspace(t)
	replica := toolkittest.Connect(t, NewServer(b.deps, nil), workspacetest.Principal(b.two.Acme))

	var got workspaceOutput
	b.c.Result("get_workspace_context", nil, &got)
	b.c.Result("get_workspace_context", nil, &got)
	replica.Result("save_offer", offerArgs, nil)
	var mem memoryOutput
	replica.Result("remember", map[string]any{"fact": "Prefers to be called Sam", "about": "person"}, &mem)
	b.c.Result("get_workspace_context", nil, &got)
	if got.Offer == nil || len(got.Memory) != 1 {
		t.Fatalf("after the other replica saved: %+v", got)
	}
	replica.Result("remember", map[string]any{"forget": mem.Memory.ID.String()}, nil)
	if md := b.c.Result("get_workspace_context", nil, &got); len(got.Memory) != 0 || strings.Contains(md, "Sam") {
		t.Errorf("after the other replica forgot: %+v\n%s", got.Memory, md)
	}
}

func TestRemember(t *testing.T) {
	t.Parallel()
	b := setupWorkspace(t)
	var out memoryOutput
	md := b.c.Result("remember", map[string]any{"fact": "We never email on Fridays", "about": "preference"}, &out)
	if out.Action != "remembered" || out.Memory == nil || len(out.Memories) != 1 {
		t.Fatalf("remember: %+v", out)
	}
	mustContain(t, md, `Remembered (preference): "We never email on Fridays" — id `+out.Memory.ID.String(), "1 remembered, newest first:")
	id := out.Memory.ID.String()
	b.c.Result("remember", map[string]any{"forget": id}, &out)
	if out.Action != "forgotten" || len(out.Memories) != 0 {
		t.Errorf("forget: %+v", out)
	}
	mustContain(t, b.c.Refusal("remember", map[string]any{"fact": "x", "forget": id}), "not both")
}

// save_offer and save_playbook say what comes next: the other one while it
// is missing, then the whole context.
func TestSaveOfferAndPlaybookGiveTheNextStep(t *testing.T) {
	t.Parallel()
	b := setupWorkspace(t)

	var offer offerOutput
	md := b.c.Result("save_offer", offerArgs, &offer)
	mustContain(t, md, "Saved the offer:", "(acme.com)", "- Price: INR 1,450.00 per month",
		"**Next step:** The offer is saved. Ask the person how their emails should sound", "(tool save_playbook)")
	md = b.c.Result("save_playbook", playbookArgs, nil)
	mustContain(t, md, "Saved the playbook.", `"Too pricey" → Pays back in a month`,
		"**Next step:** The offer and the playbook are saved. Call get_workspace_context for what the workspace needs next. (tool get_workspace_context)")

	md = b.other.Result("save_playbook", playbookArgs, nil)
	mustContain(t, md, "**Next step:** Nothing is known yet about what this workspace sells.", "(tool save_offer)")
	mustContain(t, b.c.Refusal("save_offer", map[string]any{"companyName": "Acme", "product": "Anvils", "audience": "Coyotes",
		"value": "Catch birds", "callToAction": "Reply", "companyDomain": "not a domain"}), "is not a domain name")
}

// contact_support says where the ticket went: it stays on this server, in
// the web app's Support page and `server support list`.
func TestContactSupportSaysWhereTicketsGo(t *testing.T) {
	t.Parallel()
	b := setupWorkspace(t)
	var out supportOutput
	md := b.c.Result("contact_support", map[string]any{"message": "Card is blank", "topic": "bug", "replyTo": "sam@acme.com"}, &out)
	want := "The ticket is kept on this VibeSell server: the workspace's signed-in people see it on the web app's Support page (" + appURL +
		"/app/support), and whoever runs this server reads it with the command `server support list`. They answer by email at sam@acme.com, quoting " +
		out.Ticket.Reference + "."
	if diff := cmp.Diff(want, out.WhatNext); diff != "" {
		t.Errorf("what next (-want +got):\n%s", diff)
	}
	mustContain(t, md, "Opened support ticket "+out.Ticket.Reference+" (bug)", want)
	if strings.Contains(md, "VibeSell team") {
		t.Errorf("the result promises a team:\n%s", md)
	}
	mustContain(t, b.c.Refusal("contact_support", map[string]any{"message": "x", "topic": "bug", "replyTo": "not-an-address"}), "not an email address")
}
