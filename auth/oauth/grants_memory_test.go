package oauth_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/auth"
	"vibesell/auth/oauth"
	"vibesell/store/storetest"
	"vibesell/workspace"
)

// grantReplica is one server process's view of a shared database: its
// own pool (whose round trips are counted), its own notifications and its
// own OAuth server keeping grants in memory.
type grantReplica struct {
	pool  *pgxpool.Pool
	trips *storetest.RoundTrips
	oauth *oauth.Server
}

func newGrantReplica(t *testing.T, url string) *grantReplica {
	t.Helper()
	r := &grantReplica{}
	r.pool, r.trips = storetest.NewCountedOn(t, url)
	r.oauth = oauth.New(oauth.Deps{PublicURL: "https://vibesell.example", DB: r.pool, Logger: slog.New(slog.DiscardHandler),
		Notes: storetest.StartNotifications(t, r.pool), GrantsKept: 100})
	if err := r.oauth.Keys().Ensure(context.Background()); err != nil {
		t.Fatal(err)
	}
	return r
}

// tripsOf counts the round trips fn makes.
func (r *grantReplica) tripsOf(fn func()) int64 {
	before := r.trips.Count()
	fn()
	return r.trips.Count() - before
}

// refusedEverywhere waits until every replica refuses token, and then, a
// second after the change that should refuse it was committed, checks
// that every replica refuses it on its very next request: the promise is
// "within a second", whether the notification came or was lost.
func refusedEverywhere(t *testing.T, what string, changed time.Time, token string, replicas ...*grantReplica) {
	t.Helper()
	refused := func(r *grantReplica) bool {
		_, err := r.oauth.Authenticate(context.Background(), token)
		return err != nil && strings.Contains(err.Error(), "disconnected")
	}
	for i, r := range replicas {
		took := storetest.WaitFor(t, what, func() bool { return refused(r) })
		t.Logf("%s: refused by replica %d after %s", what, i+1, took)
	}
	time.Sleep(time.Until(changed.Add(time.Second)))
	for i, r := range replicas {
		if !refused(r) {
			t.Errorf("%s: replica %d accepts the token a second after the change", what, i+1)
		}
	}
}

