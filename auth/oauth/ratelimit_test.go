package oauth_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/auth/oauth"
	"vibesell/web"
)

// Registration and token requests are limited per client address (the
// proxy's header when one is configured), across the minute; past the
// limit the answer is 429 slow_down with Retry-After, and another address
// or the next minute goes through.
func TestRegisterAndTokenAreRateLimitedPerAddress(t *testing.T) {
	t.Parallel()
	clock := vibesell.NewManualClock(time.Date(2026, 12, 1, 9, 0, 15, 0, time.UTC))
	e := setup(t, options{clock: clock, rateLimits: oauth.RateLimits{Register: 2, Token: 3},
		clientIP: web.ClientIPFromHeader("X-Forwarded-For")})

	register := func(from string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+oauth.PathRegister,
			strings.NewReader(`{"client_name":"Claude","redirect_uris":["https://claude.ai/api/mcp/auth_callback"]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", "203.0.113.9, "+from)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	token := func(from string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+oauth.PathToken, strings.NewReader(url.Values{
			"grant_type": {"refresh_token"}, "refresh_token": {"vsr_unknown"}, "client_id": {"unknown"},
		}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-For", from)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	wantLimited := func(resp *http.Response, limit int) {
		t.Helper()
		var body struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		want := struct{ Status, RetryAfter, Error, Description string }{"429 Too Many Requests", "45", "slow_down",
			"Too many requests from your address: at most " + map[int]string{2: "2", 3: "3"}[limit] + " a minute. Try again in 45 seconds."}
		got := struct{ Status, RetryAfter, Error, Description string }{resp.Status, resp.Header.Get("Retry-After"), body.Error, body.Description}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("past the limit (-want +got):\n%s", diff)
		}
	}

	t.Run("register", func(t *testing.T) {
		for i := range 2 {
			if resp := register("198.51.100.1"); resp.StatusCode != http.StatusCreated {
				t.Fatalf("registration %d: %s", i+1, resp.Status)
			}
		}
		wantLimited(register("198.51.100.1"), 2)
		if resp := register("198.51.100.2"); resp.StatusCode != http.StatusCreated {
			t.Errorf("another address: %s, want 201", resp.Status)
		}
	})
	t.Run("token", func(t *testing.T) {
		for i := range 3 {
			if resp := token("198.51.100.1"); resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("token request %d: %s, want its own refusal", i+1, resp.Status)
			}
		}
		wantLimited(token("198.51.100.1"), 3)
	})
	t.Run("the next minute", func(t *testing.T) {
		clock.Advance(45 * time.Second)
		if resp := register("198.51.100.1"); resp.StatusCode != http.StatusCreated {
			t.Errorf("register the next minute: %s, want 201", resp.Status)
		}
		if resp := token("198.51.100.1"); resp.StatusCode == http.StatusTooManyRequests {
			t.Errorf("token the next minute: %s", resp.Status)
		}
	})
}
