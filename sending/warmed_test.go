package sending_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/cards"
	"vibesell/sending"
	"vibesell/workspace"
)

func choiceIDs(cs []cards.Choice) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

func TestWarmedDomains(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("the shelf pages through every domain on offer", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		page, err := f.svc.ListWarmed(ctx, f.a.ID, 3, "")
		if err != nil {
			t.Fatal(err)
		}
		type pageView struct {
			Total      int
			Domains    []string
			NextCursor string
		}
		got := pageView{Total: page.Total, NextCursor: page.NextCursor}
		for _, it := range page.Items {
			got.Domains = append(got.Domains, it.Domain)
		}
		want := pageView{Total: 8, Domains: []string{"bluecrestmail.com", "brightlanehq.com", "clearpathteam.com"}, NextCursor: "clearpathteam.com"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("first page mismatch (-want +got):\n%s", diff)
		}
		usd := func(cents int64) vibesell.Money { return vibesell.NewMoney(cents, "USD") }
		wantFirst := sending.ShelfItem{Domain: "bluecrestmail.com", RegisteredOn: time.Date(2026, 2, 5, 0, 0, 0, 0, time.UTC), AgeDays: 302,
			Mailboxes: 3, Reputation: new(89), YearlyPrice: usd(1500), MailboxPrice: usd(1000), MonthlyPrice: usd(3000),
			ReadyOn: time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)}
		if diff := cmp.Diff(wantFirst, page.Items[0]); diff != "" {
			t.Fatalf("first domain mismatch (-want +got):\n%s", diff)
		}
		if age := sending.Age(page.Items[0].AgeDays); age != "10 months" {
			t.Errorf("%d days old reads as %q, want 10 months", page.Items[0].AgeDays, age)
		}
		seen := len(page.Items)
		for page.NextCursor != "" {
			if page, err = f.svc.ListWarmed(ctx, f.a.ID, 3, page.NextCursor); err != nil {
				t.Fatal(err)
			}
			seen += len(page.Items)
		}
		if seen != 8 {
			t.Errorf("pages held %d domains, want 8", seen)
		}
	})

	t.Run("a domain sold meanwhile is asked again without it", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		q, err := f.svc.ProposeWarmed(ctx, f.a.ID, sending.ProposeWarmedRequest{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		c := q.Card.Choices[0]
		if c.Label != "bluecrestmail.com, 3 mailboxes, USD 30.00 per month" ||
			c.Description != "Registered Thu 5 Feb 2026 (10 months ago); reputation 89 of 100; handed over Mon 7 Dec 2026 if ordered today; plus USD 15.00 per year for the domain. Sandbox: not a real domain, and nothing is charged." {
			t.Errorf("choice %q: %q", c.Label, c.Description)
		}
		if strings.Contains(q.Card.Reason, "shelf") {
			t.Errorf("the person reads %q", q.Card.Reason)
		}
		// Globex picks and orders bluecrestmail.com first.
		oq, err := f.svc.ProposeWarmed(ctx, f.b.ID, sending.ProposeWarmedRequest{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.ProposeWarmed(ctx, f.b.ID, sending.ProposeWarmedRequest{}, []cards.Answer{{Card: oq.Card.ID, Answer: "bluecrestmail.com"}}); err != nil {
			t.Fatal(err)
		}
		f.planAddresses(t, f.b, "full_name", "Gus Fring")
		if _, err := f.svc.PlaceOrder(ctx, f.b.ID, nil); err != nil {
			t.Fatal(err)
		}
		again, err := f.svc.ProposeWarmed(ctx, f.a.ID, sending.ProposeWarmedRequest{}, []cards.Answer{{Card: q.Card.ID, Answer: "bluecrestmail.com"}})
		if err != nil {
			t.Fatal(err)
		}
		if card := askedCard(t, "asked again", again, err); card.Replaces != q.Card.ID {
			t.Fatalf("asked again: replaces card %q, want %q", card.Replaces, q.Card.ID)
		}
		if ids := choiceIDs(again.Card.Choices); len(ids) != 7 || slices.Contains(ids, "bluecrestmail.com") {
			t.Fatalf("asked again offering %v; want 7, without bluecrestmail.com", ids)
		}
		if page, err := f.svc.ListWarmed(ctx, f.a.ID, 0, ""); err != nil || page.Total != 7 {
			t.Fatalf("shelf after the sale: %d %v", page.Total, err)
		}
		o, err := f.svc.ProposeWarmed(ctx, f.a.ID, sending.ProposeWarmedRequest{}, []cards.Answer{{Card: again.Card.ID, Answer: again.Card.Choices[0].ID}})
		p := settledResult(t, "settle", o, err).Picks[0]
		if diff := cmp.Diff([]string{"warmed", "USD 10.00", "propose_email"}, []string{string(p.Origin), p.MailboxPrice.String(), o.Result.Next.Tool()}); diff != "" {
			t.Errorf("pick mismatch (-want +got):\n%s", diff)
		}
		if p.Reputation == nil {
			t.Errorf("pick %s without its reputation", p.Domain)
		}
		if p.RegisteredOn == nil {
			t.Errorf("pick %s without its registration date", p.Domain)
		}
	})

	t.Run("two workspaces ordering one warmed domain: one gets it, the other is told", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		for _, ws := range []workspace.Workspace{f.a, f.b} {
			q, err := f.svc.ProposeWarmed(ctx, ws.ID, sending.ProposeWarmedRequest{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.svc.ProposeWarmed(ctx, ws.ID, sending.ProposeWarmedRequest{}, []cards.Answer{{Card: q.Card.ID, Answer: "harborlinemail.com"}}); err != nil {
				t.Fatal(err)
			}
			f.planAddresses(t, ws, "initial_last", "Sam Vimes")
		}
		errs := make(chan error, 2)
		for _, ws := range []workspace.Workspace{f.a, f.b} {
			go func() { _, err := f.svc.PlaceOrder(ctx, ws.ID, nil); errs <- err }()
		}
		ok := 0
		for range 2 {
			err := <-errs
			if err == nil {
				ok++
			} else if !strings.Contains(err.Error(), "harborlinemail.com") {
				t.Errorf("the loser was told %v", err)
			}
		}
		if ok != 1 {
			t.Errorf("%d orders got the domain, want exactly 1", ok)
		}
	})
}
