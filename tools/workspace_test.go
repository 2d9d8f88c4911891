package tools

import (
	"context"
	"strings"
	"testing"

	"vibesell"
	"vibesell/auth"
	"vibesell/store/storetest"
	"vibesell/toolkit/toolkittest"
	"vibesell/workspace"
)

// connectWorkspace gives a test a fresh database, a workspace in it, and an
// in-process client acting for that workspace.
func connectWorkspace(t *testing.T) (*toolkittest.Client, workspace.Workspace, Deps) {
	t.Helper()
	pool := storetest.New(t)
	svc := workspace.NewService(pool, vibesell.SystemClock{})
	ws, err := svc.Create(context.Background(), "Acme Sales")
	if err != nil {
		t.Fatal(err)
	}
	d := Deps{Clock: vibesell.SystemClock{}, Workspaces: svc}
	srv := NewServer(d, nil)
	return toolkittest.Connect(t, srv, auth.Principal{WorkspaceID: ws.ID, WorkspaceSlug: ws.Slug}), ws, d
}

type workspaceResult = workspaceOutput

func TestWorkspaceContextFollowsWhatIsSaved(t *testing.T) {
	t.Parallel()
	c, ws, _ := connectWorkspace(t)

	var got workspaceResult
	md := c.Result("get_workspace_context", map[string]any{}, &got)
	if got.Workspace.Slug != ws.Slug || got.Offer != nil || got.Playbook != nil || got.Plan != nil || got.Kind != "workspace" {
		t.Fatalf("fresh workspace context: %+v", got)
	}
	if got.NextStep.Tool == nil || *got.NextStep.Tool != "save_offer" {
		t.Fatalf("next step on a fresh workspace: %+v", got.NextStep)
	}
	for _, want := range []string{"Acme Sales", "Offer\nNot saved yet", "Plan: not available", "save_offer"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}

	md = c.Result("save_offer", map[string]any{
		"companyName": "Acme", "companyDomain": "https://www.acme.com/", "product": "Anvils that never miss",
		"audience": "Coyotes in the south-west", "value": "Finally catch the bird", "callToAction": "Book a demo",
		"proofPoints": []string{"Sold 10,000"}, "price": map[string]any{"amount": 1450, "currency": "inr", "period": "month"},
	}, nil)
	if !strings.Contains(md, "INR 1,450.00 per month") || !strings.Contains(md, "(acme.com)") {
		t.Fatalf("save_offer markdown:\n%s", md)
	}
	c.Result("get_workspace_context", map[string]any{}, &got)
	if got.Offer == nil || *got.Offer.CompanyDomain != "acme.com" || got.Offer.Price.Amount != "1450.00" || *got.NextStep.Tool != "save_playbook" {
		t.Fatalf("after save_offer: %+v next %+v", got.Offer, got.NextStep)
	}

	c.Result("save_playbook", map[string]any{
		"tone": "Brief", "objections": []map[string]string{{"objection": "Too pricey", "answer": "Pays back in a month"}},
	}, nil)
	c.Result("remember", map[string]any{"fact": "Prefers to be called Sam", "about": "person"}, nil)
	c.Result("contact_support", map[string]any{"message": "Where is my card?", "topic": "bug"}, nil)
	md = c.Result("get_workspace_context", map[string]any{}, &got)
	if got.Playbook == nil || got.Playbook.Tone != "Brief" || len(got.Memory) != 1 || got.OpenSupportTickets != 1 || got.NextStep.Tool != nil {
		t.Fatalf("after everything: %+v", got)
	}
	if !strings.Contains(md, "Prefers to be called Sam") || !strings.Contains(md, "sending setup") {
		t.Fatalf("markdown:\n%s", md)
	}
}

