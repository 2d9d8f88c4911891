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
	Sandbox      bool             `json:"sandbox" jsonschema:"true when the setup runs in the sandbox: nothing real is created and the prices are never charged"`
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
	return define(d, toolkit.Spec[proposeEmailInput, emailStepOutput]{
		Name:        vibesell.ToolProposeEmail,
		Title:       "Propose the sending addresses",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeWrite},
		Description: `
			Proposes the exact sending addresses on the picked domains, built from the senders'
			names in a few styles (for Ada Lovelace: ada@, ada.lovelace@, a.lovelace@ and so on, as
			many per domain as it carries: the confirmed sizing's number, else [[.PerDomain]]; a
			warmed domain's own number), and asks the person which style they want; they may also
			write the addresses themselves ("ada@ and sales@"). Returns a question card (kind
			choice); put it to the person and call again with the same arguments and the answers.
			Once settled it records the addresses as planned (replacing earlier planned ones) and
			returns kind email_step: the exact addresses that will be created, their monthly cost
			([[.MailboxPrice]] per new mailbox, [[.WarmedPrice]] per already-warmed one), and the
			next step (order_sending_setup, after confirm_sizing when no sizing is confirmed).
			Nothing is created or billed by answering. Use it after propose_domains or
			propose_warmed_domains settled. Not for checking or picking domains (check_domains,
			propose_domains).
		`,
		Handler: func(ctx context.Context, p auth.Principal, in proposeEmailInput) (toolkit.Result[emailStepOutput], error) {
			return proposeEmailFor(ctx, d, p.WorkspaceID, sending.ProposeEmailRequest{SenderNames: in.SenderNames}, toCardAnswers(in.Answers))
		},
	})
}

// proposeEmailFor is propose_email's result for req and answers: what the
// tool returns, and what a click on its card returns.
func proposeEmailFor(ctx context.Context, d Deps, ws uuid.UUID, req sending.ProposeEmailRequest, answers []cards.Answer) (toolkit.Result[emailStepOutput], error) {
	o, err := d.Sending.ProposeEmail(ctx, ws, req, answers)
	if err != nil {
		return toolkit.Result[emailStepOutput]{}, err
	}
	if o.Card != nil {
		return toolkit.Result[emailStepOutput]{Markdown: choiceMarkdown(o.Card, o.Notes), Data: emailStepOutput{Kind: kindChoice(), choiceFields: askedFields(o.Card), Sandbox: o.Sandbox}}, nil
	}
	s := o.Result
	out := emailStepOutput{
		Kind:         "email_step",
		choiceFields: settledFields(vibesell.ToolProposeEmail, o.Arguments, o.Answers),
		Style:        &s.Style, StyleLabel: &s.StyleLabel, Domains: s.Domains, Addresses: []addressData{},
		MonthlyCost: moneyPtr(s.MonthlyCost), YearlyCost: moneyPtr(s.YearlyCost),
		ReadyOn: dayPtr(&s.ReadyOn), FullVolumeOn: dayPtr(&s.FullVolumeOn), ChosenAt: &s.ChosenAt, Sandbox: o.Sandbox,
		NextStep: stepData(s.Next),
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Sending addresses planned (%s)\n\nStyle: %s.\n\nThese %s will be created when the order is approved:\n",
		vibesell.Plural(len(s.Addresses), "address", "addresses"), s.StyleLabel, pickText(len(s.Addresses) == 1, "address", "addresses"))
	for _, a := range s.Addresses {
		out.Addresses = append(out.Addresses, addressData{Address: a.Address, Domain: a.Domain, SenderName: strPtr(a.SenderName), Prewarmed: a.Prewarmed, MonthlyPrice: moneyOf(a.MonthlyPrice)})
		fmt.Fprintf(&b, "- %s (%s per month%s)\n", a.Address, a.MonthlyPrice, sending.MailboxTraits(a.SenderName, a.Prewarmed))
	}
	fmt.Fprintf(&b, "\nCost once ordered: %s. If ordered today they are ready on %s and can all send at full volume from %s.\n%s\nNext: %s\n",
		sending.Costs(s.YearlyCost, s.MonthlyCost, len(s.Domains), len(s.Addresses), s.Sandbox), formatDate(s.ReadyOn), formatDate(s.FullVolumeOn), notesMarkdown(o.Notes), nextText(s.Next))
	return toolkit.Result[emailStepOutput]{Markdown: b.String(), Data: out}, nil
}
