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
	out := everything{}.Check(ctx, names)
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
	args := domainsArgs{"acme.com"}

	t.Run("one card per domain, offering only names the check passes", func(t *testing.T) {
		t.Parallel()
		f := newFixtureWith(t, sending.Providers{Availability: sending.NewSandbox(nil, sending.DefaultConfig())})
		o, err := f.svc.ProposeDomains(ctx, f.a.ID, args, nil, req)
		if err != nil || o.Card == nil {
			t.Fatalf("first card: %+v %v", o, err)
		}
		if o.Card.Question != "Which domain should be sending domain 1 of 2, instead of acme.com?" || o.Card.AllowFreeText || len(o.Card.Choices) != 6 {
			t.Fatalf("first card: %+v", o.Card)
		}
		for _, c := range o.Card.Choices {
			if a := sending.SandboxCheck(c.ID).Available; a == nil || !*a || c.Label != c.ID+", USD 15.00 per year" {
				t.Errorf("offered %+v, which the availability check does not pass", c)
			}
		}
		pick1 := o.Card.Choices[0].ID
		answers := []cards.Answer{{Card: o.Card.ID, Answer: pick1}}
		if o, err = f.svc.ProposeDomains(ctx, f.a.ID, args, answers, req); err != nil || o.Card == nil {
			t.Fatalf("second card: %+v %v", o, err)
		}
		if !strings.Contains(o.Card.Question, "2 of 2") || slices.Contains(choiceIDs(o.Card.Choices), pick1) {
			t.Fatalf("second card: %+v", o.Card)
		}
		pick2 := o.Card.Choices[2].ID
		o, err = f.svc.ProposeDomains(ctx, f.a.ID, args, append(answers, cards.Answer{Card: o.Card.ID, Answer: pick2}), req)
		if err != nil || o.Result == nil {
			t.Fatalf("settle: %+v %v", o, err)
		}
		c := o.Result
		if diff := cmp.Diff([]string{pick1, pick2}, []string{c.Picks[0].Domain, c.Picks[1].Domain}); diff != "" {
			t.Errorf("picks (-want +got):\n%s", diff)
		}
		want := "Your addresses will be on new domains registered for you: " + pick1 + " and " + pick2 + ". Nothing is registered or billed yet; once ordered: " +
			"USD 30.00 per year for the domains and USD 30.00 per month for 6 mailboxes; ordering charges the first year and the first month (USD 60.00 in all). These are sandbox amounts: nothing is charged."
		if c.Meaning != want || c.NextTool != vibesell.ToolProposeEmail {
			t.Errorf("meaning %q, want %q; next %s", c.Meaning, want, c.NextTool)
		}
	})

	t.Run("a name taken meanwhile is asked again without it; a taken suggestion says why", func(t *testing.T) {
		t.Parallel()
		avail := &takenAvailability{taken: map[string]bool{}}
		f := newFixtureWith(t, sending.Providers{Availability: avail})
		one := sending.ProposeDomainsRequest{CompanyDomain: "acme.com", Include: []string{"acmeoutbound.com"}}
		o, err := f.svc.ProposeDomains(ctx, f.a.ID, args, nil, one)
		if err != nil {
			t.Fatal(err)
		}
		if len(o.Card.Choices) != 7 || o.Card.Choices[0].ID != "acmeoutbound.com" || !strings.HasPrefix(o.Card.Choices[0].Description, "Your own suggestion") {
			t.Fatalf("choices %+v", o.Card.Choices)
		}
		gone := o.Card.Choices[1]
		avail.take(gone.ID)
		again, err := f.svc.ProposeDomains(ctx, f.a.ID, args, []cards.Answer{{Card: o.Card.ID, Answer: "acmeoutbound.com"}}, one)
		if err != nil {
			t.Fatal(err)
		}
		if again.Card == nil || again.Card.Replaces != o.Card.ID || slices.Contains(choiceIDs(again.Card.Choices), gone.ID) ||
			!strings.Contains(again.Card.Changed, `"`+gone.Label+`" is no longer offered`) {
			t.Fatalf("asked again: %+v", again.Card)
		}
		avail.take("acmesales.com")
		o, err = f.svc.ProposeDomains(ctx, f.a.ID, args, nil, sending.ProposeDomainsRequest{CompanyDomain: "acme.com", Include: []string{"acmesales.com"}})
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(choiceIDs(o.Card.Choices), "acmesales.com") || !slices.Contains(o.Notes, "acmesales.com cannot be offered: already registered.") {
			t.Errorf("a taken suggestion: %v, notes %q", choiceIDs(o.Card.Choices), o.Notes)
		}
	})

	t.Run("the confirmed sizing sets how many are asked", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		if _, err := f.svc.ConfirmSizing(ctx, f.a.ID, sending.SizingRequest{DailyVolume: 300, MailboxesPerDomain: 5}); err != nil {
			t.Fatal(err)
		}
		o, err := f.svc.ProposeDomains(ctx, f.a.ID, args, nil, sending.ProposeDomainsRequest{CompanyDomain: "acme.com"})
		if err != nil || !strings.Contains(o.Card.Question, "1 of 2") {
			t.Fatalf("with a sizing of 2 domains: %+v %v", o.Card, err)
		}
	})

	t.Run("an answer dropped by the caller is taken from the record", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		o, err := f.svc.ProposeDomains(ctx, f.a.ID, args, nil, req)
		if err != nil || o.Card == nil {
			t.Fatalf("first card: %+v %v", o, err)
		}
		first := cards.Answer{Card: o.Card.ID, Answer: "getacme.com"}
		if o, err = f.svc.ProposeDomains(ctx, f.a.ID, args, []cards.Answer{first}, req); err != nil || o.Card == nil {
			t.Fatalf("second card: %+v %v", o, err)
		}
		// Only the latest card's answer comes back.
		o, err = f.svc.ProposeDomains(ctx, f.a.ID, args, []cards.Answer{{Card: o.Card.ID, Answer: "tryacme.com"}}, req)
		if err != nil || o.Result == nil {
			t.Fatalf("with the first answer dropped: %+v %v", o, err)
		}
		var picks []string
		for _, p := range o.Result.Picks {
			picks = append(picks, p.Domain)
		}
		if diff := cmp.Diff([]string{"getacme.com", "tryacme.com"}, picks); diff != "" {
			t.Errorf("picks (-want +got):\n%s", diff)
		}
		// A call without answers still asks again from the start.
		if o, err = f.svc.ProposeDomains(ctx, f.a.ID, args, nil, req); err != nil || o.Card == nil || o.Card.Topic != "domain-1" {
			t.Fatalf("asking again: %+v %v", o, err)
		}
	})

	t.Run("under already-warmed addresses, the person is asked to switch first", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.chooseSource(t, f.a, sending.SourceAlreadyWarmed)
		o, err := f.svc.ProposeDomains(ctx, f.a.ID, args, nil, req)
		if err != nil || o.Card == nil {
			t.Fatalf("first call: %+v %v", o, err)
		}
		if diff := cmp.Diff([]string{"source-switch", "own_names", "keep"}, []string{o.Card.Topic, o.Card.Choices[0].ID, o.Card.Choices[1].ID}); diff != "" {
			t.Errorf("card (-want +got):\n%s", diff)
		}
		keep := []cards.Answer{{Card: o.Card.ID, Answer: "keep"}}
		_, err = f.svc.ProposeDomains(ctx, f.a.ID, args, keep, req)
		if vibesell.ErrorCode(err) != vibesell.EINVALID || !strings.Contains(err.Error(), "the two would mix") || !strings.Contains(err.Error(), vibesell.ToolProposeWarmedDomains) {
			t.Errorf("keeping already-warmed addresses: %v", err)
		}
		// Asked again and switched: the domains are proposed, and the source is recorded.
		if o, err = f.svc.ProposeDomains(ctx, f.a.ID, args, nil, req); err != nil || o.Card == nil {
			t.Fatal(err)
		}
		o, err = f.svc.ProposeDomains(ctx, f.a.ID, args, []cards.Answer{{Card: o.Card.ID, Answer: "own_names"}}, req)
		if err != nil || o.Card == nil || o.Card.Topic != "domain-1" {
			t.Fatalf("after switching: %+v %v", o.Card, err)
		}
		if st, err := f.svc.Summary(ctx, f.a.ID); err != nil || st.Source.Source != sending.SourceOwnNames {
			t.Errorf("source after switching: %+v %v", st.Source, err)
		}
		// Globex chose nothing: it is not asked.
		if o, err := f.svc.ProposeDomains(ctx, f.b.ID, args, nil, req); err != nil || o.Card.Topic != "domain-1" {
			t.Errorf("Globex: %+v %v", o.Card, err)
		}
	})

	t.Run("the sandbox says availability and prices are not real", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		o, err := f.svc.ProposeDomains(ctx, f.a.ID, args, nil, req)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"Sandbox: availability comes from the sandbox; no real registry was checked."}, o.Notes); diff != "" {
			t.Errorf("notes (-want +got):\n%s", diff)
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
	type noArgs struct{}
	o, err := f.svc.ProposeWarmed(ctx, f.a.ID, noArgs{}, nil, sending.ProposeWarmedRequest{})
	if err != nil || o.Card == nil || o.Card.Topic != "source-switch" ||
		o.Card.Question != "You chose to send under your brand. Start sooner with already-warmed addresses instead?" {
		t.Fatalf("first call: %+v %v", o.Card, err)
	}
	_, err = f.svc.ProposeWarmed(ctx, f.a.ID, noArgs{}, []cards.Answer{{Card: o.Card.ID, Answer: "keep"}}, sending.ProposeWarmedRequest{})
	if vibesell.ErrorCode(err) != vibesell.EINVALID || !strings.Contains(err.Error(), "keeps sending under their brand") ||
		!strings.Contains(err.Error(), vibesell.ToolProposeDomains) {
		t.Errorf("keeping the brand: %v", err)
	}
}