// Two servers on one database, as two replicas: each keeps the contexts it
// read, and still shows what the other wrote at once.
func TestWorkspaceContextIsFreshAcrossReplicas(t *testing.T) {
	t.Parallel()
	pool := storetest.New(t)
	ws, err := workspace.Create(context.Background(), pool, "Acme Sales")
	if err != nil {
		t.Fatal(err)
	}
	replica := func() *toolkittest.Client {
		d := Deps{Clock: vibesell.SystemClock{}, Workspaces: workspace.NewService(pool, vibesell.SystemClock{})}
		return toolkittest.Connect(t, NewServer(d, nil), auth.Principal{WorkspaceID: ws.ID, WorkspaceSlug: ws.Slug})
	}
	a, b := replica(), replica()

	var got workspaceResult
	a.Result("get_workspace_context", map[string]any{}, &got)
	a.Result("get_workspace_context", map[string]any{}, &got)
	if got.Offer != nil || len(got.Memory) != 0 {
		t.Fatalf("fresh workspace: %+v", got)
	}

	b.Result("save_offer", map[string]any{
		"companyName": "Acme", "product": "Anvils", "audience": "Coyotes", "value": "Catch the bird", "callToAction": "Book a demo",
	}, nil)
	var mem memoryOutput
	b.Result("remember", map[string]any{"fact": "Prefers to be called Sam", "about": "person"}, &mem)
	a.Result("get_workspace_context", map[string]any{}, &got)
	if got.Offer == nil || got.Offer.Product != "Anvils" || len(got.Memory) != 1 {
		t.Fatalf("after the other replica saved: %+v", got)
	}

	b.Result("remember", map[string]any{"forget": got.Memory[0].ID.String()}, nil)
	md := a.Result("get_workspace_context", map[string]any{}, &got)
	if len(got.Memory) != 0 || strings.Contains(md, "Sam") {
		t.Fatalf("after the other replica forgot: %+v\n%s", got.Memory, md)
	}
}

func TestRememberListsStoresAndForgets(t *testing.T) {
	t.Parallel()
	c, _, _ := connectWorkspace(t)
	var out memoryOutput
	md := c.Result("remember", map[string]any{}, &out)
	if out.Action != "listed" || out.Memory != nil || len(out.Memories) != 0 || !strings.Contains(md, "Nothing is remembered") {
		t.Fatalf("empty list: %+v %s", out, md)
	}
	md = c.Result("remember", map[string]any{"fact": "We never email on Fridays", "about": "preference"}, &out)
	if out.Action != "remembered" || out.Memory == nil || !strings.Contains(md, out.Memory.ID.String()) {
		t.Fatalf("remember: %+v %s", out, md)
	}
	id := out.Memory.ID.String()
	c.Result("remember", map[string]any{"forget": id}, &out)
	if out.Action != "forgotten" || len(out.Memories) != 0 {
		t.Fatalf("forget: %+v", out)
	}

	if got := c.Refusal("remember", map[string]any{"forget": id}); !strings.Contains(got, "There is no memory "+id) {
		t.Fatalf("forget twice: %q", got)
	}
	if got := c.Refusal("remember", map[string]any{"fact": "x", "forget": id}); !strings.Contains(got, "not both") {
		t.Fatalf("both: %q", got)
	}
	if got := c.Refusal("remember", map[string]any{"forget": "nope"}); !strings.Contains(got, "is not a memory id") {
		t.Fatalf("bad id: %q", got)
	}
	if got := c.Refusal("remember", map[string]any{"fact": "x", "about": "weather"}); !strings.Contains(got, `"about"`) {
		t.Fatalf("bad about: %q", got)
	}
}