func TestGrantsAreKeptInMemoryAndRevokedEverywhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := storetest.NewURL(t)
	one, two := newGrantReplica(t, url), newGrantReplica(t, url)
	acme, err := workspace.New(workspace.Deps{DB: one.pool, Clock: vibesell.SystemClock{}}).Create(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	accounts := auth.NewAccounts(auth.AccountsDeps{DB: one.pool})
	ada, err := accounts.CreateUser(ctx, auth.NewUser{WorkspaceID: acme.ID, Email: "ada@acme.test", Password: password})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := one.pool.Exec(ctx, `INSERT INTO oauth_clients (id, kind, name, redirect_uris, created_at)
		VALUES ('c1', 'dcr', 'Claude', '{https://claude.ai/cb}', now())`); err != nil {
		t.Fatal(err)
	}
	// connect grants Claude access to Acme for Ada and returns a token.
	connect := func(t *testing.T) (uuid.UUID, string) {
		t.Helper()
		id := uuid.New()
		if _, err := one.pool.Exec(ctx, `INSERT INTO oauth_grants (id, workspace_id, user_id, client_id, scope, resource, created_at)
			VALUES ($1, $2, $3, 'c1', 'vibesell:read vibesell:write', 'https://vibesell.example/mcp', now())`, id, acme.ID, ada.ID); err != nil {
			t.Fatal(err)
		}
		token, err := oauth.IssueAccess(one.oauth, id)
		if err != nil {
			t.Fatal(err)
		}
		return id, token
	}
	// kept checks that both replicas accept token, the second time
	// without a round trip.
	kept := func(t *testing.T, grant uuid.UUID, token string) {
		t.Helper()
		want := auth.Principal{WorkspaceID: acme.ID, WorkspaceSlug: acme.Slug, UserID: ada.ID, UserEmail: "ada@acme.test",
			GrantID: grant, ClientName: "Claude", Scopes: []string{vibesell.ScopeRead, vibesell.ScopeWrite}}
		for i, r := range []*grantReplica{one, two} {
			if _, err := r.oauth.Authenticate(ctx, token); err != nil {
				t.Fatalf("replica %d: %v", i+1, err)
			}
			var p auth.Principal
			if n := r.tripsOf(func() {
				if p, err = r.oauth.Authenticate(ctx, token); err != nil {
					t.Fatalf("replica %d, again: %v", i+1, err)
				}
			}); n != 0 {
				t.Errorf("replica %d: a grant checked before cost %d round trips", i+1, n)
			}
			if diff := cmp.Diff(want, p); diff != "" {
				t.Errorf("replica %d: principal from memory (-want +got):\n%s", i+1, diff)
			}
		}
	}

	t.Run("disconnected on one replica, refused on both", func(t *testing.T) {
		grant, token := connect(t)
		kept(t, grant, token)
		if err := one.oauth.Disconnect(ctx, acme.ID, grant, "ada@acme.test"); err != nil {
			t.Fatal(err)
		}
		refusedEverywhere(t, "disconnected", time.Now(), token, one, two)
	})

	t.Run("the person disabled", func(t *testing.T) {
		grant, token := connect(t)
		kept(t, grant, token)
		if _, err := one.pool.Exec(ctx, `UPDATE users SET disabled_at = now() WHERE id = $1`, ada.ID); err != nil {
			t.Fatal(err)
		}
		refusedEverywhere(t, "person disabled", time.Now(), token, one, two)
		if _, err := one.pool.Exec(ctx, `UPDATE users SET disabled_at = NULL WHERE id = $1`, ada.ID); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("the person removed from the workspace", func(t *testing.T) {
		grant, token := connect(t)
		kept(t, grant, token)
		if _, err := one.pool.Exec(ctx, `DELETE FROM memberships WHERE user_id = $1 AND workspace_id = $2`, ada.ID, acme.ID); err != nil {
			t.Fatal(err)
		}
		refusedEverywhere(t, "membership ended", time.Now(), token, one, two)
		if _, err := one.pool.Exec(ctx, `INSERT INTO memberships (user_id, workspace_id, created_at) VALUES ($1, $2, now())`, ada.ID, acme.ID); err != nil {
			t.Fatal(err)
		}
	})

	// A lost notification connection: the replica reads the database
	// until it listens again, and never answers from what it kept.
	t.Run("revoked while the notifications are lost", func(t *testing.T) {
		grant, token := connect(t)
		kept(t, grant, token)
		storetest.DropListeners(t, two.pool)
		if _, err := one.pool.Exec(ctx, `UPDATE oauth_grants SET revoked_at = now() WHERE id = $1`, grant); err != nil {
			t.Fatal(err)
		}
		refusedEverywhere(t, "revoked while not listening", time.Now(), token, one, two)
	})
}

// An access token's signature, issuer and audience are checked once; its
// times on every request, so a kept token still expires.
func TestAccessTokenVerifiedOnce(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	access, _ := e.raw(t).tokens()
	for range 3 {
		if _, err := e.oauth.Authenticate(ctx, access); err != nil {
			t.Fatal(err)
		}
	}
	if n := oauth.VerifiedKept(e.oauth); n != 1 {
		t.Errorf("%d tokens kept as verified, want the one used", n)
	}
	other, err := oauth.Reissue(e.oauth, access, func(aud *[]string, _ *string) { *aud = []string{"https://elsewhere.example/mcp"} })
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := e.oauth.Authenticate(ctx, other); err == nil || !strings.Contains(err.Error(), "elsewhere.example") {
			t.Fatalf("a token for another resource: %v", err)
		}
	}
	if n := oauth.VerifiedKept(e.oauth); n != 1 {
		t.Errorf("%d tokens kept as verified after a refused one, want 1", n)
	}
	e.clock.Set(e.clock.Now().Add(time.Hour))
	if _, err := e.oauth.Authenticate(ctx, access); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Errorf("the kept token an hour later: %v, want expired", err)
	}
}
