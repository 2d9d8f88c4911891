// Package migrations holds the schema as goose SQL files, embedded so the
// binary carries its own schema.
//
// Migrations always append: a new file takes the next number after the
// highest one here, whatever the feature (the early files were numbered in
// bands per area; that stopped being possible once a later band was
// applied). goose applies migrations in order and, by default, refuses one
// numbered below a migration a database already has, so a file slipped in
// lower would never run there. A merged migration is never edited or
// renumbered: fix it with a new one.
package migrations

import "embed"

// FS holds every migration, applied in file-name order.
//
//go:embed *.sql
var FS embed.FS