func TestSaveOfferRefusals(t *testing.T) {
	t.Parallel()
	c, _, _ := connectWorkspace(t)
	base := func() map[string]any {
		return map[string]any{"companyName": "Acme", "product": "Anvils", "audience": "Coyotes", "value": "Catch birds", "callToAction": "Reply"}
	}
	args := base()
	delete(args, "audience")
	if got := c.Refusal("save_offer", args); !strings.Contains(got, `"audience"`) {
		t.Fatalf("missing audience: %q", got)
	}
	args = base()
	args["companyDomain"] = "not a domain"
	if got := c.Refusal("save_offer", args); !strings.Contains(got, "is not a domain name") {
		t.Fatalf("bad domain: %q", got)
	}
	args = base()
	args["price"] = map[string]any{"amount": 10, "currency": "dollars"}
	if got := c.Refusal("save_offer", args); !strings.Contains(got, "currency") {
		t.Fatalf("bad currency: %q", got)
	}
	args = base()
	args["discount"] = 5
	if got := c.Refusal("save_offer", args); !strings.Contains(got, `"discount"`) {
		t.Fatalf("unknown argument: %q", got)
	}
	var out offerOutput
	md := c.Result("save_offer", base(), &out)
	if out.Offer.Price != nil || !strings.Contains(md, "Price: not given") {
		t.Fatalf("offer without a price: %+v\n%s", out, md)
	}
}

func TestSavePlaybookAndSupport(t *testing.T) {
	t.Parallel()
	c, _, _ := connectWorkspace(t)
	if got := c.Refusal("save_playbook", map[string]any{"tone": ""}); !strings.Contains(got, `"tone"`) {
		t.Fatalf("empty tone: %q", got)
	}
	if got := c.Refusal("save_playbook", map[string]any{"tone": "x", "objections": []map[string]string{{"objection": "No budget"}}}); !strings.Contains(got, `answer`) {
		t.Fatalf("objection without answer: %q", got)
	}
	md := c.Result("save_playbook", map[string]any{"tone": "Warm", "angles": []string{"Funding"}, "dos": []string{"Be brief"}, "donts": []string{"No hype"}}, nil)
	for _, want := range []string{"Tone: Warm", "Funding", "Be brief", "No hype"} {
		if !strings.Contains(md, want) {
			t.Errorf("playbook markdown lacks %q:\n%s", want, md)
		}
	}

	var out supportOutput
	md = c.Result("contact_support", map[string]any{"message": "Card is blank", "topic": "bug", "replyTo": "sam@acme.com"}, &out)
	if !strings.HasPrefix(out.Ticket.Reference, "VS-") || out.Ticket.Status != "open" || *out.Ticket.ReplyTo != "sam@acme.com" ||
		!strings.Contains(md, out.Ticket.Reference) || !strings.Contains(out.WhatNext, "sam@acme.com") {
		t.Fatalf("ticket: %+v\n%s", out, md)
	}
	c.Result("contact_support", map[string]any{"message": "Hello", "topic": "other"}, &out)
	if out.Ticket.ReplyTo != nil || !strings.Contains(out.WhatNext, "No reply address") {
		t.Fatalf("ticket without reply address: %+v", out)
	}
	if got := c.Refusal("contact_support", map[string]any{"message": "x", "topic": "bug", "replyTo": "not-an-address"}); !strings.Contains(got, "not an email address") {
		t.Fatalf("bad reply address: %q", got)
	}
	if got := c.Refusal("contact_support", map[string]any{"message": "x", "topic": "weather"}); !strings.Contains(got, `"topic"`) {
		t.Fatalf("bad topic: %q", got)
	}
}

// A workspace's tools never see another workspace's rows.
func TestWorkspaceToolsAreIsolated(t *testing.T) {
	t.Parallel()
	c, _, d := connectWorkspace(t)
	other, err := d.Workspaces.Create(context.Background(), "Globex")
	if err != nil {
		t.Fatal(err)
	}
	c.Result("remember", map[string]any{"fact": "Acme secret"}, nil)
	c.Result("save_offer", map[string]any{"companyName": "Acme", "product": "A", "audience": "B", "value": "C", "callToAction": "D"}, nil)
	oc := toolkittest.Connect(t, NewServer(d, nil), auth.Principal{WorkspaceID: other.ID, WorkspaceSlug: other.Slug})
	var got workspaceResult
	oc.Result("get_workspace_context", map[string]any{}, &got)
	if got.Workspace.Slug != other.Slug || got.Offer != nil || len(got.Memory) != 0 {
		t.Fatalf("another workspace sees: %+v", got)
	}
}
