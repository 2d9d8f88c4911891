package main

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
)

// The one-click unsubscribe of every message (RFC 8058) is answered by the
// server as it runs: a mail provider POSTs the signed link with no cookie,
// and the address is suppressed in that workspace before the answer, so
// no import or campaign writes to it again. A link whose signature does
// not match what it names does nothing.
func TestOneClickUnsubscribeSuppressesTheAddress(t *testing.T) {
	t.Parallel()
	f := setupFlow(t)
	acme, globex := f.two.Acme.ID, f.two.Globex.ID
	suppressions := f.svc.audience.MailSuppressions()
	post := func(token string) int {
		t.Helper()
		// A client of its own: no cookie jar, as a mail provider posts.
		resp, err := (&http.Client{}).Post(f.web.URL+"/u/"+token, "application/x-www-form-urlencoded",
			strings.NewReader("List-Unsubscribe=One-Click"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	suppressed := func() map[string]bool {
		t.Helper()
		out := map[string]bool{}
		for _, c := range []struct {
			name    string
			ws      uuid.UUID
			address string
		}{{"bo in Acme", acme, "bo@lead.test"}, {"bo in Globex", globex, "bo@lead.test"}, {"cy in Acme", acme, "cy@lead.test"}} {
			ok, err := suppressions.Suppressed(t.Context(), c.ws, c.address)
			if err != nil {
				t.Fatal(err)
			}
			out[c.name] = ok
		}
		return out
	}

	t.Run("a forged link does nothing", func(t *testing.T) {
		bo, cy := f.mailSecret.UnsubscribeToken(acme, "bo@lead.test"), f.mailSecret.UnsubscribeToken(acme, "cy@lead.test")
		cyPayload, _, _ := strings.Cut(cy, ".")
		_, boMAC, _ := strings.Cut(bo, ".")
		if code := post(cyPayload + "." + boMAC); code != http.StatusNotFound {
			t.Errorf("forged link: status %d, want 404", code)
		}
		if diff := cmp.Diff(map[string]bool{"bo in Acme": false, "bo in Globex": false, "cy in Acme": false}, suppressed()); diff != "" {
			t.Errorf("suppressed after a forged link (-want +got):\n%s", diff)
		}
	})

	t.Run("a signed link suppresses its address in its workspace", func(t *testing.T) {
		if code := post(f.mailSecret.UnsubscribeToken(acme, "Bo@Lead.test")); code != http.StatusOK {
			t.Fatalf("status %d, want 200", code)
		}
		if diff := cmp.Diff(map[string]bool{"bo in Acme": true, "bo in Globex": false, "cy in Acme": false}, suppressed()); diff != "" {
			t.Errorf("suppressed (-want +got):\n%s", diff)
		}
		var reason string
		if err := f.pool.QueryRow(t.Context(), `SELECT reason FROM suppressions WHERE workspace_id = $1 AND value = 'bo@lead.test'`, acme).Scan(&reason); err != nil {
			t.Fatal(err)
		}
		if reason != "unsubscribe" {
			t.Errorf("reason %q, want unsubscribe", reason)
		}
		if code := post(f.mailSecret.UnsubscribeToken(acme, "bo@lead.test")); code != http.StatusOK {
			t.Errorf("a second click: status %d, want 200", code)
		}
	})
}

// No page of the server can be framed by another site (a click on
// Unsubscribe, Approve or Connect stolen under a decoy): every answer,
// whatever handler wrote it and whatever its status, forbids framing with
// both X-Frame-Options and the CSP's frame-ancestors.
func TestNoPageCanBeFramed(t *testing.T) {
	t.Parallel()
	f := setupFlow(t)
	token := f.mailSecret.UnsubscribeToken(f.two.Acme.ID, "bo@lead.test")
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, c := range []struct{ method, path string }{
		{"GET", "/u/" + token}, {"POST", "/u/" + token}, {"GET", "/u/not-a-token"},
		{"GET", "/"}, {"GET", "/app/sign-in"}, {"GET", "/app/approvals"}, {"GET", "/app/leads"}, {"GET", "/app/no-such-page"},
		{"GET", "/oauth/authorize?client_id=x"}, {"GET", "/healthz"}, {"GET", "/no-such-page"},
	} {
		req, err := http.NewRequest(c.method, f.web.URL+c.path, strings.NewReader("List-Unsubscribe=One-Click"))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got := []string{resp.Header.Get("X-Frame-Options"), strconv.FormatBool(strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'"))}
		if diff := cmp.Diff([]string{"DENY", "true"}, got); diff != "" {
			t.Errorf("%s %s (%d): X-Frame-Options, CSP frame-ancestors 'none' mismatch (-want +got):\n%s", c.method, c.path, resp.StatusCode, diff)
		}
	}
}
