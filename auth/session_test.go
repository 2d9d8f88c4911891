package auth_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/auth"
	"vibesell/store/storetest"
	"vibesell/workspace"
	"vibesell/workspace/workspacetest"
)

// A workspace keeps at most PerWorkspace sessions: opening more ends the
// ended ones first, then those idle the longest, and never another
// workspace's.
func TestSessionsAreCappedPerWorkspace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	ws := workspace.New(workspace.Deps{DB: pool, Clock: vibesell.SystemClock{}})
	acme, err := ws.Create(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	globex, err := ws.Create(ctx, "Globex")
	if err != nil {
		t.Fatal(err)
	}
	s := auth.NewSessions(auth.SessionsDeps{DB: pool, Limits: auth.SessionLimits{PerWorkspace: 3}})
	open := func(w workspace.Workspace) string {
		t.Helper()
		id, err := s.Open(ctx, w.ID)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	theirs := open(globex)
	ended, idle, busy := open(acme), open(acme), open(acme)
	if err := s.Terminate(ctx, acme.ID, ended); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE mcp_sessions SET last_seen_at = last_seen_at - interval '1 hour' WHERE id = $1`, idle); err != nil {
		t.Fatal(err)
	}
	newest := open(acme)
	// Read from the table: a Check would count as use.
	known := func() map[string]bool {
		got := map[string]bool{}
		for _, id := range []string{ended, idle, busy, newest, theirs} {
			var n int
			if err := pool.QueryRow(ctx, `SELECT count(*) FROM mcp_sessions WHERE id = $1`, id).Scan(&n); err != nil {
				t.Fatal(err)
			}
			got[id] = n == 1
		}
		return got
	}
	want := map[string]bool{ended: false, idle: true, busy: true, newest: true, theirs: true}
	if diff := cmp.Diff(want, known()); diff != "" {
		t.Errorf("after one more than the limit (-want +got):\n%s", diff)
	}
	open(acme)
	want[idle] = false
	if diff := cmp.Diff(want, known()); diff != "" {
		t.Errorf("after two more (-want +got):\n%s", diff)
	}
}

// What a client says about itself at initialize is stored within
// InfoBytes, whatever it sends.
func TestSessionInfoIsStoredWithinItsLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	acme, err := workspace.New(workspace.Deps{DB: pool, Clock: vibesell.SystemClock{}}).Create(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	s := auth.NewSessions(auth.SessionsDeps{DB: pool})
	id, err := s.Open(ctx, acme.ID)
	if err != nil {
		t.Fatal(err)
	}
	huge := strings.Repeat("x", 4<<20)
	caps := map[string]any{"sampling": map[string]any{}, "experimental": map[string]any{"blob": huge}}
	if err := s.Describe(ctx, acme.ID, id, "2025-06-18", huge, huge, caps); err != nil {
		t.Fatal(err)
	}
	var size int
	if err := pool.QueryRow(ctx, `SELECT pg_column_size(capabilities) + length(client_name) + length(client_version) + length(protocol_version)
		FROM mcp_sessions WHERE id = $1`, id).Scan(&size); err != nil {
		t.Fatal(err)
	}
	if size > auth.DefaultSessionLimits.InfoBytes {
		t.Errorf("stored %d bytes of what the client said, want at most %d", size, auth.DefaultSessionLimits.InfoBytes)
	}
	got, err := s.Find(ctx, acme.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	var kept map[string]any
	if err := json.Unmarshal(got.Capabilities, &kept); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"experimental": map[string]any{}, "sampling": map[string]any{}}, kept); diff != "" {
		t.Errorf("capabilities kept (-want +got):\n%s", diff)
	}
}

// Whether a host declared the MCP Apps extension at initialize is kept
// with its session, even when its capabilities are too large to keep, and
// read only in the session's workspace.
func TestSessionKeepsWhetherTheHostDeclaredApps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	two := workspacetest.Two(t, pool)
	acme, globex := two.Acme, two.Globex
	s := auth.NewSessions(auth.SessionsDeps{DB: pool})
	apps := map[string]any{"extensions": map[string]any{auth.AppsExtension: map[string]any{"mimeTypes": []string{"text/html;profile=mcp-app"}}},
		"experimental": map[string]any{"blob": strings.Repeat("x", 1<<20)}}
	for _, c := range []struct {
		name string
		caps any
		want bool
	}{
		{"declared, with capabilities too large to keep", apps, true},
		{"not declared", map[string]any{"sampling": map[string]any{}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			id, err := s.Open(ctx, acme.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := s.AppsDeclared(ctx, acme.ID, id); err != nil || got == nil || *got {
				t.Errorf("before initialize: %v, %v; want false", got, err)
			}
			if err := s.Describe(ctx, acme.ID, id, "2025-06-18", "host", "1", c.caps); err != nil {
				t.Fatal(err)
			}
			if got, err := s.AppsDeclared(ctx, acme.ID, id); err != nil || got == nil || *got != c.want {
				t.Errorf("apps declared: %v, %v; want %v", got, err, c.want)
			}
			if got, err := s.AppsDeclared(ctx, globex.ID, id); err != nil || got != nil {
				t.Errorf("read from another workspace: %v, %v; want not known", got, err)
			}
		})
	}
	if got, err := s.AppsDeclared(ctx, acme.ID, ""); err != nil || got != nil {
		t.Errorf("no session: %v, %v; want not known", got, err)
	}
}
