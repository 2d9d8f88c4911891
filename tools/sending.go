package tools

import (
	"context"
	"fmt"
	"strings"
	"time"
	"vibesell/toolkit"

	"vibesell"
	"vibesell/auth"
	"vibesell/sending"
	"vibesell/workspace"
)

// sendingTerms are the numbers and prices the descriptions quote, from the
// service's configuration (the defaults when no service is wired, as in
// the registry's contract test), so a description never quotes a price the
// server does not charge.
type sendingTerms struct {
	domain, mailbox, warmed, tlds                                    string
	prep, warmedPrep, warmupDays, perMailbox, perDomain, start, step int
}

func termsOf(d Deps) sendingTerms {
	c := sending.DefaultConfig()
	if d.Sending != nil {
		c = d.Sending.Config()
	}
	m := func(cents int64) string { return sending.Money{Cents: cents, Currency: c.Currency}.String() }
	return sendingTerms{
		domain: m(c.DomainPrice()), mailbox: m(c.MailboxPrice), warmed: m(c.WarmedMailboxPrice), tlds: vibesell.JoinAnd(c.SoldTLDs()),
		prep: c.PrepBusinessDays, warmedPrep: c.WarmedPrepBusinessDays, warmupDays: c.WarmupDays,
		perMailbox: c.EmailsPerMailbox, perDomain: c.MailboxesPerDomain, start: c.RampStart, step: c.RampStep,
	}
}

func sendingTools(d Deps) []toolkit.Tool {
	return []toolkit.Tool{
		chooseSendingSource(d),
		proposeDomains(d),
		proposeWarmedDomains(d),
		proposeEmail(d),
		checkDomains(d),
		listWarmedDomains(d),
		sizeSendingCapacity(d),
		confirmSizing(d),
		getSendingSetup(d),
		startWarmup(d),
	}
}

// Output shapes shared by the sending tools.

func toMoney(m sending.Money) moneyData { return moneyOf(vibesell.NewMoney(m.Cents, m.Currency)) }

func moneyPtr(m sending.Money) *moneyData { v := toMoney(m); return &v }

// dayText is the structured form of a calendar day.
func dayText(t time.Time) string { return t.UTC().Format(time.DateOnly) }

func dayPtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := dayText(*t)
	return &s
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func sandboxLine(provider string) string {
	if provider != sending.SandboxName {
		return ""
	}
	return "\nSandbox: nothing here is real. No real registry, shelf or mail provider was asked, and nothing will be registered, created or billed by the sandbox.\n"
}

func notesMarkdown(notes []string) string {
	if len(notes) == 0 {
		return ""
	}
	return "\n" + strings.Join(notes, "\n") + "\n"
}

// sendingChoiceOutput is what choose_sending_source, propose_domains and
// propose_warmed_domains return: a question (kind choice) or the settled
// decision (kind sending_choice).
type sendingChoiceOutput struct {
	Kind string `json:"kind" enum:"choice,sending_choice" jsonschema:"choice: a question for the person (the card fields are set, the decision fields are null); sending_choice: the settled decision (the other way round)"`
	choiceFields
	Decision *string          `json:"decision" jsonschema:"sending_choice: what was decided, one of source, domains or warmed_domains; null on a choice"`
	Chosen   []chosenItem     `json:"chosen" jsonschema:"sending_choice: what the person picked, one item per question; null on a choice"`
	Domains  []domainPickData `json:"domains" jsonschema:"sending_choice about domains: the picked domains with their prices; null otherwise"`
	Provider *string          `json:"provider" jsonschema:"sending_choice about domains: what checked them, rdap or sandbox (sandbox: nothing real was checked); null otherwise"`
	Meaning  *string          `json:"meaning" jsonschema:"sending_choice: what the decision means for the person; null on a choice"`
	ChosenAt *time.Time       `json:"chosenAt" jsonschema:"sending_choice: when the person answered; null on a choice"`
	NextStep *sendingStepData `json:"nextStep" jsonschema:"sending_choice: what to do next; null on a choice"`
}

type chosenItem struct {
	ID    *string `json:"id" jsonschema:"the choice id picked; null when the person answered in their own words"`
	Label string  `json:"label" jsonschema:"the choice as the person saw it, or their own words"`
}

type domainPickData struct {
	Domain       string    `json:"domain" jsonschema:"the domain name"`
	Origin       string    `json:"origin" jsonschema:"new: registered for the workspace; warmed: taken off the warmed shelf" enum:"new,warmed"`
	YearlyPrice  moneyData `json:"yearlyPrice" jsonschema:"what the domain costs per year once ordered"`
	MailboxPrice moneyData `json:"mailboxPrice" jsonschema:"what one mailbox on it costs per month once ordered"`
	Mailboxes    int       `json:"mailboxes" jsonschema:"the mailboxes it will carry"`
	ReadyOn      string    `json:"readyOn" jsonschema:"the day it would be ready if ordered today, YYYY-MM-DD (UTC)"`
	RegisteredOn *string   `json:"registeredOn" jsonschema:"warmed: the day it was registered, YYYY-MM-DD; null for new domains"`
	Reputation   *int      `json:"reputation" jsonschema:"warmed: its sending reputation from 0 to 100; null when not measured or new"`
}

type sendingStepData struct {
	Tool *string `json:"tool" jsonschema:"the tool to call next; null when the next step is not a tool call"`
	Why  string  `json:"why" jsonschema:"why this is the next step, and what to do"`
}

func stepData(tool, why string) *sendingStepData {
	return &sendingStepData{Tool: strPtr(tool), Why: why}
}

func kindChoice() string { return "choice" }

// choose_sending_source

type chooseSourceInput struct {
	Answers []answerInput `json:"answers,omitempty" jsonschema:"The person's answers to this tool's earlier cards: the card's answers list as received, followed by {\"card\": the card id, \"answer\": the choice id the person picked or their own words}. Leave it out on the first call. Only ever pass what the person said." example:"[{\"card\":\"3f9a0c12d4e5b678\",\"answer\":\"own_names\"}]" maxItems:"10"`
}

func chooseSendingSource(d Deps) toolkit.Tool {
	t := termsOf(d)
	return toolkit.Define(toolkit.Spec[chooseSourceInput, sendingChoiceOutput]{
		Name:  "choose_sending_source",
		Title: "Choose the sending addresses",
		Description: "Asks the person where their cold emails should go out from, and records their answer. " +
			fmt.Sprintf("The first call returns a question card (kind choice) with two options: already_warmed (\"Start sooner\": addresses already prepared and warmed up, not under the brand's name, %s per mailbox per month) ", t.warmed) +
			fmt.Sprintf("and own_names (\"Send under my brand\": addresses created on lookalike domains of the brand, ready after about %s of preparation, weekends not counted, then %d days of warmup; %s per domain per year and %s per mailbox per month); the person may also answer in their own words. ",
				pluralize(t.prep, "business day", "business days"), t.warmupDays, t.domain, t.mailbox) +
			"Put the question to the person, then call again with answers to record it: the result (kind sending_choice) says what was chosen, what it means and the next tool. " +
			"Use it when the sending setup has no source yet (get_workspace_context and get_sending_setup show it), or when the person wants to change it. " +
			"Answering records a choice only: nothing is set up, reserved or billed. " +
			"Not for picking the domains themselves: that is propose_domains (own names) or propose_warmed_domains (already warmed).",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeWrite},
		Handler: func(ctx context.Context, p auth.Principal, in chooseSourceInput) (toolkit.Result[sendingChoiceOutput], error) {
			o, err := d.Sending.ChooseSource(ctx, p.WorkspaceID, in, toCardAnswers(in.Answers))
			if err != nil {
				return toolkit.Result[sendingChoiceOutput]{}, err
			}
			if o.Card != nil {
				return toolkit.Result[sendingChoiceOutput]{Markdown: choiceMarkdown(o.Card, o.Notes), Data: sendingChoiceOutput{Kind: kindChoice(), choiceFields: askedFields(o.Card)}}, nil
			}
			c := o.Result
			out := sendingChoiceOutput{
				Kind:         "sending_choice",
				choiceFields: settledFields("choose_sending_source", o.Arguments, o.Answers),
				Decision:     strPtr("source"),
				Meaning:      &c.Meaning,
				ChosenAt:     &c.ChosenAt,
				NextStep:     stepData(c.NextTool, c.NextStep),
			}
			if c.Source == sending.SourceOther {
				out.Chosen = []chosenItem{{Label: c.Text}}
			} else {
				out.Chosen = []chosenItem{{ID: strPtr(c.Source), Label: c.Label}}
			}
			var b strings.Builder
			fmt.Fprintf(&b, "## Sending addresses: %s\n\n", c.Label)
			if c.Source == sending.SourceOther {
				fmt.Fprintf(&b, "The person answered in their own words: %q (card %s, recorded %s).\n\n", c.Text, c.Card, formatTime(c.ChosenAt))
			} else {
				fmt.Fprintf(&b, "Recorded the person's choice %q (choice id %s, card %s, %s).\n\n", c.Label, c.Source, c.Card, formatTime(c.ChosenAt))
			}
			fmt.Fprintf(&b, "%s Nothing is set up, reserved or billed yet.\n%s\nNext: %s\n", c.Meaning, notesMarkdown(o.Notes), c.NextStep)
			return toolkit.Result[sendingChoiceOutput]{Markdown: b.String(), Data: out}, nil
		},
	})
}

