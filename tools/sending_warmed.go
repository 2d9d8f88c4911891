package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"vibesell"
	"vibesell/auth"
	"vibesell/cards"
	"vibesell/sending"
	"vibesell/toolkit"
)

// propose_warmed_domains

type proposeWarmedInput struct {
	Count   int           `json:"count,omitempty" jsonschema:"How many already-warmed domains to pick, one question each. Leave it out to use the confirmed sizing's number of domains, or 1." example:"1" minimum:"1" maximum:"10"`
	Answers []answerInput `json:"answers,omitempty" jsonschema:"The person's answers to this tool's earlier cards: the card's answers list as received, followed by {\"card\": the card id, \"answer\": the choice id the person picked}. Leave it out on the first call. Only ever pass what the person said." example:"[{\"card\":\"3f9a0c12d4e5b678\",\"answer\":\"northfieldmail.com\"}]" maxItems:"10"`
}

func proposeWarmedDomains(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[proposeWarmedInput, sendingChoiceOutput]{
		Name:        vibesell.ToolProposeWarmedDomains,
		Title:       "Propose already-warmed domains",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.Yes},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeWrite},
		Description: `
			Offers domains from the warmed shelf (registered months ago, with mailboxes that have
			been warming up since, not under the brand's name) and asks the person to pick. Each
			choice shows the domain's age, reputation (0 to 100), mailboxes and price:
			[[.WarmedPrice]] per mailbox per month plus [[.DomainPrice]] per domain per year.
			Returns one question card (kind choice) per domain to pick; put each to the person and
			call again with the same arguments and the answers. Once settled it records the picks
			(replacing earlier warmed picks not yet ordered) and returns kind sending_choice with
			the next step (propose_email). If a domain leaves the shelf in the meantime, the tool
			asks again with a new card and says what changed. Picking reserves and bills nothing;
			the domain stays on the shelf for others until order_sending_setup is approved. Use it
			after choose_sending_source settled on already_warmed; if the source on record is
			own_names, its first card asks the person whether to switch (keeping it settles the call
			with nothing picked, kind sending_choice with decision source, since the two would mix).
			To just look at the shelf use list_warmed_domains; for new domains under the brand use
			propose_domains.
		`,
		Handler: func(ctx context.Context, p auth.Principal, in proposeWarmedInput) (toolkit.Result[sendingChoiceOutput], error) {
			return proposeWarmed(ctx, d, p.WorkspaceID, sending.ProposeWarmedRequest{Count: in.Count}, toCardAnswers(in.Answers))
		},
	})
}

// proposeWarmed is propose_warmed_domains' result for req and answers:
// what the tool returns, and what a click on its card returns.
func proposeWarmed(ctx context.Context, d Deps, ws uuid.UUID, req sending.ProposeWarmedRequest, answers []cards.Answer) (toolkit.Result[sendingChoiceOutput], error) {
	o, err := d.Sending.ProposeWarmed(ctx, ws, req, answers)
	if err != nil {
		return toolkit.Result[sendingChoiceOutput]{}, err
	}
	if o.Card != nil {
		return sendingAsked(o.Card, o.Notes, o.Sandbox), nil
	}
	return domainsSettled(vibesell.ToolProposeWarmedDomains, o), nil
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
	return define(d, toolkit.Spec[listWarmedInput, warmedShelfOutput]{
		Name:        vibesell.ToolListWarmedDomains,
		Title:       "List already-warmed domains",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.Yes, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.Yes},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeRead},
		Description: `
			Shows what is on the warmed shelf now: domains registered months ago whose mailboxes
			have been warming up, not under the brand's name. For each: the domain, its age, how
			many mailboxes it comes with, its reputation (0 to 100, null when not measured), and its
			price ([[.WarmedPrice]] per mailbox per month plus [[.DomainPrice]] per year for the
			domain). Paginated: 20 per page by default, continue with nextCursor. It reads only;
			nothing is reserved or billed. To have the person pick from the shelf, use
			propose_warmed_domains; for new domains under the brand, propose_domains.
		`,
		Handler: func(ctx context.Context, p auth.Principal, in listWarmedInput) (toolkit.Result[warmedShelfOutput], error) {
			page, err := d.Sending.ListWarmed(ctx, p.WorkspaceID, in.Limit, in.Cursor)
			if err != nil {
				return toolkit.Result[warmedShelfOutput]{}, err
			}
			out := warmedShelfOutput{Kind: "warmed_shelf", Provider: page.Provider, Sandbox: page.Provider == sending.SandboxName,
				Total: page.Total, Domains: []warmedDomainRow{}, NextCursor: strPtr(page.NextCursor)}
			var b strings.Builder
			fmt.Fprintf(&b, "## Warmed shelf: %s on offer now\n\n", vibesell.Plural(page.Total, "domain", "domains"))
			for _, it := range page.Items {
				out.Domains = append(out.Domains, warmedDomainRow{
					Domain: it.Domain, RegisteredOn: dayText(it.RegisteredOn), AgeDays: it.AgeDays, Mailboxes: it.Mailboxes, Reputation: it.Reputation,
					YearlyPrice: moneyOf(it.YearlyPrice), MailboxPrice: moneyOf(it.MailboxPrice), MonthlyPrice: moneyOf(it.MonthlyPrice), ReadyOn: dayText(it.ReadyOn),
				})
				rep := "reputation not measured"
				if it.Reputation != nil {
					rep = fmt.Sprintf("reputation %d of 100", *it.Reputation)
				}
				fmt.Fprintf(&b, "- **%s**: registered %s (%s ago), %s, %s; %s per month plus %s per year; handed over %s if ordered today.\n",
					it.Domain, formatDate(it.RegisteredOn), sending.Age(it.AgeDays), vibesell.Plural(it.Mailboxes, "mailbox", "mailboxes"), rep, it.MonthlyPrice, it.YearlyPrice, formatDate(it.ReadyOn))
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
