package oauth_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/auth"
	"vibesell/auth/oauth"
	"vibesell/store"
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
	notes *store.Notifications

	// What the replica's notifications handed on, after its OAuth server
	// (subscribed first) had handled it.
	mu     sync.Mutex
	heard  map[string]bool // payloads on the grants channel
	resets int             // reconnections, each forgetting what was kept
}

func newGrantReplica(t *testing.T, url string) *grantReplica {
	t.Helper()
	r := &grantReplica{heard: map[string]bool{}}
	r.pool, r.trips = storetest.NewCountedOn(t, url)
	r.notes = storetest.StartNotifications(t, r.pool)
	r.oauth = oauth.New(oauth.Deps{PublicURL: "https://vibesell.example", DB: r.pool, Logger: slog.New(slog.DiscardHandler),
		Notes: r.notes, GrantsKept: 100})
	if err := r.oauth.Keys().Ensure(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.notes.Subscribe(store.GrantsChannel, func(payload string) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.heard[payload] = true
	}, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.resets++
	})
	return r
}

// tripsOf counts the round trips fn makes.
func (r *grantReplica) tripsOf(fn func()) int64 {
	before := r.trips.Count()
	fn()
	return r.trips.Count() - before
}

// caughtUp reports whether the replica may no longer answer from what it
// kept before marker was sent: it has handled every grant notification
// committed before marker (marker's own came back), or it reconnected
// since it had reset resets times (and forgot all it kept), or its
// notifications are not fresh (so it reads the database).
func (r *grantReplica) caughtUp(marker string, resets int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.heard[marker] || r.resets > resets || !r.notes.Fresh()
}

// refusedEverywhere checks that every replica refuses token on its very
// next request once the change that should refuse it (committed before
// the call) has reached it, whether its notification came or was lost.
// The test waits for that event, not for the clock: a marker notified
// after the change coming back (PostgreSQL delivers notifications in the
// order their transactions committed, so the change's own came first), a
// reconnection, or notifications no longer fresh. The product promises
// the event within a second (store.Notifications.Fresh trusts no
// heartbeat older than that); WaitFor allows 10 s, so a loaded machine
// slows the test without failing it. No request is made to a replica
// before the one checked, so none has read the database on its behalf.
func refusedEverywhere(t *testing.T, what, token string, replicas ...*grantReplica) {
	t.Helper()
	resets := make([]int, len(replicas))
	for i, r := range replicas {
		r.mu.Lock()
		resets[i] = r.resets
		r.mu.Unlock()
	}
	marker := uuid.NewString()
	if _, err := replicas[0].pool.Exec(context.Background(), `SELECT pg_notify($1, $2)`, store.GrantsChannel, marker); err != nil {
		t.Fatal(err)
	}
	for i, r := range replicas {
		took := storetest.WaitFor(t, fmt.Sprintf("replica %d to catch up with %s", i+1, what), func() bool { return r.caughtUp(marker, resets[i]) })
		if _, err := r.oauth.Authenticate(context.Background(), token); err == nil || !strings.Contains(err.Error(), "disconnected") {
			t.Errorf("%s: replica %d, caught up after %s, answers the token with %v", what, i+1, took, err)
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
		refusedEverywhere(t, "disconnected", token, one, two)
	})

	t.Run("the person disabled", func(t *testing.T) {
		grant, token := connect(t)
		kept(t, grant, token)
		if _, err := one.pool.Exec(ctx, `UPDATE users SET disabled_at = now() WHERE id = $1`, ada.ID); err != nil {
			t.Fatal(err)
		}
		refusedEverywhere(t, "person disabled", token, one, two)
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
		refusedEverywhere(t, "membership ended", token, one, two)
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
		refusedEverywhere(t, "revoked while not listening", token, one, two)
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