func domainsSettled(tool string, o sending.Outcome[sending.DomainsChoice]) toolkit.Result[sendingChoiceOutput] {
	c := o.Result
	out := sendingChoiceOutput{
		Kind:         "sending_choice",
		choiceFields: settledFields(tool, o.Arguments, o.Answers),
		Decision:     strPtr(c.Decision),
		Chosen:       []chosenItem{},
		Domains:      []domainPickData{},
		Provider:     strPtr(c.Provider),
		Meaning:      &c.Meaning,
		ChosenAt:     &c.ChosenAt,
		NextStep:     stepData(c.NextTool, c.NextStep),
	}
	var b strings.Builder
	title := "New sending domains"
	if c.Decision == "warmed_domains" {
		title = "Already-warmed sending domains"
	}
	fmt.Fprintf(&b, "## %s picked\n\n", title)
	for i, p := range c.Picks {
		id := p.Domain
		out.Chosen = append(out.Chosen, chosenItem{ID: &id, Label: p.Domain})
		pd := domainPickData{
			Domain: p.Domain, Origin: p.Origin, YearlyPrice: toMoney(p.YearlyPrice), MailboxPrice: toMoney(p.MailboxPrice),
			Mailboxes: p.Mailboxes, ReadyOn: dayText(p.ReadyOn), RegisteredOn: dayPtr(p.RegisteredOn), Reputation: p.Reputation,
		}
		out.Domains = append(out.Domains, pd)
		fmt.Fprintf(&b, "%d. **%s**: %s per year, %s at %s each per month, ready %s if ordered today", i+1, p.Domain, p.YearlyPrice,
			pluralize(p.Mailboxes, "mailbox", "mailboxes"), p.MailboxPrice, formatDate(p.ReadyOn))
		if p.Reputation != nil {
			fmt.Fprintf(&b, "; reputation %d of 100", *p.Reputation)
		}
		b.WriteString(".\n")
	}
	fmt.Fprintf(&b, "\n%s\n%s%s\nNext: %s\n", c.Meaning, sandboxLine(c.Provider), notesMarkdown(o.Notes), c.NextStep)
	return toolkit.Result[sendingChoiceOutput]{Markdown: b.String(), Data: out}
}

// normalDomain writes a domain name the way it is stored ("https://www.Acme.com/"
// is acme.com); what is not a domain name is left for the service to refuse.
func normalDomain(s string) string {
	if s == "" {
		return s
	}
	if d, err := workspace.NormalizeDomain(s); err == nil {
		return d
	}
	return s
}

func pluralize(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// propose_domains

type proposeDomainsInput struct {
	CompanyDomain string        `json:"companyDomain,omitempty" jsonschema:"The company's own website domain, to build lookalikes of. Leave it out to use the domain saved in the offer." example:"acme.com" minLength:"3" maxLength:"253"`
	Count         int           `json:"count,omitempty" jsonschema:"How many sending domains to pick, one question each. Leave it out to use the confirmed sizing's number of domains, or 1." example:"2" minimum:"1" maximum:"10"`
	Include       []string      `json:"include,omitempty" jsonschema:"Domain names the person thought of themselves; each is checked and offered first when it can be registered." example:"[\"acmesales.com\"]" maxItems:"5" minLength:"3" maxLength:"253"`
	Answers       []answerInput `json:"answers,omitempty" jsonschema:"The person's answers to this tool's earlier cards: the card's answers list as received, followed by {\"card\": the card id, \"answer\": the choice id the person picked}. Leave it out on the first call. Only ever pass what the person said." example:"[{\"card\":\"3f9a0c12d4e5b678\",\"answer\":\"getacme.com\"}]" maxItems:"10"`
}

func proposeDomains(d Deps) toolkit.Tool {
	t := termsOf(d)
	return toolkit.Define(toolkit.Spec[proposeDomainsInput, sendingChoiceOutput]{
		Name:  "propose_domains",
		Title: "Propose lookalike domains",
		Description: "Offers new sending domains that look like the company's own domain (for example getacme.com or acmehq.com for acme.com), " +
			"so cold email never risks the reputation of the main domain, and asks the person to pick. " +
			fmt.Sprintf("Only names the availability check passes right now are offered, each with its yearly price (%s per year; only %s names are sold). ", t.domain, t.tlds) +
			"Returns one question card (kind choice) per domain to pick; put each to the person and call again with the same arguments and the answers. " +
			"Once every pick is settled it records them as the picked domains (replacing earlier picks not yet ordered) and returns kind sending_choice with the domains, their prices and the next step (propose_email). " +
			"If an offered name is taken in the meantime, the tool asks again with a new card and says what changed. " +
			"Picking registers, reserves and bills nothing: that happens only when order_sending_setup is approved. " +
			"Use it after choose_sending_source settled on own_names. Not for already-warmed domains (propose_warmed_domains), and not to check names without picking (check_domains).",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.Yes},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeWrite},
		Handler: func(ctx context.Context, p auth.Principal, in proposeDomainsInput) (toolkit.Result[sendingChoiceOutput], error) {
			// Domain names are compared as names: "AcmeOutbound.com" and
			// "acmeoutbound.com" are the same arguments for a card.
			in.CompanyDomain = normalDomain(in.CompanyDomain)
			for i, n := range in.Include {
				in.Include[i] = normalDomain(n)
			}
			o, err := d.Sending.ProposeDomains(ctx, p.WorkspaceID, in, toCardAnswers(in.Answers),
				sending.ProposeDomainsRequest{CompanyDomain: in.CompanyDomain, Count: in.Count, Include: in.Include})
			if err != nil {
				return toolkit.Result[sendingChoiceOutput]{}, err
			}
			if o.Card != nil {
				notes := o.Notes
				if d.Sending.Config().Provider == sending.SandboxName {
					notes = append(notes, "Sandbox: availability comes from the sandbox; no real registry was checked.")
				}
				return toolkit.Result[sendingChoiceOutput]{Markdown: choiceMarkdown(o.Card, notes), Data: sendingChoiceOutput{Kind: kindChoice(), choiceFields: askedFields(o.Card)}}, nil
			}
			return domainsSettled("propose_domains", o), nil
		},
	})
}

// propose_warmed_domains

type proposeWarmedInput struct {
	Count   int           `json:"count,omitempty" jsonschema:"How many already-warmed domains to pick, one question each. Leave it out to use the confirmed sizing's number of domains, or 1." example:"1" minimum:"1" maximum:"10"`
	Answers []answerInput `json:"answers,omitempty" jsonschema:"The person's answers to this tool's earlier cards: the card's answers list as received, followed by {\"card\": the card id, \"answer\": the choice id the person picked}. Leave it out on the first call. Only ever pass what the person said." example:"[{\"card\":\"3f9a0c12d4e5b678\",\"answer\":\"northfieldmail.com\"}]" maxItems:"10"`
}

