package workspace_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/store/storetest"
	"vibesell/workspace"
	"vibesell/workspace/workspacetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// bundle is one test's database, its service on a clock that stands
// still, and two workspaces (workspacetest.Two): a acts, b must see
// nothing of a's.
type bundle struct {
	pool  *pgxpool.Pool
	svc   *workspace.Service
	clock *vibesell.ManualClock
	a, b  workspace.Workspace
}

var friday = time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)

func setup(t *testing.T) bundle {
	t.Helper()
	pool := storetest.New(t)
	clock := vibesell.NewManualClock(friday)
	two := workspacetest.Two(t, pool)
	return bundle{pool: pool, svc: workspace.New(workspace.Deps{DB: pool, Clock: clock}), clock: clock, a: two.Acme, b: two.Globex}
}

func TestMemoriesAreKeptPerWorkspace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	svc, a, b := e.svc, e.a, e.b
	m, err := svc.Remember(ctx, a.ID, "person", "  Prefers to be called Sam ")
	if err != nil {
		t.Fatal(err)
	}
	if m.Fact != "Prefers to be called Sam" {
		t.Fatalf("fact stored as %q", m.Fact)
	}
	if list, _ := svc.Memories(ctx, b.ID); len(list) != 0 {
		t.Fatalf("another workspace sees %d memories", len(list))
	}
	if _, err := svc.Forget(ctx, b.ID, m.ID); vibesell.ErrorCode(err) != vibesell.ENOTFOUND {
		t.Fatalf("another workspace forgot it: %v", err)
	}
	if _, err := svc.Forget(ctx, a.ID, m.ID); err != nil {
		t.Fatal(err)
	}
	if list, _ := svc.Memories(ctx, a.ID); len(list) != 0 {
		t.Fatalf("forgotten memory still listed: %d memories, the first %q", len(list), list[0].Fact)
	}
	if _, err := svc.Remember(ctx, a.ID, "person", "   "); vibesell.ErrorCode(err) != vibesell.EINVALID {
		t.Fatalf("empty fact: %v", err)
	}
}

// Concurrent calls cannot push a workspace past the memory limit.
func TestMemoryLimitHoldsUnderConcurrency(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	pool, svc, a := e.pool, e.svc, e.a
	for i := range 195 {
		if _, err := svc.Remember(ctx, a.ID, "company", "fact "+uuid.NewString()[:8]+string(rune('a'+i%26))); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	refused := 0
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := svc.Remember(ctx, a.ID, "company", "one more")
			if vibesell.ErrorCode(err) == vibesell.ECONFLICT {
				mu.Lock()
				refused++
				mu.Unlock()
			} else if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	var kept int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM memories WHERE workspace_id = $1", a.ID).Scan(&kept); err != nil {
		t.Fatal(err)
	}
	if kept != 200 || refused != 11 {
		t.Fatalf("%d memories kept, %d refused", kept, refused)
	}
}

