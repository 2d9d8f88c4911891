// Package migrations holds the schema as goose SQL files, embedded so the
// binary carries its own schema.
package migrations

import "embed"

// FS holds every migration, applied in file-name order.
//
//go:embed *.sql
var FS embed.FS
