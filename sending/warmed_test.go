package sending_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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

type noArgs struct{}

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
		first := page.Items[0]
		if page.Total != 8 || len(page.Items) != 3 || page.NextCursor != page.Items[2].Domain || first.Domain != "bluecrestmail.com" ||
			first.MonthlyPrice.String() != "USD 30.00" || first.ReadyOn.Format("2006-01-02") != "2026-12-07" || sending.Age(first.AgeDays) != "10 months" {
			t.Fatalf("first page: %+v", page)
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
		q, err := f.svc.ProposeWarmed(ctx, f.a.ID, noArgs{}, nil, sending.ProposeWarmedRequest{})
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
		oq, err := f.svc.ProposeWarmed(ctx, f.b.ID, noArgs{}, nil, sending.ProposeWarmedRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.ProposeWarmed(ctx, f.b.ID, noArgs{}, []cards.Answer{{Card: oq.Card.ID, Answer: "bluecrestmail.com"}}, sending.ProposeWarmedRequest{}); err != nil {
			t.Fatal(err)
		}
		f.planAddresses(t, f.b, "full_name", "Gus Fring")
		if _, err := f.svc.PlaceOrder(ctx, f.b.ID, nil); err != nil {
			t.Fatal(err)
		}
		again, err := f.svc.ProposeWarmed(ctx, f.a.ID, noArgs{}, []cards.Answer{{Card: q.Card.ID, Answer: "bluecrestmail.com"}}, sending.ProposeWarmedRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if again.Card == nil || again.Card.Replaces != q.Card.ID || len(again.Card.Choices) != 7 || slices.Contains(choiceIDs(again.Card.Choices), "bluecrestmail.com") {
			t.Fatalf("asked again: %+v", again.Card)
		}
		if page, err := f.svc.ListWarmed(ctx, f.a.ID, 0, ""); err != nil || page.Total != 7 {
			t.Fatalf("shelf after the sale: %d %v", page.Total, err)
		}
		o, err := f.svc.ProposeWarmed(ctx, f.a.ID, noArgs{}, []cards.Answer{{Card: again.Card.ID, Answer: again.Card.Choices[0].ID}}, sending.ProposeWarmedRequest{})
		if err != nil || o.Result == nil {
			t.Fatalf("settle: %+v %v", o, err)
		}
		p := o.Result.Picks[0]
		if diff := cmp.Diff([]string{"warmed", "USD 10.00", "propose_email"}, []string{string(p.Origin), p.MailboxPrice.String(), o.Result.NextTool}); diff != "" {
			t.Errorf("pick (-want +got):\n%s", diff)
		}
		if p.Reputation == nil || p.RegisteredOn == nil {
			t.Errorf("pick without its record: %+v", p)
		}
	})

	t.Run("two workspaces ordering one warmed domain: one gets it, the other is told", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		for _, ws := range []workspace.Workspace{f.a, f.b} {
			q, err := f.svc.ProposeWarmed(ctx, ws.ID, noArgs{}, nil, sending.ProposeWarmedRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.svc.ProposeWarmed(ctx, ws.ID, noArgs{}, []cards.Answer{{Card: q.Card.ID, Answer: "harborlinemail.com"}}, sending.ProposeWarmedRequest{}); err != nil {
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
