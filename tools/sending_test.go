package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/miekg/dns"

	"vibesell"
	"vibesell/auth"
	"vibesell/cards"
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
	t          *testing.T
	pool       *pgxpool.Pool
	clock      *vibesell.ManualClock
	avail      *takenAvailability
	opts       sending.Options
	workspaces *workspace.Service
	svc        *sending.Service
	ws, other  workspace.Workspace
	c          *toolkittest.Client // acts for ws
}

func newSendingFixture(t *testing.T, opts *sending.Options) *sendingFixture {
	t.Helper()
	f := &sendingFixture{t: t, pool: storetest.New(t), clock: vibesell.NewManualClock(friday), avail: &takenAvailability{taken: map[string]bool{}}}
	if opts != nil {
		f.opts = *opts
	}
	if f.opts.Availability == nil {
		f.opts.Availability = f.avail
	}
	f.workspaces = workspace.NewService(f.pool, f.clock)
	var err error
	if f.ws, err = f.workspaces.Create(context.Background(), "Acme Sales"); err != nil {
		t.Fatal(err)
	}
	if f.other, err = f.workspaces.Create(context.Background(), "Globex"); err != nil {
		t.Fatal(err)
	}
	f.svc = f.service(f.pool)
	f.c = f.client(f.svc, f.ws)
	return f
}

// service builds the sending service on pool: a second pool is what a
// second server replica has.
func (f *sendingFixture) service(pool *pgxpool.Pool) *sending.Service {
	opts := f.opts
	return sending.New(pool, f.clock, sending.DefaultConfig(), cards.NewService(pool, f.clock), workspace.NewService(pool, vibesell.SystemClock{}), &opts)
}

func (f *sendingFixture) client(svc *sending.Service, ws workspace.Workspace) *toolkittest.Client {
	d := Deps{Clock: f.clock, Workspaces: workspace.NewService(f.pool, f.clock), Sending: svc}
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

func mustContain(t *testing.T, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}
}

func choiceIDs(cs []choiceItem) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

var hex16 = regexp.MustCompile(`^[0-9a-f]{16}$`)

