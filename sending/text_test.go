package sending_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"vibesell/cards"
	"vibesell/sending"
)

// The rules every sentence of the sending setup keeps, whatever it counts:
// a count agrees with its noun, no word comes twice in a row, and words
// that refer to what was counted ("the domains", "the mailboxes'") agree
// with the count.
var (
	oneMany   = regexp.MustCompile(`\b1 (domains|mailboxes|addresses|senders|days|emails|business days)\b`)
	manyOne   = regexp.MustCompile(`(?:^|[^.\d])(?:0|[2-9]|\d{2,}|\d{1,3}(?:,\d{3})+) (domain|mailbox|address|sender)\b`)
	twice     = regexp.MustCompile(`(?i)\b([a-z]+)[ ,]+([a-z]+)\b`)
	ofOne     = map[string]*regexp.Regexp{"domain": regexp.MustCompile(`(?i)\b(the|these) domains\b|\bdomains'`), "mailbox": regexp.MustCompile(`(?i)\b(the|these) (mailboxes|addresses)\b|\bmailboxes'`)}
	ofSeveral = map[string]*regexp.Regexp{"domain": regexp.MustCompile(`(?i)\b(the|this) domain\b|\bdomain's\b`), "mailbox": regexp.MustCompile(`(?i)\b(the|this) (mailbox|address)\b|\bmailbox's\b`)}
)

// agreementProblems lists where text breaks the rules, with domains and
// mailboxes the counts of the setup it speaks of.
func agreementProblems(text string, domains, mailboxes int) []string {
	var out []string
	for _, m := range oneMany.FindAllString(text, -1) {
		out = append(out, fmt.Sprintf("%q: one, then a plural", m))
	}
	for _, m := range manyOne.FindAllString(text, -1) {
		out = append(out, fmt.Sprintf("%q: several, then a singular", m))
	}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return r == '.' || r == ';' || r == ':' }) {
		for _, m := range twice.FindAllStringSubmatch(w, -1) {
			if strings.EqualFold(m[1], m[2]) {
				out = append(out, fmt.Sprintf("%q: a word twice", m[0]))
			}
		}
	}
	for noun, n := range map[string]int{"domain": domains, "mailbox": mailboxes} {
		rule := ofSeveral[noun]
		if n == 1 {
			rule = ofOne[noun]
		}
		for _, m := range rule.FindAllString(text, -1) {
			out = append(out, fmt.Sprintf("%q with %d %s", m, n, noun))
		}
	}
	return out
}

// TestSendingTextsAgreeWithTheirCounts renders the sending setup's texts
// (the sizing, the answers, the order's approval and outcome, the setup's
// next steps, the shortcut) for one domain with one mailbox and for two
// domains with four, from the first answer to a setup made ready, and
// holds each to the rules.
func TestSendingTextsAgreeWithTheirCounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, c := range []struct {
		domains   []string
		mailboxes int
	}{
		{[]string{"getacme.com"}, 1},
		{[]string{"getacme.com", "tryacme.com"}, 4},
	} {
		t.Run(fmt.Sprintf("%d domains, %d mailboxes", len(c.domains), c.mailboxes), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			var texts []string
			add := func(what string, s ...string) {
				for _, x := range s {
					texts = append(texts, what+": "+x)
				}
			}
			f.chooseSource(t, f.a, sending.SourceOwnNames)
			z, err := f.svc.ConfirmSizing(ctx, f.a.ID, sending.SizingRequest{DailyVolume: 30 * c.mailboxes, MailboxesPerDomain: 2})
			if err != nil {
				t.Fatal(err)
			}
			if z.Domains != len(c.domains) || z.Mailboxes != c.mailboxes {
				t.Fatalf("sized %d domains and %d mailboxes", z.Domains, z.Mailboxes)
			}
			add("sizing", z.Layout(), sending.Costs(z.YearlyCost, z.MonthlyCost, z.Domains, z.Mailboxes, true))
			d := f.pickDomains(t, f.a, c.domains...).Result
			add("domains", d.Meaning, nextText(d.Next))
			e := f.planAddresses(t, f.a, "first_name", "Ada Lovelace")
			add("addresses", nextText(e.Result.Next))
			add("addresses' notes", e.Notes...)
			if len(e.Result.Addresses) != c.mailboxes {
				t.Fatalf("planned %d addresses, want the sizing's %d", len(e.Result.Addresses), c.mailboxes)
			}
			st, err := f.svc.Summary(ctx, f.a.ID)
			if err != nil {
				t.Fatal(err)
			}
			add("planned setup", st.Standing(), nextText(st.Next))

			a, _, err := f.svc.RequestOrder(ctx, f.a.ID, "")
			if err != nil {
				t.Fatal(err)
			}
			im := a.Impact
			add("approval", a.Summary, im.What, im.When, im.Renewal, im.Undo, im.Charged)
			f.approve(t, a)
			add("outcome", *f.execute(t, a).Outcome)
			st, err = f.svc.Summary(ctx, f.a.ID)
			if err != nil {
				t.Fatal(err)
			}
			add("ordered setup", st.Standing(), nextText(st.Next))
			r, err := f.svc.SandboxReady(ctx, f.a.ID)
			if err != nil {
				t.Fatal(err)
			}
			add("shortcut", r.Sentence())
			// A larger sizing, after the order: the setup falls short.
			if _, err := f.svc.ConfirmSizing(ctx, f.a.ID, sending.SizingRequest{DailyVolume: 900}); err != nil {
				t.Fatal(err)
			}
			st, err = f.svc.Summary(ctx, f.a.ID)
			if err != nil {
				t.Fatal(err)
			}
			add("ready setup", st.Standing(), nextText(st.Next))
			if !strings.Contains(nextText(st.Next), "it falls short") {
				t.Errorf("a setup short of its sizing does not say so: %q", nextText(st.Next))
			}
			q, err := f.svc.ChooseSource(ctx, f.a.ID, sending.ChooseSourceRequest{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			again, err := f.svc.ChooseSource(ctx, f.a.ID, sending.ChooseSourceRequest{}, []cards.Answer{{Card: q.Card.ID, Answer: "own_names"}})
			src := settledResult(t, "source again", again, err)
			add("source again", src.Meaning, src.Standing, nextText(src.Next))

			for _, text := range texts {
				for _, p := range agreementProblems(text, len(c.domains), c.mailboxes) {
					t.Errorf("%s\n  in %s", p, text)
				}
			}
		})
	}
}
