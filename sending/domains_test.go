package sending_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/cards"
	"vibesell/sending"
	"vibesell/sending/sendingtest"
)

// takenAvailability says every name is available except those the test
// takes meanwhile, as a registry would once someone registers them.
type takenAvailability struct {
	mu    sync.Mutex
	taken map[string]bool
}

func (a *takenAvailability) Name() string { return sending.SandboxName }

func (a *takenAvailability) Check(ctx context.Context, names []string) []sending.NameCheck {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := sendingtest.FreeNames{}.Check(ctx, names)
	for i, n := range names {
		if a.taken[n] {
			no := false
			out[i] = sending.NameCheck{Domain: n, Available: &no, Reason: "already registered"}
		}
	}
	return out
}

func (a *takenAvailability) take(name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.taken[name] = true
}

func TestProposeDomains(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	req := sending.ProposeDomainsRequest{CompanyDomain: "acme.com", Count: 2}

	t.Run("one card per domain, offering only names the check passes", func(t *testing.T) {
		t.Parallel()
		f := newFixtureWith(t, sending.Providers{Availability: sending.NewSandbox(nil, sending.DefaultConfig())})
		o, err := f.svc.ProposeDomains(ctx, f.a.ID, req, nil)
		card := askedCard(t, "first card", o, err)
		want := cards.Card{Topic: "domain-1", Question: "Which domain should be sending domain 1 of 2, instead of acme.com?"}
		if diff := cmp.Diff(want, *card, sameQuestion); diff != "" {
			t.Fatalf("first card mismatch (-want +got):\n%s", diff)
		}
		if len(card.Choices) != 6 {
			t.Fatalf("first card offers %d names %v, want 6", len(card.Choices), choiceIDs(card.Choices))
		}
		for _, c := range card.Choices {
			if a := sending.SandboxCheck(c.ID).Available; a == nil || !*a {
				t.Errorf("offered %s, which the availability check does not pass", c.ID)
			}
			if want := c.ID + ", USD 15.00 per year"; c.Label != want {
				t.Errorf("offered %s as %q, want %q", c.ID, c.Label, want)
			}
		}
		pick1 := card.Choices[0].ID
		answers := []cards.Answer{{Card: card.ID, Answer: pick1}}
		o, err = f.svc.ProposeDomains(ctx, f.a.ID, req, answers)
		card = askedCard(t, "second card", o, err)
		if !strings.Contains(card.Question, "2 of 2") {
			t.Fatalf("second card asks %q, want sending domain 2 of 2", card.Question)
		}
		if slices.Contains(choiceIDs(card.Choices), pick1) {
			t.Fatalf("second card offers %s, the first pick, again: %v", pick1, choiceIDs(card.Choices))
		}
		pick2 := card.Choices[2].ID
		o, err = f.svc.ProposeDomains(ctx, f.a.ID, req, append(answers, cards.Answer{Card: card.ID, Answer: pick2}))
		c := settledResult(t, "settle", o, err)
		if diff := cmp.Diff([]string{pick1, pick2}, []string{c.Picks[0].Domain, c.Picks[1].Domain}); diff != "" {
			t.Errorf("picks mismatch (-want +got):\n%s", diff)
		}
		meaning := "Your addresses will be on new domains registered for you: " + pick1 + " and " + pick2 + ". Nothing is registered or billed yet; once ordered: " +
			"USD 30.00 per year for the domains and USD 30.00 per month for 6 mailboxes; ordering charges the first year and the first month (USD 60.00 in all). These are sandbox amounts: nothing is charged."
		if c.Meaning != meaning || c.Next.Tool() != vibesell.ToolProposeEmail {
			t.Errorf("meaning %q, want %q; next %s", c.Meaning, meaning, c.Next.Tool())
		}
	})

	t.Run("a name taken meanwhile is asked again without it; a taken suggestion says why", func(t *testing.T) {
		t.Parallel()
		avail := &takenAvailability{taken: map[string]bool{}}
		f := newFixtureWith(t, sending.Providers{Availability: avail})
		one := sending.ProposeDomainsRequest{CompanyDomain: "acme.com", Include: []string{"acmeoutbound.com"}}
		o, err := f.svc.ProposeDomains(ctx, f.a.ID, one, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ids := choiceIDs(o.Card.Choices); len(ids) != 7 || ids[0] != "acmeoutbound.com" {
			t.Fatalf("choices %v, want 7 with acmeoutbound.com first", ids)
		}
		if d := o.Card.Choices[0].Description; !strings.HasPrefix(d, "Your own suggestion") {
			t.Fatalf("the person's suggestion is described as %q", d)
		}
		gone := o.Card.Choices[1]
		avail.take(gone.ID)
		again, err := f.svc.ProposeDomains(ctx, f.a.ID, one, []cards.Answer{{Card: o.Card.ID, Answer: "acmeoutbound.com"}})
		card := askedCard(t, "asked again", again, err)
		if card.Replaces != o.Card.ID {
			t.Errorf("asked again: replaces card %q, want %q", card.Replaces, o.Card.ID)
		}
		if slices.Contains(choiceIDs(card.Choices), gone.ID) {
			t.Errorf("asked again: %s, taken meanwhile, is still offered: %v", gone.ID, choiceIDs(card.Choices))
		}
		if want := `"` + gone.Label + `" is no longer offered`; !strings.Contains(card.Changed, want) {
			t.Errorf("asked again: changed %q, want it to say %s", card.Changed, want)
		}
		avail.take("acmesales.com")
		o, err = f.svc.ProposeDomains(ctx, f.a.ID, sending.ProposeDomainsRequest{CompanyDomain: "acme.com", Include: []string{"acmesales.com"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(choiceIDs(o.Card.Choices), "acmesales.com") || !slices.Contains(o.Notes, "acmesales.com cannot be offered: already registered.") {
			t.Errorf("a taken suggestion: %v, notes %q", choiceIDs(o.Card.Choices), o.Notes)
		}
	})

	t.Run("a request written differently asks the same card", func(t *testing.T) {
		t.Parallel()
		f := newFixtureWith(t, sending.Providers{Availability: sending.NewSandbox(nil, sending.DefaultConfig())})
		loose := sending.ProposeDomainsRequest{CompanyDomain: "https://www.Acme.com/", Count: 1, Include: []string{"AcmeSales.com", "acmesales.com"}}
		o, err := f.svc.ProposeDomains(ctx, f.a.ID, loose, nil)
		card := askedCard(t, "written loosely", o, err)
		if got, want := string(card.Arguments), `{"companyDomain":"acme.com","count":1,"include":["acmesales.com"]}`; got != want {
			t.Errorf("the card's arguments are %s, want the canonical %s", got, want)
		}
		tidy := sending.ProposeDomainsRequest{CompanyDomain: "acme.com", Count: 1, Include: []string{"acmesales.com"}}
		o, err = f.svc.ProposeDomains(ctx, f.a.ID, tidy, []cards.Answer{{Card: card.ID, Answer: card.Choices[0].ID}})
		if err != nil || o.Result == nil {
			t.Fatalf("the same request written tidily did not settle the card: %v, %+v", err, o.Card)
		}
	})

	t.Run("the confirmed sizing sets how many are asked", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		if _, err := f.svc.ConfirmSizing(ctx, f.a.ID, sending.SizingRequest{DailyVolume: 300, MailboxesPerDomain: 5}); err != nil {
			t.Fatal(err)
		}
		o, err := f.svc.ProposeDomains(ctx, f.a.ID, sending.ProposeDomainsRequest{CompanyDomain: "acme.com"}, nil)
		if card := askedCard(t, "with a sizing of 2 domains", o, err); !strings.Contains(card.Question, "1 of 2") {
			t.Fatalf("with a sizing of 2 domains, the card asks %q", card.Question)
		}
	})

	t.Run("an answer dropped by the caller is taken from the record", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		o, err := f.svc.ProposeDomains(ctx, f.a.ID, req, nil)
		first := cards.Answer{Card: askedCard(t, "first card", o, err).ID, Answer: "getacme.com"}
		o, err = f.svc.ProposeDomains(ctx, f.a.ID, req, []cards.Answer{first})
		second := askedCard(t, "second card", o, err)
		// Only the latest card's answer comes back.
		o, err = f.svc.ProposeDomains(ctx, f.a.ID, req, []cards.Answer{{Card: second.ID, Answer: "tryacme.com"}})
		var picks []string
		for _, p := range settledResult(t, "with the first answer dropped", o, err).Picks {
			picks = append(picks, p.Domain)
		}
		if diff := cmp.Diff([]string{"getacme.com", "tryacme.com"}, picks); diff != "" {
			t.Errorf("picks mismatch (-want +got):\n%s", diff)
		}
		// A call without answers still asks again from the start.
		o, err = f.svc.ProposeDomains(ctx, f.a.ID, req, nil)
		if topic := askedCard(t, "asking again", o, err).Topic; topic != "domain-1" {
			t.Fatalf("asking again: topic %s, want domain-1", topic)
		}
	})

	t.Run("under already-warmed addresses, the person is asked to switch first", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.chooseSource(t, f.a, sending.SourceAlreadyWarmed)
		o, err := f.svc.ProposeDomains(ctx, f.a.ID, req, nil)
		askedCard(t, "first call", o, err)
		if diff := cmp.Diff([]string{"source-switch", "own_names", "keep"}, []string{o.Card.Topic, o.Card.Choices[0].ID, o.Card.Choices[1].ID}); diff != "" {
			t.Errorf("card mismatch (-want +got):\n%s", diff)
		}
		// Keeping is an answer the card offers, not a mistake: it settles,
		// picks nothing, and says what to do instead.
		keep := []cards.Answer{{Card: o.Card.ID, Answer: "keep"}}
		kept, err := f.svc.ProposeDomains(ctx, f.a.ID, req, keep)
		if r := settledResult(t, "keeping already-warmed addresses", kept, err); r.Decision != sending.DecisionSource || r.Kept != sending.SourceAlreadyWarmed ||
			len(r.Picks) != 0 || r.Next.Tool() != vibesell.ToolProposeWarmedDomains || !strings.Contains(r.Meaning, "the two would mix") {
			t.Errorf("keeping already-warmed addresses: %+v", r)
		}
		// Asked again and switched: the domains are proposed, and the source is recorded.
		if o, err = f.svc.ProposeDomains(ctx, f.a.ID, req, nil); err != nil || o.Card == nil {
			t.Fatal(err)
		}
		o, err = f.svc.ProposeDomains(ctx, f.a.ID, req, []cards.Answer{{Card: o.Card.ID, Answer: "own_names"}})
		if topic := askedCard(t, "after switching", o, err).Topic; topic != "domain-1" {
			t.Fatalf("after switching: topic %s, want domain-1", topic)
		}
		st, err := f.svc.Summary(ctx, f.a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got := sourceKind(st.Source); got != sending.SourceOwnNames {
			t.Errorf("source after switching: %q, want %q", got, sending.SourceOwnNames)
		}
		// Globex chose nothing: it is not asked.
		o, err = f.svc.ProposeDomains(ctx, f.b.ID, req, nil)
		if topic := askedCard(t, "Globex", o, err).Topic; topic != "domain-1" {
			t.Errorf("Globex: topic %s, want domain-1", topic)
		}
	})

	t.Run("the sandbox says availability and prices are not real", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		o, err := f.svc.ProposeDomains(ctx, f.a.ID, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"Sandbox: availability comes from the sandbox; no real registry was checked."}, o.Notes); diff != "" {
			t.Errorf("notes mismatch (-want +got):\n%s", diff)
		}
		if !strings.HasSuffix(o.Card.Reason, "This is the sandbox: the prices are sandbox amounts, and nothing is ever charged.") {
			t.Errorf("the card's prices read as real: %q", o.Card.Reason)
		}
	})
}

