package vibesell_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"vibesell"
)

// A refusal declared once is given the steps and arguments of each case
// without changing for the next one; blockers' steps are taken once.
func TestNextSteps(t *testing.T) {
	pick := vibesell.Next{Do: "Pick other domains.", Tool: vibesell.ToolProposeDomains}
	declared := vibesell.Errorf(vibesell.EINVALID, "Nothing is picked.")
	one := declared.Then(pick.With("count", 2))
	two := declared.Then(pick.With("count", 3), vibesell.Next{Do: "Ask the owner."})
	if len(declared.Next) != 0 {
		t.Errorf("the declared refusal changed: %v", declared.Next)
	}
	if d := cmp.Diff([]any{2, 3, 2}, []any{one.Next[0].Args["count"], two.Next[0].Args["count"], len(two.Next)}); d != "" {
		t.Errorf("the steps of each case (-want +got):\n%s", d)
	}
	if pick.Args != nil {
		t.Errorf("With changed the step it was given: %v", pick.Args)
	}
	wrapped := fmt.Errorf("order: %w", two)
	if d := cmp.Diff("Nothing is picked. Pick other domains. Ask the owner.", vibesell.ErrorForPerson(wrapped)); d != "" {
		t.Errorf("for a person (-want +got):\n%s", d)
	}
	addresses := vibesell.Call("Choose the addresses.", vibesell.ToolProposeEmail)
	steps := vibesell.StepsOf([]vibesell.Blocker{
		{What: "a.com has no addresses", Next: []vibesell.Next{addresses}},
		{What: "b.com has no addresses", Next: []vibesell.Next{addresses}},
		{What: "c.com was taken", Next: []vibesell.Next{pick.With("count", 1)}},
	})
	if d := cmp.Diff([]vibesell.Next{addresses, pick.With("count", 1)}, steps); d != "" {
		t.Errorf("the blockers' steps (-want +got):\n%s", d)
	}
}