func TestOffer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	in := workspace.Offer{
		CompanyName: "Acme", CompanyDomain: "https://www.Acme.com/pricing", Product: "Anvils",
		Audience: "Coyotes", Value: "Catch the bird", ProofPoints: []string{" 10,000 sold ", ""},
		CallToAction: "Book a demo", Price: new(workspace.NewPrice(1450, "inr", " month ")),
	}
	// in, as it is kept.
	want := workspace.Offer{CompanyName: "Acme", CompanyDomain: "acme.com", Product: "Anvils", Audience: "Coyotes",
		Value: "Catch the bird", ProofPoints: []string{"10,000 sold"}, CallToAction: "Book a demo",
		Price: &workspace.Price{Money: vibesell.NewMoney(145000, "INR"), Period: "month"}, UpdatedAt: friday}

	t.Run("none yet", func(t *testing.T) {
		o, err := e.svc.FindOffer(ctx, e.a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if o != nil {
			t.Errorf("a new workspace has an offer, for %q", o.CompanyName)
		}
	})
	t.Run("saved as normalized, with the next step", func(t *testing.T) {
		saved, err := e.svc.SaveOffer(ctx, e.a.ID, in)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, saved.Offer); diff != "" {
			t.Errorf("saved mismatch (-want +got):\n%s", diff)
		}
		if saved.NextStep.Tool() != vibesell.ToolSavePlaybook {
			t.Errorf("next step without a playbook: %q, want %q", saved.NextStep.Tool(), vibesell.ToolSavePlaybook)
		}
		got, err := e.svc.FindOffer(ctx, e.a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&want, got); diff != "" {
			t.Errorf("read back mismatch (-want +got):\n%s", diff)
		}
		if o, _ := e.svc.FindOffer(ctx, e.b.ID); o != nil {
			t.Error("another workspace sees the offer")
		}
	})
	t.Run("replaced, the playbook saved", func(t *testing.T) {
		if _, err := e.svc.SavePlaybook(ctx, e.a.ID, workspace.Playbook{Tone: "brief"}); err != nil {
			t.Fatal(err)
		}
		again := in
		again.Price, again.Product = nil, "Rockets"
		saved, err := e.svc.SaveOffer(ctx, e.a.ID, again)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.svc.FindOffer(ctx, e.a.ID)
		if err != nil {
			t.Fatal(err)
		}
		replaced := want
		replaced.Price, replaced.Product = nil, "Rockets"
		if diff := cmp.Diff(&replaced, got); diff != "" {
			t.Errorf("replacement mismatch (-want +got):\n%s", diff)
		}
		if saved.NextStep.Tool() != vibesell.ToolGetWorkspaceContext {
			t.Errorf("next step with both saved: %q, want %q", saved.NextStep.Tool(), vibesell.ToolGetWorkspaceContext)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		for name, change := range map[string]func(*workspace.Offer){
			"a domain that is not one": func(o *workspace.Offer) { o.CompanyDomain = "not a domain" },
			"a currency that is not":   func(o *workspace.Offer) { o.Price = new(workspace.NewPrice(5, "dollars", "")) },
			"a negative price":         func(o *workspace.Offer) { o.Price = new(workspace.NewPrice(-5, "USD", "")) },
			"no call to action":        func(o *workspace.Offer) { o.CallToAction = " " },
		} {
			t.Run(name, func(t *testing.T) {
				bad := in
				change(&bad)
				if _, err := e.svc.SaveOffer(ctx, e.a.ID, bad); vibesell.ErrorCode(err) != vibesell.EINVALID {
					t.Errorf("saved, or refused otherwise: %v", err)
				}
			})
		}
	})
}

// A price is kept in the minor units of its currency, as every amount.
func TestNewPriceRoundsToMinorUnits(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		amount   float64
		currency string
		want     vibesell.Money
	}{
		{1450, "inr", vibesell.NewMoney(145000, "INR")},
		{12.345, "USD", vibesell.NewMoney(1235, "USD")},
		{0.1 + 0.2, "EUR", vibesell.NewMoney(30, "EUR")},
		{1450.4, "JPY", vibesell.NewMoney(1450, "JPY")},
	} {
		t.Run(fmt.Sprintf("%v %s", c.amount, c.currency), func(t *testing.T) {
			if diff := cmp.Diff(c.want, workspace.NewPrice(c.amount, c.currency, "").Money); diff != "" {
				t.Errorf("NewPrice(%v, %s) mismatch (-want +got):\n%s", c.amount, c.currency, diff)
			}
		})
	}
}