func proposeWarmedDomains(d Deps) toolkit.Tool {
	t := termsOf(d)
	return toolkit.Define(toolkit.Spec[proposeWarmedInput, sendingChoiceOutput]{
		Name:  "propose_warmed_domains",
		Title: "Propose already-warmed domains",
		Description: "Offers domains from the warmed shelf (registered months ago, with mailboxes that have been warming up since, not under the brand's name) and asks the person to pick. " +
			fmt.Sprintf("Each choice shows the domain's age, reputation (0 to 100), mailboxes and price: %s per mailbox per month plus %s per domain per year. ", t.warmed, t.domain) +
			"Returns one question card (kind choice) per domain to pick; put each to the person and call again with the same arguments and the answers. " +
			"Once settled it records the picks (replacing earlier warmed picks not yet ordered) and returns kind sending_choice with the next step (propose_email). " +
			"If a domain leaves the shelf in the meantime, the tool asks again with a new card and says what changed. " +
			"Picking reserves and bills nothing; the domain stays on the shelf for others until order_sending_setup is approved. " +
			"Use it after choose_sending_source settled on already_warmed. To just look at the shelf use list_warmed_domains; for new domains under the brand use propose_domains.",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.Yes},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeWrite},
		Handler: func(ctx context.Context, p auth.Principal, in proposeWarmedInput) (toolkit.Result[sendingChoiceOutput], error) {
			o, err := d.Sending.ProposeWarmed(ctx, p.WorkspaceID, in, toCardAnswers(in.Answers), sending.ProposeWarmedRequest{Count: in.Count})
			if err != nil {
				return toolkit.Result[sendingChoiceOutput]{}, err
			}
			if o.Card != nil {
				return toolkit.Result[sendingChoiceOutput]{Markdown: choiceMarkdown(o.Card, o.Notes), Data: sendingChoiceOutput{Kind: kindChoice(), choiceFields: askedFields(o.Card)}}, nil
			}
			return domainsSettled("propose_warmed_domains", o), nil
		},
	})
}

// propose_email

type proposeEmailInput struct {
	SenderNames []string      `json:"senderNames" jsonschema:"The full names of the people the emails are signed by; the addresses are built from them." example:"[\"Ada Lovelace\"]" minItems:"1" maxItems:"5" minLength:"1" maxLength:"100"`
	Answers     []answerInput `json:"answers,omitempty" jsonschema:"The person's answers to this tool's earlier cards: the card's answers list as received, followed by {\"card\": the card id, \"answer\": the choice id the person picked or their own words}. Leave it out on the first call. Only ever pass what the person said." example:"[{\"card\":\"3f9a0c12d4e5b678\",\"answer\":\"first_name\"}]" maxItems:"10"`
}

type emailStepOutput struct {
	Kind string `json:"kind" enum:"choice,email_step" jsonschema:"choice: a question for the person (the card fields are set, the address fields are null); email_step: the settled addresses (the other way round)"`
	choiceFields
	Style        *string          `json:"style" jsonschema:"email_step: the address style picked (a choice id, or own_words); null on a choice"`
	StyleLabel   *string          `json:"styleLabel" jsonschema:"email_step: the style as the person saw it, or their own words; null on a choice"`
	Addresses    []addressData    `json:"addresses" jsonschema:"email_step: the exact addresses that will be created when the order is approved; null on a choice"`
	Domains      []string         `json:"domains" jsonschema:"email_step: the domains the addresses are on; null on a choice"`
	MonthlyCost  *moneyData       `json:"monthlyCost" jsonschema:"email_step: what the mailboxes cost per month once ordered; null on a choice"`
	YearlyCost   *moneyData       `json:"yearlyCost" jsonschema:"email_step: what the domains cost per year once ordered; null on a choice"`
	ReadyOn      *string          `json:"readyOn" jsonschema:"email_step: the day the addresses would be ready if ordered today, YYYY-MM-DD (UTC); null on a choice"`
	FullVolumeOn *string          `json:"fullVolumeOn" jsonschema:"email_step: the first day they could all send at full volume if ordered today, YYYY-MM-DD (UTC); null on a choice"`
	ChosenAt     *time.Time       `json:"chosenAt" jsonschema:"email_step: when the person answered; null on a choice"`
	NextStep     *sendingStepData `json:"nextStep" jsonschema:"email_step: what to do next; null on a choice"`
}

type addressData struct {
	Address      string    `json:"address" jsonschema:"the email address"`
	Domain       string    `json:"domain" jsonschema:"its domain"`
	SenderName   *string   `json:"senderName" jsonschema:"who it signs as; null when the person wrote the address themselves"`
	Prewarmed    bool      `json:"prewarmed" jsonschema:"true when it comes already warmed up (on a warmed-shelf domain)"`
	MonthlyPrice moneyData `json:"monthlyPrice" jsonschema:"what it costs per month once ordered"`
}

func proposeEmail(d Deps) toolkit.Tool {
	t := termsOf(d)
	return toolkit.Define(toolkit.Spec[proposeEmailInput, emailStepOutput]{
		Name:  "propose_email",
		Title: "Propose the sending addresses",
		Description: "Proposes the exact sending addresses on the picked domains, built from the senders' names in a few styles " +
			fmt.Sprintf("(for Ada Lovelace: ada@, ada.lovelace@, a.lovelace@ and so on, as many per domain as it carries: the confirmed sizing's number, else %d; a warmed domain's own number), and asks the person which style they want; they may also write the addresses themselves (\"ada@ and sales@\"). ", t.perDomain) +
			"Returns a question card (kind choice); put it to the person and call again with the same arguments and the answers. " +
			fmt.Sprintf("Once settled it records the addresses as planned (replacing earlier planned ones) and returns kind email_step: the exact addresses that will be created, their monthly cost (%s per new mailbox, %s per already-warmed one), and the next step (order_sending_setup, after confirm_sizing when no sizing is confirmed). ", t.mailbox, t.warmed) +
			"Nothing is created or billed by answering. " +
			"Use it after propose_domains or propose_warmed_domains settled. Not for checking or picking domains (check_domains, propose_domains).",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeWrite},
		Handler: func(ctx context.Context, p auth.Principal, in proposeEmailInput) (toolkit.Result[emailStepOutput], error) {
			o, err := d.Sending.ProposeEmail(ctx, p.WorkspaceID, in, toCardAnswers(in.Answers), sending.ProposeEmailRequest{SenderNames: in.SenderNames})
			if err != nil {
				return toolkit.Result[emailStepOutput]{}, err
			}
			if o.Card != nil {
				return toolkit.Result[emailStepOutput]{Markdown: choiceMarkdown(o.Card, o.Notes), Data: emailStepOutput{Kind: kindChoice(), choiceFields: askedFields(o.Card)}}, nil
			}
			s := o.Result
			out := emailStepOutput{
				Kind:         "email_step",
				choiceFields: settledFields("propose_email", o.Arguments, o.Answers),
				Style:        &s.Style, StyleLabel: &s.StyleLabel, Domains: s.Domains, Addresses: []addressData{},
				MonthlyCost: moneyPtr(s.MonthlyCost), YearlyCost: moneyPtr(s.YearlyCost),
				ReadyOn: dayPtr(&s.ReadyOn), FullVolumeOn: dayPtr(&s.FullVolumeOn), ChosenAt: &s.ChosenAt,
				NextStep: stepData(s.NextTool, s.NextStep),
			}
			var b strings.Builder
			fmt.Fprintf(&b, "## Sending addresses planned (%s)\n\nStyle: %s.\n\nThese %s will be created when the order is approved:\n",
				pluralize(len(s.Addresses), "address", "addresses"), s.StyleLabel, pickText(len(s.Addresses) == 1, "address", "addresses"))
			for _, a := range s.Addresses {
				out.Addresses = append(out.Addresses, addressData{Address: a.Address, Domain: a.Domain, SenderName: strPtr(a.SenderName), Prewarmed: a.Prewarmed, MonthlyPrice: toMoney(a.MonthlyPrice)})
				fmt.Fprintf(&b, "- %s (%s per month%s)\n", a.Address, a.MonthlyPrice, mailboxTraits(a.SenderName, a.Prewarmed))
			}
			fmt.Fprintf(&b, "\nCost once ordered: %s per month for the mailboxes and %s per year for the domains. If ordered today they are ready on %s and can all send at full volume from %s.\n%s\nNext: %s\n",
				s.MonthlyCost, s.YearlyCost, formatDate(s.ReadyOn), formatDate(s.FullVolumeOn), notesMarkdown(o.Notes), s.NextStep)
			return toolkit.Result[emailStepOutput]{Markdown: b.String(), Data: out}, nil
		},
	})
}

