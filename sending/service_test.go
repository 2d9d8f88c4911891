package sending_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/approvals"
	"vibesell/billing"
	"vibesell/billing/billingtest"
	"vibesell/cards"
	"vibesell/sending"
	"vibesell/sending/sendingtest"
	"vibesell/store/storetest"
	"vibesell/workspace"
	"vibesell/workspace/workspacetest"
)

// fixture is the bundle of a sending test: the Acme and Globex
// workspaces on one database, a manual clock, and a sending service wired
// to a real approvals service.
type fixture struct {
	pool      *pgxpool.Pool
	clock     *vibesell.ManualClock
	svc       *sending.Service
	approvals *approvals.Service
	a, b      workspace.Workspace
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	return newFixtureWith(t, sending.Providers{})
}

// newFixtureWith builds the fixture with providers; availability says
// every name is free unless providers say otherwise.
func newFixtureWith(t *testing.T, providers sending.Providers) fixture {
	t.Helper()
	return newFixtureHeld(t, providers, 0)
}

// newFixtureHeld builds the fixture with orders held to billing's default
// plans, the free plan allowing freeMailboxes (0: not held to a plan).
func newFixtureHeld(t *testing.T, providers sending.Providers, freeMailboxes int) fixture {
	t.Helper()
	pool := storetest.New(t)
	c := vibesell.NewManualClock(time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC))
	pair := workspacetest.Two(t, pool)
	appr := approvals.New(approvals.Deps{DB: pool, Clock: c, PublicURL: "http://127.0.0.1:1", Logger: slog.New(slog.DiscardHandler)})
	if providers.Availability == nil {
		providers.Availability = sendingtest.FreeNames{}
	}
	var limit sending.MailboxLimit
	if freeMailboxes > 0 {
		cfg := billing.DefaultConfig()
		cfg.Plans[0].Limits.Mailboxes = freeMailboxes
		limit = billing.New(billing.Deps{
			DB:     pool,
			Config: cfg, Stripe: billingtest.NewFakeStripe(c, cfg.Plans), Approvals: appr, PublicURL: "https://vibesell.example.test", Clock: c,
			Logger: slog.New(slog.DiscardHandler), Meters: map[billing.Metric]billing.Meter{billing.Mailboxes: billing.MeterFunc(sending.OrderedMailboxes)},
		}).Limit(billing.Mailboxes)
	}
	svc := sending.New(sending.Deps{DB: pool, Clock: c, Config: sending.DefaultConfig(), Cards: cards.New(cards.Deps{DB: pool, Clock: c}),
		Offers: workspace.New(workspace.Deps{DB: pool, Clock: vibesell.SystemClock{}}), Approvals: appr, Providers: providers, Limit: limit})
	appr.Register(vibesell.ToolOrderSendingSetup, sending.NewOrderAction(svc))
	return fixture{pool: pool, clock: c, svc: svc, approvals: appr, a: pair.Acme, b: pair.Globex}
}

// pick settles propose_domains on domain and propose_email on the first
// style for ws.
func (f fixture) pick(t *testing.T, ws workspace.Workspace, domain string) {
	t.Helper()
	f.pickDomains(t, ws, domain)
	f.planAddresses(t, ws, "first_name", "Ada Lovelace")
}

// pickDomains settles propose_domains (lookalikes of acme.com) on names,
// one card each.
func (f fixture) pickDomains(t *testing.T, ws workspace.Workspace, names ...string) sending.Outcome[sending.DomainsChoice] {
	t.Helper()
	ctx := context.Background()
	req := sending.ProposeDomainsRequest{CompanyDomain: "acme.com", Count: len(names)}
	var answers []cards.Answer
	for {
		o, err := f.svc.ProposeDomains(ctx, ws.ID, req, answers)
		if err != nil {
			t.Fatalf("propose domains %v: %v", names, err)
		}
		if o.Card == nil {
			return o
		}
		answers = append(answers, cards.Answer{Card: o.Card.ID, Answer: names[len(answers)]})
	}
}

// planAddresses settles propose_email for senders with answer (a style id
// or the person's own words).
func (f fixture) planAddresses(t *testing.T, ws workspace.Workspace, answer string, senders ...string) sending.Outcome[sending.EmailStep] {
	t.Helper()
	ctx := context.Background()
	req := sending.ProposeEmailRequest{SenderNames: senders}
	e, err := f.svc.ProposeEmail(ctx, ws.ID, req, nil)
	card := askedCard(t, "propose email", e, err)
	e, err = f.svc.ProposeEmail(ctx, ws.ID, req, []cards.Answer{{Card: card.ID, Answer: answer}})
	settledResult(t, "settle email", e, err)
	return e
}

