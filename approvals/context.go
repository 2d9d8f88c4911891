package approvals

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/workspace"
)

// Waiting are the approvals of a workspace waiting for a person's
// decision, oldest first: the approvals' share of the workspace context.
type Waiting []Approval

// maxWaiting bounds how many waiting approvals the context reads; more
// than a handful waiting at once is already a list to page through with
// list_pending_approvals.
const maxWaiting = 20

// namedWaiting is how many waiting approvals the next step names, each
// with where it is decided; it counts the others. The step is repeated
// wherever the context shows a step, and twenty named would take the
// context past the bound of a result (vibesell.MaxResultText).
const namedWaiting = 3

const waitingSQL = `SELECT ` + columns + ` FROM approvals
	WHERE workspace_id = $1 AND status = 'pending' ORDER BY created_at, id LIMIT $2`

// ContextPart is the approvals' part of the workspace context: while a
// person's decision is waiting, the workspace's next step is that
// decision and where to take it, before anything else (a tool that would
// ask for the same action again is no step forward).
func (s *Service) ContextPart() workspace.Part {
	return workspace.NewPart(s.queueWaiting, s.waitingNow)
}

func (s *Service) queueWaiting(b *pgx.Batch, ws uuid.UUID) func() ([]Approval, error) {
	var (
		list     []Approval
		complete bool
	)
	// One more than is kept, to tell that there are more.
	b.Queue(waitingSQL, ws, maxWaiting+1).Query(func(rows pgx.Rows) (err error) {
		list, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Approval, error) { return s.scanApproval(r) })
		complete = err == nil
		return err
	})
	return func() ([]Approval, error) {
		if !complete {
			return nil, errors.New("waiting approvals: read before their batch was sent, or after the batch failed")
		}
		return list, nil
	}
}

// waitingNow leaves out what expired since it was read: such an approval
// can no longer be decided.
func (s *Service) waitingNow(ctx context.Context, read []Approval) (Waiting, *workspace.NextStep) {
	now := s.clock.Now()
	var w Waiting
	for _, a := range read {
		if now.Before(a.ExpiresAt) {
			w = append(w, a)
		}
	}
	if len(w) == 0 {
		return w, nil
	}
	return w, waitingStep(ctx, w)
}

// waitingStep tells the assistant which decisions wait and where each is
// taken: the person's step first, in the web app or the card.
func waitingStep(ctx context.Context, w Waiting) *workspace.NextStep {
	var b strings.Builder
	others := fmt.Sprintf("; and %d more", len(w)-namedWaiting)
	switch {
	case len(w) == 1:
		b.WriteString("An approval is waiting for the person's decision: ")
	case len(w) > maxWaiting:
		fmt.Fprintf(&b, "More than %d approvals are waiting for the person's decision, the oldest first: ", maxWaiting)
		others = "; and more"
	default:
		fmt.Fprintf(&b, "%s are waiting for the person's decision: ", vibesell.Plural(len(w), "approval", "approvals"))
	}
	var each []string
	relayed := false
	for _, a := range w[:min(len(w), namedWaiting)] {
		where := "the person can decide in the card, in the conversation or in the web app at " + vibesell.PersonOpens(a.AppURL)
		switch {
		case !a.DecideHere:
			where = "only a signed-in person can approve it, in the web app at " + vibesell.PersonOpens(a.AppURL)
		case a.ClickedOnly:
			where = "the workspace wants it decided by the person's own click, in the card or in the web app at " + vibesell.PersonOpens(a.AppURL) + "; a decision passed on from the conversation is refused"
		default:
			relayed = true
		}
		if a.Staged() {
			where = a.Progress().Text() + "; " + where
		}
		each = append(each, fmt.Sprintf("%s (%s; expires %s): %s", a.ID, strings.TrimSuffix(a.Summary, "."), vibesell.FormatTimeFor(ctx, a.ExpiresAt), where))
	}
	b.WriteString(strings.Join(each, "; "))
	if len(w) > namedWaiting {
		b.WriteString(others)
	}
	b.WriteString(".")
	step := &workspace.NextStep{Why: b.String(), Pressing: true,
		Next: []vibesell.Next{{Do: "Give the person the link and wait for their decision; do not ask for the same action again."}}}
	if relayed {
		step.Next = append(step.Next, vibesell.Next{Do: "Pass on a decision the person gives in the conversation.", Tool: vibesell.ToolDecideApproval})
	}
	step.Next = append(step.Next, vibesell.Next{Do: "See the outcome once they have decided, and every approval waiting.", Tool: vibesell.ToolListPendingApprovals})
	return step
}