func pickText(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
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
	t := termsOf(d)
	return toolkit.Define(toolkit.Spec[checkDomainsInput, domainQuoteOutput]{
		Name:  "check_domains",
		Title: "Check domain names",
		Description: fmt.Sprintf("Checks whether domain names can be registered now and what each costs per year (%s for %s names; other endings are not sold). ", t.domain, t.tlds) +
			"For each name: available yes, no, or unknown (null, when the registry did not answer in time; unknown never means taken), the yearly price and currency, and why a name cannot be had. " +
			"Up to 20 names per call. It asks the domain registries (RDAP) or, in the sandbox, answers from the sandbox; it reserves, registers and bills nothing, and records nothing. " +
			"Use it when the person suggests names of their own. To have lookalikes of the brand proposed and picked, use propose_domains instead.",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.Yes, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.Yes},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeRead},
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
				price := "not sold by VibeSell"
				if qt.YearlyPrice != nil {
					price = qt.YearlyPrice.String() + " per year"
				}
				fmt.Fprintf(&b, "- **%s**: %s; %s", qt.Domain, status, price)
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

// list_warmed_domains

type listWarmedInput struct {
	Limit  int    `json:"limit,omitempty" jsonschema:"How many domains to show, 20 when left out." example:"20" minimum:"1" maximum:"50"`
	Cursor string `json:"cursor,omitempty" jsonschema:"Where to continue: the nextCursor of the previous page. Leave it out for the first page." example:"harborlinemail.com" maxLength:"253"`
}

type warmedShelfOutput struct {
	Kind       string            `json:"kind" enum:"warmed_shelf"`
	Provider   string            `json:"provider" jsonschema:"where the shelf comes from; sandbox means it is not a real shelf"`
	Sandbox    bool              `json:"sandbox" jsonschema:"true when the shelf is the sandbox's, not a real one"`
	Total      int               `json:"total" jsonschema:"domains on the shelf now"`
	Domains    []warmedDomainRow `json:"domains" jsonschema:"this page of the shelf, sorted by domain"`
	NextCursor *string           `json:"nextCursor" jsonschema:"pass as cursor for the next page; null on the last page"`
}

type warmedDomainRow struct {
	Domain       string    `json:"domain" jsonschema:"the domain name"`
	RegisteredOn string    `json:"registeredOn" jsonschema:"the day it was registered, YYYY-MM-DD"`
	AgeDays      int       `json:"ageDays" jsonschema:"how many days old it is"`
	Mailboxes    int       `json:"mailboxes" jsonschema:"the warmed-up mailboxes it comes with"`
	Reputation   *int      `json:"reputation" jsonschema:"its sending reputation from 0 to 100; null when not measured"`
	YearlyPrice  moneyData `json:"yearlyPrice" jsonschema:"the domain's price per year"`
	MailboxPrice moneyData `json:"mailboxPrice" jsonschema:"one mailbox's price per month"`
	MonthlyPrice moneyData `json:"monthlyPrice" jsonschema:"all its mailboxes' price per month"`
	ReadyOn      string    `json:"readyOn" jsonschema:"the day it would be handed over if ordered today, YYYY-MM-DD (UTC)"`
}

func listWarmedDomains(d Deps) toolkit.Tool {
	t := termsOf(d)
	return toolkit.Define(toolkit.Spec[listWarmedInput, warmedShelfOutput]{
		Name:  "list_warmed_domains",
		Title: "List already-warmed domains",
		Description: "Shows what is on the warmed shelf now: domains registered months ago whose mailboxes have been warming up, not under the brand's name. " +
			fmt.Sprintf("For each: the domain, its age, how many mailboxes it comes with, its reputation (0 to 100, null when not measured), and its price (%s per mailbox per month plus %s per year for the domain). ", t.warmed, t.domain) +
			"Paginated: 20 per page by default, continue with nextCursor. It reads only; nothing is reserved or billed. " +
			"To have the person pick from the shelf, use propose_warmed_domains; for new domains under the brand, propose_domains.",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.Yes, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.Yes},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeRead},
		Handler: func(ctx context.Context, p auth.Principal, in listWarmedInput) (toolkit.Result[warmedShelfOutput], error) {
			page, err := d.Sending.ListWarmed(ctx, p.WorkspaceID, in.Limit, in.Cursor)
			if err != nil {
				return toolkit.Result[warmedShelfOutput]{}, err
			}
			out := warmedShelfOutput{Kind: "warmed_shelf", Provider: page.Provider, Sandbox: page.Provider == sending.SandboxName,
				Total: page.Total, Domains: []warmedDomainRow{}, NextCursor: strPtr(page.NextCursor)}
			var b strings.Builder
			fmt.Fprintf(&b, "## Warmed shelf: %s on offer now\n\n", pluralize(page.Total, "domain", "domains"))
			for _, it := range page.Items {
				out.Domains = append(out.Domains, warmedDomainRow{
					Domain: it.Domain, RegisteredOn: dayText(it.RegisteredOn), AgeDays: it.AgeDays, Mailboxes: it.Mailboxes, Reputation: it.Reputation,
					YearlyPrice: toMoney(it.YearlyPrice), MailboxPrice: toMoney(it.MailboxPrice), MonthlyPrice: toMoney(it.MonthlyPrice), ReadyOn: dayText(it.ReadyOn),
				})
				rep := "reputation not measured"
				if it.Reputation != nil {
					rep = fmt.Sprintf("reputation %d of 100", *it.Reputation)
				}
				fmt.Fprintf(&b, "- **%s**: registered %s (%d days ago), %s, %s; %s per month plus %s per year; handed over %s if ordered today.\n",
					it.Domain, formatDate(it.RegisteredOn), it.AgeDays, pluralize(it.Mailboxes, "mailbox", "mailboxes"), rep, it.MonthlyPrice, it.YearlyPrice, formatDate(it.ReadyOn))
			}
			if len(page.Items) == 0 {
				b.WriteString("Nothing on this page.\n")
			}
			if page.NextCursor != "" {
				fmt.Fprintf(&b, "\nMore on the next page: call list_warmed_domains with cursor %q.\n", page.NextCursor)
			}
			b.WriteString(sandboxLine(page.Provider))
			b.WriteString("\nNothing is reserved by looking. To have the person pick, call propose_warmed_domains.\n")
			return toolkit.Result[warmedShelfOutput]{Markdown: b.String(), Data: out}, nil
		},
	})
}

// size_sending_capacity and confirm_sizing

type sizingInput struct {
	DailyVolume        int    `json:"dailyVolume,omitempty" jsonschema:"Emails to send per business day at full volume. Give this, or leadCount with deadline." example:"300" minimum:"1" maximum:"10000"`
	LeadCount          int    `json:"leadCount,omitempty" jsonschema:"How many people to email. Give it with deadline, instead of dailyVolume." example:"3000" minimum:"1" maximum:"1000000"`
	Deadline           string `json:"deadline,omitempty" jsonschema:"The last day by which every lead should have had every email, YYYY-MM-DD. Give it with leadCount." example:"2027-02-26" pattern:"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"`
	EmailsPerLead      int    `json:"emailsPerLead,omitempty" jsonschema:"How many emails each lead gets (the sequence length); 3 when left out. Only with leadCount." example:"3" minimum:"1" maximum:"10"`
	Source             string `json:"source,omitempty" jsonschema:"Which addresses to size for: already_warmed or own_names. Leave it out to use the chosen source, or own_names when none is chosen." example:"own_names" enum:"already_warmed,own_names"`
	EmailsPerMailbox   int    `json:"emailsPerMailbox,omitempty" jsonschema:"Emails one mailbox sends per day at full volume; the default in the tool description when left out." example:"30" minimum:"1" maximum:"50"`
	MailboxesPerDomain int    `json:"mailboxesPerDomain,omitempty" jsonschema:"Mailboxes per domain, at most 5; the default in the tool description when left out." example:"3" minimum:"1" maximum:"5"`
}

