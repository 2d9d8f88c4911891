package store_test

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"vibesell/store/storetest"
)

// sharedWithWorkspaceID are the tables that have a workspace_id and are
// not one workspace's rows, each with why (ARCHITECTURE.md, "Beyond one
// database"). A distributed database keeps them whole on every node (a
// reference table) or on the coordinator.
var sharedWithWorkspaceID = map[string]string{
	"installation":  "one row for the whole installation (singleton): which workspace its first start made",
	"stripe_events": "Stripe's webhook inbox, deduplicated by Stripe's event id as each arrives, before the event is read for its workspace (which may be none)",
	"web_sessions":  "a person's browser session, found by its cookie before any workspace is known; workspace_id is only the workspace the person has open, and changes",
}

// Every table of one workspace's rows has a primary key that starts with
// workspace_id, so that Citus can distribute the schema by workspace; a
// table with a workspace_id that is not one workspace's rows is on
// sharedWithWorkspaceID, with its reason. The rule is read off the
// migrated schema, so a new table is held to it the day it is made.
func TestWorkspaceTablesKeyByWorkspace(t *testing.T) {
	db := storetest.New(t)
	rows, err := db.Query(context.Background(), `
		SELECT c.relname::text,
		       coalesce((SELECT array_agg(a.attname::text ORDER BY k.ord)
		                   FROM pg_constraint p CROSS JOIN LATERAL unnest(p.conkey) WITH ORDINALITY k (att, ord)
		                   JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.att
		                  WHERE p.conrelid = c.oid AND p.contype = 'p'), '{}')
		  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		 WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
		   AND EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'workspace_id' AND NOT a.attisdropped)
		 ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	var table string
	var key []string
	var keyed []string
	if _, err := pgx.ForEachRow(rows, []any{&table, &key}, func() error {
		_, shared := sharedWithWorkspaceID[table]
		switch {
		case shared && len(key) > 0 && key[0] == "workspace_id":
			t.Errorf("%s is listed as shared, but its key (%v) starts with workspace_id: take it off the list", table, key)
		case !shared && (len(key) == 0 || key[0] != "workspace_id"):
			t.Errorf("%s has a workspace_id but its primary key is %v: make it start with workspace_id "+
				"(keeping a unique index on what rows are also found by), or list it in sharedWithWorkspaceID with why", table, key)
		case !shared:
			keyed = append(keyed, table)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for name := range sharedWithWorkspaceID {
		var exists bool
		if err := db.QueryRow(context.Background(), `SELECT to_regclass($1) IS NOT NULL`, name).Scan(&exists); err != nil {
			t.Fatal(err)
		}
		if !exists {
			t.Errorf("sharedWithWorkspaceID lists %s, which the schema no longer has", name)
		}
	}
	// The rule read something: the ledger is the first table it is for.
	if !slices.Contains(keyed, "mail_sends") || len(keyed) < 40 {
		t.Errorf("the rule held for %d tables (%v): the query no longer finds the workspace tables", len(keyed), keyed)
	}
}