func TestChooseSendingSourceThroughMCP(t *testing.T) {
	t.Parallel()
	f := newSendingFixture(t, nil)
	c := f.c

	var q sendingChoiceOutput
	md := c.Result("choose_sending_source", map[string]any{}, &q)
	if q.Kind != "choice" || q.Card == nil || !hex16.MatchString(*q.Card) || q.Tool != "choose_sending_source" || len(q.Arguments) != 0 ||
		*q.Question != "Choose your sending addresses" || !*q.AllowFreeText || len(q.Answers) != 0 || q.Decision != nil || q.NextStep != nil {
		t.Fatalf("first call: %+v", q)
	}
	if got := choiceIDs(q.Choices); !slices.Equal(got, []string{"already_warmed", "own_names"}) || q.Choices[0].Label != "Start sooner" || q.Choices[1].Label != "Send under my brand" {
		t.Fatalf("choices %+v", q.Choices)
	}
	card := *q.Card
	mustContain(t, md, "card "+card, "wait for THEIR answer", "Never pick", `"answers": [{"card":"`+card+`","answer":"ANSWER"}]`,
		"Tue 8 Dec 2026", "weekends not counted", "Tue 29 Dec 2026", "Mon 7 Dec 2026", "USD 10.00 per mailbox per month", "own words")
	mustContain(t, *q.Reason, "Nothing is set up, reserved or billed")

	var s sendingChoiceOutput
	md = c.Result("choose_sending_source", map[string]any{"answers": []any{ans(card, "own_names")}}, &s)
	if s.Kind != "sending_choice" || s.Card != nil || s.Question != nil || s.Choices != nil || s.AllowFreeText != nil ||
		*s.Decision != "source" || *s.Chosen[0].ID != "own_names" || *s.NextStep.Tool != "propose_domains" || !s.ChosenAt.Equal(friday) ||
		len(s.Answers) != 1 || s.Answers[0].Card != card {
		t.Fatalf("settled: %+v", s)
	}
	mustContain(t, md, "Send under my brand", "propose_domains", "Nothing is set up, reserved or billed yet", "size_sending_capacity")

	// Idempotent: the same answer again settles the same way.
	c.Result("choose_sending_source", map[string]any{"answers": []any{ans(card, "own_names")}}, &s)
	if *s.Chosen[0].ID != "own_names" {
		t.Fatalf("again: %+v", s)
	}
	// A different answer to the answered card is refused with the one on record.
	refusal := c.Refusal("choose_sending_source", map[string]any{"answers": []any{ans(card, "already_warmed")}})
	mustContain(t, refusal, card, `"own_names" (Send under my brand)`, "Fri 4 Dec 2026")

	var setup sendingSetupOutput
	c.Result("get_sending_setup", nil, &setup)
	if setup.Source == nil || setup.Source.ID != "own_names" || *setup.NextStep.Tool != "propose_domains" || setup.ReadyToSendOn != nil {
		t.Fatalf("setup after choosing: %+v", setup)
	}

	// The person changes their mind: a call without answers asks again on a
	// new card; this time they answer in their own words.
	c.Result("choose_sending_source", map[string]any{}, &q)
	if *q.Card == card {
		t.Fatal("the answered card was handed out again")
	}
	c.Result("choose_sending_source", map[string]any{"answers": []any{ans(*q.Card, "We already have Google Workspace inboxes")}}, &s)
	if s.Chosen[0].ID != nil || s.Chosen[0].Label != "We already have Google Workspace inboxes" || *s.NextStep.Tool != "contact_support" {
		t.Fatalf("own words: %+v", s)
	}
	c.Result("get_sending_setup", nil, &setup)
	if setup.Source.ID != "other" || *setup.Source.Text != "We already have Google Workspace inboxes" {
		t.Fatalf("setup after own words: %+v", setup.Source)
	}

	// Another workspace, or another tool, does not know the card.
	other := f.client(f.svc, f.other)
	mustContain(t, other.Refusal("choose_sending_source", map[string]any{"answers": []any{ans(card, "own_names")}}),
		"Card "+card+" is not a question choose_sending_source asked in this workspace")
	mustContain(t, c.Refusal("propose_warmed_domains", map[string]any{"answers": []any{ans(card, "own_names")}}),
		"Card "+card+" is not a question propose_warmed_domains asked in this workspace")
	// A malformed card id is refused by the input schema, naming the argument.
	mustContain(t, c.Refusal("choose_sending_source", map[string]any{"answers": []any{ans("XYZ", "own_names")}}), "card")
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
	pool2, err := store.Connect(context.Background(), f.pool.Config().ConnString(), 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool2.Close)
	clients := []*toolkittest.Client{f.c, f.client(f.service(pool2), f.ws)}

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
	var stored string
	if err := f.pool.QueryRow(context.Background(), `SELECT source FROM sending_setups WHERE workspace_id = $1`, f.ws.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
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

func TestProposeDomainsAsksOneCardPerDomain(t *testing.T) {
	t.Parallel()
	f := newSendingFixture(t, nil)
	c := f.c
	mustContain(t, c.Refusal("propose_domains", map[string]any{}), "no company domain", "companyDomain", "save_offer")
	f.saveOffer(f.ws, "acme.com")

	var q sendingChoiceOutput
	md := c.Result("propose_domains", map[string]any{"count": 2}, &q)
	if q.Kind != "choice" || !strings.Contains(*q.Question, "sending domain 1 of 2, instead of acme.com") || *q.AllowFreeText || len(q.Choices) != 6 {
		t.Fatalf("first card: %+v", q)
	}
	for _, ch := range q.Choices {
		if a := sending.SandboxCheck(ch.ID).Available; a == nil || !*a || !strings.HasSuffix(ch.ID, ".com") || ch.Label != ch.ID+", USD 15.00 per year" {
			t.Errorf("offered %+v, which the availability check does not pass", ch)
		}
	}
	mustContain(t, md, "Sandbox", `"count":2`, "USD 15.00 per year")
	card1 := *q.Card

	// An answer that is not one of the ids is refused, listing the ids.
	refusal := c.Refusal("propose_domains", map[string]any{"count": 2, "answers": []any{ans(card1, "acme-rocks.com")}})
	mustContain(t, refusal, `"acme-rocks.com" is not one of the choices of card `+card1, `"`+q.Choices[0].ID+`" (`+q.Choices[0].Label+`)`)
	// Other arguments are not the card's arguments.
	mustContain(t, c.Refusal("propose_domains", map[string]any{"count": 3, "answers": []any{ans(card1, q.Choices[0].ID)}}),
		"Card "+card1+" was asked for other arguments", `{"count":2}`, `{"count":3}`)

	pick1 := q.Choices[0].ID
	var q2 sendingChoiceOutput
	c.Result("propose_domains", map[string]any{"answers": []any{ans(card1, pick1)}, "count": 2.0}, &q2)
	if q2.Kind != "choice" || *q2.Card == card1 || !strings.Contains(*q2.Question, "2 of 2") || slices.Contains(choiceIDs(q2.Choices), pick1) ||
		len(q2.Answers) != 1 || q2.Answers[0].Answer != pick1 {
		t.Fatalf("second card: %+v", q2)
	}
	pick2 := q2.Choices[2].ID
	var s sendingChoiceOutput
	md = c.Result("propose_domains", map[string]any{"count": 2, "answers": []any{ans(card1, pick1), ans(*q2.Card, pick2)}}, &s)
	if s.Kind != "sending_choice" || *s.Decision != "domains" || len(s.Domains) != 2 || s.Domains[0].Domain != pick1 || s.Domains[1].Domain != pick2 ||
		s.Domains[0].YearlyPrice != (moneyData{"15.00", "USD"}) || s.Domains[0].Mailboxes != 3 || s.Domains[0].ReadyOn != "2026-12-08" ||
		*s.Provider != "sandbox" || *s.NextStep.Tool != "propose_email" {
		t.Fatalf("settled: %+v", s)
	}
	mustContain(t, md, pick1, pick2, "USD 30.00 per year", "USD 30.00 per month", "Sandbox", "propose_email")

	var setup sendingSetupOutput
	c.Result("get_sending_setup", nil, &setup)
	if len(setup.Domains) != 2 || setup.Domains[0].Status != "chosen" || setup.Domains[0].DNS != nil || *setup.NextStep.Tool != "propose_email" {
		t.Fatalf("setup: %+v", setup)
	}
}

func TestProposeDomainsAsksAgainWhenANameIsTaken(t *testing.T) {
	t.Parallel()
	f := newSendingFixture(t, nil)
	f.avail.all = true
	f.saveOffer(f.ws, "acme.com")
	c := f.c
	mustContain(t, c.Refusal("propose_domains", map[string]any{"include": []string{"acmeoutbound.com", "acme"}}), `"acme" in include is not a domain name`)

	args := map[string]any{"include": []string{"AcmeOutbound.com"}}
	var q sendingChoiceOutput
	c.Result("propose_domains", args, &q)
	if len(q.Choices) != 7 || q.Choices[0].ID != "acmeoutbound.com" || !strings.HasPrefix(q.Choices[0].Description, "Your own suggestion") {
		t.Fatalf("choices %+v", q.Choices)
	}
	// One offered name is registered by someone else before the person answers.
	gone := q.Choices[1]
	f.avail.take(gone.ID)
	var again sendingChoiceOutput
	md := c.Result("propose_domains", map[string]any{"include": []string{"AcmeOutbound.com"}, "answers": []any{ans(*q.Card, q.Choices[0].ID)}}, &again)
	if again.Kind != "choice" || *again.Card == *q.Card || slices.Contains(choiceIDs(again.Choices), gone.ID) || len(again.Choices) != 7 {
		t.Fatalf("asked again: %+v", again)
	}
	mustContain(t, md, "This card replaces card "+*q.Card, `"`+gone.Label+`" is no longer offered`, "is now offered", "Put the new question to the person")
	// The replaced card is answered no more: the new one is.
	var s sendingChoiceOutput
	c.Result("propose_domains", map[string]any{"include": []string{"acmeoutbound.com"}, "answers": []any{ans(*again.Card, "acmeoutbound.com")}}, &s)
	if s.Kind != "sending_choice" || s.Domains[0].Domain != "acmeoutbound.com" {
		t.Fatalf("settled %+v", s)
	}
	// A name the person likes that is taken is not offered, and the text says why.
	f.avail.take("acmesales.com")
	md = c.Result("propose_domains", map[string]any{"include": []string{"acmesales.com"}}, &q)
	mustContain(t, md, "acmesales.com cannot be offered: already registered")
	if slices.Contains(choiceIDs(q.Choices), "acmesales.com") {
		t.Fatal("a taken name was offered")
	}
}

func TestWarmedShelfAndADomainSoldMeanwhile(t *testing.T) {
	t.Parallel()
	f := newSendingFixture(t, nil)
	c := f.c
	var page warmedShelfOutput
	md := c.Result("list_warmed_domains", map[string]any{"limit": 3}, &page)
	if page.Total != 8 || len(page.Domains) != 3 || !page.Sandbox || page.NextCursor == nil || *page.NextCursor != page.Domains[2].Domain ||
		page.Domains[0].Domain != "bluecrestmail.com" || page.Domains[0].MonthlyPrice != (moneyData{"30.00", "USD"}) || page.Domains[0].ReadyOn != "2026-12-07" {
		t.Fatalf("first page: %+v", page)
	}
	mustContain(t, md, "8 domains on offer", "bluecrestmail.com", "reputation 89 of 100", "Sandbox", "cursor")
	seen := len(page.Domains)
	for page.NextCursor != nil {
		c.Result("list_warmed_domains", map[string]any{"limit": 3, "cursor": *page.NextCursor}, &page)
		seen += len(page.Domains)
	}
	if seen != 8 {
		t.Fatalf("pages held %d domains, want 8", seen)
	}

	var q sendingChoiceOutput
	c.Result("propose_warmed_domains", map[string]any{}, &q)
	if q.Kind != "choice" || len(q.Choices) != 8 || q.Choices[0].Label != "bluecrestmail.com, 3 mailboxes, USD 30.00 per month" {
		t.Fatalf("warmed card: %+v", q)
	}
	mustContain(t, q.Choices[0].Description, "Registered Thu 5 Feb 2026", "reputation 89 of 100", "Mon 7 Dec 2026", "Sandbox")

	// Another workspace picks and orders the same domain first.
	other := f.client(f.svc, f.other)
	var oq sendingChoiceOutput
	other.Result("propose_warmed_domains", map[string]any{}, &oq)
	other.Result("propose_warmed_domains", map[string]any{"answers": []any{ans(*oq.Card, "bluecrestmail.com")}}, &oq)
	var eq emailStepOutput
	other.Result("propose_email", map[string]any{"senderNames": []string{"Gus Fring"}}, &eq)
	other.Result("propose_email", map[string]any{"senderNames": []string{"Gus Fring"}, "answers": []any{ans(*eq.Card, "full_name")}}, &eq)
	if _, err := f.svc.PlaceOrder(context.Background(), f.other.ID, nil); err != nil {
		t.Fatal(err)
	}

	var again sendingChoiceOutput
	md = c.Result("propose_warmed_domains", map[string]any{"answers": []any{ans(*q.Card, "bluecrestmail.com")}}, &again)
	if again.Kind != "choice" || len(again.Choices) != 7 || slices.Contains(choiceIDs(again.Choices), "bluecrestmail.com") {
		t.Fatalf("asked again: %+v", again)
	}
	mustContain(t, md, "replaces card "+*q.Card, `"bluecrestmail.com, 3 mailboxes, USD 30.00 per month" is no longer offered`)
	c.Result("list_warmed_domains", nil, &page)
	if page.Total != 7 {
		t.Fatalf("shelf after the sale: %d", page.Total)
	}
	var s sendingChoiceOutput
	c.Result("propose_warmed_domains", map[string]any{"answers": []any{ans(*again.Card, again.Choices[0].ID)}}, &s)
	if s.Kind != "sending_choice" || *s.Decision != "warmed_domains" || s.Domains[0].Origin != "warmed" || s.Domains[0].Reputation == nil ||
		s.Domains[0].RegisteredOn == nil || s.Domains[0].MailboxPrice != (moneyData{"10.00", "USD"}) || *s.NextStep.Tool != "propose_email" {
		t.Fatalf("settled %+v", s)
	}
}

func TestFromAddressesToWarmup(t *testing.T) {
	t.Parallel()
	f := newSendingFixture(t, nil)
	f.avail.all = true
	f.saveOffer(f.ws, "acme.com")
	c := f.c
	mustContain(t, c.Refusal("propose_email", map[string]any{"senderNames": []string{"Ada Lovelace"}}), "No sending domains are picked yet", "propose_domains")
	// 90 emails a day: 3 mailboxes on 1 domain.
	c.Result("confirm_sizing", map[string]any{"dailyVolume": 90}, nil)

	var q sendingChoiceOutput
	c.Result("propose_domains", map[string]any{}, &q)
	c.Result("propose_domains", map[string]any{"answers": []any{ans(*q.Card, "getacme.com")}}, &q)

	names := map[string]any{"senderNames": []string{"Ada Lovelace", "Grace Hopper"}}
	var e emailStepOutput
	md := c.Result("propose_email", names, &e)
	if e.Kind != "choice" || !slices.Equal(choiceIDs(e.Choices), []string{"first_name", "full_name", "initial_last"}) ||
		e.Choices[0].Label != "First name first: ada@, grace@, ada.lovelace@" || *e.Question != "How should the sending addresses on getacme.com look?" || !*e.AllowFreeText {
		t.Fatalf("email card: %+v", e)
	}
	mustContain(t, md, "ada@getacme.com, grace@getacme.com and ada.lovelace@getacme.com")
	card := *e.Card
	// Words without any address in them are refused; the card stays open.
	mustContain(t, c.Refusal("propose_email", withAnswers(names, ans(card, "something nice"))), "No addresses could be read", "ada@")

	md = c.Result("propose_email", withAnswers(names, ans(card, "first_name")), &e)
	var addrs []string
	for _, a := range e.Addresses {
		addrs = append(addrs, a.Address)
	}
	if e.Kind != "email_step" || !slices.Equal(addrs, []string{"ada@getacme.com", "grace@getacme.com", "ada.lovelace@getacme.com"}) ||
		*e.MonthlyCost != (moneyData{"15.00", "USD"}) || *e.YearlyCost != (moneyData{"15.00", "USD"}) || *e.ReadyOn != "2026-12-08" ||
		*e.FullVolumeOn != "2026-12-29" || *e.NextStep.Tool != "order_sending_setup" || *e.Addresses[0].SenderName != "Ada Lovelace" {
		t.Fatalf("email step: %+v", e)
	}
	mustContain(t, md, "ada@getacme.com (USD 5.00 per month, signed Ada Lovelace)", "order_sending_setup", "USD 15.00 per month", "Tue 8 Dec 2026")

	var setup sendingSetupOutput
	c.Result("get_sending_setup", nil, &setup)
	if len(setup.Mailboxes) != 3 || setup.Mailboxes[0].Status != "planned" || *setup.NextStep.Tool != "order_sending_setup" || setup.ReadyToSendOn != nil {
		t.Fatalf("planned setup: %+v", setup)
	}
	mustContain(t, c.Refusal("start_warmup", nil), "no ordered mailboxes", "order_sending_setup")

	// The approval of order_sending_setup runs the order.
	plan, err := f.svc.PlaceOrder(context.Background(), f.ws.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Domains) != 1 || len(plan.Mailboxes) != 3 || plan.MonthlyCost.String() != "USD 15.00" {
		t.Fatalf("order plan: %+v", plan)
	}
	md = c.Result("get_sending_setup", nil, &setup)
	d := setup.Domains[0]
	if d.Status != "preparing" || *d.ReadyOn != "2026-12-08" || *d.Provider != "sandbox" || *d.DNSCheckedWith != "sandbox" || len(d.DNS) != 4 ||
		*d.DNS[0].OK || setup.Mailboxes[0].Status != "preparing" || *setup.ReadyToSendOn != "2026-12-29" || *setup.NextStep.Tool != "start_warmup" {
		t.Fatalf("ordered setup: %+v", setup)
	}
	mustContain(t, md, "being prepared", "Tue 8 Dec 2026", "MX at getacme.com: not published as expected", "Sandbox")
	mustContain(t, c.Refusal("start_warmup", nil), "ready on Tue 8 Dec 2026")

	// Tuesday: prepared, DNS published, warmup can start.
	f.clock.Set(time.Date(2026, 12, 8, 11, 0, 0, 0, time.UTC))
	c.Result("get_sending_setup", nil, &setup)
	if setup.Domains[0].Status != "ready" || !*setup.Domains[0].DNS[2].OK || setup.Domains[0].DNS[2].Type != "DKIM" || setup.Mailboxes[0].Status != "ready" ||
		*setup.NextStep.Tool != "start_warmup" {
		t.Fatalf("ready setup: %+v", setup)
	}
	var w warmupOutput
	md = c.Result("start_warmup", nil, &w)
	if len(w.Started) != 3 || len(w.Ramp) != 21 || w.Ramp[0].PerMailbox != 2 || w.Ramp[0].Total != 6 || w.Ramp[0].Date != "2026-12-08" ||
		w.Ramp[14].PerMailbox != 30 || w.Ramp[20].PerMailbox != 30 || *w.FullVolumeOn != "2026-12-29" || *w.StartedOn != "2026-12-08" {
		t.Fatalf("warmup: %+v", w)
	}
	mustContain(t, md, "Warmup started for 3 mailboxes", "Day 1, Tue 8 Dec 2026: 2 warmup emails each (6 in all)", "Tue 29 Dec 2026", "Sandbox")
	// Again: nothing restarts.
	c.Result("start_warmup", nil, &w)
	if len(w.Started) != 0 || len(w.AlreadyWarming) != 3 || w.Ramp != nil || w.StartedOn != nil {
		t.Fatalf("second start: %+v", w)
	}

	f.clock.Set(time.Date(2026, 12, 13, 9, 0, 0, 0, time.UTC))
	md = c.Result("get_sending_setup", nil, &setup)
	m := setup.Mailboxes[0]
	if m.Status != "warming" || m.Warmup.Day != 6 || m.Warmup.TodayVolume != 12 || m.Warmup.Of != 21 || *m.FullVolumeOn != "2026-12-29" || setup.NextStep.Tool != nil {
		t.Fatalf("warming: %+v %+v", m, m.Warmup)
	}
	mustContain(t, md, "day 6 of 21, 12 warmup emails today", "full volume from Tue 29 Dec 2026")

	f.clock.Set(time.Date(2026, 12, 29, 9, 0, 0, 0, time.UTC))
	md = c.Result("get_sending_setup", nil, &setup)
	if setup.Mailboxes[0].Status != "warm" || setup.Mailboxes[0].Warmup != nil || *setup.ReadyToSendOn != "2026-12-29" || setup.NextStep.Tool != nil {
		t.Fatalf("warm: %+v", setup)
	}
	mustContain(t, md, "The sending setup is ready")
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

func TestAddressesInThePersonsOwnWords(t *testing.T) {
	t.Parallel()
	f := newSendingFixture(t, nil)
	f.avail.all = true
	c := f.c
	var q sendingChoiceOutput
	c.Result("propose_domains", map[string]any{"companyDomain": "acme.com", "count": 2}, &q)
	first := *q.Card
	c.Result("propose_domains", map[string]any{"companyDomain": "acme.com", "count": 2, "answers": []any{ans(first, "getacme.com")}}, &q)
	c.Result("propose_domains", map[string]any{"companyDomain": "acme.com", "count": 2, "answers": []any{ans(first, "getacme.com"), ans(*q.Card, "tryacme.com")}}, &q)
	if q.Kind != "sending_choice" {
		t.Fatalf("domains: %+v", q)
	}
	names := map[string]any{"senderNames": []string{"Zoë Brontë"}}
	var e emailStepOutput
	c.Result("propose_email", names, &e)
	if e.Choices[0].Label != "First name first: zoe@, zoe.bronte@, z.bronte@" || *e.Question != "How should the sending addresses on getacme.com and tryacme.com look?" {
		t.Fatalf("card: %+v", e)
	}
	md := c.Result("propose_email", withAnswers(names, ans(*e.Card, "Use zoe@ and Sales@ please")), &e)
	var addrs []string
	for _, a := range e.Addresses {
		addrs = append(addrs, a.Address)
	}
	if !slices.Equal(addrs, []string{"zoe@getacme.com", "sales@getacme.com", "zoe@tryacme.com", "sales@tryacme.com"}) || *e.Style != "own_words" || e.Addresses[1].SenderName != nil {
		t.Fatalf("own words: %v %+v", addrs, e)
	}
	mustContain(t, md, "getacme.com gets 2 addresses as written, where 3 were planned", "USD 20.00 per month")
	mustContain(t, c.Refusal("propose_email", map[string]any{"senderNames": []string{"李雷"}}), "no letters an address can use")
	mustContain(t, c.Refusal("propose_email", map[string]any{"senderNames": []string{"Cher"}}), "only 1 distinct address per domain", "needs 3")
}

// Two workspaces order the same warmed domain at the same moment: one gets
// it, the other is told.
func TestOrderingTheSameWarmedDomainTwice(t *testing.T) {
	t.Parallel()
	f := newSendingFixture(t, nil)
	for _, ws := range []workspace.Workspace{f.ws, f.other} {
		c := f.client(f.svc, ws)
		var q sendingChoiceOutput
		c.Result("propose_warmed_domains", map[string]any{}, &q)
		c.Result("propose_warmed_domains", map[string]any{"answers": []any{ans(*q.Card, "harborlinemail.com")}}, &q)
		var e emailStepOutput
		c.Result("propose_email", map[string]any{"senderNames": []string{"Sam Vimes"}}, &e)
		c.Result("propose_email", map[string]any{"senderNames": []string{"Sam Vimes"}, "answers": []any{ans(*e.Card, "initial_last")}}, &e)
	}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, ws := range []workspace.Workspace{f.ws, f.other} {
		wg.Go(func() { _, errs[i] = f.svc.PlaceOrder(context.Background(), ws.ID, nil) })
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
			continue
		}
		if !strings.Contains(err.Error(), "harborlinemail.com") {
			t.Errorf("the loser was told %v", err)
		}
	}
	if ok != 1 {
		t.Fatalf("both orders ended %v; want exactly one to get the domain", errs)
	}
}

func TestCheckDomainsThroughMCP(t *testing.T) {
	t.Parallel()
	f := newSendingFixture(t, &sending.Options{Availability: sending.NewSandbox(nil, sending.DefaultConfig())})
	c := f.c
	unknown := ""
	for i := 0; unknown == ""; i++ {
		if n := fmt.Sprintf("acme%d.com", i); sending.SandboxCheck(n).Available == nil {
			unknown = n
		}
	}
	var q domainQuoteOutput
	md := c.Result("check_domains", map[string]any{"names": []string{"https://www.GetAcme.com/", unknown, "acme.xyz", "getacme.com"}}, &q)
	if q.Kind != "domain_quote" || q.Provider != "sandbox" || !q.Sandbox || len(q.Quotes) != 3 {
		t.Fatalf("quotes: %+v", q)
	}
	if q.Quotes[0].Domain != "getacme.com" || q.Quotes[0].Available == nil || *q.Quotes[0].PricePerYear != (moneyData{"15.00", "USD"}) {
		t.Fatalf("getacme.com: %+v", q.Quotes[0])
	}
	if q.Quotes[1].Available != nil || q.Quotes[1].Reason == nil || !strings.Contains(*q.Quotes[1].Reason, "unknown") {
		t.Fatalf("unknown name: %+v", q.Quotes[1])
	}
	if q.Quotes[2].PricePerYear != nil || !strings.Contains(*q.Quotes[2].Reason, "VibeSell registers .com, .net and .org names only") {
		t.Fatalf("acme.xyz: %+v", q.Quotes[2])
	}
	mustContain(t, md, "availability unknown", "not sold by VibeSell", "Sandbox", "Nothing was reserved")
	mustContain(t, c.Refusal("check_domains", map[string]any{"names": []string{"not a domain"}}), `"not a domain" in names is not a domain name`)
	mustContain(t, c.Refusal("check_domains", map[string]any{"names": []string{}}), "names")
}

func TestSizingThroughMCP(t *testing.T) {
	t.Parallel()
	f := newSendingFixture(t, nil)
	c := f.c
	var z sizingOutput
	md := c.Result("size_sending_capacity", map[string]any{"dailyVolume": 300}, &z)
	if z.Kind != "sizing" || z.Confirmed || z.ConfirmedAt != nil || z.Mailboxes != 10 || z.Domains != 4 || z.MonthlyCost != (moneyData{"50.00", "USD"}) ||
		z.YearlyCost != (moneyData{"60.00", "USD"}) || z.FullVolumeOn != "2026-12-29" || z.ReadyOn != "2026-12-08" || z.LeadCount != nil || z.Source != "own_names" {
		t.Fatalf("sizing: %+v", z)
	}
	mustContain(t, md, "10 mailboxes", "4 domains", "USD 50.00 per month", "USD 60.00 per year", "Tue 29 Dec 2026", "confirm_sizing", "Nothing was recorded")
	c.Result("size_sending_capacity", map[string]any{"leadCount": 3000, "deadline": "2027-01-29", "source": "already_warmed"}, &z)
	if *z.SendingDays != 40 || *z.TotalEmails != 9000 || z.DailyVolume != 225 || z.Mailboxes != 8 || z.MonthlyCost != (moneyData{"80.00", "USD"}) {
		t.Fatalf("lead sizing: %+v", z)
	}
	mustContain(t, c.Refusal("size_sending_capacity", map[string]any{"leadCount": 3000}), "deadline")
	mustContain(t, c.Refusal("size_sending_capacity", map[string]any{"leadCount": 3000, "deadline": "2026-12-20"}), "too early", "Tue 29 Dec 2026")
	mustContain(t, c.Refusal("size_sending_capacity", map[string]any{"dailyVolume": 300, "deadline": "2027-02-30"}), "2027-02-30")
	mustContain(t, c.Refusal("size_sending_capacity", map[string]any{"dailyVolume": 0}), "dailyVolume")

	md = c.Result("confirm_sizing", map[string]any{"dailyVolume": 300, "mailboxesPerDomain": 5}, &z)
	if !z.Confirmed || z.ConfirmedAt == nil || z.Domains != 2 || z.MailboxesPerDomain != 5 {
		t.Fatalf("confirmed: %+v", z)
	}
	mustContain(t, md, "Sizing recorded")
	var setup sendingSetupOutput
	c.Result("get_sending_setup", nil, &setup)
	if setup.Sizing == nil || setup.Sizing.Mailboxes != 10 || setup.Sizing.Domains != 2 {
		t.Fatalf("setup sizing: %+v", setup.Sizing)
	}
	// The proposals follow the confirmed sizing.
	var q sendingChoiceOutput
	c.Result("propose_domains", map[string]any{"companyDomain": "acme.com"}, &q)
	mustContain(t, *q.Question, "1 of 2")
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
	f := newSendingFixture(t, &sending.Options{
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
	for _, d := range setup.Domains {
		want := d.Domain == "getacme.com"
		if *d.DNSCheckedWith != "dns" || len(d.DNS) != 4 {
			t.Fatalf("%s: %+v", d.Domain, d)
		}
		for _, r := range d.DNS {
			if r.OK == nil || *r.OK != want {
				t.Errorf("%s %s ok = %v, want %v", d.Domain, r.Type, r.OK, want)
			}
		}
	}
	mustContain(t, md, "DKIM at s1._domainkey.getacme.com: checks out", "DMARC at _dmarc.tryacme.com: not published as expected")
}

func TestSendingToolsAnnotations(t *testing.T) {
	t.Parallel()
	f := newSendingFixture(t, nil)
	for tool, want := range map[string][4]bool{ // readOnly, destructive, idempotent, openWorld
		"choose_sending_source":  {false, false, true, false},
		"propose_domains":        {false, false, true, true},
		"propose_warmed_domains": {false, false, true, true},
		"propose_email":          {false, false, true, false},
		"check_domains":          {true, false, true, true},
		"list_warmed_domains":    {true, false, true, true},
		"size_sending_capacity":  {true, false, true, false},
		"confirm_sizing":         {false, false, true, false},
		"get_sending_setup":      {true, false, true, true},
		"start_warmup":           {false, false, true, true},
	} {
		var def struct {
			Annotations struct {
				ReadOnly    bool `json:"readOnlyHint"`
				Destructive bool `json:"destructiveHint"`
				Idempotent  bool `json:"idempotentHint"`
				OpenWorld   bool `json:"openWorldHint"`
			} `json:"annotations"`
			OutputSchema struct {
				Properties map[string]struct {
					Enum []string `json:"enum"`
				} `json:"properties"`
			} `json:"outputSchema"`
		}
		if err := json.Unmarshal(f.c.Tool(tool), &def); err != nil {
			t.Fatal(err)
		}
		a := def.Annotations
		if got := [4]bool{a.ReadOnly, a.Destructive, a.Idempotent, a.OpenWorld}; got != want {
			t.Errorf("%s annotations %v, want %v", tool, got, want)
		}
	}
	// The choice tools say they return both kinds.
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
	var w workspaceOutput
	c.Result("get_workspace_context", nil, &w)
	if w.SendingSetup == nil || w.SendingSetup.Source != nil || *w.SendingSetup.NextStep.Tool != "choose_sending_source" || *w.NextStep.Tool != "save_offer" {
		t.Fatalf("fresh: %+v %+v", w.SendingSetup, w.NextStep)
	}
	f.saveOffer(f.ws, "acme.com")
	if _, err := f.workspaces.SavePlaybook(context.Background(), f.ws.ID, workspace.Playbook{Tone: "brief"}); err != nil {
		t.Fatal(err)
	}
	md := c.Result("get_workspace_context", nil, &w)
	if *w.NextStep.Tool != "choose_sending_source" {
		t.Fatalf("with offer and playbook, next: %+v", w.NextStep)
	}
	mustContain(t, md, "### Sending setup", "Source: not chosen yet", "Domains: none yet", "(tool choose_sending_source)")

	var q sendingChoiceOutput
	c.Result("choose_sending_source", nil, &q)
	c.Result("choose_sending_source", map[string]any{"answers": []any{ans(*q.Card, "own_names")}}, nil)
	c.Result("propose_domains", nil, &q)
	c.Result("propose_domains", map[string]any{"answers": []any{ans(*q.Card, "getacme.com")}}, nil)
	md = c.Result("get_workspace_context", nil, &w)
	if *w.SendingSetup.Source != "own_names" || w.SendingSetup.Domains.Chosen != 1 || *w.NextStep.Tool != "propose_email" {
		t.Fatalf("after picking: %+v next %+v", w.SendingSetup, w.NextStep)
	}
	mustContain(t, md, "Source: Send under my brand", "Domains: 1 picked", "(tool propose_email)")

	var e emailStepOutput
	c.Result("propose_email", map[string]any{"senderNames": []string{"Ada Lovelace"}}, &e)
	c.Result("propose_email", map[string]any{"senderNames": []string{"Ada Lovelace"}, "answers": []any{ans(*e.Card, "full_name")}}, &e)
	if *e.NextStep.Tool != "size_sending_capacity" {
		t.Fatalf("email step without a sizing: next %+v", e.NextStep)
	}
	c.Result("get_workspace_context", nil, &w)
	if w.SendingSetup.Mailboxes.Planned != 3 || *w.NextStep.Tool != "size_sending_capacity" {
		t.Fatalf("planned, no sizing: %+v next %+v", w.SendingSetup, w.NextStep)
	}
	c.Result("confirm_sizing", map[string]any{"dailyVolume": 90}, nil)
	c.Result("get_workspace_context", nil, &w)
	if !w.SendingSetup.SizingConfirmed || *w.NextStep.Tool != "order_sending_setup" {
		t.Fatalf("planned and sized: %+v next %+v", w.SendingSetup, w.NextStep)
	}
	if _, err := f.svc.PlaceOrder(context.Background(), f.ws.ID, nil); err != nil {
		t.Fatal(err)
	}
	md = c.Result("get_workspace_context", nil, &w)
	if w.SendingSetup.Mailboxes.Preparing != 3 || *w.SendingSetup.ReadyToSendOn != "2026-12-29" || !w.SendingSetup.Sandbox || *w.NextStep.Tool != "start_warmup" {
		t.Fatalf("ordered: %+v next %+v", w.SendingSetup, w.NextStep)
	}
	mustContain(t, md, "Mailboxes: 3 being prepared", "Can send at full volume from Tue 29 Dec 2026", "Sandbox")

	// Time passes and nothing is written: the context is served from what
	// the server kept, and what follows from time is worked out anew.
	f.clock.Set(time.Date(2026, 12, 8, 11, 0, 0, 0, time.UTC))
	c.Result("get_workspace_context", nil, &w)
	if w.SendingSetup.Mailboxes.Preparing != 0 || w.SendingSetup.Mailboxes.Ready != 3 || w.SendingSetup.Domains.Ready != 1 || *w.NextStep.Tool != "start_warmup" {
		t.Fatalf("prepared by Tuesday: %+v next %+v", w.SendingSetup, w.NextStep)
	}
}