func TestPlaybookAndTickets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	svc, a, b := e.svc, e.a, e.b
	p, err := svc.SavePlaybook(ctx, a.ID, workspace.Playbook{Tone: "brief", Objections: []workspace.Objection{{Objection: "Too expensive", Answer: "Pays back in a month"}}})
	if err != nil {
		t.Fatal(err)
	}
	// Lists not given are kept empty, not missing.
	want := workspace.Playbook{Tone: "brief", Angles: []string{}, Objections: []workspace.Objection{{Objection: "Too expensive", Answer: "Pays back in a month"}},
		Dos: []string{}, Donts: []string{}, UpdatedAt: friday}
	if diff := cmp.Diff(want, p.Playbook); diff != "" {
		t.Errorf("playbook saved mismatch (-want +got):\n%s", diff)
	}
	got, err := svc.FindPlaybook(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Fatalf("playbook read back mismatch (-want +got):\n%s", diff)
	}
	if pb, _ := svc.FindPlaybook(ctx, b.ID); pb != nil {
		t.Fatal("another workspace sees the playbook")
	}
	if _, err := svc.SavePlaybook(ctx, a.ID, workspace.Playbook{Tone: "x", Objections: []workspace.Objection{{Objection: "No budget"}}}); vibesell.ErrorCode(err) != vibesell.EINVALID {
		t.Fatalf("objection without answer: %v", err)
	}
	t1, err := svc.OpenTicket(ctx, a.ID, "bug", "The card is blank", "sam@acme.com")
	if err != nil {
		t.Fatal(err)
	}
	t2, err := svc.OpenTicket(ctx, a.ID, "other", "Hello", "")
	if err != nil {
		t.Fatal(err)
	}
	wantTickets := []workspace.Ticket{
		{Workspace: a.Slug, Topic: "bug", Message: "The card is blank", ReplyTo: "sam@acme.com", Status: "open", CreatedAt: friday},
		{Workspace: a.Slug, Topic: "other", Message: "Hello", Status: "open", CreatedAt: friday},
	}
	if diff := cmp.Diff(wantTickets, []workspace.Ticket{t1, t2}, cmpopts.IgnoreFields(workspace.Ticket{}, "ID", "Number")); diff != "" {
		t.Fatalf("tickets mismatch (-want +got):\n%s", diff)
	}
	if t2.Number <= t1.Number {
		t.Fatalf("tickets numbered %d, then %d", t1.Number, t2.Number)
	}
	if n, _ := svc.OpenTickets(ctx, b.ID); n != 0 {
		t.Fatalf("another workspace counts %d tickets", n)
	}
	if _, err := svc.OpenTicket(ctx, a.ID, "bug", "x", "Sam <sam@acme.com>"); vibesell.ErrorCode(err) != vibesell.EINVALID {
		t.Fatalf("named address accepted: %v", err)
	}
}

// readSnapshot reads workspace ws's snapshot as get_workspace_context does,
// through a context cache that keeps nothing, with also's reads in the same
// batch.
func readSnapshot(ctx context.Context, svc *workspace.Service, ws uuid.UUID, also func(*pgx.Batch)) (workspace.Snapshot, error) {
	return workspace.NewContextCache(svc, 0, func(b *pgx.Batch, ws uuid.UUID) func() (workspace.Snapshot, error) {
		done := workspace.QueueSnapshot(b, ws)
		if also != nil {
			also(b)
		}
		return done
	}).Read(ctx, ws)
}

