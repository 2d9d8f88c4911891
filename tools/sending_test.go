package tools

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/miekg/dns"

	"vibesell"
	"vibesell/approvals"
	"vibesell/approvals/approvalstest"
	"vibesell/auth"
	"vibesell/cards"
	"vibesell/mail"
	"vibesell/mailboxes"
	"vibesell/outbound"
	"vibesell/sending"
	"vibesell/store"
	"vibesell/store/storetest"
	"vibesell/toolkit/toolkittest"
	"vibesell/workspace"
)

// friday is when the sending tests start: Fri 4 Dec 2026, 10:00 UTC, so
// preparation runs over a weekend.
var friday = time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)

// takenAvailability is the sandbox's availability, except for names the
// test declares registered in the meantime.
type takenAvailability struct {
	mu    sync.Mutex
	taken map[string]bool
	all   bool // every name available (for tests that need specific names)
}

func (a *takenAvailability) Name() string { return sending.SandboxName }

func (a *takenAvailability) Check(ctx context.Context, names []string) []sending.NameCheck {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]sending.NameCheck, len(names))
	for i, n := range names {
		out[i] = sending.SandboxCheck(n)
		if a.all {
			yes := true
			out[i] = sending.NameCheck{Domain: n, Available: &yes}
		}
		if a.taken[n] {
			no := false
			out[i] = sending.NameCheck{Domain: n, Available: &no, Reason: "already registered (sandbox)"}
		}
	}
	return out
}

func (a *takenAvailability) take(name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.taken[name] = true
}

type sendingFixture struct {
	t         *testing.T
	clock     *vibesell.ManualClock
	avail     *takenAvailability
	opts      sending.Providers
	approvals *approvals.Service
	// execute carries out an approved approval now, as a River worker would.
	execute    func(id string) approvals.Approval
	workspaces *workspace.Service
	cards      *cards.Service
	svc        *sending.Service
	replica    func() *sending.Service // the sending service of a second server, on its own pool
	// connections are the connected mailboxes of this database, sealed
	// with secret and checked against servers trusted by roots.
	connections func(secret mail.Secret, roots *x509.CertPool, guard *outbound.Guard) *mailboxes.Connections
	ws, other   workspace.Workspace
	c           *toolkittest.Client // acts for ws
}

func newSendingFixture(t *testing.T, opts *sending.Providers) *sendingFixture {
	t.Helper()
	pool := storetest.New(t)
	f := &sendingFixture{t: t, clock: vibesell.NewManualClock(friday), avail: &takenAvailability{taken: map[string]bool{}}}
	if opts != nil {
		f.opts = *opts
	}
	if f.opts.Availability == nil {
		f.opts.Availability = f.avail
	}
	f.workspaces = workspace.New(workspace.Deps{DB: pool, Clock: f.clock})
	var err error
	if f.ws, err = f.workspaces.Create(context.Background(), "Acme Sales"); err != nil {
		t.Fatal(err)
	}
	if f.other, err = f.workspaces.Create(context.Background(), "Globex"); err != nil {
		t.Fatal(err)
	}
	appr := approvals.New(approvals.Deps{DB: pool, Clock: f.clock, PublicURL: appURL, Logger: slog.New(slog.DiscardHandler), RelayWait: -1})
	f.approvals = appr
	f.cards = cards.New(cards.Deps{DB: pool, Clock: f.clock})
	deps := sending.Deps{DB: pool, Clock: f.clock, Config: sending.DefaultConfig(), Cards: f.cards,
		Offers: f.workspaces, Approvals: f.approvals, Providers: f.opts}
	f.svc = sending.New(deps)
	f.connections = func(secret mail.Secret, roots *x509.CertPool, guard *outbound.Guard) *mailboxes.Connections {
		return mailboxes.NewConnections(mailboxes.ConnectionsDeps{DB: pool, Secret: secret, Clock: f.clock, Roots: roots, Guard: guard})
	}
	f.execute = func(id string) approvals.Approval { return approvalstest.Execute(t, pool, appr, id) }
	// A second pool is what a second server replica has.
	f.replica = func() *sending.Service {
		second, err := store.Connect(context.Background(), pool.Config().ConnString(), 8)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(second.Close)
		d := deps
		d.DB, d.Cards, d.Offers = second, cards.New(cards.Deps{DB: second, Clock: f.clock}), workspace.New(workspace.Deps{DB: second, Clock: f.clock})
		return sending.New(d)
	}
	appr.Register(vibesell.ToolOrderSendingSetup, sending.NewOrderAction(f.svc))
	f.c = f.client(f.svc, f.ws)
	return f
}

