package auth_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/auth"
	"vibesell/store/storetest"
	"vibesell/workspace"
)

// replica is one server process's view of a shared database: its own
// pool (whose round trips are counted) and its own notifications.
type replica struct {
	pool     *pgxpool.Pool
	trips    *storetest.RoundTrips
	tokens   *auth.Tokens
	sessions *auth.Sessions
}

func newReplica(t *testing.T, url string) *replica {
	t.Helper()
	r := &replica{}
	r.pool, r.trips = storetest.NewCountedOn(t, url)
	notes := storetest.StartNotifications(t, r.pool)
	r.tokens = auth.NewTokens(auth.TokensDeps{DB: r.pool, Notes: notes, Kept: 100})
	r.sessions = auth.NewSessions(auth.SessionsDeps{DB: r.pool, Notes: notes, Kept: 100})
	return r
}

// trips counts the round trips fn makes.
func (r *replica) tripsOf(fn func()) int64 {
	before := r.trips.Count()
	fn()
	return r.trips.Count() - before
}

func setupReplicas(t *testing.T) (a, b *replica, ws workspace.Workspace) {
	t.Helper()
	url := storetest.NewURL(t)
	a, b = newReplica(t, url), newReplica(t, url)
	ws, err := workspace.New(workspace.Deps{DB: a.pool, Clock: vibesell.SystemClock{}}).Create(context.Background(), "Acme")
	if err != nil {
		t.Fatal(err)
	}
	return a, b, ws
}

func TestTokensAreKeptInMemoryAndRevokedEverywhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, ws := setupReplicas(t)
	token, err := a.tokens.Create(ctx, ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*replica{a, b} {
		if _, err := r.tokens.Authenticate(ctx, token); err != nil {
			t.Fatal(err)
		}
		if n := r.tripsOf(func() {
			if p, err := r.tokens.Authenticate(ctx, token); err != nil || p.WorkspaceID != ws.ID {
				t.Fatalf("again: %v %v", p, err)
			}
		}); n != 0 {
			t.Errorf("a token checked before cost %d round trips", n)
		}
	}
	if _, err := a.tokens.Revoke(ctx, token); err != nil {
		t.Fatal(err)
	}
	took := storetest.WaitFor(t, "the other replica to refuse the revoked token", func() bool {
		_, err := b.tokens.Authenticate(ctx, token)
		return err == auth.ErrBadToken
	})
	t.Logf("revoked on one replica, refused on the other after %s", took)

	// A lost notification connection: the replica reads the database
	// until it listens again, and never answers from what it kept.
	other, err := a.tokens.Create(ctx, ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.tokens.Authenticate(ctx, other); err != nil {
		t.Fatal(err)
	}
	storetest.DropListeners(t, b.pool)
	if _, err := b.pool.Exec(ctx, `UPDATE api_tokens SET revoked_at = now() WHERE revoked_at IS NULL`); err != nil {
		t.Fatal(err)
	}
	storetest.WaitFor(t, "the replica that lost its notifications to refuse the revoked token", func() bool {
		_, err := b.tokens.Authenticate(ctx, other)
		return err == auth.ErrBadToken
	})
}

// A token revoked by a person of its workspace (the connected apps page)
// is refused by the other replica, which kept it in memory, within a
// second; a person of another workspace cannot revoke it. The list says
// who made it, when it was last used and who revoked it.
func TestTokenRevokedInItsWorkspaceIsRefusedEverywhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, ws := setupReplicas(t)
	other, err := workspace.New(workspace.Deps{DB: a.pool, Clock: vibesell.SystemClock{}}).Create(ctx, "Globex")
	if err != nil {
		t.Fatal(err)
	}
	token, err := a.tokens.CreateBy(ctx, ws.ID, auth.CreatedByCommandLine)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.tokens.Authenticate(ctx, token); err != nil {
		t.Fatal(err)
	}
	infos, err := a.tokens.List(ctx, ws.ID)
	if err != nil || len(infos) != 1 || infos[0].CreatedBy != auth.CreatedByCommandLine || infos[0].LastUsedAt == nil {
		t.Fatalf("listed: %+v, %v", infos, err)
	}
	if err := a.tokens.RevokeIn(ctx, other.ID, infos[0].ID, "bob@globex.test"); vibesell.ErrorCode(err) != vibesell.ENOTFOUND {
		t.Fatalf("another workspace revoking the token: %v", err)
	}
	if _, err := b.tokens.Authenticate(ctx, token); err != nil {
		t.Fatalf("the token after another workspace tried to revoke it: %v", err)
	}
	if err := a.tokens.RevokeIn(ctx, ws.ID, infos[0].ID, "ada@acme.test"); err != nil {
		t.Fatal(err)
	}
	took := storetest.WaitFor(t, "the other replica to refuse the revoked token", func() bool {
		_, err := b.tokens.Authenticate(ctx, token)
		return err == auth.ErrBadToken
	})
	if took > time.Second {
		t.Errorf("the other replica refused the revoked token after %s, want within a second", took)
	}
	if infos, err := a.tokens.List(ctx, ws.ID); err != nil || infos[0].RevokedAt == nil || infos[0].RevokedBy != "ada@acme.test" {
		t.Errorf("listed after revoking: %+v, %v", infos, err)
	}
}

func TestSessionsAreKeptInMemoryAndEndedEverywhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, ws := setupReplicas(t)
	id, err := a.sessions.Open(ctx, ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*replica{a, b} {
		if _, err := r.sessions.Check(ctx, ws.ID, id); err != nil {
			t.Fatal(err)
		}
		if n := r.tripsOf(func() {
			if ended, err := r.sessions.Check(ctx, ws.ID, id); err != nil || ended {
				t.Fatalf("again: %v %v", ended, err)
			}
		}); n != 0 {
			t.Errorf("a session checked before cost %d round trips", n)
		}
	}
	// Kept in memory, a session is still only its own workspace's.
	globex, err := workspace.New(workspace.Deps{DB: a.pool, Clock: vibesell.SystemClock{}}).Create(ctx, "Globex")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.sessions.Check(ctx, globex.ID, id); err != auth.ErrUnknownSession {
		t.Errorf("with another workspace: %v", err)
	}
	if err := a.sessions.Terminate(ctx, ws.ID, id); err != nil {
		t.Fatal(err)
	}
	storetest.WaitFor(t, "the other replica to see the session ended", func() bool {
		ended, err := b.sessions.Check(ctx, ws.ID, id)
		return err == nil && ended
	})
}
