package main

import (
	"log/slog"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"vibesell/approvals"
)

// A crashed execution must be taken up again within a minute or two, not
// River's default hour, and never while an attempt may still be running.
func TestStuckJobsAreRescuedSoonButNotWhileRunning(t *testing.T) {
	t.Parallel()
	cfg := jobConfig(river.NewWorkers(), nil, slog.New(slog.DiscardHandler))
	const rescuerInterval = 30 * time.Second // River's default, not configurable per client
	if worst := cfg.RescueStuckJobsAfter + rescuerInterval; cfg.RescueStuckJobsAfter <= 0 || worst > 2*time.Minute {
		t.Errorf("a crashed execution is rescued up to %s after it started (RescueStuckJobsAfter %s); want at most 2m", worst, cfg.RescueStuckJobsAfter)
	}
	longest := max(cfg.JobTimeout, time.Minute, (&approvals.ExecuteWorker{}).Timeout(nil)) // River's default JobTimeout is a minute
	if cfg.RescueStuckJobsAfter <= longest {
		t.Errorf("RescueStuckJobsAfter %s does not exceed the longest job timeout %s: a running job would be started twice", cfg.RescueStuckJobsAfter, longest)
	}
}