// askedCard fails t unless the call that returned o and err asks a
// question, and returns its card.
func askedCard[T any](t *testing.T, call string, o sending.Outcome[T], err error) *cards.Card {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", call, err)
	}
	if o.Card == nil {
		t.Fatalf("%s: settled without asking (notes %q)", call, o.Notes)
	}
	return o.Card
}

// settledResult fails t unless the call that returned o and err is
// settled, and returns its result.
func settledResult[T any](t *testing.T, call string, o sending.Outcome[T], err error) *T {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", call, err)
	}
	if o.Result == nil {
		t.Fatalf("%s: not settled, still asking %q (topic %s)", call, o.Card.Question, o.Card.Topic)
	}
	return o.Result
}

// sameQuestion compares cards on the question they put (topic, question,
// free text, the card replaced and what changed), not on their ids, reason,
// choices or answers, which tests check apart.
var sameQuestion = cmpopts.IgnoreFields(cards.Card{}, "ID", "Tool", "Arguments", "Reason", "Choices", "Answers")

// sourceKind is the source on record, "" for none.
func sourceKind(s *sending.Source) sending.SourceKind {
	if s == nil {
		return ""
	}
	return s.Source
}

// chooseSource settles choose_sending_source on source for ws.
func (f fixture) chooseSource(t *testing.T, ws workspace.Workspace, source sending.SourceKind) {
	t.Helper()
	ctx := context.Background()
	q, err := f.svc.ChooseSource(ctx, ws.ID, sending.ChooseSourceRequest{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.ChooseSource(ctx, ws.ID, sending.ChooseSourceRequest{}, []cards.Answer{{Card: q.Card.ID, Answer: string(source)}}); err != nil {
		t.Fatal(err)
	}
}

// Every mailbox starts warming exactly once, however many calls race.
func TestConcurrentWarmupStartsEachMailboxOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.pick(t, f.a, "getacme.com")
	if _, err := f.svc.PlaceOrder(context.Background(), f.a.ID, nil); err != nil {
		t.Fatal(err)
	}
	f.clock.Set(time.Date(2026, 12, 8, 12, 0, 0, 0, time.UTC))
	var mu sync.Mutex
	started := map[string]int{}
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			w, err := f.svc.StartWarmup(context.Background(), f.a.ID)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, m := range w.Started {
				started[m.Address]++
			}
		})
	}
	wg.Wait()
	if len(started) != 3 {
		t.Fatalf("started %v, want the 3 mailboxes", started)
	}
	for addr, n := range started {
		if n != 1 {
			t.Errorf("%s was started %d times", addr, n)
		}
	}
}

