package tools

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

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
	clock    *vibesell.ManualClock
}

func setupWorkspace(t *testing.T) workspaceBundle {
	t.Helper()
	pool := storetest.New(t)
	clock := vibesell.NewManualClock(friday)
	appr := approvals.New(approvals.Deps{DB: pool, Clock: clock, PublicURL: appURL, Logger: slog.New(slog.DiscardHandler)})
	appr.Register("test_action", approvals.ExecutorFuncs{})
	d := Deps{Workspaces: workspace.New(workspace.Deps{DB: pool, Clock: clock}), Approvals: appr, PublicURL: appURL}
	two := workspacetest.Two(t, pool)
	connect := func(ws workspace.Workspace) *toolkittest.Client {
		return toolkittest.Connect(t, NewServer(d, nil), workspacetest.Principal(ws))
	}
	return workspaceBundle{c: connect(two.Acme), other: connect(two.Globex), two: two, deps: d, clock: clock}
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

// contextSummary is what a test compares of a workspace's context.
type contextSummary struct {
	Slug                  string
	Offer, Playbook, Plan bool
	Memories, OpenTickets int
	NextTool              string
}

func summaryOf(o workspaceOutput) contextSummary {
	return contextSummary{Slug: o.Workspace.Slug, Offer: o.Offer != nil, Playbook: o.Playbook != nil, Plan: o.Plan != nil,
		Memories: len(o.Memory), OpenTickets: o.OpenSupportTickets, NextTool: textOf(o.NextStep.Tool)}
}

// readContext calls get_workspace_context and compares its summary.
func readContext(t *testing.T, c *toolkittest.Client, want contextSummary) (workspaceOutput, string) {
	t.Helper()
	var got workspaceOutput
	md := c.Result("get_workspace_context", nil, &got)
	if diff := cmp.Diff(want, summaryOf(got)); diff != "" {
		t.Errorf("context mismatch (-want +got):\n%s", diff)
	}
	return got, md
}

func TestGetWorkspaceContext(t *testing.T) {
	t.Parallel()
	b := setupWorkspace(t)

	t.Run("a new workspace", func(t *testing.T) {
		_, md := readContext(t, b.c, contextSummary{Slug: "acme", NextTool: "save_offer"})
		mustContain(t, md, "## Workspace Acme (slug acme)", "### Offer\nNot saved yet", "Plan: not available", "(tool save_offer)")
	})

	b.c.Result("save_offer", offerArgs, nil)
	b.c.Result("save_playbook", playbookArgs, nil)
	b.c.Result("remember", map[string]any{"fact": "Prefers to be called Sam", "about": "person"}, nil)
	b.c.Result("contact_support", map[string]any{"message": "Where is my card?", "topic": "bug"}, nil)
	t.Run("what was saved", func(t *testing.T) {
		got, md := readContext(t, b.c, contextSummary{Slug: "acme", Offer: true, Playbook: true, Memories: 1, OpenTickets: 1})
		want := priceData{Amount: "1450.00", Currency: "INR", Period: new("month")}
		if diff := cmp.Diff(&want, got.Offer.Price); diff != "" {
			t.Errorf("price mismatch (-want +got):\n%s", diff)
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
		_, md := readContext(t, b.c, contextSummary{Slug: "acme", Offer: true, Playbook: true, Memories: 1, OpenTickets: 1})
		mustContain(t, md, "**Next step:** An approval is waiting for the person's decision: "+a.ID+" (Launch campaign Spring;",
			"only a signed-in person can approve it, in the web app at "+a.AppURL)
	})
	t.Run("another workspace", func(t *testing.T) {
		readContext(t, b.other, contextSummary{Slug: "globex", NextTool: "save_offer"})
	})
}

// Two servers on one database, as two replicas: each keeps the contexts it
// read, and still shows what the other wrote at once.
func TestWorkspaceContextIsFreshAcrossReplicas(t *testing.T) {
	t.Parallel()
	b := setupWorkspace(t)
	replica := toolkittest.Connect(t, NewServer(b.deps, nil), workspacetest.Principal(b.two.Acme))

	fresh := contextSummary{Slug: "acme", NextTool: "save_offer"}
	readContext(t, b.c, fresh)
	readContext(t, b.c, fresh)
	replica.Result("save_offer", offerArgs, nil)
	var mem memoryOutput
	replica.Result("remember", map[string]any{"fact": "Prefers to be called Sam", "about": "person"}, &mem)
	readContext(t, b.c, contextSummary{Slug: "acme", Offer: true, Memories: 1, NextTool: "save_playbook"})
	replica.Result("remember", map[string]any{"forget": mem.Memory.ID.String()}, nil)
	if _, md := readContext(t, b.c, contextSummary{Slug: "acme", Offer: true, NextTool: "save_playbook"}); strings.Contains(md, "Sam") {
		t.Errorf("after the other replica forgot, the context still says:\n%s", md)
	}
}

func TestRemember(t *testing.T) {
	t.Parallel()
	b := setupWorkspace(t)
	var out memoryOutput
	md := b.c.Result("remember", map[string]any{"fact": "We never email on Fridays", "about": "preference"}, &out)
	fact := memoryItem{About: "preference", Fact: "We never email on Fridays", CreatedAt: friday}
	ids := cmpopts.IgnoreFields(memoryItem{}, "ID")
	if diff := cmp.Diff(memoryOutput{Kind: "memory", Action: "remembered", Memory: &fact, Memories: []memoryItem{fact}, Total: 1}, out, ids); diff != "" {
		t.Fatalf("remember mismatch (-want +got):\n%s", diff)
	}
	mustContain(t, md, `Remembered (preference): "We never email on Fridays" — id `+out.Memory.ID.String(), "1 remembered, newest first:")
	id := out.Memory.ID.String()
	out = memoryOutput{}
	b.c.Result("remember", map[string]any{"forget": id}, &out)
	if diff := cmp.Diff(memoryOutput{Kind: "memory", Action: "forgotten", Memory: &fact, Memories: []memoryItem{}}, out, ids); diff != "" {
		t.Errorf("forget mismatch (-want +got):\n%s", diff)
	}
	mustContain(t, b.c.Refusal("remember", map[string]any{"fact": "x", "forget": id}), "not both")
}

// However much is remembered, remember lists it a page at a time and the
// context shows the count and the newest few, each saying how to read the
// rest.
func TestManyMemoriesArePagedAndSummarised(t *testing.T) {
	t.Parallel()
	b := setupWorkspace(t)
	for i := range 12 {
		b.clock.Advance(time.Minute)
		b.c.Result("remember", map[string]any{"fact": fmt.Sprintf("Fact number %d", i)}, nil)
	}
	var out memoryOutput
	md := b.c.Result("remember", nil, &out)
	if len(out.Memories) != 10 || out.Total != 12 || out.NextCursor == nil {
		t.Fatalf("the first page: %d memories of %d, next cursor %v; want 10 of 12 and a next page", len(out.Memories), out.Total, out.NextCursor)
	}
	mustContain(t, md, "12 remembered; 10 of them on this page, newest first:", "- (company) Fact number 11", "call remember with cursor "+strconv.Quote(*out.NextCursor))
	md = b.c.Result("remember", map[string]any{"cursor": *out.NextCursor}, &out)
	if len(out.Memories) != 2 || out.NextCursor != nil || out.Memories[1].Fact != "Fact number 0" {
		t.Errorf("the last page: %+v", out)
	}
	mustContain(t, md, "12 remembered; 2 of them on this page")
	mustContain(t, b.c.Refusal("remember", map[string]any{"limit": 21}), "limit")

	var ctx workspaceOutput
	md = b.c.Result("get_workspace_context", nil, &ctx)
	if len(ctx.Memory) != 5 || ctx.MemoryTotal != 12 || ctx.Memory[0].Fact != "Fact number 11" {
		t.Errorf("the context holds %d memories of %d, the newest %q; want the newest 5 of 12", len(ctx.Memory), ctx.MemoryTotal, ctx.Memory[0].Fact)
	}
	mustContain(t, md, "### Remembered (12)\nThe newest 5; call remember with no fact to list them all, page by page.")
	if strings.Contains(md, "Fact number 6") {
		t.Errorf("the context shows more than the newest 5:\n%s", md)
	}
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
		"**Next step:** The offer and the playbook are saved. See what the workspace needs next. Call get_workspace_context. (tool get_workspace_context)")

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
		"/app/support; only the workspace's people open it, signed in), and whoever runs this server reads it with the command `server support list`. They answer by email at sam@acme.com, quoting " +
		out.Ticket.Reference + ".\n\nNext: tell the person the ticket's reference, " + out.Ticket.Reference + ", and that the answer comes by email."
	if diff := cmp.Diff(want, out.WhatNext); diff != "" {
		t.Errorf("what next mismatch (-want +got):\n%s", diff)
	}
	mustContain(t, md, "Opened support ticket "+out.Ticket.Reference+" (bug)", want)
	if strings.Contains(md, "VibeSell team") {
		t.Errorf("the result promises a team:\n%s", md)
	}
	mustContain(t, b.c.Refusal("contact_support", map[string]any{"message": "x", "topic": "bug", "replyTo": "not-an-address"}), "not an email address")
}

// save_offer sets the workspace's postal address and default sender name
// when given, keeps them when left out, and refuses a bad one with the
// argument's name, saving nothing.
func TestSaveOfferSetsTheSender(t *testing.T) {
	t.Parallel()
	b := setupWorkspace(t)
	with := func(extra map[string]any) map[string]any {
		args := map[string]any{}
		for k, v := range offerArgs {
			args[k] = v
		}
		for k, v := range extra {
			args[k] = v
		}
		return args
	}
	address, name := "Acme GmbH, Torstraße 1, 10119 Berlin, Germany", "Sam Lee"

	t.Run("not given yet: said so, with how to give it", func(t *testing.T) {
		var out offerOutput
		md := b.c.Result(vibesell.ToolSaveOffer, offerArgs, &out)
		if d := cmp.Diff(senderData{}, out.Sender); d != "" {
			t.Errorf("sender mismatch (-want +got):\n%s", d)
		}
		mustContain(t, md, "- Postal address: not given yet (the law asks every cold email to carry one, and a campaign cannot launch without it: ask the person and pass postalAddress to save_offer)")
	})
	t.Run("given: saved for the workspace", func(t *testing.T) {
		var out offerOutput
		md := b.c.Result(vibesell.ToolSaveOffer, with(map[string]any{"postalAddress": "  " + address + " ", "senderName": name}), &out)
		if d := cmp.Diff(senderData{PostalAddress: &address, SenderName: &name}, out.Sender); d != "" {
			t.Errorf("sender mismatch (-want +got):\n%s", d)
		}
		mustContain(t, md, "- Postal address: "+address+"\n- Default sender name: Sam Lee\n")
		got, err := b.deps.Workspaces.Sender(t.Context(), b.two.Acme.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(workspace.Sender{PostalAddress: address, Name: name, TimeZone: "UTC"}, got); diff != "" {
			t.Errorf("the workspace's sender mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("left out: kept", func(t *testing.T) {
		var out offerOutput
		b.c.Result(vibesell.ToolSaveOffer, offerArgs, &out)
		if d := cmp.Diff(senderData{PostalAddress: &address, SenderName: &name}, out.Sender); d != "" {
			t.Errorf("sender mismatch (-want +got):\n%s", d)
		}
	})
	t.Run("a bad one is refused by name, and nothing is saved", func(t *testing.T) {
		msg := b.c.Refusal(vibesell.ToolSaveOffer, with(map[string]any{"product": "Something else", "postalAddress": "          "}))
		mustContain(t, msg, "postalAddress needs the full postal address the law asks every cold email to carry")
		msg = b.c.Refusal(vibesell.ToolSaveOffer, with(map[string]any{"senderName": ""}))
		mustContain(t, msg, "senderName")
		o, err := b.deps.Workspaces.FindOffer(t.Context(), b.two.Acme.ID)
		if err != nil {
			t.Fatal(err)
		}
		if o == nil {
			t.Fatal("no offer after a refusal, want the one saved before")
		}
		if o.Product != "Anvils that never miss" {
			t.Errorf("the offer after a refusal is for %q, want the one saved before", o.Product)
		}
	})
	t.Run("another workspace's sender is its own", func(t *testing.T) {
		var out offerOutput
		b.other.Result(vibesell.ToolSaveOffer, offerArgs, &out)
		if d := cmp.Diff(senderData{}, out.Sender); d != "" {
			t.Errorf("globex sender mismatch (-want +got):\n%s", d)
		}
	})
}

// One time zone: the context writes its moments in the workspace's zone
// with UTC beside them, and tells the card the zone; a test of this rule
// for every moment any text writes is vibesell.FormatTimeFor's.
func TestContextWritesMomentsInTheWorkspacesZone(t *testing.T) {
	t.Parallel()
	b := setupWorkspace(t)
	b.c.Result("save_offer", offerArgs, nil)
	var out workspaceOutput
	md := b.c.Result("get_workspace_context", nil, &out)
	if out.TimeZone != "UTC" || !strings.Contains(md, "### Offer (saved "+vibesell.FormatTime(friday)+")") {
		t.Errorf("before any zone: timeZone %q, text:\n%s", out.TimeZone, md)
	}
	la := "America/Los_Angeles"
	if _, err := b.deps.Workspaces.SetSender(t.Context(), b.two.Acme.ID, workspace.SenderChange{TimeZone: &la}, friday); err != nil {
		t.Fatal(err)
	}
	loc, err := time.LoadLocation(la)
	if err != nil {
		t.Fatal(err)
	}
	md = b.c.Result("get_workspace_context", nil, &out)
	want := "### Offer (saved " + vibesell.FormatTimeIn(friday, loc) + " (" + friday.UTC().Format("15:04") + " UTC))"
	if out.TimeZone != la || !strings.Contains(md, want) {
		t.Errorf("in Los Angeles: timeZone %q, want %q; text lacks %q:\n%s", out.TimeZone, la, want, md)
	}
}