func (f *sendingFixture) client(svc *sending.Service, ws workspace.Workspace) *toolkittest.Client {
	d := Deps{Workspaces: f.workspaces, Sending: svc}
	return toolkittest.Connect(f.t, NewServer(d, nil), auth.Principal{WorkspaceID: ws.ID, WorkspaceSlug: ws.Slug})
}

func (f *sendingFixture) saveOffer(ws workspace.Workspace, domain string) {
	f.t.Helper()
	_, err := f.workspaces.SaveOffer(context.Background(), ws.ID, workspace.Offer{
		CompanyName: "Acme", CompanyDomain: domain, Product: "Anvils", Audience: "Coyotes", Value: "Catch the bird", CallToAction: "Book a demo",
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

func ans(card, answer string) map[string]string {
	return map[string]string{"card": card, "answer": answer}
}

// mustNotContain fails the test when text holds any of bad.
func mustNotContain(t *testing.T, text string, bad ...string) {
	t.Helper()
	for _, b := range bad {
		if strings.Contains(text, b) {
			t.Errorf("the text holds %q:\n%s", b, text)
		}
	}
}

func mustContain(t *testing.T, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}
}

// outputSchema returns a tool's outputSchema as listed.
func outputSchema(t *testing.T, c *toolkittest.Client, tool string) json.RawMessage {
	t.Helper()
	var def struct {
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(c.Tool(tool), &def); err != nil {
		t.Fatal(err)
	}
	return def.OutputSchema
}

// raceCalls makes 32 calls of tool at once, spread over the clients (one
// per server replica), and returns the results.
func raceCalls(t *testing.T, clients []*toolkittest.Client, tool string, args func(i int) map[string]any) []*mcp.CallToolResult {
	t.Helper()
	results := make([]*mcp.CallToolResult, 32)
	errs := make([]error, 32)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range results {
		wg.Go(func() {
			<-start
			c := clients[i%len(clients)]
			results[i], errs[i] = c.MCP().CallTool(c.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tool, Arguments: args(i)}})
		})
	}
	close(start)
	wg.Wait()
	schema := outputSchema(t, clients[0], tool)
	for i, r := range results {
		if errs[i] != nil {
			t.Fatalf("call %d: %v", i, errs[i])
		}
		if !r.IsError {
			toolkittest.ValidateStructured(t, schema, r.StructuredContent)
		}
	}
	return results
}

func textOfResult(r *mcp.CallToolResult) string {
	if t, ok := mcp.AsTextContent(r.Content[0]); ok {
		return t.Text
	}
	return ""
}

// Two server replicas, each with its own pool, take 32 answers to one card
// at once: exactly one answer binds; every other call either settles with
// it or is refused with it on record.
func TestChoiceBindsOnceAcrossTwoServers(t *testing.T) {
	t.Parallel()
	f := newSendingFixture(t, nil)
	clients := []*toolkittest.Client{f.c, f.client(f.replica(), f.ws)}

	// 32 first calls at once share one card.
	results := raceCalls(t, clients, "choose_sending_source", func(int) map[string]any { return map[string]any{} })
	cardsSeen := map[string]bool{}
	for _, r := range results {
		if r.IsError {
			t.Fatalf("first call refused: %s", textOfResult(r))
		}
		cardsSeen[r.StructuredContent.(map[string]any)["card"].(string)] = true
	}
	if len(cardsSeen) != 1 {
		t.Fatalf("32 concurrent first calls issued %d cards", len(cardsSeen))
	}
	var card string
	for id := range cardsSeen {
		card = id
	}

	results = raceCalls(t, clients, "choose_sending_source", func(i int) map[string]any {
		return map[string]any{"answers": []any{ans(card, []string{"own_names", "already_warmed"}[i%2])}}
	})
	setup, err := f.svc.GetSetup(context.Background(), f.ws.ID)
	if err != nil || setup.Source == nil {
		t.Fatalf("no source on record after the answers: %v", err)
	}
	stored := string(setup.Source.Source)
	settled, refused := 0, 0
	for _, r := range results {
		if r.IsError {
			refused++
			mustContain(t, textOfResult(r), "already has the answer \""+stored+"\"")
			continue
		}
		settled++
		chosen := r.StructuredContent.(map[string]any)["chosen"].([]any)[0].(map[string]any)["id"]
		if chosen != stored {
			t.Fatalf("a call settled with %v but %s is on record", chosen, stored)
		}
	}
	if settled != 16 || refused != 16 {
		t.Fatalf("%d settled and %d refused; want the 16 calls with the winning answer settled and 16 refused", settled, refused)
	}
}

func withAnswers(args map[string]any, answers ...map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range args {
		out[k] = v
	}
	list := []any{}
	for _, a := range answers {
		list = append(list, a)
	}
	out["answers"] = list
	return out
}

// testProvisioner sets domains up "for real": its DNS records are checked
// with a real resolver, pointed at an in-process DNS server.
type testProvisioner struct{ now func() time.Time }

func (p testProvisioner) Name() string { return "testregistrar" }

func (p testProvisioner) Order(ctx context.Context, _ string, orders []sending.DomainOrder) ([]sending.DomainReceipt, error) {
	var out []sending.DomainReceipt
	for _, o := range orders {
		out = append(out, sending.DomainReceipt{Domain: o.Domain, ReadyAt: p.now(), Records: []sending.Record{
			{Type: "MX", Host: o.Domain, Value: "mx.testregistrar.test"},
			{Type: "SPF", Host: o.Domain, Value: "v=spf1 include:_spf.testregistrar.test ~all"},
			{Type: "DKIM", Host: "s1._domainkey." + o.Domain, Value: "v=DKIM1; k=rsa; p=TESTKEY"},
			{Type: "DMARC", Host: "_dmarc." + o.Domain, Value: "v=DMARC1; p=none"},
		}})
	}
	return out, nil
}

func (p testProvisioner) StartWarmup(ctx context.Context, addresses []string) error { return nil }

// publishedDNS serves the records of testProvisioner for the given domains
// and "no such name" for everything else.
func publishedDNS(t *testing.T, domains ...string) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := dns.NewServeMux()
	mux.HandleFunc(".", func(w dns.ResponseWriter, req *dns.Msg) {
		q := req.Question[0]
		m := new(dns.Msg)
		m.SetReply(req)
		hdr := dns.RR_Header{Name: q.Name, Class: dns.ClassINET, Ttl: 60}
		for _, d := range domains {
			switch {
			case q.Name == d+"." && q.Qtype == dns.TypeMX:
				hdr.Rrtype = dns.TypeMX
				m.Answer = append(m.Answer, &dns.MX{Hdr: hdr, Preference: 10, Mx: "mx.testregistrar.test."})
			case q.Name == d+"." && q.Qtype == dns.TypeTXT:
				hdr.Rrtype = dns.TypeTXT
				m.Answer = append(m.Answer, &dns.TXT{Hdr: hdr, Txt: []string{"v=spf1 include:_spf.testregistrar.test ~all"}})
			case q.Name == "s1._domainkey."+d+"." && q.Qtype == dns.TypeTXT:
				hdr.Rrtype = dns.TypeTXT
				m.Answer = append(m.Answer, &dns.TXT{Hdr: hdr, Txt: []string{"v=DKIM1; k=rsa; p=TESTKEY"}})
			case q.Name == "_dmarc."+d+"." && q.Qtype == dns.TypeTXT:
				hdr.Rrtype = dns.TypeTXT
				m.Answer = append(m.Answer, &dns.TXT{Hdr: hdr, Txt: []string{"v=DMARC1; p=reject"}})
			}
		}
		if len(m.Answer) == 0 {
			m.SetRcode(req, dns.RcodeNameError)
		}
		w.WriteMsg(m)
	})
	started := make(chan struct{})
	srv := &dns.Server{PacketConn: pc, Handler: mux, NotifyStartedFunc: func() { close(started) }}
	go srv.ActivateAndServe()
	<-started
	t.Cleanup(func() { srv.Shutdown() })
	return pc.LocalAddr().String()
}

