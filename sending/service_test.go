package sending_test

import (
	"context"
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

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

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
	clock *clock
	svc   *sending.Service
	a, b  workspace.Workspace
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	pool := storetest.New(t)
	c := &clock{t: time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)}
	ws := workspace.NewService(pool)
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
	if _, err := f.svc.PlaceOrder(context.Background(), f.a.ID); err != nil {
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
	if _, err := f.svc.PlaceOrder(context.Background(), f.a.ID); err != nil {
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
	if _, err := f.svc.PlaceOrder(context.Background(), f.a.ID); vibesell.ErrorCode(err) != vibesell.EINVALID || !strings.Contains(err.Error(), "nothing to order") {
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
