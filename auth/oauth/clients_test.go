package oauth_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"

	"vibesell/auth/oauth"
	"vibesell/store"
)

// Registration refuses what it cannot serve, with RFC 7591's errors.
func TestRegistrationRefusals(t *testing.T) {
	t.Parallel()
	e := setup(t)
	c := &raw{t: t, e: e}
	for name, tc := range map[string]struct {
		meta     map[string]any
		code     string
		sentence string
	}{
		"no redirect":       {map[string]any{"client_name": "X"}, "invalid_redirect_uri", "between 1 and 20 redirect URIs"},
		"plain http":        {map[string]any{"redirect_uris": []string{"http://app.example/cb"}}, "invalid_redirect_uri", "only for loopback addresses"},
		"fragment":          {map[string]any{"redirect_uris": []string{"https://app.example/cb#x"}}, "invalid_redirect_uri", "must not have a fragment"},
		"implicit grant":    {map[string]any{"redirect_uris": []string{callback}, "grant_types": []string{"implicit"}}, "invalid_client_metadata", `"implicit" is not offered`},
		"token response":    {map[string]any{"redirect_uris": []string{callback}, "response_types": []string{"token"}}, "invalid_client_metadata", `"token" is not offered`},
		"client javascript": {map[string]any{"redirect_uris": []string{"javascript:alert(1)"}}, "invalid_redirect_uri", "use https"},
	} {
		status, body := c.postJSON(oauth.PathRegister, tc.meta)
		if status != http.StatusBadRequest || body["error"] != tc.code || !strings.Contains(body["error_description"].(string), tc.sentence) {
			t.Errorf("%s: %d %v, want 400 %s saying %q", name, status, body, tc.code, tc.sentence)
		}
	}
}

// Claude registers both of its callbacks; each works.
func TestBothClaudeCallbacks(t *testing.T) {
	t.Parallel()
	e := setup(t)
	c := &raw{t: t, e: e, b: e.browser(t), verifier: strings.Repeat("v", 43)}
	callbacks := []string{"https://claude.ai/api/mcp/auth_callback", "https://claude.com/api/mcp/auth_callback"}
	status, body := c.postJSON(oauth.PathRegister, map[string]any{"client_name": "Claude", "redirect_uris": callbacks})
	if status != http.StatusCreated {
		t.Fatalf("register: %d %v", status, body)
	}
	c.clientID = body["client_id"].(string)
	for _, cb := range callbacks {
		path, page := c.b.ToConsent(c.authURL(func(q url.Values) { q.Set("redirect_uri", cb) }))
		to := c.b.Consent(path, page, "allow")
		if !strings.HasPrefix(to.String(), cb+"?") || to.Query().Get("code") == "" {
			t.Errorf("allow sent the browser to %s, want %s with a code", to, cb)
		}
	}
}

func TestTokenNeverInTheQuery(t *testing.T) {
	t.Parallel()
	e := setup(t)
	access, _ := e.raw(t).tokens()
	resp, err := http.Post(e.srv.URL+"/mcp?access_token="+url.QueryEscape(access), "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="invalid_request"`) {
		t.Errorf("a token in the query: %d %q, want 400 invalid_request", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
}

// The periodic job deletes registrations nobody connected a day after
// they were made, keeps connected ones, and ends connections unused for
// longer than a refresh token lives.
func TestUnusedClientsAreCollected(t *testing.T) {
	t.Parallel()
	e := setup(t)
	unused := e.raw(t)
	used := e.raw(t)
	used.tokens()
	worker := rivertest.NewWorker(t, riverpgxv5.New(e.pool), &river.Config{}, &store.Sweep[oauth.PruneClientsArgs]{Run: func(ctx context.Context) error { _, err := e.oauth.PruneClients(ctx); return err }})
	prune := func() {
		t.Helper()
		tx, err := e.pool.Begin(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(context.Background())
		if _, err := worker.Work(context.Background(), t, tx, oauth.PruneClientsArgs{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	registered := func(c *raw) bool {
		t.Helper()
		var n int
		if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM oauth_clients WHERE id = $1`, c.clientID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	e.clock.Advance(23 * time.Hour)
	prune()
	if !registered(unused) || !registered(used) {
		t.Fatal("a registration younger than a day was deleted")
	}
	e.clock.Advance(2 * time.Hour)
	prune()
	if registered(unused) {
		t.Error("an unused registration older than a day is kept")
	}
	if !registered(used) {
		t.Error("a connected client's registration was deleted")
	}

	// A connection unused past its refresh token's life ends, and its
	// registration goes with it.
	e.clock.Advance(31 * 24 * time.Hour)
	prune()
	if registered(used) {
		t.Error("a client unused for 31 days is still registered")
	}
	if conns, err := e.oauth.Connections(context.Background(), e.acme.ID); err != nil || len(conns) != 0 {
		t.Errorf("connections after 31 days unused: %v %v", conns, err)
	}
}

// A metadata document too large or too slow is refused, each with its
// reason.
func TestClientMetadataLimits(t *testing.T) {
	t.Parallel()
	host := newMetadataHost(t)
	big := host.publish("/big.json", map[string]any{"redirect_uris": []string{callback}, "client_name": strings.Repeat("x", 20<<10)})
	slow := newMetadataHost(t)
	slow.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	fetches := host.testFetches()
	fetches.RootCAs.AddCert(slow.srv.Certificate())
	fetches.Timeout = 300 * time.Millisecond
	e := setup(t, options{clientFetches: fetches})
	b := e.browser(t)
	for id, want := range map[string]string{big: "is larger than 16 KiB", slow.srv.URL + "/client.json": "could not be fetched"} {
		q := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {callback},
			"code_challenge": {challengeOf(strings.Repeat("v", 43))}, "code_challenge_method": {"S256"}, "resource": {e.srv.URL + "/mcp"}}
		resp, page := b.Get(oauth.PathAuthorize + "?" + q.Encode())
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, want) {
			t.Errorf("%s: %d, want 400 saying %q\n%s", id, resp.StatusCode, want, page)
		}
	}
}