func TestGetSendingSetupChecksDNSWithTheResolver(t *testing.T) {
	t.Parallel()
	clock := vibesell.NewManualClock(friday)
	f := newSendingFixture(t, &sending.Providers{
		Provisioner: testProvisioner{now: clock.Now},
		Resolver:    sending.NewResolver(publishedDNS(t, "getacme.com"), time.Second),
	})
	f.avail.all = true
	c := f.c
	var q sendingChoiceOutput
	args := map[string]any{"companyDomain": "acme.com", "count": 2}
	c.Result("propose_domains", args, &q)
	first := *q.Card
	c.Result("propose_domains", withAnswers(args, ans(first, "getacme.com")), &q)
	c.Result("propose_domains", withAnswers(args, ans(first, "getacme.com"), ans(*q.Card, "tryacme.com")), &q)
	var e emailStepOutput
	c.Result("propose_email", map[string]any{"senderNames": []string{"Ada Lovelace"}}, &e)
	c.Result("propose_email", map[string]any{"senderNames": []string{"Ada Lovelace"}, "answers": []any{ans(*e.Card, "full_name")}}, &e)
	if _, err := f.svc.PlaceOrder(context.Background(), f.ws.ID, nil); err != nil {
		t.Fatal(err)
	}
	var setup sendingSetupOutput
	md := c.Result("get_sending_setup", nil, &setup)
	if setup.Sandbox {
		t.Fatal("a setup of a real provider reads as sandbox")
	}
	type record struct {
		Type string
		OK   *bool
	}
	for _, d := range setup.Domains {
		t.Run(d.Domain, func(t *testing.T) {
			if got := textOf(d.DNSCheckedWith); got != "dns" {
				t.Errorf("DNS checked with %q, want dns", got)
			}
			ok := d.Domain == "getacme.com"
			want := []record{{"MX", &ok}, {"SPF", &ok}, {"DKIM", &ok}, {"DMARC", &ok}}
			var got []record
			for _, r := range d.DNS {
				got = append(got, record{r.Type, r.OK})
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("DNS records mismatch (-want +got):\n%s", diff)
			}
		})
	}
	mustContain(t, md, "DKIM at s1._domainkey.getacme.com: checks out", "DMARC at _dmarc.tryacme.com: not published as expected")
}