func TestProposeWarmedFollowsTheSource(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.chooseSource(t, f.a, sending.SourceOwnNames)
	o, err := f.svc.ProposeWarmed(ctx, f.a.ID, sending.ProposeWarmedRequest{}, nil)
	want := cards.Card{Topic: "source-switch", Question: "You chose to send under your brand. Start sooner with already-warmed addresses instead?"}
	if diff := cmp.Diff(want, *askedCard(t, "first call", o, err), sameQuestion); diff != "" {
		t.Fatalf("first call mismatch (-want +got):\n%s", diff)
	}
	kept, err := f.svc.ProposeWarmed(ctx, f.a.ID, sending.ProposeWarmedRequest{}, []cards.Answer{{Card: o.Card.ID, Answer: "keep"}})
	if r := settledResult(t, "keeping the brand", kept, err); r.Decision != sending.DecisionSource || r.Kept != sending.SourceOwnNames ||
		r.KeptLabel != "Keep send under my brand" || r.Next.Tool() != vibesell.ToolProposeDomains || !strings.Contains(r.Meaning, "You keep sending under your brand") {
		t.Errorf("keeping the brand: %+v", r)
	}
	if diff := cmp.Diff([]cards.Answer{{Card: o.Card.ID, Answer: "keep", Via: cards.ViaConversation}}, kept.Answers); diff != "" {
		t.Errorf("answers mismatch (-want +got):\n%s", diff)
	}
}