// A name another workspace ordered reads as taken; one's own as part of the
// setup.
func TestOrderedNamesReadAsTaken(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.pick(t, f.a, "getacme.com")
	if _, err := f.svc.PlaceOrder(context.Background(), f.a.ID, nil); err != nil {
		t.Fatal(err)
	}
	price := new(vibesell.NewMoney(1500, "USD"))
	for ws, reason := range map[workspace.Workspace]string{f.a: "already part of your sending setup", f.b: "already registered"} {
		t.Run(ws.Name, func(t *testing.T) {
			q, err := f.svc.CheckDomains(context.Background(), ws.ID, []string{"getacme.com", "tryacme.com"})
			if err != nil {
				t.Fatal(err)
			}
			want := []sending.Quote{
				{Domain: "getacme.com", Available: new(false), YearlyPrice: price, Reason: reason},
				{Domain: "tryacme.com", Available: new(true), YearlyPrice: price},
			}
			if diff := cmp.Diff(want, q.Quotes); diff != "" {
				t.Errorf("quotes mismatch (-want +got):\n%s", diff)
			}
		})
	}
	// Another workspace is not offered it either.
	o, err := f.svc.ProposeDomains(context.Background(), f.b.ID, sending.ProposeDomainsRequest{CompanyDomain: "acme.com"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(o.Card.Choices, func(c cards.Choice) bool { return c.ID == "getacme.com" }) {
		t.Fatal("an ordered name was offered to another workspace")
	}
	// Ordering again has nothing left to order.
	if _, err := f.svc.PlaceOrder(context.Background(), f.a.ID, nil); vibesell.ErrorCode(err) != vibesell.EINVALID || !strings.Contains(err.Error(), "nothing to order") {
		t.Fatalf("second order: %v", err)
	}
}

// A stale card, answered before the choice on record, does not undo it.
func TestAnOlderAnswerDoesNotUndoANewerOne(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	first, err := f.svc.ChooseSource(ctx, f.a.ID, sending.ChooseSourceRequest{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	old := []cards.Answer{{Card: first.Card.ID, Answer: "own_names"}}
	if _, err := f.svc.ChooseSource(ctx, f.a.ID, sending.ChooseSourceRequest{}, old); err != nil {
		t.Fatal(err)
	}
	f.clock.Set(f.clock.Now().Add(time.Hour))
	second, err := f.svc.ChooseSource(ctx, f.a.ID, sending.ChooseSourceRequest{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	o, err := f.svc.ChooseSource(ctx, f.a.ID, sending.ChooseSourceRequest{}, []cards.Answer{{Card: second.Card.ID, Answer: "already_warmed"}})
	if got := settledResult(t, "newer answer", o, err).Source; got != sending.SourceAlreadyWarmed {
		t.Fatalf("newer answer: source %q, want %q", got, sending.SourceAlreadyWarmed)
	}
	// The old card is replayed.
	o, err = f.svc.ChooseSource(ctx, f.a.ID, sending.ChooseSourceRequest{}, old)
	if got := settledResult(t, "replayed old card", o, err).Source; got != sending.SourceAlreadyWarmed {
		t.Errorf("replayed old card: source %q, want the later choice, %q", got, sending.SourceAlreadyWarmed)
	}
	if len(o.Notes) != 1 || !strings.Contains(o.Notes[0], "the later choice stands") {
		t.Errorf("replayed old card: notes %q, want one saying the later choice stands", o.Notes)
	}
}

// recordingProvisioner is the sandbox, remembering the keys it was given.
type recordingProvisioner struct {
	*sending.Sandbox
	mu   sync.Mutex
	keys []string
}

func (r *recordingProvisioner) Order(ctx context.Context, key string, orders []sending.DomainOrder) ([]sending.DomainReceipt, error) {
	r.mu.Lock()
	r.keys = append(r.keys, key)
	r.mu.Unlock()
	return r.Sandbox.Order(ctx, key, orders)
}

// An order placed for an approval reaches the provider with its key, and is
// refused under the setup's lock when the plan is no longer the one expected.
func TestPlaceOrderPassesTheKeyAndChecksTheExpectedPlan(t *testing.T) {
	t.Parallel()
	rec := &recordingProvisioner{}
	f := newFixtureWith(t, sending.Providers{Provisioner: rec})
	rec.Sandbox = sending.NewSandbox(f.clock, sending.DefaultConfig())
	svc := f.svc
	f.pick(t, f.a, "getacme.com")

	changed := vibesell.Errorf(vibesell.ECONFLICT, "the plan changed")
	_, err := svc.PlaceOrder(context.Background(), f.a.ID, &sending.PlaceOptions{
		Key:    "approval:1",
		Expect: func(p sending.OrderPlan) error { return changed },
	})
	if err != changed {
		t.Fatalf("PlaceOrder with a failed expectation = %v", err)
	}
	if len(rec.keys) != 0 {
		t.Fatalf("the provider was asked to order %v although the plan was not the one expected", rec.keys)
	}
	var seen []string
	plan, err := svc.PlaceOrder(context.Background(), f.a.ID, &sending.PlaceOptions{
		Key: "approval:2",
		Expect: func(p sending.OrderPlan) error {
			for _, d := range p.Domains {
				seen = append(seen, d.Name)
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var planned []string
	for _, d := range plan.Domains {
		planned = append(planned, d.Name)
	}
	if diff := cmp.Diff([]string{"getacme.com"}, seen); diff != "" {
		t.Errorf("domains the expectation saw mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"getacme.com"}, planned); diff != "" {
		t.Errorf("domains ordered mismatch (-want +got):\n%s", diff)
	}
	if len(rec.keys) != 1 || rec.keys[0] != "approval:2" {
		t.Fatalf("provider keys %v, want [approval:2]", rec.keys)
	}
}

// Every missing step comes back at once, each once, for the assistant
// with the tool that fixes it and for a person without.
func TestPlanOrderListsEveryBlocker(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	req := sending.ProposeDomainsRequest{CompanyDomain: "acme.com", Count: 2}
	o, err := f.svc.ProposeDomains(ctx, f.a.ID, req, nil)
	askedCard(t, "propose", o, err)
	var answers []cards.Answer
	for o.Card != nil {
		answers = append(answers, cards.Answer{Card: o.Card.ID, Answer: o.Card.Choices[0].ID})
		if o, err = f.svc.ProposeDomains(ctx, f.a.ID, req, answers); err != nil {
			t.Fatal(err)
		}
	}
	_, err = f.svc.PlanOrder(ctx, f.a.ID)
	var blocked *sending.OrderBlocked
	if !errors.As(err, &blocked) || vibesell.ErrorCode(err) != vibesell.EINVALID {
		t.Fatalf("PlanOrder = %v, want an OrderBlocked refusal", err)
	}
	addresses := []vibesell.Next{{Do: "Choose the senders' addresses, from their names.", Tool: vibesell.ToolProposeEmail}}
	want := &sending.OrderBlocked{
		Blockers: []vibesell.Blocker{
			{What: "no sending source is chosen", Next: []vibesell.Next{{Do: "Choose where the emails go out from: already-warmed addresses (sooner) or new addresses under the brand.", Tool: vibesell.ToolChooseSendingSource}}},
			{What: "no sizing is confirmed", Next: []vibesell.Next{
				{Do: "Work out how many addresses the sending needs, from the person's daily volume (or lead count and deadline).", Tool: vibesell.ToolSizeSendingCapacity},
				{Do: "Confirm the sizing once the person agrees.", Tool: vibesell.ToolConfirmSizing},
			}},
			{What: "getacme.com has no addresses yet", Next: addresses},
			{What: "tryacme.com has no addresses yet", Next: addresses},
		},
	}
	if diff := cmp.Diff(want, blocked); diff != "" {
		t.Errorf("blockers mismatch (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(err.Error(), "The sending setup cannot be ordered yet: no sending source is chosen") {
		t.Errorf("message %q", err)
	}
	// The refusal takes each step once: two domains without addresses
	// are one call to propose_email.
	var tools []string
	for _, n := range vibesell.ErrorNext(err) {
		tools = append(tools, n.Tool)
	}
	if d := cmp.Diff([]string{vibesell.ToolChooseSendingSource, vibesell.ToolSizeSendingCapacity, vibesell.ToolConfirmSizing, vibesell.ToolProposeEmail}, tools); d != "" {
		t.Errorf("the refusal's steps (-want +got):\n%s", d)
	}
}

// A replica that keeps what workspaces record (Deps.Contexts, as the
// server wires it) answers a replayed card from memory while the
// workspace's context stamp stands, and hears within a second when
// another replica records a later choice: the replay then says the later
// choice stands, as it always has.
func TestAReplayedAnswerIsKeptWhileTheContextStands(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, trips := storetest.NewCounted(t)
	notes := storetest.StartNotifications(t, pool)
	c := vibesell.NewManualClock(time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC))
	ws := workspacetest.Two(t, pool).Acme
	workspaces := workspace.New(workspace.Deps{DB: pool, Clock: vibesell.SystemClock{}, Notes: notes})
	svc := sending.New(sending.Deps{DB: pool, Clock: c, Config: sending.DefaultConfig(), Cards: cards.New(cards.Deps{DB: pool, Clock: c}),
		Offers: workspaces, Contexts: workspaces})
	answer, first := chooseOwnNames(t, svc, ws.ID)
	// A replay reads the record at most once, keeps it, and then, once no
	// notification came while it was read (the answer's own write is
	// notified too), reads nothing; every replay says what the answer said.
	readNothing := false
	for i := 0; i < 40 && !readNothing; i++ {
		before := trips.Count()
		got, err := svc.ChooseSource(ctx, ws.ID, sending.ChooseSourceRequest{}, answer)
		if err != nil {
			t.Fatal(err)
		}
		n := trips.Count() - before
		if n > 1 {
			t.Errorf("replay %d cost %d round trips, want at most 1", i, n)
		}
		if diff := cmp.Diff(first, got); diff != "" {
			t.Errorf("replay %d (-first +replay):\n%s", i, diff)
		}
		readNothing = n == 0
		time.Sleep(25 * time.Millisecond)
	}
	if !readNothing {
		t.Error("40 replays each read the database; a kept record should answer them")
	}

	// Another replica records a later choice.
	c.Advance(time.Hour)
	other := sending.New(sending.Deps{DB: pool, Clock: c, Config: sending.DefaultConfig(), Cards: cards.New(cards.Deps{DB: pool, Clock: c}), Offers: workspaces})
	q2, err := other.ChooseSource(ctx, ws.ID, sending.ChooseSourceRequest{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.ChooseSource(ctx, ws.ID, sending.ChooseSourceRequest{}, []cards.Answer{{Card: q2.Card.ID, Answer: "already_warmed"}}); err != nil {
		t.Fatal(err)
	}
	// Within a second the replay says the later choice stands.
	var got sending.Outcome[sending.SourceChoice]
	if waited := storetest.WaitFor(t, "the replay to read the later choice", func() bool {
		if got, err = svc.ChooseSource(ctx, ws.ID, sending.ChooseSourceRequest{}, answer); err != nil {
			t.Fatal(err)
		}
		return got.Result.Source == sending.SourceAlreadyWarmed
	}); waited > 2*time.Second {
		t.Errorf("the replay read the later choice after %v, want within a second", waited)
	}
	if got.Result.Card != q2.Card.ID {
		t.Fatalf("after another replica's later choice, the replay says %s (card %s), want %s (card %s)",
			got.Result.Source, got.Result.Card, sending.SourceAlreadyWarmed, q2.Card.ID)
	}
	if len(got.Notes) != 1 || !strings.Contains(got.Notes[0], "later choice stands") {
		t.Errorf("notes %q, want the later choice standing", got.Notes)
	}
}

// Answering a card again with the answer on record (an assistant that
// replays its call) reads in one round trip, the setup with its sizing
// (the answered card is kept in memory), and writes, locks and waits for
// nothing.
func TestAnAnswerOnRecordIsReadInOneRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, trips := storetest.NewCounted(t)
	c := vibesell.NewManualClock(time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC))
	ws := workspacetest.Two(t, pool).Acme
	svc := sending.New(sending.Deps{DB: pool, Clock: c, Config: sending.DefaultConfig(), Cards: cards.New(cards.Deps{DB: pool, Clock: c}),
		Offers: workspace.New(workspace.Deps{DB: pool, Clock: vibesell.SystemClock{}})})
	answer, first := chooseOwnNames(t, svc, ws.ID)
	// xmin changes with a write to the row, xmax with a lock taken on it.
	var xmin, xmax string
	if err := pool.QueryRow(ctx, `SELECT xmin::text, xmax::text FROM sending_setups WHERE workspace_id = $1`, ws.ID).Scan(&xmin, &xmax); err != nil {
		t.Fatal(err)
	}
	before := trips.Count()
	again, err := svc.ChooseSource(ctx, ws.ID, sending.ChooseSourceRequest{}, answer)
	if err != nil {
		t.Fatal(err)
	}
	if n := trips.Count() - before; n != 1 {
		t.Errorf("the answer on record cost %d round trips, want 1", n)
	}
	var xmin2, xmax2 string
	if err := pool.QueryRow(ctx, `SELECT xmin::text, xmax::text FROM sending_setups WHERE workspace_id = $1`, ws.ID).Scan(&xmin2, &xmax2); err != nil {
		t.Fatal(err)
	}
	if xmin2 != xmin || xmax2 != xmax {
		t.Errorf("the setup's row went from xmin %s, xmax %s to %s, %s: written or locked", xmin, xmax, xmin2, xmax2)
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("the answer again (-first +again):\n%s", diff)
	}
	if !strings.Contains(nextText(again.Result.Next), vibesell.ToolSizeSendingCapacity) {
		t.Errorf("next step without a sizing does not offer one: %q", nextText(again.Result.Next))
	}
}

// chooseOwnNames asks the source's question in workspace ws and answers
// it "own_names"; it returns the answer, to replay, and what it settled.
func chooseOwnNames(t *testing.T, svc *sending.Service, ws uuid.UUID) ([]cards.Answer, sending.Outcome[sending.SourceChoice]) {
	t.Helper()
	ctx := context.Background()
	q, err := svc.ChooseSource(ctx, ws, sending.ChooseSourceRequest{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	answer := []cards.Answer{{Card: q.Card.ID, Answer: "own_names"}}
	first, err := svc.ChooseSource(ctx, ws, sending.ChooseSourceRequest{}, answer)
	if err != nil {
		t.Fatal(err)
	}
	return answer, first
}
