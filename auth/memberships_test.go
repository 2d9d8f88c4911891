package auth_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"vibesell"
	"vibesell/auth"
	"vibesell/migrations"
	"vibesell/store/storetest"
)

// The migration to memberships keeps everyone in the workspace they had,
// with their sessions, and going back down restores the one workspace of
// each account.
func TestMigrationMovesEveryAccountIntoAMembership(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, storetest.NewEmptyURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	db := stdlib.OpenDBFromPool(pool)
	t.Cleanup(func() { db.Close() })
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := provider.UpTo(ctx, 50); err != nil {
		t.Fatal(err)
	}
	acme, globex, ada, bob, cy := uuid.New(), uuid.New(), uuid.New(), uuid.New(), uuid.New()
	exec(t, db, `INSERT INTO workspaces (id, slug, name) VALUES ($1, 'acme', 'Acme'), ($2, 'globex', 'Globex')`, acme, globex)
	exec(t, db, `INSERT INTO users (id, workspace_id, email, password_hash) VALUES
		($1, $4, 'ada@acme.test', '$argon2id$x'), ($2, $4, 'bob@acme.test', '$argon2id$x'), ($3, $5, 'cy@globex.test', '$argon2id$x')`,
		ada, bob, cy, acme, globex)

	if _, err := provider.UpTo(ctx, 55); err != nil {
		t.Fatal(err)
	}
	type member struct{ User, Workspace uuid.UUID }
	members := func(q string) []member {
		t.Helper()
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []member
		for rows.Next() {
			var m member
			if err := rows.Scan(&m.User, &m.Workspace); err != nil {
				t.Fatal(err)
			}
			out = append(out, m)
		}
		return out
	}
	want := []member{{ada, acme}, {bob, acme}, {cy, globex}}
	byEmail := func(q string) string { return q + ` ORDER BY (SELECT email FROM users WHERE id = user_id)` }
	if diff := cmp.Diff(want, members(byEmail(`SELECT user_id, workspace_id FROM memberships`))); diff != "" {
		t.Fatalf("memberships after the migration (-want +got):\n%s", diff)
	}

	// A second workspace for Ada, then down: she keeps the first.
	exec(t, db, `INSERT INTO memberships (user_id, workspace_id, created_at) VALUES ($1, $2, now() + interval '1 minute')`, ada, globex)
	if _, err := provider.DownTo(ctx, 50); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, members(`SELECT id AS user_id, workspace_id FROM users ORDER BY email`)); diff != "" {
		t.Fatalf("accounts after going back down (-want +got):\n%s", diff)
	}
}

func exec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(context.Background(), q, args...); err != nil {
		t.Fatal(err)
	}
}

// One account in two workspaces: one sign-in, one workspace open at a
// time, the person's own workspaces only.
func TestPersonInSeveralWorkspaces(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	acc, clock, ada, globex := setupAccounts(t)
	clock.Advance(time.Minute)
	if _, err := acc.AddMember(ctx, globex.ID, "ADA@acme.test"); err != nil {
		t.Fatal(err)
	}
	both := []auth.Membership{
		{WorkspaceID: ada.WorkspaceID, Slug: ada.WorkspaceSlug, Name: ada.WorkspaceName},
		{WorkspaceID: globex.ID, Slug: globex.Slug, Name: globex.Name},
	}

	t.Run("adding again or an unknown person is refused", func(t *testing.T) {
		if _, err := acc.AddMember(ctx, globex.ID, "ada@acme.test"); vibesell.ErrorCode(err) != vibesell.ECONFLICT {
			t.Errorf("adding again: err = %v, want a conflict", err)
		}
		if _, err := acc.AddMember(ctx, globex.ID, "nobody@acme.test"); err != auth.ErrNoAccount {
			t.Errorf("adding an unknown person: err = %v, want ErrNoAccount", err)
		}
		if _, err := acc.CreateUser(ctx, auth.NewUser{WorkspaceID: globex.ID, Email: "ada@acme.test", Password: password}); vibesell.ErrorCode(err) != vibesell.ECONFLICT {
			t.Errorf("a second account for the email: err = %v, want a conflict", err)
		}
	})

	t.Run("sign-in opens the workspace last opened", func(t *testing.T) {
		u, ses, err := acc.SignIn(ctx, "ada@acme.test", password, "192.0.2.1")
		if err != nil {
			t.Fatal(err)
		}
		if u.WorkspaceID != ada.WorkspaceID {
			t.Errorf("first sign-in opened %s, want the first workspace %s", u.WorkspaceSlug, ada.WorkspaceSlug)
		}
		if diff := cmp.Diff(both, u.Workspaces); diff != "" {
			t.Errorf("workspaces (-want +got):\n%s", diff)
		}
		clock.Advance(time.Second)
		if err := acc.OpenWorkspace(ctx, ses.Token, globex.ID); err != nil {
			t.Fatal(err)
		}
		u, _, err = acc.Authenticate(ctx, ses.Token)
		if err != nil {
			t.Fatal(err)
		}
		if u.WorkspaceID != globex.ID || u.WorkspaceName != globex.Name {
			t.Errorf("after opening Globex, the session has %s open", u.WorkspaceSlug)
		}
		u, _, err = acc.SignIn(ctx, "ada@acme.test", password, "192.0.2.1")
		if err != nil {
			t.Fatal(err)
		}
		if u.WorkspaceID != globex.ID {
			t.Errorf("signing in again opened %s, want %s, the one last opened", u.WorkspaceSlug, globex.Slug)
		}
	})

	t.Run("another person's workspace cannot be opened", func(t *testing.T) {
		bob, err := acc.CreateUser(ctx, auth.NewUser{WorkspaceID: globex.ID, Email: "bob@globex.test", Password: password})
		if err != nil {
			t.Fatal(err)
		}
		_, ses, err := acc.SignIn(ctx, bob.Email, password, "192.0.2.2")
		if err != nil {
			t.Fatal(err)
		}
		if err := acc.OpenWorkspace(ctx, ses.Token, ada.WorkspaceID); err != auth.ErrNotMember {
			t.Fatalf("opening a workspace Bob is not in: err = %v, want ErrNotMember", err)
		}
		u, _, err := acc.Authenticate(ctx, ses.Token)
		if err != nil || u.WorkspaceID != globex.ID {
			t.Fatalf("after the refusal Bob's session has %s open (err %v), want %s", u.WorkspaceSlug, err, globex.Slug)
		}
	})
}
