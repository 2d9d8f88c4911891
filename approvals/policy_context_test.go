package approvals_test

import (
	"context"
	"strings"
	"testing"
)

// A workspace's click-only rule changes where a waiting approval is
// decided, and the context says so as soon as the rule is set: the rule
// moves the context's stamp, so a context read before it is not served
// after it.
func TestContextSaysTheClickOnlyRule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	next := e.nextStepText(10)
	free := e.open(t, e.a.ID, "rocket", true)
	if why := next(t); !strings.Contains(why, "in the conversation or in the web app") || !strings.Contains(why, "Call decide_approval.") {
		t.Fatalf("without the rule, the context says:\n%s", why)
	}
	if _, err := e.pool.Exec(ctx, `INSERT INTO approval_policies (workspace_id, action, set_by, set_at) VALUES ($1, $2, 'ada@acme.test', now())`,
		e.a.ID, free.Action); err != nil {
		t.Fatal(err)
	}
	why := next(t)
	if !strings.Contains(why, "the workspace wants it decided by the person's own click, in the card or in the web app at "+free.AppURL+
		" (only the person opens it); a decision passed on from the conversation is refused") || strings.Contains(why, "in the conversation") || strings.Contains(why, "decide_approval") {
		t.Errorf("with the rule, the context says:\n%s", why)
	}
}