// The snapshot reads, in one round trip, what the single reads read: nil
// for what is not saved yet, and nothing of another workspace.
func TestSnapshotReadsEverythingInOneRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, trips := storetest.NewCounted(t)
	svc := workspace.New(workspace.Deps{DB: pool, Clock: vibesell.NewManualClock(friday)})
	two := workspacetest.Two(t, pool)
	a, b := two.Acme, two.Globex

	snap, err := readSnapshot(ctx, svc, a.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(workspace.Snapshot{Workspace: a, Zone: time.UTC}, snap, sameZone); diff != "" {
		t.Fatalf("fresh workspace mismatch (-want +got):\n%s", diff)
	}
	la := "America/Los_Angeles"
	if _, err := svc.SetSender(ctx, a.ID, workspace.SenderChange{TimeZone: &la}, friday); err != nil {
		t.Fatal(err)
	}

	if _, err := svc.SaveOffer(ctx, a.ID, workspace.Offer{CompanyName: "Acme", CompanyDomain: "acme.com", Product: "Anvils",
		Audience: "Coyotes", Value: "Catch the bird", ProofPoints: []string{"10,000 sold"}, CallToAction: "Book a demo",
		Price: new(workspace.NewPrice(1450, "INR", "month"))}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SavePlaybook(ctx, a.ID, workspace.Playbook{Tone: "brief", Angles: []string{"Speed"},
		Objections: []workspace.Objection{{Objection: "Too expensive", Answer: "Pays back in a month"}}}); err != nil {
		t.Fatal(err)
	}
	for _, fact := range []string{"Prefers to be called Sam", "Never email on Fridays"} {
		if _, err := svc.Remember(ctx, a.ID, "person", fact); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.OpenTicket(ctx, a.ID, "bug", "The card is blank", ""); err != nil {
		t.Fatal(err)
	}

	// Another read rides in the same batch and is read by the time the
	// snapshot is.
	var extra int
	before := trips.Count()
	snap, err = readSnapshot(ctx, svc, a.ID, func(bt *pgx.Batch) {
		bt.Queue(`SELECT 41 + 1`).QueryRow(func(row pgx.Row) error { return row.Scan(&extra) })
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := trips.Count() - before; n != 1 || extra != 42 {
		t.Fatalf("Snapshot took %d round trips (want 1) and read %d for the extra query (want 42)", n, extra)
	}
	offer, _ := svc.FindOffer(ctx, a.ID)
	playbook, _ := svc.FindPlaybook(ctx, a.ID)
	memories, _ := svc.Memories(ctx, a.ID)
	tickets, _ := svc.OpenTickets(ctx, a.ID)
	sender, _ := svc.Sender(ctx, a.ID)
	want := workspace.Snapshot{Workspace: a, Offer: offer, Playbook: playbook, Memories: memories, MemoryCount: len(memories), OpenTickets: tickets,
		Zone: sender.Location()}
	if diff := cmp.Diff(want, snap, sameZone); diff != "" {
		t.Fatalf("snapshot and single reads mismatch (-want +got):\n%s", diff)
	}
	// The single reads read what was saved.
	if len(snap.Memories) != 2 || snap.OpenTickets != 1 || snap.Offer == nil || snap.Offer.Price == nil {
		t.Fatalf("the snapshot holds %d memories and %d open tickets, offer saved %t; want 2, 1 and a priced offer",
			len(snap.Memories), snap.OpenTickets, snap.Offer != nil)
	}

	// Both workspaces in one batch: neither sees the other's rows.
	bt := &pgx.Batch{}
	doneA, doneB := workspace.QueueSnapshot(bt, a.ID), workspace.QueueSnapshot(bt, b.ID)
	if err := pool.SendBatch(ctx, bt).Close(); err != nil {
		t.Fatal(err)
	}
	got, err := doneA()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, sameZone); diff != "" {
		t.Fatalf("a in a shared batch mismatch (-want +got):\n%s", diff)
	}
	if got, err = doneB(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(workspace.Snapshot{Workspace: b, Zone: time.UTC}, got, sameZone); diff != "" {
		t.Fatalf("another workspace mismatch (-want +got):\n%s", diff)
	}
}

func TestSnapshotOfAMissingWorkspaceIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc := setup(t).svc
	missing := uuid.New()
	_, want := svc.FindByID(ctx, missing)
	_, err := readSnapshot(ctx, svc, missing, nil)
	if vibesell.ErrorCode(err) != vibesell.ENOTFOUND || err.Error() != want.Error() {
		t.Fatalf("Snapshot of a missing workspace = %v, want %v", err, want)
	}

	// done before the batch ran is an error, not an empty snapshot.
	done := workspace.QueueSnapshot(&pgx.Batch{}, missing)
	if _, err := done(); err == nil || vibesell.ErrorCode(err) != vibesell.EINTERNAL {
		t.Fatalf("done before the batch was sent = %v", err)
	}
}

// One request about memories remembers, forgets or lists, and answers
// with what is remembered afterwards.
func TestChangeMemory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	change := func(t *testing.T, c workspace.MemoryChange) workspace.MemoryChanged {
		t.Helper()
		got, err := e.svc.ChangeMemory(ctx, e.a.ID, c)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	type outcome struct {
		Action   string
		Memory   string
		Memories []string
	}
	outcomeOf := func(c workspace.MemoryChanged) outcome {
		o := outcome{Action: c.Action}
		if c.Memory != nil {
			o.Memory = c.Memory.About + ": " + c.Memory.Fact
		}
		for _, m := range c.Memories {
			o.Memories = append(o.Memories, m.About+": "+m.Fact)
		}
		return o
	}

	var kept workspace.MemoryChanged
	t.Run("remember, about the company unless said", func(t *testing.T) {
		kept = change(t, workspace.MemoryChange{Fact: "We never email on Fridays"})
		want := outcome{Action: "remembered", Memory: "company: We never email on Fridays", Memories: []string{"company: We never email on Fridays"}}
		if diff := cmp.Diff(want, outcomeOf(kept)); diff != "" {
			t.Errorf("remembered mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("forget", func(t *testing.T) {
		got := change(t, workspace.MemoryChange{Forget: kept.Memory.ID.String()})
		if diff := cmp.Diff(outcome{Action: "forgotten", Memory: "company: We never email on Fridays"}, outcomeOf(got)); diff != "" {
			t.Errorf("forgotten mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("list", func(t *testing.T) {
		if diff := cmp.Diff(outcome{Action: "listed"}, outcomeOf(change(t, workspace.MemoryChange{}))); diff != "" {
			t.Errorf("listed mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		for _, c := range []struct {
			name   string
			change workspace.MemoryChange
			code   string
		}{
			{"a fact and a memory to forget", workspace.MemoryChange{Fact: "x", Forget: kept.Memory.ID.String()}, vibesell.EINVALID},
			{"an id that is not one", workspace.MemoryChange{Forget: "nope"}, vibesell.EINVALID},
			{"a memory forgotten already", workspace.MemoryChange{Forget: kept.Memory.ID.String()}, vibesell.ENOTFOUND},
			{"a page too large", workspace.MemoryChange{Limit: workspace.MaxMemoryPage + 1}, vibesell.EINVALID},
			{"a cursor the list did not give", workspace.MemoryChange{Cursor: "bm9wZQ"}, vibesell.EINVALID},
		} {
			t.Run(c.name, func(t *testing.T) {
				if _, err := e.svc.ChangeMemory(ctx, e.a.ID, c.change); vibesell.ErrorCode(err) != c.code {
					t.Errorf("%v, want %s", err, c.code)
				}
			})
		}
	})
}

// What is remembered is listed a page at a time, newest first, however
// much the workspace keeps: every fact once, with the count on each page.
func TestMemoriesArePaged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	// Three facts a minute: a page may end between two of the same time.
	var kept []workspace.Memory
	for i := range 23 {
		if i%3 == 0 {
			e.clock.Advance(time.Minute)
		}
		m, err := e.svc.Remember(ctx, e.a.ID, "company", fmt.Sprintf("Fact %02d", i))
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, m)
	}
	slices.SortFunc(kept, func(a, b workspace.Memory) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID.String(), b.ID.String())
	})
	var want []string
	for _, m := range kept {
		want = append(want, m.Fact)
	}
	type page struct {
		Facts []string
		Total int
		More  bool
	}
	var (
		got    []page
		cursor string
	)
	for range 5 {
		c, err := e.svc.ChangeMemory(ctx, e.a.ID, workspace.MemoryChange{Limit: 10, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		p := page{Total: c.Total, More: c.Next != ""}
		for _, m := range c.Memories {
			p.Facts = append(p.Facts, m.Fact)
		}
		got = append(got, p)
		if cursor = c.Next; cursor == "" {
			break
		}
	}
	wantPages := []page{{want[:10], 23, true}, {want[10:20], 23, true}, {want[20:], 23, false}}
	if diff := cmp.Diff(wantPages, got); diff != "" {
		t.Errorf("pages mismatch (-want +got):\n%s", diff)
	}
	first, err := e.svc.ChangeMemory(ctx, e.a.ID, workspace.MemoryChange{})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Memories) != 10 || first.Next == "" {
		t.Errorf("the default page holds %d memories (a next page: %v), want 10 and a next page", len(first.Memories), first.Next != "")
	}
}

// Offers stored with a decimal price, before prices were kept in minor
// units, read as what they cost once migration 00066 has run.
func TestStoredDecimalPricesAreConverted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	up, down := storetest.Migration(t, "00066_offer_price_minor_units.sql")
	if _, err := e.pool.Exec(ctx, down); err != nil {
		t.Fatal(err)
	}
	for ws, price := range map[uuid.UUID][]any{e.a.ID: {"1450.00", "INR"}, e.b.ID: {"1450.00", "JPY"}} {
		if _, err := e.pool.Exec(ctx, `INSERT INTO offers (workspace_id, company_name, product, audience, value, call_to_action, price_amount, price_currency, price_period)
			VALUES ($1, 'Acme', 'p', 'a', 'v', 'c', $2::numeric, $3, 'month')`, ws, price[0], price[1]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.pool.Exec(ctx, up); err != nil {
		t.Fatal(err)
	}
	for ws, want := range map[uuid.UUID]vibesell.Money{e.a.ID: vibesell.NewMoney(145000, "INR"), e.b.ID: vibesell.NewMoney(1450, "JPY")} {
		t.Run(want.Currency, func(t *testing.T) {
			o, err := e.svc.FindOffer(ctx, ws)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&workspace.Price{Money: want, Period: "month"}, o.Price); diff != "" {
				t.Errorf("price mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// sameZone compares time zones by name: each load is a value of its own.
var sameZone = cmp.Comparer(func(a, b *time.Location) bool { return a.String() == b.String() })

// A recipient knows the sender by the offer's company, else the
// workspace's name, and by the postal address the emails carry.
func TestIdentityNamesTheSender(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	if got, err := e.svc.Identity(ctx, e.a.ID); err != nil || got != (workspace.Identity{Company: e.a.Name}) {
		t.Fatalf("before an offer: %+v, %v", got, err)
	}
	postal := "1 Main Street, Springfield"
	if _, err := e.svc.SaveOfferAndSender(ctx, e.a.ID, workspace.Offer{CompanyName: "Acme Analytics", Product: "p", Audience: "a", Value: "v", CallToAction: "c"},
		workspace.SenderChange{PostalAddress: &postal}); err != nil {
		t.Fatal(err)
	}
	if got, err := e.svc.Identity(ctx, e.a.ID); err != nil || got != (workspace.Identity{Company: "Acme Analytics", PostalAddress: postal}) {
		t.Errorf("with an offer and a postal address: %+v, %v", got, err)
	}
	if got, err := e.svc.Identity(ctx, e.b.ID); err != nil || got != (workspace.Identity{Company: e.b.Name}) {
		t.Errorf("another workspace: %+v, %v", got, err)
	}
	if _, err := e.svc.Identity(ctx, uuid.New()); vibesell.ErrorCode(err) != vibesell.ENOTFOUND {
		t.Errorf("no such workspace: %v", err)
	}
}
