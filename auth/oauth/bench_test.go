package oauth_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"vibesell/auth/oauth"
	"vibesell/store/storetest"
)

// BenchmarkAuthenticate compares checking an OAuth access token (its ES256
// signature, checked once per token, and its times; then its grant: read
// from PostgreSQL, or kept in memory as serve keeps it) with checking a
// workspace token (one lookup), and
// measures a dynamic registration, which Claude makes on every fresh
// connection, with and without counting it against the rate limit.
//
//	go test -run '^$' -bench Authenticate ./auth/oauth
func BenchmarkAuthenticate(b *testing.B) {
	// Registration is measured, not limited.
	e := setup(b, options{rateLimits: oauth.RateLimits{Register: -1}})
	ctx := context.Background()
	access, _ := e.raw(b).tokens()
	wsToken, err := e.tokens.Create(ctx, e.acme.ID)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("workspace token", func(b *testing.B) {
		for b.Loop() {
			if _, err := e.tokens.Authenticate(ctx, wsToken); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("OAuth access token", func(b *testing.B) {
		for b.Loop() {
			if _, err := e.oauth.Authenticate(ctx, access); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The same server as serve builds it, on the same keys.
	kept := oauth.New(oauth.Deps{PublicURL: e.publicURL, DB: e.pool, Clock: e.clock, Logger: slog.New(slog.DiscardHandler),
		Notes: storetest.StartNotifications(b, e.pool), GrantsKept: 100})
	if err := kept.Keys().Ensure(ctx); err != nil {
		b.Fatal(err)
	}
	b.Run("OAuth access token, grant kept in memory", func(b *testing.B) {
		for b.Loop() {
			if _, err := kept.Authenticate(ctx, access); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Registration with the per-address limit counted (and never reached)
	// against the same without it: the cost of counting in PostgreSQL.
	limited := setup(b, options{rateLimits: oauth.RateLimits{Register: 1 << 30}})
	for name, srv := range map[string]string{"dynamic registration over HTTP": e.srv.URL, "dynamic registration over HTTP, limit counted": limited.srv.URL} {
		b.Run(name, func(b *testing.B) {
			body := `{"client_name":"Claude","redirect_uris":["https://claude.ai/api/mcp/auth_callback"]}`
			for b.Loop() {
				resp, err := http.Post(srv+"/oauth/register", "application/json", strings.NewReader(body))
				if err != nil || resp.StatusCode != http.StatusCreated {
					b.Fatalf("register: %v %v", resp, err)
				}
				resp.Body.Close()
			}
		})
	}
}
