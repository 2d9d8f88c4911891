package store

import (
	"context"
	"io/fs"

	"vibesell/migrations"
)

func MigrationsGlob() ([]string, error) { return fs.Glob(migrations.FS, "*.sql") }

// OnlyDownloaded makes the search ignore installed binaries.
func OnlyDownloaded(c *EmbeddedConfig) { c.onlyDownloaded = true }

// StopBehindUsers asks the cluster to stop the way an operator's pg_ctl
// stop would, leaving every user's lock in place, without waiting (a
// cluster started again keeps pg_ctl waiting).
func StopBehindUsers(ctx context.Context, e *Embedded) error {
	return e.pgctl(ctx, "stop", "-D", e.pgdata(), "-m", "fast", "-W")
}

// PostmasterPID is the pid of the running cluster's postmaster, 0 if none.
func PostmasterPID(e *Embedded) int { return e.postmasterPID() }
