package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
	"vibesell/cards"
	"vibesell/proof"
	"vibesell/toolkit"
)

// This file holds decide_in_card, the card's own tool (app-only: hosts
// hide it from the model), and what gives the card its tokens: every
// result that shows a pending approval or an open question carries a
// one-time token for each in its _meta (proof.MetaKey), which hosts give
// to the card and never to the model.

// decide_in_card

type decideInCardInput struct {
	Token    string `json:"token" jsonschema:"The one-time decision token the card received with the result it shows (the result's _meta), for this approval or card." example:"vsd_3q2-7wEjcE1Kx0m9bW2Qf4v8Yt0LrZpN6sHdA5uGkJc" minLength:"1" maxLength:"200"`
	Approval string `json:"approval,omitempty" jsonschema:"The approval decided by the click; with decision. Leave out when answering a card." example:"ap_3f9a0c12d4e5b678" pattern:"^ap_[0-9a-f]{16}$"`
	Decision string `json:"decision,omitempty" jsonschema:"The person's click on the approval: approve or reject." example:"reject" enum:"approve,reject"`
	Reason   string `json:"reason,omitempty" jsonschema:"The reason the person typed with the decision. Optional." example:"Too expensive for now" maxLength:"1000"`
	Card     string `json:"card,omitempty" jsonschema:"The question (choice card) answered by the click; with answer. Leave out when deciding an approval." example:"3f9a0c12d4e5b678" pattern:"^[0-9a-f]{16}$"`
	Shown    string `json:"shown,omitempty" jsonschema:"The shown value of the approval the card showed when the person clicked: a click on what has changed since is refused, naming the change. With approval." example:"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08" pattern:"^[0-9a-f]{64}$"`
	Answer   string `json:"answer,omitempty" jsonschema:"The choice id the person clicked, or the words they typed when the card allows it." example:"own_names" maxLength:"1000"`
}

type cardDecisionOutput struct {
	Kind     string               `json:"kind" enum:"card_decision"`
	Approval *approvalData        `json:"approval" jsonschema:"the approval as it stands after the click; null when a card was answered"`
	Sending  *sendingChoiceOutput `json:"sending" jsonschema:"a card of choose_sending_source, propose_domains or propose_warmed_domains answered: that tool's result with the answer bound, recorded as clicked (sending_choice once settled, or the flow's next question); null otherwise"`
	Email    *emailStepOutput     `json:"email" jsonschema:"a card of propose_email answered: its result with the answer bound, recorded as clicked (email_step once settled, or the next question); null otherwise"`
}

func decideInCard(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[decideInCardInput, cardDecisionOutput]{
		Name:        vibesell.ToolDecideInCard,
		Title:       "Decide in the card",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.Yes, Idempotent: toolkit.No, OpenWorld: toolkit.Yes},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeAct},
		AppOnly:     true,
		Description: `
			For the VibeSell card only (hidden from the model): records the person's click in the
			card, proven by the one-time token the card received with the result it shows. With
			approval and decision it approves or rejects the approval, recorded as clicked in the
			card; with card and answer it binds the answer to the card, recorded as clicked, and
			returns what the card's tool returns with that answer (the settled result, or the next
			question), so the card needs no second call. A clicked answer stands: the same answer
			relayed later changes nothing, another is refused. A token works once, for its own
			approval or card in its own workspace, for 30 minutes; any other is refused. The
			assistant decides with decide_approval and answers by calling the card's tool with
			answers: those are recorded as relayed.
		`,
		Handler: func(ctx context.Context, p auth.Principal, in decideInCardInput) (toolkit.Result[cardDecisionOutput], error) {
			switch {
			case in.Approval != "" && in.Decision != "" && in.Card == "" && in.Answer == "":
				r, err := d.Approvals.Click(ctx, p.WorkspaceID, in.Approval, approvals.Clicked{
					Approve: in.Decision == "approve", Reason: in.Reason, Token: in.Token, Person: personOf(p), HostApps: hostApps(ctx, d, p), Shown: in.Shown,
				})
				if err != nil {
					return toolkit.Result[cardDecisionOutput]{}, err
				}
				data := toApprovalData(r.Approval)
				return toolkit.Result[cardDecisionOutput]{Markdown: approvalMarkdown(ctx, r.Approval, clickLead(ctx, r)), Data: cardDecisionOutput{Approval: &data}}, nil
			case in.Card != "" && in.Answer != "" && in.Approval == "" && in.Decision == "":
				return answerInCard(ctx, d, p, in)
			}
			return toolkit.Result[cardDecisionOutput]{}, vibesell.Errorf(vibesell.EINVALID,
				"Pass either approval and decision, or card and answer, with the card's token.")
		},
	})
}

