package tools

import (
	"context"

	"vibesell/audience"
	"vibesell/sending"
	"vibesell/workspace"
)

// The parts of the workspace context that get_workspace_context shows,
// each read by its feature (see workspace.Part). A feature that has a
// part adds it here; the composition and the next-step rule are the
// workspace's.

// newContextReader reads the workspace snapshot, the approvals waiting
// for a decision, the sending setup, the audience, the campaigns and the
// plan in one round trip.
func newContextReader(d Deps) *workspace.ContextReader {
	size := d.ContextCacheSize
	if size == 0 {
		size = defaultContextCacheSize
	}
	var parts []workspace.Part
	if d.Approvals != nil {
		parts = append(parts, d.Approvals.ContextPart())
	}
	if d.Answers != nil {
		// After the decisions waiting: the replies waiting for an answer.
		parts = append(parts, d.Answers.ContextPart())
	}
	if d.Sending != nil {
		parts = append(parts, sendingPart(d.Sending))
	}
	if d.Audience != nil {
		// The target and the imports do not age, and have no next step
		// of their own yet.
		parts = append(parts, workspace.NewPart(d.Audience.QueueRows, func(ctx context.Context, r audience.ContextRows) (audience.ContextRows, *workspace.NextStep) {
			return r, nil
		}))
	}
	if d.Campaigns != nil {
		parts = append(parts, d.Campaigns.ContextPart())
	}
	if d.Billing != nil {
		parts = append(parts, d.Billing.ContextPart())
	}
	return workspace.NewContextReader(workspace.ContextReaderDeps{Workspaces: d.Workspaces, Kept: size, Parts: parts})
}

// sendingPartView is the sending setup's share of the context, worked out
// now, with its next step.
type sendingPartView struct {
	Setup sending.Setup
	Next  workspace.NextStep
}

// sendingPart adapts the sending setup's batched read (its rows do not
// age; the states that follow from time are worked out on each read) to a
// part of the context.
func sendingPart(s *sending.Service) workspace.Part {
	return workspace.NewPart(s.QueueRows, func(ctx context.Context, rows sending.Rows) (sendingPartView, *workspace.NextStep) {
		st := s.SetupFrom(rows)
		next := st.Next
		return sendingPartView{Setup: st, Next: next}, &next
	})
}
