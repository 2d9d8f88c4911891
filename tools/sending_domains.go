package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"vibesell"
	"vibesell/auth"
	"vibesell/cards"
	"vibesell/sending"
	"vibesell/toolkit"
)

func domainsSettled(tool string, o sending.Outcome[sending.DomainsChoice]) toolkit.Result[sendingChoiceOutput] {
	c := o.Result
	out := sendingChoiceOutput{
		Kind:         "sending_choice",
		Sandbox:      o.Sandbox,
		choiceFields: settledFields(tool, o.Arguments, o.Answers),
		Decision:     strPtr(string(c.Decision)),
		Chosen:       []chosenItem{},
		Domains:      []domainPickData{},
		Provider:     strPtr(c.Provider),
		Meaning:      &c.Meaning,
		ChosenAt:     &c.ChosenAt,
		NextStep:     stepData(c.Next),
	}
	var b strings.Builder
	if c.Decision == sending.DecisionSource {
		// The person kept their source when asked to switch: nothing is
		// picked, and that is their answer, not a refusal.
		out.Chosen = []chosenItem{{ID: strPtr("keep"), Label: c.KeptLabel}}
		out.Domains, out.Provider = nil, nil
		fmt.Fprintf(&b, "## Sending addresses: %s\n\nRecorded the person's answer %q (%s). No domains were picked.\n\n%s\n%s\nNext: %s\n",
			c.KeptLabel, c.KeptLabel, formatTime(c.ChosenAt), c.Meaning, notesMarkdown(o.Notes), nextText(c.Next))
		return toolkit.Result[sendingChoiceOutput]{Markdown: b.String(), Data: out}
	}
	title := "New sending domains"
	if c.Decision == sending.DecisionWarmedDomains {
		title = "Already-warmed sending domains"
	}
	fmt.Fprintf(&b, "## %s picked\n\n", title)
	for i, p := range c.Picks {
		id := p.Domain
		out.Chosen = append(out.Chosen, chosenItem{ID: &id, Label: p.Domain})
		pd := domainPickData{
			Domain: p.Domain, Origin: string(p.Origin), YearlyPrice: moneyOf(p.YearlyPrice), MailboxPrice: moneyOf(p.MailboxPrice),
			Mailboxes: p.Mailboxes, ReadyOn: dayText(p.ReadyOn), RegisteredOn: dayPtr(p.RegisteredOn), Reputation: p.Reputation,
		}
		out.Domains = append(out.Domains, pd)
		fmt.Fprintf(&b, "%d. **%s**: %s per year, %s at %s each per month, ready %s if ordered today", i+1, p.Domain, p.YearlyPrice,
			vibesell.Plural(p.Mailboxes, "mailbox", "mailboxes"), p.MailboxPrice, formatDate(p.ReadyOn))
		if p.Reputation != nil {
			fmt.Fprintf(&b, "; reputation %d of 100", *p.Reputation)
		}
		b.WriteString(".\n")
	}
	fmt.Fprintf(&b, "\n%s\n%s%s\nNext: %s\n", c.Meaning, sandboxLine(c.Provider), notesMarkdown(o.Notes), nextText(c.Next))
	return toolkit.Result[sendingChoiceOutput]{Markdown: b.String(), Data: out}
}

// propose_domains

type proposeDomainsInput struct {
	CompanyDomain string        `json:"companyDomain,omitempty" jsonschema:"The company's own website domain, to build lookalikes of. Leave it out to use the domain saved in the offer." example:"acme.com" minLength:"3" maxLength:"253"`
	Count         int           `json:"count,omitempty" jsonschema:"How many sending domains to pick, one question each. Leave it out to use the confirmed sizing's number of domains, or 1." example:"2" minimum:"1" maximum:"10"`
	Include       []string      `json:"include,omitempty" jsonschema:"Domain names the person thought of themselves; each is checked and offered first when it can be registered." example:"[\"acmesales.com\"]" maxItems:"5" minLength:"3" maxLength:"253"`
	Answers       []answerInput `json:"answers,omitempty" jsonschema:"The person's answers to this tool's earlier cards: the card's answers list as received, followed by {\"card\": the card id, \"answer\": the choice id the person picked}. Leave it out on the first call. Only ever pass what the person said." example:"[{\"card\":\"3f9a0c12d4e5b678\",\"answer\":\"getacme.com\"}]" maxItems:"10"`
}

func proposeDomains(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[proposeDomainsInput, sendingChoiceOutput]{
		Name:        vibesell.ToolProposeDomains,
		Title:       "Propose lookalike domains",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.Yes},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeWrite},
		Description: `
			Offers new sending domains that look like the company's own domain (for example
			getacme.com or acmehq.com for acme.com), so cold email never risks the reputation of the
			main domain, and asks the person to pick. Only names the availability check passes right
			now are offered, each with its yearly price ([[.DomainPrice]] per year; only [[.TLDs]]
			names are sold). Returns one question card (kind choice) per domain to pick; put each to
			the person and call again with the same arguments and the answers. Once every pick is
			settled it records them as the picked domains (replacing earlier picks not yet ordered)
			and returns kind sending_choice with the domains, their prices and the next step
			(propose_email). If an offered name is taken in the meantime, the tool asks again with a
			new card and says what changed. Picking registers, reserves and bills nothing: that
			happens only when order_sending_setup is approved. Use it after choose_sending_source
			settled on own_names; if the source on record is already_warmed, its first card asks the
			person whether to switch (keeping it settles the call with nothing picked, kind
			sending_choice with decision source, since the two would mix). Not for already-warmed
			domains (propose_warmed_domains), and not to check names without picking
			(check_domains).
		`,
		Handler: func(ctx context.Context, p auth.Principal, in proposeDomainsInput) (toolkit.Result[sendingChoiceOutput], error) {
			return proposeDomainsFor(ctx, d, p.WorkspaceID, sending.ProposeDomainsRequest{CompanyDomain: in.CompanyDomain, Count: in.Count, Include: in.Include}, toCardAnswers(in.Answers))
		},
	})
}

