package workspace_test

import (
	"context"
	"testing"
	"time"

	"vibesell"
	"vibesell/workspace"
)

// A workspace's zone is what its settings set, UTC before; a replica keeps
// it while the stamp stands and reads the new one once it moves.
func TestZoneIsTheSettingsZoneAndKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	svc := workspace.New(workspace.Deps{DB: e.pool, Clock: vibesell.SystemClock{}})
	loc, err := svc.Zone(ctx, e.a.ID)
	if err != nil || loc.String() != "UTC" {
		t.Fatalf("before any settings: %v (%v), want UTC", loc, err)
	}
	la := "America/Los_Angeles"
	if _, err := svc.SetSender(ctx, e.a.ID, workspace.SenderChange{TimeZone: &la}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if loc, err := svc.Zone(ctx, e.a.ID); err != nil || loc.String() != la {
		t.Errorf("after settings: %v (%v), want %s", loc, err, la)
	}
	if loc, err := svc.Zone(ctx, e.b.ID); err != nil || loc.String() != "UTC" {
		t.Errorf("another workspace: %v (%v), want UTC", loc, err)
	}
}
