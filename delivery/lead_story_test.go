package delivery_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/audience"
	"vibesell/delivery"
	"vibesell/delivery/deliverytest"
)

// storyOf is a lead's story in short: its status, and per campaign the
// outcome of each step sent, the next step's due time and why it stopped.
type storyOf struct {
	Status    string
	Steps     []string // "1 delivered"
	Next      string   // "2 due Thu 3 Dec 09:00"; "" for none
	Stop      string   // "replied by ana@alpha.test"; "" for none
	Replies   []string // "interested from ana@alpha.test"
	Source    string
	Campaigns int
}

func (b *engineBundle) story(t *testing.T, lead string) storyOf {
	t.Helper()
	st, err := b.Audience.Story(b.ctx, b.ws, lead)
	if err != nil {
		t.Fatal(err)
	}
	out := storyOf{Status: st.Lead.Status, Source: st.Source, Campaigns: len(st.Campaigns)}
	for _, c := range st.Campaigns {
		for _, s := range c.Sent {
			out.Steps = append(out.Steps, fmt.Sprintf("%d %s", s.Step, s.Outcome))
		}
		if c.Next != nil && c.Next.Due != nil {
			out.Next = fmt.Sprintf("%d due %s", c.Next.Step, c.Next.Due.UTC().Format("Mon 2 Jan 15:04"))
		}
		if c.Stop != nil {
			out.Stop = c.Stop.Reason
			if c.Stop.By != "" {
				out.Stop += " by " + c.Stop.By
			}
		}
	}
	for _, r := range st.Replies {
		out.Replies = append(out.Replies, r.Classification+" from "+r.From)
	}
	return out
}

// A lead's story follows what the engine does to it: the first emails go
// out; one lead replies, which stops a colleague at the same company;
// another unsubscribes; a person removes a third, whose follow-up then
// never goes out, while the last lead gets its follow-up when it is due.
// The leads list pages, searches and filters the same leads.
func TestLeadStoryAndRemoval(t *testing.T) {
	b := engineSetup(t, engineOptions{noGap: true})
	leads := []vibesell.Lead{
		{Email: "ana@alpha.test", FirstName: "Ana", Company: "Alpha"},
		{Email: "bo@alpha.test", FirstName: "Bo", Company: "Alpha"},
		{Email: "ben@beta.test", FirstName: "Ben", Company: "Beta"},
		{Email: "cy@gamma.test", FirstName: "Cy", Company: "Gamma"},
		{Email: "dee@delta.test", FirstName: "Dee", Company: "Delta"},
	}
	campaign := b.launch(t, campaignSpec{leads: leads, mailboxes: []string{"sam@getacme.test"}, dailyCap: 10, stopForCompany: true})
	b.Clock.Set(time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC))
	if res := b.tick(t); res.Sent != 5 {
		t.Fatalf("sent %d, want 5", res.Sent)
	}
	t.Run("after the first emails", func(t *testing.T) {
		want := storyOf{Status: audience.LeadEmailed, Steps: []string{"1 delivered"}, Next: "2 due Thu 3 Dec 09:00", Source: audience.SourceDirectory, Campaigns: 1}
		if d := cmp.Diff(want, b.story(t, "ben@beta.test")); d != "" {
			t.Errorf("Ben's story mismatch (-want +got):\n%s", d)
		}
	})

	var toAna string
	for _, m := range b.delivered(t) {
		if m.to == "ana@alpha.test" {
			toAna = m.messageID
		}
	}
	reply := fmt.Sprintf("From: ana@alpha.test\nTo: sam@getacme.test\nSubject: Re: Lists\nDate: Tue, 1 Dec 2026 11:00:00 +0000\nMessage-ID: <a1@alpha.test>\nIn-Reply-To: %s\n\nYes, interested. Send a few times for Thursday?\n", toAna)
	if err := b.sandbox.DeliverReply("sam@getacme.test", deliverytest.CRLF(reply)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.poller.Poll(b.ctx, b.ws, mustMailbox(t, b, "sam@getacme.test")); err != nil {
		t.Fatal(err)
	}
	if err := b.Audience.MailSuppressions().Suppress(b.ctx, b.ws, "dee@delta.test", "unsubscribed"); err != nil {
		t.Fatal(err)
	}
	cy, err := b.Audience.Story(b.ctx, b.ws, "CY@gamma.test")
	if err != nil {
		t.Fatal(err)
	}
	removal, err := b.Audience.RemoveLead(b.ctx, b.ws, cy.Lead.ID, "ada@acme.test")
	if err != nil {
		t.Fatal(err)
	}
	if removal.Campaigns != 1 || removal.Already {
		t.Errorf("removal took the lead out of %d campaigns (already removed: %v), want 1", removal.Campaigns, removal.Already)
	}
	again, err := b.Audience.RemoveLead(b.ctx, b.ws, cy.Lead.ID, "someone@acme.test")
	if err != nil || !again.Already || again.By != "ada@acme.test" {
		t.Errorf("removing again: %+v, %v; want the first removal on record", again, err)
	}

	// Thursday: the follow-ups are due.
	b.Clock.Set(time.Date(2026, 12, 3, 9, 30, 0, 0, time.UTC))
	if res := b.tick(t); res.Sent != 1 {
		t.Errorf("follow-ups sent %d, want 1 (Ben's only)", res.Sent)
	}
	toCy := 0
	for _, m := range b.delivered(t) {
		if m.to == "cy@gamma.test" {
			toCy++
		}
	}
	if toCy != 1 {
		t.Errorf("Cy got %d emails, want only the first: the removal stops the follow-up", toCy)
	}

	t.Run("each lead's story", func(t *testing.T) {
		want := map[string]storyOf{
			"ana@alpha.test": {Status: audience.LeadReplied, Steps: []string{"1 delivered"}, Stop: "replied by ana@alpha.test",
				Replies: []string{"interested from ana@alpha.test"}},
			"bo@alpha.test":  {Status: audience.LeadEmailed, Steps: []string{"1 delivered"}, Stop: "colleague_replied by ana@alpha.test"},
			"ben@beta.test":  {Status: audience.LeadEmailed, Steps: []string{"1 delivered", "2 delivered"}, Stop: "completed"},
			"cy@gamma.test":  {Status: audience.LeadRemoved, Steps: []string{"1 delivered"}, Stop: "removed by ada@acme.test"},
			"dee@delta.test": {Status: audience.LeadBlocked, Steps: []string{"1 delivered"}, Stop: "unsubscribed"},
		}
		for email, w := range want {
			w.Source, w.Campaigns = audience.SourceDirectory, 1
			if d := cmp.Diff(w, b.story(t, email)); d != "" {
				t.Errorf("%s's story mismatch (-want +got):\n%s", email, d)
			}
		}
		if _, err := b.Audience.Story(b.ctx, b.ws, "nobody@else.test"); err == nil {
			t.Error("the story of an address that is no lead was told")
		}
	})

	t.Run("the leads list", func(t *testing.T) {
		list := func(q audience.LeadQuery) []string {
			t.Helper()
			var out []string
			for {
				page, err := b.Audience.Leads(b.ctx, b.ws, q)
				if err != nil {
					t.Fatal(err)
				}
				for _, l := range page.Leads {
					out = append(out, l.Email)
				}
				if page.Next == 0 {
					return out
				}
				q.After = page.Next
			}
		}
		all := []string{"dee@delta.test", "cy@gamma.test", "ben@beta.test", "bo@alpha.test", "ana@alpha.test"}
		for _, c := range []struct {
			name string
			q    audience.LeadQuery
			want []string
		}{
			{"two a page, newest first", audience.LeadQuery{Limit: 2}, all},
			{"search by company", audience.LeadQuery{Search: "ALPHA", Limit: 1}, []string{"bo@alpha.test", "ana@alpha.test"}},
			{"search by name", audience.LeadQuery{Search: "ben"}, []string{"ben@beta.test"}},
			{"a wildcard is a character", audience.LeadQuery{Search: "%"}, nil},
			{"replied", audience.LeadQuery{Status: audience.LeadReplied}, []string{"ana@alpha.test"}},
			{"removed", audience.LeadQuery{Status: audience.LeadRemoved}, []string{"cy@gamma.test"}},
			{"blocked", audience.LeadQuery{Status: audience.LeadBlocked}, []string{"dee@delta.test"}},
			{"in the campaign", audience.LeadQuery{Campaign: campaign, Limit: 3}, all},
			{"in another campaign", audience.LeadQuery{Campaign: "cp_0000000000000000"}, nil},
		} {
			if d := cmp.Diff(c.want, list(c.q)); d != "" {
				t.Errorf("%s mismatch (-want +got):\n%s", c.name, d)
			}
		}
	})
}

