package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
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
	Answer   string `json:"answer,omitempty" jsonschema:"The choice id the person clicked, or the words they typed when the card allows it." example:"own_names" maxLength:"1000"`
}

type clickedAnswerData struct {
	Card   string `json:"card" jsonschema:"the question answered"`
	Answer string `json:"answer" jsonschema:"the answer clicked, which the card's tool binds when called with it (recorded as clicked)"`
}

type cardDecisionOutput struct {
	Kind     string             `json:"kind" enum:"card_decision"`
	Approval *approvalData      `json:"approval" jsonschema:"the approval as it stands after the click; null when a card was answered"`
	Answer   *clickedAnswerData `json:"answer" jsonschema:"the answer recorded as clicked; null when an approval was decided"`
}

func decideInCard(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[decideInCardInput, cardDecisionOutput]{
		Name: vibesell.ToolDecideInCard,
		Handler: func(ctx context.Context, p auth.Principal, in decideInCardInput) (toolkit.Result[cardDecisionOutput], error) {
			switch {
			case in.Approval != "" && in.Decision != "" && in.Card == "" && in.Answer == "":
				r, err := d.Approvals.Click(ctx, p.WorkspaceID, in.Approval, approvals.Clicked{
					Approve: in.Decision == "approve", Reason: in.Reason, Token: in.Token, Person: personOf(p), HostApps: hostApps(ctx, d, p),
				})
				if err != nil {
					return toolkit.Result[cardDecisionOutput]{}, err
				}
				data := toApprovalData(r.Approval)
				return toolkit.Result[cardDecisionOutput]{Markdown: approvalMarkdown(r.Approval, clickLead(r)), Data: cardDecisionOutput{Approval: &data}}, nil
			case in.Card != "" && in.Answer != "" && in.Approval == "" && in.Decision == "":
				if err := d.Cards.Click(ctx, p.WorkspaceID, in.Card, in.Answer, in.Token, hostApps(ctx, d, p)); err != nil {
					return toolkit.Result[cardDecisionOutput]{}, err
				}
				return toolkit.Result[cardDecisionOutput]{
					Markdown: fmt.Sprintf("The person clicked the answer %q on card %s in the card; the card passes it on to the card's tool.", in.Answer, in.Card),
					Data:     cardDecisionOutput{Answer: &clickedAnswerData{Card: in.Card, Answer: in.Answer}},
				}, nil
			}
			return toolkit.Result[cardDecisionOutput]{}, vibesell.Errorf(vibesell.EINVALID,
				"Pass either approval and decision, or card and answer, with the card's token.")
		},
	})
}

// clickLead says whether the click was recorded.
func clickLead(r approvals.Relay) string {
	switch {
	case r.Taken && r.Approve:
		return "The person approved it with a click in the card; recorded."
	case r.Taken:
		return "The person rejected it with a click in the card; recorded. Nothing will be done."
	}
	return relayLead(r)
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

// shown is what the tokens are for in a result: the approvals and the
// question it shows.
type shown struct {
	Kind      string  `json:"kind"`
	Approval  string  `json:"approval"`
	Status    string  `json:"status"`
	Card      *string `json:"card"`
	Approvals []struct {
		Approval string `json:"approval"`
		Status   string `json:"status"`
	} `json:"approvals"`
}

// decisionTokens gives each result that shows a pending approval or an
// open question the card's one-time tokens for them, under proof.MetaKey
// in the result's _meta.
func decisionTokens(d Deps) func(ctx context.Context, p auth.Principal, tool string, structured json.RawMessage) (map[string]any, error) {
	return func(ctx context.Context, p auth.Principal, tool string, structured json.RawMessage) (map[string]any, error) {
		var k struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(structured, &k); err != nil {
			return nil, fmt.Errorf("read the result's kind: %w", err)
		}
		if k.Kind != "approval" && k.Kind != "approvals" && k.Kind != "choice" {
			return nil, nil
		}
		var s shown
		if err := json.Unmarshal(structured, &s); err != nil {
			return nil, fmt.Errorf("read the result for its tokens: %w", err)
		}
		var tokens map[string]string
		var err error
		switch {
		case s.Kind == "approval" && s.Status == string(approvals.Pending) && d.Approvals != nil:
			tokens, err = d.Approvals.Tokens(ctx, p.WorkspaceID, approvals.Approval{ID: s.Approval, Status: approvals.Pending})
		case s.Kind == "approvals" && d.Approvals != nil:
			var pending []approvals.Approval
			for _, a := range s.Approvals {
				if a.Status == string(approvals.Pending) {
					pending = append(pending, approvals.Approval{ID: a.Approval, Status: approvals.Pending})
				}
			}
			tokens, err = d.Approvals.Tokens(ctx, p.WorkspaceID, pending...)
		case s.Kind == "choice" && s.Card != nil && d.Cards != nil:
			tokens, err = d.Cards.Tokens(ctx, p.WorkspaceID, *s.Card)
		}
		if err != nil || len(tokens) == 0 {
			return nil, err
		}
		return map[string]any{proof.MetaKey: tokens}, nil
	}
}
