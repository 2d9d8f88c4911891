package store

import (
	"io/fs"

	"vibesell/migrations"
)

func MigrationsGlob() ([]string, error) { return fs.Glob(migrations.FS, "*.sql") }

// OnlyDownloaded makes the search ignore installed binaries.
func OnlyDownloaded(c *EmbeddedConfig) { c.onlyDownloaded = true }