// proposeDomainsFor is propose_domains' result for req and answers: what
// the tool returns, and what a click on its card returns.
func proposeDomainsFor(ctx context.Context, d Deps, ws uuid.UUID, req sending.ProposeDomainsRequest, answers []cards.Answer) (toolkit.Result[sendingChoiceOutput], error) {
	o, err := d.Sending.ProposeDomains(ctx, ws, req, answers)
	if err != nil {
		return toolkit.Result[sendingChoiceOutput]{}, err
	}
	if o.Card != nil {
		return sendingAsked(o.Card, o.Notes, o.Sandbox), nil
	}
	return domainsSettled(vibesell.ToolProposeDomains, o), nil
}

// check_domains

type checkDomainsInput struct {
	Names []string `json:"names" jsonschema:"The domain names to check, like getacme.com." example:"[\"getacme.com\",\"acmehq.com\"]" minItems:"1" maxItems:"20" minLength:"3" maxLength:"253"`
}

type domainQuoteOutput struct {
	Kind      string      `json:"kind" enum:"domain_quote"`
	Provider  string      `json:"provider" jsonschema:"what answered: rdap (the registries) or sandbox (nothing real was checked)"`
	Sandbox   bool        `json:"sandbox" jsonschema:"true when the answers come from the sandbox, not from real registries"`
	CheckedAt time.Time   `json:"checkedAt" jsonschema:"when the names were checked"`
	Quotes    []quoteData `json:"quotes" jsonschema:"one answer per name, in the order given"`
}

type quoteData struct {
	Domain       string     `json:"domain" jsonschema:"the name checked, normalised"`
	Available    *bool      `json:"available" jsonschema:"true: it can be registered; false: it is taken; null: the check could not complete (unknown, not taken)"`
	PricePerYear *moneyData `json:"pricePerYear" jsonschema:"what VibeSell charges per year for it; null when VibeSell does not sell names under its top-level domain"`
	Reason       *string    `json:"reason" jsonschema:"why it cannot be had, or why its availability is unknown; null when it can be had"`
}

func checkDomains(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[checkDomainsInput, domainQuoteOutput]{
		Name:        vibesell.ToolCheckDomains,
		Title:       "Check domain names",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.Yes, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.Yes},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeRead},
		Description: `
			Checks whether domain names can be registered now and what each costs per year
			([[.DomainPrice]] for [[.TLDs]] names; other endings are not sold). For each name:
			available yes, no, or unknown (null, when the registry did not answer in time; unknown
			never means taken), the yearly price and currency, and why a name cannot be had. Up to
			20 names per call. It asks the domain registries (RDAP) or, in the sandbox, answers from
			the sandbox; it reserves, registers and bills nothing, and records nothing. Use it when
			the person suggests names of their own. To have lookalikes of the brand proposed and
			picked, use propose_domains instead.
		`,
		Handler: func(ctx context.Context, p auth.Principal, in checkDomainsInput) (toolkit.Result[domainQuoteOutput], error) {
			q, err := d.Sending.CheckDomains(ctx, p.WorkspaceID, in.Names)
			if err != nil {
				return toolkit.Result[domainQuoteOutput]{}, err
			}
			out := domainQuoteOutput{Kind: "domain_quote", Provider: q.Provider, Sandbox: q.Provider == sending.SandboxName, CheckedAt: q.CheckedAt}
			var b strings.Builder
			fmt.Fprintf(&b, "## Domain check (%s, %s)\n\n", q.Provider, formatTime(q.CheckedAt))
			for _, qt := range q.Quotes {
				qd := quoteData{Domain: qt.Domain, Available: qt.Available, Reason: strPtr(qt.Reason)}
				if qt.YearlyPrice != nil {
					qd.PricePerYear = moneyPtr(*qt.YearlyPrice)
				}
				out.Quotes = append(out.Quotes, qd)
				status := "availability unknown"
				switch {
				case qt.Available != nil && *qt.Available:
					status = "available"
				case qt.Available != nil:
					status = "taken"
				}
				fmt.Fprintf(&b, "- **%s**: %s", qt.Domain, status)
				switch {
				case qt.YearlyPrice == nil:
					b.WriteString("; not sold by VibeSell")
				case status != "taken":
					fmt.Fprintf(&b, "; %s per year", qt.YearlyPrice)
				}
				if qt.Reason != "" {
					fmt.Fprintf(&b, " (%s)", qt.Reason)
				}
				b.WriteString(".\n")
			}
			b.WriteString(sandboxLine(q.Provider))
			b.WriteString("\nNothing was reserved. Availability can change at any moment; names are checked again when picked and when ordered. To pick domains, call propose_domains (names the person likes can go in its include argument).\n")
			return toolkit.Result[domainQuoteOutput]{Markdown: b.String(), Data: out}, nil
		},
	})
}