// The choice tools say they return both kinds.
func TestChoiceToolsReturnBothKinds(t *testing.T) {
	t.Parallel()
	f := newSendingFixture(t, nil)
	var def struct {
		OutputSchema struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		} `json:"outputSchema"`
	}
	if err := json.Unmarshal(f.c.Tool("propose_email"), &def); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"kind", "card", "tool", "arguments", "question", "reason", "choices", "allowFreeText", "answers", "addresses"} {
		if !slices.Contains(def.OutputSchema.Required, field) {
			t.Errorf("propose_email's outputSchema does not require %s", field)
		}
	}
	mustContain(t, string(def.OutputSchema.Properties["kind"]), `"choice"`, `"email_step"`)
}

func TestWorkspaceContextShowsTheSendingSetup(t *testing.T) {
	t.Parallel()
	f := newSendingFixture(t, nil)
	f.avail.all = true
	c := f.c
	// expect reads the context: the sending setup in short must be want,
	// its next step a call of want.NextStep.Tool, and the workspace's next
	// step a call of next.
	expect := func(stage string, want sendingSummaryData, next string) string {
		t.Helper()
		var w workspaceOutput
		md := c.Result("get_workspace_context", nil, &w)
		if d := cmp.Diff(&want, w.SendingSetup, cmpopts.IgnoreFields(sendingStepData{}, "Why")); d != "" {
			t.Fatalf("%s: sending setup mismatch (-want +got):\n%s", stage, d)
		}
		if got := textOf(w.NextStep.Tool); got != next {
			t.Fatalf("%s: the workspace's next step is %q (%s), want %s", stage, got, w.NextStep.Why, next)
		}
		return md
	}
	step := func(tool string) sendingStepData { return sendingStepData{Tool: &tool} }
	// The fixture's provider is the sandbox.
	fresh := sendingSummaryData{Sandbox: true, NextStep: step("choose_sending_source")}
	expect("fresh", fresh, "save_offer")
	f.saveOffer(f.ws, "acme.com")
	if _, err := f.workspaces.SavePlaybook(context.Background(), f.ws.ID, workspace.Playbook{Tone: "brief"}); err != nil {
		t.Fatal(err)
	}
	md := expect("with offer and playbook", fresh, "choose_sending_source")
	mustContain(t, md, "### Sending setup", "Source: not chosen yet", "Domains: none yet", "(tool choose_sending_source)")

	var q sendingChoiceOutput
	c.Result("choose_sending_source", nil, &q)
	c.Result("choose_sending_source", map[string]any{"answers": []any{ans(*q.Card, "own_names")}}, nil)
	c.Result("propose_domains", nil, &q)
	c.Result("propose_domains", map[string]any{"answers": []any{ans(*q.Card, "getacme.com")}}, nil)
	own := "own_names"
	picked := sendingSummaryData{Source: &own, Domains: domainCounts{Chosen: 1}, Sandbox: true, NextStep: step("propose_email")}
	md = expect("after picking", picked, "propose_email")
	mustContain(t, md, "Source: Send under my brand", "Domains: 1 picked", "(tool propose_email)")

	var e emailStepOutput
	c.Result("propose_email", map[string]any{"senderNames": []string{"Ada Lovelace"}}, &e)
	c.Result("propose_email", map[string]any{"senderNames": []string{"Ada Lovelace"}, "answers": []any{ans(*e.Card, "full_name")}}, &e)
	if d := cmp.Diff(new(step("size_sending_capacity")), e.NextStep, cmpopts.IgnoreFields(sendingStepData{}, "Why")); d != "" {
		t.Fatalf("email step without a sizing: next step mismatch (-want +got):\n%s", d)
	}
	planned := picked
	planned.Mailboxes.Planned, planned.NextStep = 3, step("size_sending_capacity")
	expect("planned, no sizing", planned, "size_sending_capacity")
	c.Result("confirm_sizing", map[string]any{"dailyVolume": 90}, nil)
	sized := planned
	sized.SizingConfirmed, sized.NextStep = true, step("order_sending_setup")
	expect("planned and sized", sized, "order_sending_setup")
	if _, err := f.svc.PlaceOrder(context.Background(), f.ws.ID, nil); err != nil {
		t.Fatal(err)
	}
	ordered := sized
	ordered.Domains, ordered.Mailboxes = domainCounts{Preparing: 1}, mailboxCounts{Preparing: 3}
	ordered.ReadyToSendOn, ordered.NextStep = new("2026-12-29"), step("start_warmup")
	md = expect("ordered", ordered, "start_warmup")
	mustContain(t, md, "Mailboxes: 3 being prepared", "Can send at full volume from Tue 29 Dec 2026", "Sandbox")

	// Time passes and nothing is written: the context is served from what
	// the server kept, and what follows from time is worked out anew.
	f.clock.Set(time.Date(2026, 12, 8, 11, 0, 0, 0, time.UTC))
	prepared := ordered
	prepared.Domains, prepared.Mailboxes = domainCounts{Ready: 1}, mailboxCounts{Ready: 3}
	expect("prepared by Tuesday", prepared, "start_warmup")
}

