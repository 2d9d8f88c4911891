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
	Sandbox  bool             `json:"sandbox" jsonschema:"true when the setup runs in the sandbox: nothing real is checked, registered or charged"`
}

// sendingAsked is the result of a sending tool while a question is open.
func sendingAsked(c *cards.Card, notes []string, sandbox bool) toolkit.Result[sendingChoiceOutput] {
	return toolkit.Result[sendingChoiceOutput]{Markdown: choiceMarkdown(c, notes), Data: sendingChoiceOutput{Kind: kindChoice(), choiceFields: askedFields(c), Sandbox: sandbox}}
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

// choose_sending_source

type chooseSourceInput struct {
	Answers []answerInput `json:"answers,omitempty" jsonschema:"The person's answers to this tool's earlier cards: the card's answers list as received, followed by {\"card\": the card id, \"answer\": the choice id the person picked or their own words}. Leave it out on the first call. Only ever pass what the person said." example:"[{\"card\":\"3f9a0c12d4e5b678\",\"answer\":\"own_names\"}]" maxItems:"10"`
}

func chooseSendingSource(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[chooseSourceInput, sendingChoiceOutput]{
		Name:        vibesell.ToolChooseSendingSource,
		Title:       "Choose the sending addresses",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeWrite},
		Description: `
			Asks the person where their cold emails should go out from, and records their answer.
			The first call returns a question card (kind choice) with two options: already_warmed
			("Start sooner": addresses already prepared and warmed up, not under the brand's name,
			[[.WarmedPrice]] per mailbox per month) and own_names ("Send under my brand": addresses
			created on lookalike domains of the brand, ready after about [[.Prep]] of preparation,
			[[.DaysOff]] not counted, then [[.WarmupDays]] days of warmup; [[.DomainPrice]] per
			domain per year and [[.MailboxPrice]] per mailbox per month); the person may also answer
			in their own words. Put the question to the person, then call again with answers to
			record it: the result (kind sending_choice) says what was chosen, what it means and the
			next tool. Use it when the sending setup has no source yet (get_workspace_context and
			get_sending_setup show it), or when the person wants to change it. Answering records a
			choice only: nothing is set up, reserved or billed. Not for picking the domains
			themselves: that is propose_domains (own names) or propose_warmed_domains (already
			warmed).
		`,
		Handler: func(ctx context.Context, p auth.Principal, in chooseSourceInput) (toolkit.Result[sendingChoiceOutput], error) {
			return chooseSource(ctx, d, p.WorkspaceID, sending.ChooseSourceRequest{}, toCardAnswers(in.Answers))
		},
	})
}

// chooseSource is choose_sending_source's result for req and answers:
// what the tool returns, and what a click on its card returns
// (decide_in_card).
func chooseSource(ctx context.Context, d Deps, ws uuid.UUID, req sending.ChooseSourceRequest, answers []cards.Answer) (toolkit.Result[sendingChoiceOutput], error) {
	o, err := d.Sending.ChooseSource(ctx, ws, req, answers)
	if err != nil {
		return toolkit.Result[sendingChoiceOutput]{}, err
	}
	if o.Card != nil {
		return sendingAsked(o.Card, o.Notes, o.Sandbox), nil
	}
	c := o.Result
	out := sendingChoiceOutput{
		Kind:         "sending_choice",
		Sandbox:      o.Sandbox,
		choiceFields: settledFields(vibesell.ToolChooseSendingSource, o.Arguments, o.Answers),
		Decision:     strPtr("source"),
		Meaning:      &c.Meaning,
		ChosenAt:     &c.ChosenAt,
		NextStep:     stepData(c.Next),
	}
	if c.Source == sending.SourceOther {
		out.Chosen = []chosenItem{{Label: c.Text}}
	} else {
		out.Chosen = []chosenItem{{ID: strPtr(string(c.Source)), Label: c.Label}}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Sending addresses: %s\n\n", c.Label)
	if c.Source == sending.SourceOther {
		fmt.Fprintf(&b, "The person answered in their own words: %q (card %s, recorded %s).\n\n", c.Text, c.Card, formatTime(c.ChosenAt))
	} else {
		fmt.Fprintf(&b, "Recorded the person's choice %q (choice id %s, card %s, %s).\n\n", c.Label, c.Source, c.Card, formatTime(c.ChosenAt))
	}
	fmt.Fprintf(&b, "%s %s\n%s\nNext: %s\n", c.Meaning, c.Standing, notesMarkdown(o.Notes), nextText(c.Next))
	return toolkit.Result[sendingChoiceOutput]{Markdown: b.String(), Data: out}, nil
}
