package workspace_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/store/storetest"
	"vibesell/workspace"
	"vibesell/workspace/workspacetest"
)

// countPart is a feature's part for the tests: it counts the workspace's
// memories in the context's batch, and has a next step once there are
// some (pressing, or not).
type countView struct{ Memories int }

func countPart(pressing bool) workspace.Part {
	queue := func(b *pgx.Batch, ws uuid.UUID) func() (int, error) {
		n, read := 0, false
		b.Queue(`SELECT count(*) FROM memories WHERE workspace_id = $1`, ws).QueryRow(func(row pgx.Row) error {
			read = true
			return row.Scan(&n)
		})
		return func() (int, error) {
			if !read {
				return 0, errors.New("not read")
			}
			return n, nil
		}
	}
	return workspace.NewPart(queue, func(_ context.Context, n int) (countView, *workspace.NextStep) {
		if n == 0 {
			return countView{}, nil
		}
		return countView{Memories: n}, &workspace.NextStep{Why: "Memories to review.", Next: []vibesell.Next{{Tool: vibesell.ToolRemember}}, Pressing: pressing}
	})
}

// The context reads the snapshot and every part in one round trip, and
// its next step follows the rule: a pressing part's step first, then the
// offer, the playbook, then the first part that has a step.
func TestContextReaderComposesTheParts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, trips := storetest.NewCounted(t)
	clock := vibesell.NewManualClock(friday)
	svc := workspace.New(workspace.Deps{DB: pool, Clock: clock})
	two := workspacetest.Two(t, pool)
	ws := two.Acme.ID

	read := func(t *testing.T, r *workspace.ContextReader) workspace.Context {
		t.Helper()
		before := trips.Count()
		c, err := r.Read(ctx, ws)
		if err != nil {
			t.Fatal(err)
		}
		if n := trips.Count() - before; n != 1 {
			t.Errorf("the context took %d round trips, want 1", n)
		}
		return c
	}
	calm := workspace.NewContextReader(workspace.ContextReaderDeps{Workspaces: svc, Parts: []workspace.Part{countPart(false)}})
	urgent := workspace.NewContextReader(workspace.ContextReaderDeps{Workspaces: svc, Parts: []workspace.Part{countPart(true)}})

	t.Run("nothing saved", func(t *testing.T) {
		c := read(t, calm)
		v, ok := workspace.View[countView](c)
		if !ok {
			t.Error("the part has no view")
		}
		if diff := cmp.Diff(countView{}, v); diff != "" {
			t.Errorf("the part's view mismatch (-want +got):\n%s", diff)
		}
		if c.NextStep.Tool() != vibesell.ToolSaveOffer {
			t.Errorf("next step: %q (%s), want %q", c.NextStep.Tool(), c.NextStep.Why, vibesell.ToolSaveOffer)
		}
	})
	if _, err := svc.Remember(ctx, ws, "person", "Prefers Sam"); err != nil {
		t.Fatal(err)
	}
	t.Run("a pressing step comes before the offer", func(t *testing.T) {
		want := workspace.NextStep{Why: "Memories to review.", Next: []vibesell.Next{{Tool: vibesell.ToolRemember}}, Pressing: true}
		if diff := cmp.Diff(want, read(t, urgent).NextStep); diff != "" {
			t.Errorf("next step mismatch (-want +got):\n%s", diff)
		}
		if got := read(t, calm).NextStep.Tool(); got != vibesell.ToolSaveOffer {
			t.Errorf("a step that is not pressing came before the offer: %s", got)
		}
	})
	if _, err := svc.SaveOffer(ctx, ws, workspace.Offer{CompanyName: "Acme", Product: "p", Audience: "a", Value: "v", CallToAction: "c"}); err != nil {
		t.Fatal(err)
	}
	t.Run("then the playbook", func(t *testing.T) {
		if got := read(t, calm).NextStep.Tool(); got != vibesell.ToolSavePlaybook {
			t.Errorf("next step with the offer saved: %s", got)
		}
	})
	if _, err := svc.SavePlaybook(ctx, ws, workspace.Playbook{Tone: "brief"}); err != nil {
		t.Fatal(err)
	}
	t.Run("then the parts", func(t *testing.T) {
		c := read(t, calm)
		if c.Offer == nil || c.Playbook == nil || len(c.Memories) != 1 {
			t.Errorf("with the offer and the playbook saved: offer read %v, playbook read %v, %d memories; want both and 1 memory", c.Offer != nil, c.Playbook != nil, len(c.Memories))
		}
		if c.NextStep.Tool() != vibesell.ToolRemember {
			t.Errorf("next step with the offer and the playbook saved: %q (%s), want %q", c.NextStep.Tool(), c.NextStep.Why, vibesell.ToolRemember)
		}
		c = read(t, workspace.NewContextReader(workspace.ContextReaderDeps{Workspaces: svc}))
		want := workspace.NextStep{Why: "The offer and the playbook are saved. The next part is the sending setup: the addresses the emails go out from."}
		if diff := cmp.Diff(want, c.NextStep); diff != "" {
			t.Errorf("without parts, next step mismatch (-want +got):\n%s", diff)
		}
		if _, ok := workspace.View[countView](c); ok {
			t.Error("a part that is not wired has a view")
		}
	})
	t.Run("a missing workspace", func(t *testing.T) {
		if _, err := calm.Read(ctx, uuid.New()); vibesell.ErrorCode(err) != vibesell.ENOTFOUND {
			t.Errorf("a missing workspace: %v", err)
		}
	})
}