type sizingOutput struct {
	Kind               string     `json:"kind" enum:"sizing"`
	Confirmed          bool       `json:"confirmed" jsonschema:"true when this sizing is recorded as the workspace's (confirm_sizing); false for a calculation only"`
	ConfirmedAt        *time.Time `json:"confirmedAt" jsonschema:"when it was recorded; null when not recorded"`
	Source             string     `json:"source" jsonschema:"the addresses sized for: already_warmed or own_names"`
	DailyVolume        int        `json:"dailyVolume" jsonschema:"emails per business day at full volume"`
	LeadCount          *int       `json:"leadCount" jsonschema:"the leads sized for; null when sized from a daily volume"`
	Deadline           *string    `json:"deadline" jsonschema:"the day to reach them by, YYYY-MM-DD; null when sized from a daily volume"`
	EmailsPerLead      *int       `json:"emailsPerLead" jsonschema:"emails each lead gets; null when sized from a daily volume"`
	TotalEmails        *int       `json:"totalEmails" jsonschema:"emails to send in all; null when sized from a daily volume"`
	SendingDays        *int       `json:"sendingDays" jsonschema:"business days from the first full-volume day to the deadline, both included; null when sized from a daily volume"`
	EmailsPerMailbox   int        `json:"emailsPerMailbox" jsonschema:"emails one mailbox sends per day at full volume"`
	MailboxesPerDomain int        `json:"mailboxesPerDomain" jsonschema:"mailboxes per domain"`
	Mailboxes          int        `json:"mailboxes" jsonschema:"mailboxes needed"`
	Domains            int        `json:"domains" jsonschema:"domains needed"`
	MailboxPrice       moneyData  `json:"mailboxPrice" jsonschema:"one mailbox's price per month"`
	DomainPrice        moneyData  `json:"domainPrice" jsonschema:"one domain's price per year"`
	MonthlyCost        moneyData  `json:"monthlyCost" jsonschema:"the mailboxes' cost per month"`
	YearlyCost         moneyData  `json:"yearlyCost" jsonschema:"the domains' cost per year"`
	ReadyOn            string     `json:"readyOn" jsonschema:"the day the addresses would be ready if ordered today, YYYY-MM-DD (UTC)"`
	FullVolumeOn       string     `json:"fullVolumeOn" jsonschema:"the first day full volume is possible if ordered today, YYYY-MM-DD (UTC)"`
}

func sizingRequest(in sizingInput) (sending.SizingRequest, error) {
	req := sending.SizingRequest{
		DailyVolume: in.DailyVolume, LeadCount: in.LeadCount, EmailsPerLead: in.EmailsPerLead, Source: in.Source,
		EmailsPerMailbox: in.EmailsPerMailbox, MailboxesPerDomain: in.MailboxesPerDomain,
	}
	if in.Deadline != "" {
		t, err := time.Parse(time.DateOnly, in.Deadline)
		if err != nil {
			return req, vibesell.Errorf(vibesell.EINVALID, "deadline %q is not a day of the calendar; give it as YYYY-MM-DD, like 2027-02-26.", in.Deadline)
		}
		req.Deadline = t
	}
	if in.EmailsPerLead > 0 && in.LeadCount == 0 {
		return req, vibesell.Errorf(vibesell.EINVALID, "emailsPerLead goes with leadCount; with dailyVolume leave it out.")
	}
	return req, nil
}

func toSizingOutput(z sending.Sizing) sizingOutput {
	return sizingOutput{
		Kind: "sizing", Confirmed: z.ConfirmedAt != nil, ConfirmedAt: z.ConfirmedAt, Source: z.Source, DailyVolume: z.DailyVolume,
		LeadCount: z.LeadCount, Deadline: dayPtr(z.Deadline), EmailsPerLead: z.EmailsPerLead, TotalEmails: z.TotalEmails, SendingDays: z.SendingDays,
		EmailsPerMailbox: z.EmailsPerMailbox, MailboxesPerDomain: z.MailboxesPerDomain, Mailboxes: z.Mailboxes, Domains: z.Domains,
		MailboxPrice: toMoney(z.MailboxPrice), DomainPrice: toMoney(z.DomainPrice), MonthlyCost: toMoney(z.MonthlyCost), YearlyCost: toMoney(z.YearlyCost),
		ReadyOn: dayText(z.ReadyOn), FullVolumeOn: dayText(z.FullVolumeOn),
	}
}

func sizingMarkdown(z sending.Sizing, confirmed bool) string {
	var b strings.Builder
	what := "new addresses under your brand"
	if z.Source == sending.SourceAlreadyWarmed {
		what = "already-warmed addresses"
	}
	if confirmed {
		fmt.Fprintf(&b, "## Sizing recorded (%s)\n\n", formatTime(*z.ConfirmedAt))
	} else {
		b.WriteString("## Sending capacity needed\n\n")
	}
	if z.LeadCount != nil {
		fmt.Fprintf(&b, "To send %d emails (%d leads × %d emails each) by %s, over %s of full volume: %d emails per business day.\n\n",
			*z.TotalEmails, *z.LeadCount, *z.EmailsPerLead, formatDate(*z.Deadline), pluralize(*z.SendingDays, "business day", "business days"), z.DailyVolume)
	} else {
		fmt.Fprintf(&b, "For %d emails per business day:\n\n", z.DailyVolume)
	}
	fmt.Fprintf(&b, "- %s sending %d emails a day each, on %s at %d mailboxes per domain, with %s.\n",
		pluralize(z.Mailboxes, "mailbox", "mailboxes"), z.EmailsPerMailbox, pluralize(z.Domains, "domain", "domains"), z.MailboxesPerDomain, what)
	fmt.Fprintf(&b, "- Cost: %s per month for the mailboxes (%s each) and %s per year for the domains (%s each).\n",
		z.MonthlyCost, z.MailboxPrice, z.YearlyCost, z.DomainPrice)
	if z.Source == sending.SourceAlreadyWarmed {
		fmt.Fprintf(&b, "- Ordered today, they are handed over on %s and can send at full volume from that day.\n", formatDate(z.ReadyOn))
	} else {
		fmt.Fprintf(&b, "- Ordered today, they are ready on %s (business days, weekends not counted), then warm up; full volume is possible from %s.\n",
			formatDate(z.ReadyOn), formatDate(z.FullVolumeOn))
	}
	b.WriteString("\nSending days are Monday to Friday.\n")
	if confirmed {
		b.WriteString("\nNext: propose_domains (or propose_warmed_domains for already-warmed addresses) now offers this many domains.\n")
	} else {
		b.WriteString("\nNothing was recorded. If the person agrees, call confirm_sizing with the same arguments to record it; the domain proposals then use these numbers.\n")
	}
	return b.String()
}

func sizingArgsDoc(t sendingTerms) string {
	return fmt.Sprintf("Give either dailyVolume, or leadCount with deadline (and optionally emailsPerLead, %d by default). "+
		"Defaults: %d emails per mailbox per day, %d mailboxes per domain; sending days are Monday to Friday. "+
		"Prices: %s per new mailbox per month, %s per already-warmed mailbox per month, %s per domain per year. ",
		sending.DefaultEmailsPerLead, t.perMailbox, t.perDomain, t.mailbox, t.warmed, t.domain)
}

func sizeSendingCapacity(d Deps) toolkit.Tool {
	t := termsOf(d)
	return toolkit.Define(toolkit.Spec[sizingInput, sizingOutput]{
		Name:  "size_sending_capacity",
		Title: "Size the sending capacity",
		Description: fmt.Sprintf("Works out the mailboxes and domains needed for a sending volume, what they cost per month and per year, and the first day full volume is possible if ordered today "+
			"(new addresses: about %s of preparation, weekends not counted, then %d days of warmup; already-warmed addresses: handed over in about %s, at full volume). ",
			pluralize(t.prep, "business day", "business days"), t.warmupDays, pluralize(t.warmedPrep, "business day", "business days")) +
			sizingArgsDoc(t) +
			"It calculates only: nothing is recorded, reserved or billed. To record the result once the person agrees, call confirm_sizing with the same arguments.",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.Yes, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeRead},
		Handler: func(ctx context.Context, p auth.Principal, in sizingInput) (toolkit.Result[sizingOutput], error) {
			req, err := sizingRequest(in)
			if err != nil {
				return toolkit.Result[sizingOutput]{}, err
			}
			z, err := d.Sending.Size(ctx, p.WorkspaceID, req)
			if err != nil {
				return toolkit.Result[sizingOutput]{}, err
			}
			return toolkit.Result[sizingOutput]{Markdown: sizingMarkdown(z, false), Data: toSizingOutput(z)}, nil
		},
	})
}