// answerInCard binds the answer clicked on a card: the card's tool runs
// again for the card's request with the answer and its token (the token
// is redeemed in the transaction that binds the answer), and its result
// is the click's. One call per click, and the answer is the person's
// from then on: the assistant relaying another one is refused.
func answerInCard(ctx context.Context, d Deps, p auth.Principal, in decideInCardInput) (toolkit.Result[cardDecisionOutput], error) {
	asked, err := d.Cards.FindAsked(ctx, p.WorkspaceID, in.Card)
	if err != nil {
		return toolkit.Result[cardDecisionOutput]{}, err
	}
	answers := []cards.Answer{{Card: in.Card, Answer: in.Answer, Token: in.Token, HostApps: hostApps(ctx, d, p)}}
	ws := p.WorkspaceID
	switch asked.Tool {
	case vibesell.ToolChooseSendingSource:
		return clickedOn(ctx, d, ws, asked, answers, chooseSource, func(o *sendingChoiceOutput) cardDecisionOutput { return cardDecisionOutput{Sending: o} })
	case vibesell.ToolProposeDomains:
		return clickedOn(ctx, d, ws, asked, answers, proposeDomainsFor, func(o *sendingChoiceOutput) cardDecisionOutput { return cardDecisionOutput{Sending: o} })
	case vibesell.ToolProposeWarmedDomains:
		return clickedOn(ctx, d, ws, asked, answers, proposeWarmed, func(o *sendingChoiceOutput) cardDecisionOutput { return cardDecisionOutput{Sending: o} })
	case vibesell.ToolProposeEmail:
		return clickedOn(ctx, d, ws, asked, answers, proposeEmailFor, func(o *emailStepOutput) cardDecisionOutput { return cardDecisionOutput{Email: o} })
	}
	return toolkit.Result[cardDecisionOutput]{}, fmt.Errorf("card %s: no tool %q answers cards", in.Card, asked.Tool)
}

// clickedOn runs the tool of the card asked, for the card's request (its
// arguments, which are the request's canonical form) and answers.
func clickedOn[Req, Out any](ctx context.Context, d Deps, ws uuid.UUID, asked cards.Asked, answers []cards.Answer,
	run func(context.Context, Deps, uuid.UUID, Req, []cards.Answer) (toolkit.Result[Out], error),
	wrap func(*Out) cardDecisionOutput) (toolkit.Result[cardDecisionOutput], error) {
	var req Req
	dec := json.NewDecoder(bytes.NewReader(asked.Arguments))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return toolkit.Result[cardDecisionOutput]{}, fmt.Errorf("read the request of a %s card: %w", asked.Tool, err)
	}
	res, err := run(ctx, d, ws, req, answers)
	if err != nil {
		return toolkit.Result[cardDecisionOutput]{}, err
	}
	return toolkit.Result[cardDecisionOutput]{Markdown: res.Markdown, Data: wrap(&res.Data), Meta: res.Meta}, nil
}

// clickLead says whether the click was recorded.
func clickLead(ctx context.Context, r approvals.Relay) string {
	switch {
	case r.Taken && r.Approve:
		return "The person approved it with a click in the card; recorded."
	case r.Taken:
		return "The person rejected it with a click in the card; recorded. Nothing will be done."
	}
	return relayLead(ctx, r)
}

// hostApps tells whether the MCP session of the call declared the MCP
// Apps extension, for the record beside a decision; nil when not known.
func hostApps(ctx context.Context, d Deps, p auth.Principal) *bool {
	s := toolkit.SessionOf(ctx)
	if s.AppsDeclared != nil || d.Sessions == nil {
		return s.AppsDeclared
	}
	declared, err := d.Sessions.AppsDeclared(ctx, p.WorkspaceID, s.ID)
	if err != nil {
		return nil // only a note beside the decision: the decision stands without it
	}
	return declared
}

// shows is a result that shows the person something to decide in the
// card: pending approvals, an open question. Its result gives the card a
// one-time token for each (decisionTokens).
type shows interface {
	shown() (pending []approvals.Approval, card *string)
}

func (o approvalOutput) shown() ([]approvals.Approval, *string) {
	return []approvals.Approval{{ID: o.Approval, Status: approvals.Status(o.Status)}}, nil
}

func (o approvalsOutput) shown() ([]approvals.Approval, *string) {
	var as []approvals.Approval
	for _, a := range o.Approvals {
		as = append(as, approvals.Approval{ID: a.Approval, Status: approvals.Status(a.Status)})
	}
	return as, nil
}

// shown of a result that asks (kind choice) is its card; a settled one
// has none.
func (f choiceFields) shown() ([]approvals.Approval, *string) { return nil, f.Card }

// shown of a click is what the click's result shows: the flow's next
// question, if it asks one.
func (o cardDecisionOutput) shown() ([]approvals.Approval, *string) {
	switch {
	case o.Sending != nil:
		return o.Sending.shown()
	case o.Email != nil:
		return o.Email.shown()
	}
	return nil, nil
}

// decisionTokens returns the _meta that gives the card its one-time
// tokens (under proof.MetaKey) for what a result shows: each pending
// approval and the open question. Nil when it shows none.
func decisionTokens(ctx context.Context, d Deps, ws uuid.UUID, s shows) (map[string]any, error) {
	pending, card := s.shown()
	var tokens map[string]string
	var err error
	switch {
	case card != nil && d.Cards != nil:
		tokens, err = d.Cards.Tokens(ctx, ws, *card)
	case len(pending) > 0 && d.Approvals != nil:
		tokens, err = d.Approvals.Tokens(ctx, ws, pending...)
	}
	if err != nil || len(tokens) == 0 {
		return nil, err
	}
	return map[string]any{proof.MetaKey: tokens}, nil
}
