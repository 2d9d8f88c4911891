package oauth_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkAuthenticate compares checking an OAuth access token (ES256
// signature, then its grant in PostgreSQL so that a disconnect holds at
// once on every replica) with checking a workspace token (one lookup), and
// measures a dynamic registration, which Claude makes on every fresh
// connection.
//
//	go test -run '^$' -bench Authenticate ./auth/oauth
func BenchmarkAuthenticate(b *testing.B) {
	e := setup(b)
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
			if _, _, err := e.oauth.Authenticate(ctx, access); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("dynamic registration over HTTP", func(b *testing.B) {
		body := `{"client_name":"Claude","redirect_uris":["https://claude.ai/api/mcp/auth_callback"]}`
		for b.Loop() {
			resp, err := http.Post(e.srv.URL+"/oauth/register", "application/json", strings.NewReader(body))
			if err != nil || resp.StatusCode != http.StatusCreated {
				b.Fatalf("register: %v %v", resp, err)
			}
			resp.Body.Close()
		}
	})
}