// A lead removed after its step was claimed, before the message went
// out, gets nothing: the mark that precedes the message reads the removal
// (it is the claim's last word); the campaign's other lead gets its email.
func TestEngineRemovalBetweenClaimAndSend(t *testing.T) {
	b := engineSetup(t, engineOptions{noGap: true})
	leads := []vibesell.Lead{{Email: "p0@prospect0.test", FirstName: "Pat"}, {Email: "p1@prospect1.test", FirstName: "Lee"}}
	b.launch(t, campaignSpec{leads: leads, mailboxes: []string{"sam@getacme.test"}, dailyCap: 5})
	b.Clock.Set(time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC))
	pat, err := b.Audience.Story(b.ctx, b.ws, "p0@prospect0.test")
	if err != nil {
		t.Fatal(err)
	}
	delivery.SetAfterClaim(b.sender, func() {
		if _, err := b.Audience.RemoveLead(b.ctx, b.ws, pat.Lead.ID, "ada@acme.test"); err != nil {
			t.Error(err)
		}
	})
	if res := b.tick(t); res.Sent != 1 || res.Held != 1 {
		t.Errorf("sent %d and held %d after the removal, want 1 and 1", res.Sent, res.Held)
	}
	var to []string
	for _, m := range b.delivered(t) {
		to = append(to, m.to)
	}
	if d := cmp.Diff([]string{"p1@prospect1.test"}, to); d != "" {
		t.Errorf("delivered to (-want +got):\n%s", d)
	}
	want := storyOf{Status: audience.LeadRemoved, Stop: "removed by ada@acme.test", Source: audience.SourceDirectory, Campaigns: 1}
	if d := cmp.Diff(want, b.story(t, "p0@prospect0.test")); d != "" {
		t.Errorf("Pat's story mismatch (-want +got):\n%s", d)
	}
}
