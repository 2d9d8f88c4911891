package approvals

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
)

// Policy is a workspace's rule for one action: whether approving it takes
// the person themselves (a click in the card, or the web app), never the
// assistant relaying their word.
type Policy struct {
	Action      string
	ClickedOnly bool
}

// alwaysInTheWebApp are the actions whose approvals are always opened for
// the web app alone (DecideHere false): they cost money or cannot be
// undone, so no rule of the workspace changes who approves them.
var alwaysInTheWebApp = map[string]bool{
	vibesell.ToolOrderSendingSetup: true,
	vibesell.ToolLaunchCampaign:    true,
	vibesell.ToolUpgradePlan:       true,
}

// PolicyApplies reports whether a workspace's rule changes who may
// approve action: false for the actions always approved in the web app.
func PolicyApplies(action string) bool {
	return ActionLabels.Of(action) != action && !alwaysInTheWebApp[action]
}

// Policies returns the rule for each action a rule applies to
// ([PolicyApplies]), in the order of [ActionLabels].
func (s *Service) Policies(ctx context.Context, ws uuid.UUID) ([]Policy, error) {
	rows, err := s.db.Query(ctx, `SELECT action FROM approval_policies WHERE workspace_id = $1`, ws)
	if err != nil {
		return nil, fmt.Errorf("read approval policies: %w", err)
	}
	on, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("read approval policies: %w", err)
	}
	set := map[string]bool{}
	for _, a := range on {
		set[a] = true
	}
	out := make([]Policy, 0, len(ActionLabels))
	for _, l := range ActionLabels {
		if PolicyApplies(l.Value) {
			out = append(out, Policy{Action: l.Value, ClickedOnly: set[l.Value]})
		}
	}
	return out, nil
}

// SetPolicy sets the workspace's rule for an action; by names the
// signed-in person who set it. It applies to every decision from now on,
// approvals already waiting included. Refusals: EINVALID for an action
// that is not one of [ActionLabels], or one always approved in the web
// app.
func (s *Service) SetPolicy(ctx context.Context, ws uuid.UUID, action string, clickedOnly bool, by string) error {
	if ActionLabels.Of(action) == action {
		return vibesell.Errorf(vibesell.EINVALID, "There is no action %q to set a rule for.", action)
	}
	if !PolicyApplies(action) {
		return vibesell.Errorf(vibesell.EINVALID, "%s is always approved by a signed-in person in the web app: no rule changes that.", ActionLabels.Of(action))
	}
	var err error
	if clickedOnly {
		_, err = s.db.Exec(ctx, `INSERT INTO approval_policies (workspace_id, action, set_by, set_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (workspace_id, action) DO NOTHING`, ws, action, by, s.clock.Now())
	} else {
		_, err = s.db.Exec(ctx, `DELETE FROM approval_policies WHERE workspace_id = $1 AND action = $2`, ws, action)
	}
	if err != nil {
		return fmt.Errorf("set approval policy of %s: %w", action, err)
	}
	return nil
}