// refusal is a call the tool must refuse, and a sentence the refusal says.
type refusal struct {
	args any
	says string
}

// TestSendingToolsContract calls each sending tool through the in-process
// client: one result (validated against the advertised output schema by
// the client) with its kind and the Markdown the assistant reads, and one
// refusal. The rules behind them are tested in package sending.
func TestSendingToolsContract(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newSendingFixture(t, nil)
	f.avail.all = true
	c := f.c
	check := func(t *testing.T, tool string, args any, kind string, md []string, no refusal) {
		t.Helper()
		if kind == "" {
			if no.says != "" {
				mustContain(t, c.Refusal(tool, no.args), no.says)
			}
			return
		}
		var out map[string]any
		text := c.Result(tool, args, &out)
		if out["kind"] != kind {
			t.Errorf("%s returned kind %v, want %q", tool, out["kind"], kind)
		}
		if sandbox, ok := out["sandbox"]; ok && sandbox != true {
			t.Errorf("%s: sandbox is %v in the sandbox", tool, sandbox)
		}
		mustContain(t, text, md...)
		if strings.Contains(text, "..") {
			t.Errorf("%s writes a doubled full stop:\n%s", tool, text)
		}
		if no.says != "" {
			mustContain(t, c.Refusal(tool, no.args), no.says)
		}
	}

	// In the order a person walks the setup; each step needs the ones before.
	t.Run(vibesell.ToolChooseSendingSource, func(t *testing.T) {
		var q sendingChoiceOutput
		c.Result(vibesell.ToolChooseSendingSource, nil, &q)
		check(t, vibesell.ToolChooseSendingSource, map[string]any{"answers": []any{ans(*q.Card, "own_names")}}, "sending_choice",
			[]string{"## Sending addresses: Send under my brand", "Next: Pick lookalike domains of the brand, with their prices. Call propose_domains."},
			refusal{map[string]any{"answers": []any{ans(*q.Card, "already_warmed")}}, "already has the answer"})
	})
	t.Run(vibesell.ToolListWarmedDomains, func(t *testing.T) {
		check(t, vibesell.ToolListWarmedDomains, map[string]any{"limit": 1}, "warmed_shelf",
			[]string{"## Warmed shelf: 8 domains on offer now", "bluecrestmail.com**: registered Thu 5 Feb 2026 (10 months ago)", "cursor"},
			refusal{map[string]any{"limit": 0}, "limit"})
	})
	t.Run(vibesell.ToolProposeWarmedDomains, func(t *testing.T) {
		var sw sendingChoiceOutput
		c.Result(vibesell.ToolProposeWarmedDomains, nil, &sw)
		type question struct{ Kind, Question string }
		if d := cmp.Diff(question{"choice", "You chose to send under your brand. Start sooner with already-warmed addresses instead?"}, question{sw.Kind, textOf(sw.Question)}); d != "" {
			t.Fatalf("under own_names, asked mismatch (-want +got):\n%s", d)
		}
		// Keeping the source is one of the card's own choices: it settles,
		// and the settled answers keep the switch card's answer.
		var kept sendingChoiceOutput
		mustContain(t, c.Result(vibesell.ToolProposeWarmedDomains, map[string]any{"answers": []any{ans(*sw.Card, "keep")}}, &kept),
			"No domains were picked", "Next: The person keeps their source. Pick lookalike domains of the brand, with their prices. Call propose_domains.")
		if diff := cmp.Diff([]answerItem{{Card: *sw.Card, Answer: "keep"}}, kept.Answers); diff != "" || kept.Kind != "sending_choice" || textOf(kept.Decision) != "source" {
			t.Errorf("kept: kind %s, decision %s, answers mismatch (-want +got):\n%s", kept.Kind, textOf(kept.Decision), diff)
		}
		var q sendingChoiceOutput
		f.client(f.svc, f.other).Result(vibesell.ToolProposeWarmedDomains, nil, &q)
		if q.Kind != "choice" || !q.Sandbox || len(q.Choices) != 8 {
			t.Errorf("Globex, with no source chosen, got a %s with %d choices (sandbox %v), want a choice of 8 in the sandbox", q.Kind, len(q.Choices), q.Sandbox)
		}
	})
	t.Run(vibesell.ToolCheckDomains, func(t *testing.T) {
		f.avail.take("acmesales.com")
		check(t, vibesell.ToolCheckDomains, map[string]any{"names": []string{"https://www.GetAcme.com/", "acmesales.com", "acme.xyz"}}, "domain_quote",
			[]string{"- **getacme.com**: available; USD 15.00 per year.", "- **acmesales.com**: taken (already registered (sandbox)).", "- **acme.xyz**: available; not sold by VibeSell"},
			refusal{map[string]any{"names": []string{"not a domain"}}, `"not a domain" in names is not a domain name`})
	})
	t.Run(vibesell.ToolSizeSendingCapacity, func(t *testing.T) {
		check(t, vibesell.ToolSizeSendingCapacity, map[string]any{"leadCount": 6000, "deadline": "2027-02-26"}, "sizing",
			[]string{"To send 18,000 emails (6,000 leads × 3 emails each) by Fri 26 Feb 2027", "These are sandbox amounts: nothing is charged", "Nothing was recorded"},
			refusal{map[string]any{"leadCount": 3000, "deadline": "2026-12-20"}, "too early"})
	})
	t.Run(vibesell.ToolConfirmSizing, func(t *testing.T) {
		check(t, vibesell.ToolConfirmSizing, map[string]any{"dailyVolume": 353}, "sizing",
			[]string{"## Sizing recorded", "12 mailboxes", "4 domains"},
			refusal{map[string]any{"dailyVolume": 90, "emailsPerLead": 2}, "emailsPerLead goes with leadCount"})
	})
	t.Run(vibesell.ToolProposeDomains, func(t *testing.T) {
		args := map[string]any{"companyDomain": "acme.com", "count": 1}
		var q sendingChoiceOutput
		c.Result(vibesell.ToolProposeDomains, args, &q)
		check(t, vibesell.ToolProposeDomains, withAnswers(args, ans(*q.Card, "getacme.com")), "sending_choice",
			[]string{"1. **getacme.com**: USD 15.00 per year, 3 mailboxes at USD 5.00 each per month", "USD 15.00 per year for the domain and", "Next: Choose the senders' addresses, from their names. Call propose_email."},
			refusal{map[string]any{"companyDomain": "acme"}, `companyDomain "acme" is not a domain name`})
	})
	t.Run(vibesell.ToolProposeEmail, func(t *testing.T) {
		args := map[string]any{"senderNames": []string{"Ada Lovelace"}}
		var e emailStepOutput
		c.Result(vibesell.ToolProposeEmail, args, &e)
		check(t, vibesell.ToolProposeEmail, withAnswers(args, ans(*e.Card, "first_name")), "email_step",
			[]string{"- ada@getacme.com (USD 5.00 per month, signed Ada Lovelace)", "Cost once ordered: USD 15.00 per year for the domain and USD 15.00 per month for 3 mailboxes"},
			refusal{map[string]any{"senderNames": []string{"李雷"}}, "no letters an address can use"})
	})
	t.Run(vibesell.ToolGetSendingSetup, func(t *testing.T) {
		check(t, vibesell.ToolGetSendingSetup, nil, "sending_setup",
			[]string{"Picks against the sizing: This reaches 90 of the 353 emails a day the confirmed sizing needs", "Next: The picks and the confirmed sizing disagree"},
			refusal{})
	})
	t.Run(vibesell.ToolOrderSendingSetup, func(t *testing.T) {
		check(t, vibesell.ToolOrderSendingSetup, nil, "approval",
			[]string{"Nothing is ordered yet: this asks for the person's approval.", "This reaches 90 of the 353 emails a day"},
			refusal{})
		other := f.client(f.svc, f.other)
		mustContain(t, other.Refusal(vibesell.ToolOrderSendingSetup, nil), "cannot be ordered yet: no sending source is chosen", "Call choose_sending_source.")
		mustContain(t, c.Result(vibesell.ToolGetSendingSetup, nil, nil), "Do not order again: the order is waiting for the person's decision")
	})
	t.Run(vibesell.ToolStartWarmup, func(t *testing.T) {
		mustContain(t, c.Refusal(vibesell.ToolStartWarmup, nil), "the order is waiting for the person's decision")
		if _, err := f.svc.PlaceOrder(ctx, f.ws.ID, nil); err != nil {
			t.Fatal(err)
		}
		mustContain(t, c.Result(vibesell.ToolGetSendingSetup, nil, nil), "MX at getacme.com: not yet: published when the domain is ready on Tue 8 Dec 2026")
		mustContain(t, c.Refusal(vibesell.ToolStartWarmup, nil), "ready on Tue 8 Dec 2026, and their warmup starts by itself that day")
		f.clock.Set(time.Date(2026, 12, 8, 11, 0, 0, 0, time.UTC))
		check(t, vibesell.ToolStartWarmup, nil, "warmup",
			[]string{"## Warmup started for 3 mailboxes", "Day 1, Tue 8 Dec 2026: 2 warmup emails each (6 in all)"}, refusal{})
	})
}
