package sending_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/cards"
	"vibesell/sending"
	"vibesell/store/storetest"
	"vibesell/workspace"
)

// everything is available, so the tests pick the names they mean.
type everything struct{}

func (everything) Name() string { return sending.SandboxName }

func (everything) Check(ctx context.Context, names []string) []sending.NameCheck {
	out := make([]sending.NameCheck, len(names))
	for i, n := range names {
		yes := true
		out[i] = sending.NameCheck{Domain: n, Available: &yes}
	}
	return out
}

type fixture struct {
	pool  *pgxpool.Pool
	clock *vibesell.ManualClock
	svc   *sending.Service
	a, b  workspace.Workspace
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	pool := storetest.New(t)
	c := vibesell.NewManualClock(time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC))
	ws := workspace.NewService(pool, c)
	a, err := ws.Create(context.Background(), "Acme")
	if err != nil {
		t.Fatal(err)
	}
	b, err := ws.Create(context.Background(), "Globex")
	if err != nil {
		t.Fatal(err)
	}
	svc := sending.New(pool, c, sending.DefaultConfig(), cards.NewService(pool, c), ws, &sending.Options{Availability: everything{}})
	return fixture{pool: pool, clock: c, svc: svc, a: a, b: b}
}

type domainsArgs struct {
	CompanyDomain string `json:"companyDomain"`
}

type emailArgs struct {
	SenderNames []string `json:"senderNames"`
}

// pick settles propose_domains on domain and propose_email on the first
// style for ws.
func (f fixture) pick(t *testing.T, ws workspace.Workspace, domain string) {
	t.Helper()
	ctx := context.Background()
	req := sending.ProposeDomainsRequest{CompanyDomain: "acme.com", Count: 1}
	o, err := f.svc.ProposeDomains(ctx, ws.ID, domainsArgs{"acme.com"}, nil, req)
	if err != nil || o.Card == nil {
		t.Fatalf("propose domains: %+v %v", o, err)
	}
	o, err = f.svc.ProposeDomains(ctx, ws.ID, domainsArgs{"acme.com"}, []cards.Answer{{Card: o.Card.ID, Answer: domain}}, req)
	if err != nil || o.Result == nil {
		t.Fatalf("pick %s: %+v %v", domain, o, err)
	}
	names := sending.ProposeEmailRequest{SenderNames: []string{"Ada Lovelace"}}
	e, err := f.svc.ProposeEmail(ctx, ws.ID, emailArgs{names.SenderNames}, nil, names)
	if err != nil || e.Card == nil {
		t.Fatalf("propose email: %+v %v", e, err)
	}
	e, err = f.svc.ProposeEmail(ctx, ws.ID, emailArgs{names.SenderNames}, []cards.Answer{{Card: e.Card.ID, Answer: "first_name"}}, names)
	if err != nil || e.Result == nil {
		t.Fatalf("settle email: %+v %v", e, err)
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
	for ws, want := range map[workspace.Workspace]string{f.a: "already part of your sending setup", f.b: "already registered"} {
		q, err := f.svc.CheckDomains(context.Background(), ws.ID, []string{"getacme.com", "tryacme.com"})
		if err != nil {
			t.Fatal(err)
		}
		if q.Quotes[0].Available == nil || *q.Quotes[0].Available || q.Quotes[0].Reason != want || !*q.Quotes[1].Available {
			t.Errorf("%s sees %+v", ws.Name, q.Quotes)
		}
	}
	// Another workspace is not offered it either.
	o, err := f.svc.ProposeDomains(context.Background(), f.b.ID, domainsArgs{"acme.com"}, nil, sending.ProposeDomainsRequest{CompanyDomain: "acme.com"})
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
	type noArgs struct{}
	first, err := f.svc.ChooseSource(ctx, f.a.ID, noArgs{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	old := []cards.Answer{{Card: first.Card.ID, Answer: "own_names"}}
	if _, err := f.svc.ChooseSource(ctx, f.a.ID, noArgs{}, old); err != nil {
		t.Fatal(err)
	}
	f.clock.Set(f.clock.Now().Add(time.Hour))
	second, err := f.svc.ChooseSource(ctx, f.a.ID, noArgs{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	o, err := f.svc.ChooseSource(ctx, f.a.ID, noArgs{}, []cards.Answer{{Card: second.Card.ID, Answer: "already_warmed"}})
	if err != nil || o.Result.Source != "already_warmed" {
		t.Fatalf("newer answer: %+v %v", o.Result, err)
	}
	// The old card is replayed.
	o, err = f.svc.ChooseSource(ctx, f.a.ID, noArgs{}, old)
	if err != nil {
		t.Fatal(err)
	}
	if o.Result.Source != "already_warmed" || len(o.Notes) != 1 || !strings.Contains(o.Notes[0], "the later choice stands") {
		t.Fatalf("replayed old card: %+v notes %v", o.Result, o.Notes)
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
	f := newFixture(t)
	rec := &recordingProvisioner{Sandbox: sending.NewSandbox(f.clock, sending.DefaultConfig())}
	svc := sending.New(f.pool, f.clock, sending.DefaultConfig(), cards.NewService(f.pool, f.clock), workspace.NewService(f.pool, f.clock),
		&sending.Options{Availability: everything{}, Provisioner: rec})
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
	if len(seen) != 1 || seen[0] != "getacme.com" || len(plan.Domains) != 1 {
		t.Fatalf("expectation saw %v, plan %+v", seen, plan.Domains)
	}
	if len(rec.keys) != 1 || rec.keys[0] != "approval:2" {
		t.Fatalf("provider keys %v, want [approval:2]", rec.keys)
	}
}

// Every blocker comes back at once, as a list a caller can merge with its own.
func TestPlanOrderListsEveryBlocker(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	req := sending.ProposeDomainsRequest{CompanyDomain: "acme.com", Count: 2}
	o, err := f.svc.ProposeDomains(ctx, f.a.ID, domainsArgs{"acme.com"}, nil, req)
	if err != nil || o.Card == nil {
		t.Fatalf("propose: %+v %v", o, err)
	}
	var answers []cards.Answer
	for o.Card != nil {
		answers = append(answers, cards.Answer{Card: o.Card.ID, Answer: o.Card.Choices[0].ID})
		if o, err = f.svc.ProposeDomains(ctx, f.a.ID, domainsArgs{"acme.com"}, answers, req); err != nil {
			t.Fatal(err)
		}
	}
	_, err = f.svc.PlanOrder(ctx, f.a.ID)
	var blocked *sending.OrderBlocked
	if !errors.As(err, &blocked) || vibesell.ErrorCode(err) != vibesell.EINVALID {
		t.Fatalf("PlanOrder = %v, want an OrderBlocked refusal", err)
	}
	if len(blocked.Blockers) != 2 {
		t.Fatalf("blockers %q, want one per domain without addresses", blocked.Blockers)
	}
	for _, b := range blocked.Blockers {
		if !strings.Contains(b, "has no addresses yet") || !strings.Contains(err.Error(), b) {
			t.Errorf("blocker %q / message %q", b, err)
		}
	}
}