func confirmSizing(d Deps) toolkit.Tool {
	t := termsOf(d)
	return toolkit.Define(toolkit.Spec[sizingInput, sizingOutput]{
		Name:  "confirm_sizing",
		Title: "Confirm the sizing",
		Description: "Records the sending capacity the person agreed to, worked out as size_sending_capacity does from the same arguments and today's date, replacing the sizing recorded before. " +
			sizingArgsDoc(t) +
			"The recorded sizing sets how many domains propose_domains and propose_warmed_domains ask for and how many mailboxes each new domain carries. " +
			"It records a plan only: nothing is ordered, reserved or billed. Call size_sending_capacity first to show the person the numbers; call this only once they agree.",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeWrite},
		Handler: func(ctx context.Context, p auth.Principal, in sizingInput) (toolkit.Result[sizingOutput], error) {
			req, err := sizingRequest(in)
			if err != nil {
				return toolkit.Result[sizingOutput]{}, err
			}
			z, err := d.Sending.ConfirmSizing(ctx, p.WorkspaceID, req)
			if err != nil {
				return toolkit.Result[sizingOutput]{}, err
			}
			return toolkit.Result[sizingOutput]{Markdown: sizingMarkdown(z, true), Data: toSizingOutput(z)}, nil
		},
	})
}

// get_sending_setup

type sendingSetupOutput struct {
	Kind          string          `json:"kind" enum:"sending_setup"`
	Source        *sourceData     `json:"source" jsonschema:"where the emails go out from, as the person chose; null when not chosen yet"`
	Sizing        *sizingSummary  `json:"sizing" jsonschema:"the confirmed sizing; null when none is confirmed"`
	Domains       []setupDomain   `json:"domains" jsonschema:"the picked and ordered domains"`
	Mailboxes     []setupMailbox  `json:"mailboxes" jsonschema:"the planned and ordered addresses"`
	WarmupDays    int             `json:"warmupDays" jsonschema:"how many days a new mailbox warms up"`
	ReadyToSendOn *string         `json:"readyToSendOn" jsonschema:"the first day every ordered address can send at full volume, YYYY-MM-DD (UTC); null when nothing is ordered yet or some addresses are not ordered"`
	Sandbox       bool            `json:"sandbox" jsonschema:"true when any domain is handled by the sandbox (nothing real was registered or created)"`
	NextStep      sendingStepData `json:"nextStep" jsonschema:"what the setup needs next"`
}

type sourceData struct {
	ID       string    `json:"id" jsonschema:"already_warmed, own_names, or other (the person's own words)" enum:"already_warmed,own_names,other"`
	Label    string    `json:"label" jsonschema:"the choice as the person saw it"`
	Text     *string   `json:"text" jsonschema:"the person's own words, for other; null otherwise"`
	ChosenAt time.Time `json:"chosenAt" jsonschema:"when it was chosen"`
}

type sizingSummary struct {
	DailyVolume int       `json:"dailyVolume" jsonschema:"emails per business day at full volume"`
	Mailboxes   int       `json:"mailboxes" jsonschema:"mailboxes needed"`
	Domains     int       `json:"domains" jsonschema:"domains needed"`
	MonthlyCost moneyData `json:"monthlyCost" jsonschema:"the mailboxes' cost per month"`
	YearlyCost  moneyData `json:"yearlyCost" jsonschema:"the domains' cost per year"`
	ConfirmedAt time.Time `json:"confirmedAt" jsonschema:"when it was confirmed"`
}

type setupDomain struct {
	Domain         string     `json:"domain" jsonschema:"the domain name"`
	Origin         string     `json:"origin" jsonschema:"new: registered for the workspace; warmed: from the warmed shelf" enum:"new,warmed"`
	Status         string     `json:"status" jsonschema:"chosen: picked, not ordered; preparing: ordered, being set up; ready: set up" enum:"chosen,preparing,ready"`
	Provider       *string    `json:"provider" jsonschema:"who set it up (sandbox: nothing real); null until ordered"`
	YearlyPrice    moneyData  `json:"yearlyPrice" jsonschema:"its price per year"`
	OrderedAt      *time.Time `json:"orderedAt" jsonschema:"when it was ordered; null until ordered"`
	ReadyOn        *string    `json:"readyOn" jsonschema:"the day it is (or was) ready, YYYY-MM-DD (UTC); null until ordered"`
	DNS            []dnsCheck `json:"dns" jsonschema:"its DNS records (MX, SPF, DKIM, DMARC) and whether each checks out; null until ordered"`
	DNSCheckedWith *string    `json:"dnsCheckedWith" jsonschema:"what answered the DNS checks: dns (a real resolver) or sandbox; null when not checked"`
}

type dnsCheck struct {
	Type     string  `json:"type" jsonschema:"the record" enum:"MX,SPF,DKIM,DMARC"`
	Host     string  `json:"host" jsonschema:"the name it is published at"`
	Expected string  `json:"expected" jsonschema:"what must be published (for MX, the mail server)"`
	Found    *string `json:"found" jsonschema:"what the DNS holds there now; null when nothing or unknown"`
	OK       *bool   `json:"ok" jsonschema:"true: checks out; false: missing or different; null: the lookup could not complete"`
}

type setupMailbox struct {
	Address      string       `json:"address" jsonschema:"the email address"`
	Domain       string       `json:"domain" jsonschema:"its domain"`
	SenderName   *string      `json:"senderName" jsonschema:"who it signs as; null when not given"`
	Status       string       `json:"status" jsonschema:"planned: chosen, not ordered; preparing; ready: prepared, warmup not started; warming; warm: can send at full volume" enum:"planned,preparing,ready,warming,warm"`
	Prewarmed    bool         `json:"prewarmed" jsonschema:"true when it came already warmed up"`
	MonthlyPrice moneyData    `json:"monthlyPrice" jsonschema:"its price per month"`
	ReadyOn      *string      `json:"readyOn" jsonschema:"the day it is (or was) ready, YYYY-MM-DD (UTC); null until ordered"`
	Warmup       *warmupState `json:"warmup" jsonschema:"its warmup progress; null when not warming up"`
	FullVolumeOn *string      `json:"fullVolumeOn" jsonschema:"the first day it can send at full volume, YYYY-MM-DD (UTC); null until ordered"`
}

type warmupState struct {
	StartedOn   string `json:"startedOn" jsonschema:"the day warmup started, YYYY-MM-DD"`
	Day         int    `json:"day" jsonschema:"which day of the warmup today is"`
	Of          int    `json:"of" jsonschema:"how many days the warmup lasts"`
	TodayVolume int    `json:"todayVolume" jsonschema:"warmup emails it sends today"`
	Percent     int    `json:"percent" jsonschema:"how far the warmup is, 0 to 100"`
}

func getSendingSetup(d Deps) toolkit.Tool {
	return toolkit.Define(toolkit.Spec[struct{}, sendingSetupOutput]{
		Name:  "get_sending_setup",
		Title: "Get the sending setup",
		Description: "Shows the workspace's sending setup as it is now: the source chosen, the confirmed sizing, each domain and mailbox with its status (chosen or planned, preparing, ready, warming, warm), " +
			"each ordered domain's DNS records (MX, SPF, DKIM, DMARC) with whether each checks out (null when a lookup could not complete), warmup progress, the date the setup can send at full volume, and the next step. " +
			"It reads only (the DNS lookups are made now); nothing is changed or billed. Dates are days in UTC. " +
			"For a short summary of the whole workspace use get_workspace_context; to change the setup use the tools the next step names.",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.Yes, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.Yes},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeRead},
		Handler: func(ctx context.Context, p auth.Principal, _ struct{}) (toolkit.Result[sendingSetupOutput], error) {
			st, err := d.Sending.GetSetup(ctx, p.WorkspaceID)
			if err != nil {
				return toolkit.Result[sendingSetupOutput]{}, err
			}
			out := toSetupOutput(st)
			return toolkit.Result[sendingSetupOutput]{Markdown: setupMarkdown(st, out), Data: out}, nil
		},
	})
}

