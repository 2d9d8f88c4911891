// Package workspacetest gives tests the house's fixture of two workspaces
// on one database, so that every feature test can check that what one
// workspace writes the other never sees.
package workspacetest

import (
	"testing"

	"vibesell"
	"vibesell/auth"
	"vibesell/store"
	"vibesell/workspace"
)

// Pair is two workspaces of one installation: Acme, the one a test acts
// for, and Globex, the neighbour that must see nothing of Acme's.
type Pair struct {
	Acme, Globex workspace.Workspace
}

// Principal returns who acts for w, as a transport would put it on a
// request's context: with every scope, as a workspace token carries.
func Principal(w workspace.Workspace) auth.Principal {
	return auth.Principal{WorkspaceID: w.ID, WorkspaceSlug: w.Slug, Scopes: vibesell.Scopes()}
}

// Two creates the pair on db.
func Two(t testing.TB, db store.DBTX) Pair {
	t.Helper()
	var p Pair
	var err error
	if p.Acme, err = workspace.Create(t.Context(), db, "Acme"); err != nil {
		t.Fatalf("workspacetest: create Acme: %v", err)
	}
	if p.Globex, err = workspace.Create(t.Context(), db, "Globex"); err != nil {
		t.Fatalf("workspacetest: create Globex: %v", err)
	}
	return p
}
