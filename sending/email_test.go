package sending_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"vibesell/cards"
	"vibesell/sending"
)

func addressesOf(step *sending.EmailStep) []sending.Address {
	out := make([]sending.Address, len(step.Addresses))
	for i, a := range step.Addresses {
		out[i] = sending.Address{Address: a.Address, SenderName: a.SenderName}
	}
	return out
}

func TestProposeEmail(t *testing.T) {
	t.Parallel()

	t.Run("addresses written by the person are signed and labelled as written", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.pickDomains(t, f.a, "getacme.com", "tryacme.com")
		o := f.planAddresses(t, f.a, "Use zoe@ and Sales@ please", "Zoë Brontë")
		want := []sending.Address{
			{Address: "zoe@getacme.com", SenderName: "Zoë Brontë"}, {Address: "sales@getacme.com", SenderName: "Zoë Brontë"},
			{Address: "zoe@tryacme.com", SenderName: "Zoë Brontë"}, {Address: "sales@tryacme.com", SenderName: "Zoë Brontë"},
		}
		if diff := cmp.Diff(want, addressesOf(o.Result)); diff != "" {
			t.Errorf("addresses mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"Written by you: zoe@, sales@", "own_words"}, []string{o.Result.StyleLabel, o.Result.Style}); diff != "" {
			t.Errorf("style mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{
			"getacme.com gets 2 addresses as written, where 3 were planned.",
			"tryacme.com gets 2 addresses as written, where 3 were planned.",
		}, o.Notes); diff != "" {
			t.Errorf("notes mismatch (-want +got):\n%s", diff)
		}
		if got := o.Result.MonthlyCost.String(); got != "USD 20.00" {
			t.Errorf("monthly cost %s, want USD 20.00", got)
		}
	})

	t.Run("a sender who signs more than one address is explained", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.pickDomains(t, f.a, "getacme.com")
		req := sending.ProposeEmailRequest{SenderNames: []string{"Ada Lovelace", "Grace Hopper"}}
		o, err := f.svc.ProposeEmail(context.Background(), f.a.ID, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		first := o.Card.Choices[0]
		if first.Label != "First name first: ada@, grace@, ada.lovelace@" ||
			!strings.HasSuffix(first.Description, "getacme.com carries 3 mailboxes for 2 senders, so Ada Lovelace signs 2.") {
			t.Errorf("choice %q: %q", first.Label, first.Description)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.pickDomains(t, f.a, "getacme.com")
		for names, want := range map[string]string{
			"李雷":   "has no letters an address can use",
			"Cher": "The names given make only 1 distinct address per domain, and getacme.com needs 3.",
		} {
			t.Run(names, func(t *testing.T) {
				req := sending.ProposeEmailRequest{SenderNames: []string{names}}
				_, err := f.svc.ProposeEmail(context.Background(), f.a.ID, req, []cards.Answer{})
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%v, want %q", err, want)
				}
			})
		}
	})
}