func toSetupOutput(st sending.Setup) sendingSetupOutput {
	out := sendingSetupOutput{Kind: "sending_setup", Domains: []setupDomain{}, Mailboxes: []setupMailbox{}, WarmupDays: st.WarmupDays,
		ReadyToSendOn: dayPtr(st.ReadyToSendOn), NextStep: *stepData(st.NextTool, st.NextStep)}
	if st.Source != nil {
		out.Source = &sourceData{ID: st.Source.Source, Label: sourceLabel(st.Source.Source), Text: strPtr(st.Source.Text), ChosenAt: st.Source.ChosenAt}
	}
	if z := st.Sizing; z != nil {
		out.Sizing = &sizingSummary{DailyVolume: z.DailyVolume, Mailboxes: z.Mailboxes, Domains: z.Domains,
			MonthlyCost: toMoney(z.MonthlyCost), YearlyCost: toMoney(z.YearlyCost), ConfirmedAt: *z.ConfirmedAt}
	}
	for _, d := range st.Domains {
		sd := setupDomain{Domain: d.Name, Origin: d.Origin, Status: d.State, Provider: strPtr(d.Provider), YearlyPrice: toMoney(d.YearlyPrice),
			OrderedAt: d.OrderedAt, ReadyOn: dayPtr(d.ReadyAt), DNSCheckedWith: strPtr(d.CheckedWith)}
		if d.Provider == sending.SandboxName {
			out.Sandbox = true
		}
		if d.Checks != nil {
			sd.DNS = []dnsCheck{}
			for _, c := range d.Checks {
				sd.DNS = append(sd.DNS, dnsCheck{Type: c.Type, Host: c.Host, Expected: c.Value, Found: strPtr(c.Found), OK: c.OK})
			}
		}
		out.Domains = append(out.Domains, sd)
	}
	for _, m := range st.Mailboxes {
		sm := setupMailbox{Address: m.Address, Domain: m.Domain, SenderName: strPtr(m.SenderName), Status: m.State, Prewarmed: m.Prewarmed,
			MonthlyPrice: toMoney(m.MonthlyPrice), ReadyOn: dayPtr(m.ReadyAt), FullVolumeOn: dayPtr(m.FullVolumeOn)}
		if m.WarmupDay != nil {
			sm.Warmup = &warmupState{StartedOn: dayText(*m.WarmupStartedAt), Day: *m.WarmupDay, Of: st.WarmupDays, TodayVolume: *m.TodayVolume,
				Percent: min(100, 100*(*m.WarmupDay-1)/st.WarmupDays)}
		}
		out.Mailboxes = append(out.Mailboxes, sm)
	}
	return out
}

func sourceLabel(s string) string {
	switch s {
	case sending.SourceAlreadyWarmed:
		return "Start sooner (already-warmed addresses)"
	case sending.SourceOwnNames:
		return "Send under my brand (new addresses)"
	}
	return "In the person's own words"
}

var stateWords = map[string]string{
	"chosen": "picked, not ordered", "planned": "planned, not ordered", "preparing": "being prepared", "ready": "ready",
	"warming": "warming up", "warm": "warm, can send at full volume",
}

func setupMarkdown(st sending.Setup, out sendingSetupOutput) string {
	var b strings.Builder
	b.WriteString("## Sending setup\n\n")
	if out.Source != nil {
		fmt.Fprintf(&b, "Source: %s, chosen %s", out.Source.Label, formatTime(out.Source.ChosenAt))
		if out.Source.Text != nil {
			fmt.Fprintf(&b, " (%q)", *out.Source.Text)
		}
		b.WriteString(".\n")
	} else {
		b.WriteString("Source: not chosen yet.\n")
	}
	if z := st.Sizing; z != nil {
		fmt.Fprintf(&b, "Sizing: %d emails per business day on %s and %s; %s per month and %s per year (confirmed %s).\n",
			z.DailyVolume, pluralize(z.Mailboxes, "mailbox", "mailboxes"), pluralize(z.Domains, "domain", "domains"), z.MonthlyCost, z.YearlyCost, formatTime(*z.ConfirmedAt))
	} else {
		b.WriteString("Sizing: not confirmed yet.\n")
	}
	if len(st.Domains) > 0 {
		b.WriteString("\n### Domains\n")
	}
	for _, d := range st.Domains {
		fmt.Fprintf(&b, "- **%s** (%s): %s", d.Name, map[string]string{"new": "new", "warmed": "already warmed"}[d.Origin], stateWords[d.State])
		if d.ReadyAt != nil {
			fmt.Fprintf(&b, ", ready %s", formatDate(*d.ReadyAt))
		}
		fmt.Fprintf(&b, "; %s per year.\n", d.YearlyPrice)
		for _, c := range d.Checks {
			verdict := "could not be checked right now"
			switch {
			case c.OK != nil && *c.OK:
				verdict = "checks out"
			case c.OK != nil:
				verdict = "not published as expected"
			}
			fmt.Fprintf(&b, "  - %s at %s: %s\n", c.Type, c.Host, verdict)
		}
	}
	if len(st.Mailboxes) > 0 {
		b.WriteString("\n### Mailboxes\n")
	}
	for _, m := range st.Mailboxes {
		fmt.Fprintf(&b, "- %s: %s", m.Address, stateWords[m.State])
		if m.WarmupDay != nil {
			fmt.Fprintf(&b, " (day %d of %d, %d warmup emails today)", *m.WarmupDay, st.WarmupDays, *m.TodayVolume)
		}
		if m.State == "preparing" {
			fmt.Fprintf(&b, ", ready %s", formatDate(*m.ReadyAt))
		}
		if m.FullVolumeOn != nil && m.State != "warm" {
			fmt.Fprintf(&b, ", full volume from %s", formatDate(*m.FullVolumeOn))
		}
		fmt.Fprintf(&b, "; %s per month.\n", m.MonthlyPrice)
	}
	if st.ReadyToSendOn != nil {
		fmt.Fprintf(&b, "\nThe setup can send at full volume from %s.\n", formatDate(*st.ReadyToSendOn))
	} else if len(st.Mailboxes) > 0 {
		b.WriteString("\nReady-to-send date: not available until every address is ordered.\n")
	}
	if out.Sandbox {
		b.WriteString("\nSandbox: these domains and mailboxes exist only in the sandbox; no real domain was registered and no real DNS was checked.\n")
	}
	fmt.Fprintf(&b, "\nNext: %s\n", st.NextStep)
	return b.String()
}

// start_warmup

type warmupOutput struct {
	Kind           string         `json:"kind" enum:"warmup"`
	Provider       string         `json:"provider" jsonschema:"who runs the warmup; sandbox means nothing real is sent"`
	Started        []string       `json:"started" jsonschema:"addresses whose warmup started now"`
	AlreadyWarming []string       `json:"alreadyWarming" jsonschema:"addresses already warming up, left as they are"`
	NotReady       []notReadyData `json:"notReady" jsonschema:"addresses still being prepared, with the day they are ready"`
	Prewarmed      []string       `json:"prewarmed" jsonschema:"addresses that came already warmed up and need no warmup"`
	StartedOn      *string        `json:"startedOn" jsonschema:"the day warmup started for those started now, YYYY-MM-DD; null when none started now"`
	FullVolumeOn   *string        `json:"fullVolumeOn" jsonschema:"the first day those started now can send at full volume, YYYY-MM-DD; null when none started now"`
	Ramp           []rampDayData  `json:"ramp" jsonschema:"the warmup emails per day for those started now; null when none started now"`
}

type notReadyData struct {
	Address string `json:"address" jsonschema:"the address"`
	ReadyOn string `json:"readyOn" jsonschema:"the day it is ready, YYYY-MM-DD (UTC)"`
}

type rampDayData struct {
	Day        int    `json:"day" jsonschema:"the day of the warmup, 1 first"`
	Date       string `json:"date" jsonschema:"that day, YYYY-MM-DD"`
	PerMailbox int    `json:"perMailbox" jsonschema:"warmup emails each mailbox sends that day"`
	Total      int    `json:"total" jsonschema:"warmup emails across the mailboxes started"`
}

