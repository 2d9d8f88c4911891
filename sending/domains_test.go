package sending_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/cards"
	"vibesell/sending"
)

func TestProposeDomains(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	req := sending.ProposeDomainsRequest{CompanyDomain: "acme.com", Count: 2}
	args := domainsArgs{"acme.com"}

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

	t.Run("refused while the source is already-warmed addresses", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.chooseSource(t, f.a, sending.SourceAlreadyWarmed)
		_, err := f.svc.ProposeDomains(ctx, f.a.ID, args, nil, req)
		if vibesell.ErrorCode(err) != vibesell.EINVALID || !strings.Contains(err.Error(), "would mix the two") || !strings.Contains(err.Error(), vibesell.ToolProposeWarmedDomains) {
			t.Errorf("propose_domains under already_warmed: %v", err)
		}
		// Globex chose nothing: it may pick.
		if _, err := f.svc.ProposeDomains(ctx, f.b.ID, args, nil, req); err != nil {
			t.Errorf("Globex: %v", err)
		}
	})

	t.Run("the sandbox says availability is not real", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		o, err := f.svc.ProposeDomains(ctx, f.a.ID, args, nil, req)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"Sandbox: availability comes from the sandbox; no real registry was checked."}, o.Notes); diff != "" {
			t.Errorf("notes (-want +got):\n%s", diff)
		}
	})
}

func TestProposeWarmedFollowsTheSource(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.chooseSource(t, f.a, sending.SourceOwnNames)
	type noArgs struct{}
	_, err := f.svc.ProposeWarmed(context.Background(), f.a.ID, noArgs{}, nil, sending.ProposeWarmedRequest{})
	if vibesell.ErrorCode(err) != vibesell.EINVALID || !strings.Contains(err.Error(), "chose to send under their brand") ||
		!strings.Contains(err.Error(), vibesell.ToolProposeDomains) {
		t.Errorf("propose_warmed_domains under own_names: %v", err)
	}
}