func startWarmup(d Deps) toolkit.Tool {
	t := termsOf(d)
	return toolkit.Define(toolkit.Spec[struct{}, warmupOutput]{
		Name:  "start_warmup",
		Title: "Start the warmup",
		Description: fmt.Sprintf("Starts warming up every ordered mailbox that is ready and not warming yet: for the next %d days each sends a few warmup emails a day, %d on day 1 and %d more each day up to %d (the confirmed sizing's emails per mailbox), ",
			t.warmupDays, t.start, t.step, t.perMailbox) +
			"so mailbox providers learn to trust it before campaigns go out. The result lists the mailboxes started, already warming, still being prepared (with their ready day) and already warm, and the ramp (warmup emails per day). " +
			"Calling it again starts only mailboxes that became ready since; it never restarts a warmup. It costs nothing extra (warmup is included in the mailbox price). " +
			"It refuses when no mailbox is ordered or none is ready yet, and says when they will be. Already-warmed mailboxes need no warmup. " +
			"To see progress use get_sending_setup.",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.Yes},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeAct},
		Handler: func(ctx context.Context, p auth.Principal, _ struct{}) (toolkit.Result[warmupOutput], error) {
			w, err := d.Sending.StartWarmup(ctx, p.WorkspaceID)
			if err != nil {
				return toolkit.Result[warmupOutput]{}, err
			}
			out := warmupOutput{Kind: "warmup", Provider: w.Provider, Started: []string{}, AlreadyWarming: []string{}, NotReady: []notReadyData{}, Prewarmed: []string{},
				StartedOn: dayPtr(w.StartedOn), FullVolumeOn: dayPtr(w.FullVolumeOn)}
			for _, m := range w.Started {
				out.Started = append(out.Started, m.Address)
			}
			for _, m := range w.AlreadyWarming {
				out.AlreadyWarming = append(out.AlreadyWarming, m.Address)
			}
			for _, m := range w.NotReady {
				out.NotReady = append(out.NotReady, notReadyData{Address: m.Address, ReadyOn: dayText(*m.ReadyAt)})
			}
			for _, m := range w.Prewarmed {
				out.Prewarmed = append(out.Prewarmed, m.Address)
			}
			if w.Ramp != nil {
				out.Ramp = []rampDayData{}
				for _, r := range w.Ramp {
					out.Ramp = append(out.Ramp, rampDayData{Day: r.Day, Date: dayText(r.Date), PerMailbox: r.PerMailbox, Total: r.Total})
				}
			}
			return toolkit.Result[warmupOutput]{Markdown: warmupMarkdown(w, out), Data: out}, nil
		},
	})
}

func warmupMarkdown(w sending.Warmup, out warmupOutput) string {
	var b strings.Builder
	if len(out.Started) > 0 {
		fmt.Fprintf(&b, "## Warmup started for %s\n\n%s\n\nThe ramp, per mailbox:\n", pluralize(len(out.Started), "mailbox", "mailboxes"), strings.Join(out.Started, ", "))
		for _, r := range w.Ramp {
			fmt.Fprintf(&b, "- Day %d, %s: %d warmup emails each (%d in all)\n", r.Day, formatDate(r.Date), r.PerMailbox, r.Total)
		}
		fmt.Fprintf(&b, "\nThey can send campaigns at full volume from %s.\n", formatDate(*w.FullVolumeOn))
	} else {
		b.WriteString("## No new warmup started\n\nNo mailbox became ready since the last start.\n")
	}
	if len(out.AlreadyWarming) > 0 {
		fmt.Fprintf(&b, "\nAlready warming up, left as they are: %s.\n", strings.Join(out.AlreadyWarming, ", "))
	}
	for _, m := range w.NotReady {
		fmt.Fprintf(&b, "\n%s is still being prepared; it is ready on %s. Call start_warmup again on or after that day.\n", m.Address, formatDate(*m.ReadyAt))
	}
	if len(out.Prewarmed) > 0 {
		fmt.Fprintf(&b, "\nAlready warm, no warmup needed: %s.\n", strings.Join(out.Prewarmed, ", "))
	}
	if w.Provider == sending.SandboxName {
		b.WriteString("\nSandbox: no real warmup emails are sent.\n")
	}
	b.WriteString("\nNext: get_sending_setup shows the warmup's progress day by day.\n")
	return b.String()
}

// The sending setup in short, for get_workspace_context.

type sendingSummaryData struct {
	Source          *string         `json:"source" jsonschema:"already_warmed, own_names or other (the person's own words); null when not chosen yet"`
	SizingConfirmed bool            `json:"sizingConfirmed" jsonschema:"true when a sizing is confirmed"`
	Domains         domainCounts    `json:"domains" jsonschema:"the domains, by status"`
	Mailboxes       mailboxCounts   `json:"mailboxes" jsonschema:"the mailboxes, by status"`
	ReadyToSendOn   *string         `json:"readyToSendOn" jsonschema:"the first day every ordered address can send at full volume, YYYY-MM-DD (UTC); null when nothing is ordered yet or some addresses are not ordered"`
	Sandbox         bool            `json:"sandbox" jsonschema:"true when any domain is handled by the sandbox (nothing real)"`
	NextStep        sendingStepData `json:"nextStep" jsonschema:"what the sending setup needs next"`
}

type domainCounts struct {
	Chosen    int `json:"chosen" jsonschema:"picked, not ordered"`
	Preparing int `json:"preparing" jsonschema:"ordered, being set up"`
	Ready     int `json:"ready" jsonschema:"set up"`
}

type mailboxCounts struct {
	Planned   int `json:"planned" jsonschema:"chosen, not ordered"`
	Preparing int `json:"preparing" jsonschema:"ordered, being prepared"`
	Ready     int `json:"ready" jsonschema:"prepared, warmup not started"`
	Warming   int `json:"warming" jsonschema:"warming up"`
	Warm      int `json:"warm" jsonschema:"can send at full volume"`
}

func toSendingSummary(st sending.Setup) *sendingSummaryData {
	out := &sendingSummaryData{SizingConfirmed: st.Sizing != nil, ReadyToSendOn: dayPtr(st.ReadyToSendOn), NextStep: *stepData(st.NextTool, st.NextStep)}
	if st.Source != nil {
		out.Source = &st.Source.Source
	}
	for _, d := range st.Domains {
		switch d.State {
		case "chosen":
			out.Domains.Chosen++
		case "preparing":
			out.Domains.Preparing++
		default:
			out.Domains.Ready++
		}
		out.Sandbox = out.Sandbox || d.Provider == sending.SandboxName
	}
	for _, m := range st.Mailboxes {
		switch m.State {
		case "planned":
			out.Mailboxes.Planned++
		case "preparing":
			out.Mailboxes.Preparing++
		case "ready":
			out.Mailboxes.Ready++
		case "warming":
			out.Mailboxes.Warming++
		default:
			out.Mailboxes.Warm++
		}
	}
	return out
}

func sendingSummaryMarkdown(s *sendingSummaryData) string {
	if s == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("### Sending setup\n")
	if s.Source != nil {
		fmt.Fprintf(&b, "- Source: %s\n", sourceLabel(*s.Source))
	} else {
		b.WriteString("- Source: not chosen yet\n")
	}
	fmt.Fprintf(&b, "- Sizing: %s\n", pickText(s.SizingConfirmed, "confirmed", "not confirmed yet"))
	var parts []string
	for _, c := range []struct {
		n    int
		what string
	}{{s.Domains.Chosen, "picked"}, {s.Domains.Preparing, "being set up"}, {s.Domains.Ready, "set up"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	fmt.Fprintf(&b, "- Domains: %s\n", pickText(len(parts) == 0, "none yet", strings.Join(parts, ", ")))
	parts = nil
	for _, c := range []struct {
		n    int
		what string
	}{{s.Mailboxes.Planned, "planned"}, {s.Mailboxes.Preparing, "being prepared"}, {s.Mailboxes.Ready, "ready to warm up"}, {s.Mailboxes.Warming, "warming up"}, {s.Mailboxes.Warm, "warm"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	fmt.Fprintf(&b, "- Mailboxes: %s\n", pickText(len(parts) == 0, "none yet", strings.Join(parts, ", ")))
	if s.ReadyToSendOn != nil {
		t, _ := time.Parse(time.DateOnly, *s.ReadyToSendOn)
		fmt.Fprintf(&b, "- Can send at full volume from %s\n", formatDate(t))
	}
	if s.Sandbox {
		b.WriteString("- Sandbox: nothing in this setup is real\n")
	}
	fmt.Fprintf(&b, "- Next for the sending setup: %s\n\n", s.NextStep.Why)
	return b.String()
}

// mailboxTraits describes a mailbox after its address, the same way in
// every result: ", signed Ada Lovelace, already warmed up".
func mailboxTraits(senderName string, prewarmed bool) string {
	var out string
	if senderName != "" {
		out += ", signed " + senderName
	}
	if prewarmed {
		out += ", already warmed up"
	}
	return out
}
