// Package oauthtest plays, for tests, the person at the browser in an
// OAuth authorization: they sign in to the web app and answer its consent
// page, over real HTTP, without JavaScript.
package oauthtest

import (
	"context"
	"errors"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"vibesell/auth/oauth"
)

// Browser is a person's browser: a cookie jar, and redirects shown rather
// than followed, so a test sees each step.
type Browser struct {
	t testing.TB
	// Base is where requests go (the server's listener); Origin is what
	// forms are posted from (PUBLIC_URL's origin).
	Base, Origin    string
	Email, Password string
	client          *http.Client
}

// New returns the browser of a person with an account, on a server
// listening at base whose PUBLIC_URL has the given origin.
func New(t testing.TB, base, origin, email, password string) *Browser {
	jar, _ := cookiejar.New(nil)
	return &Browser{t: t, Base: base, Origin: origin, Email: email, Password: password,
		client: &http.Client{Jar: jar, Timeout: 10 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// Get gets u (a path on Base, or absolute) and returns the answer and its
// body.
func (b *Browser) Get(u string) (*http.Response, string) {
	b.t.Helper()
	resp, err := b.client.Get(b.abs(u))
	if err != nil {
		b.t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(body)
}

// Post posts a form to u as a page of origin would.
func (b *Browser) Post(u string, form url.Values, origin string) (*http.Response, string) {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, b.abs(u), strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", origin)
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(body)
}

func (b *Browser) abs(u string) string {
	if strings.HasPrefix(u, "/") {
		return b.Base + u
	}
	return u
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// CSRF returns the CSRF token of a page's form.
func CSRF(t testing.TB, page string) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF field on the page:\n%s", page)
	}
	return html.UnescapeString(m[1])
}

// WantStatus stops the test unless resp has the status.
func WantStatus(t testing.TB, resp *http.Response, want int, body string) {
	t.Helper()
	if resp.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d\n%s", resp.Request.Method, resp.Request.URL, resp.StatusCode, want, body)
	}
}

// ToConsent follows an authorization URL as a person does: to the consent
// page, through sign-in when not signed in. It returns the consent page's
// path and body.
func (b *Browser) ToConsent(authURL string) (string, string) {
	b.t.Helper()
	resp, body := b.Get(authURL)
	WantStatus(b.t, resp, http.StatusSeeOther, body)
	consent := resp.Header.Get("Location")
	if !strings.HasPrefix(consent, oauth.PathConsent) {
		b.t.Fatalf("authorize sent the browser to %q, want the consent page", consent)
	}
	return consent, b.Open(consent)
}

// Open gets a page of the web app, signing in when asked to, and returns
// the page.
func (b *Browser) Open(path string) string {
	b.t.Helper()
	resp, body := b.Get(path)
	if resp.StatusCode == http.StatusSeeOther {
		signIn := resp.Header.Get("Location")
		resp, body = b.Get(signIn)
		WantStatus(b.t, resp, http.StatusOK, body)
		next, _ := url.Parse(signIn)
		resp, body = b.Post("/app/sign-in", url.Values{"email": {b.Email}, "password": {b.Password},
			"csrf": {CSRF(b.t, body)}, "next": {next.Query().Get("next")}}, b.Origin)
		WantStatus(b.t, resp, http.StatusSeeOther, body)
		if got := resp.Header.Get("Location"); got != path {
			b.t.Fatalf("sign-in went on to %q, want back to %q", got, path)
		}
		resp, body = b.Get(path)
	}
	WantStatus(b.t, resp, http.StatusOK, body)
	return body
}

// Consent answers the consent page ("allow" or "deny") and returns where
// the browser is sent.
func (b *Browser) Consent(path, page, decision string) *url.URL {
	b.t.Helper()
	resp, body := b.Post(path, url.Values{"csrf": {CSRF(b.t, page)}, "decision": {decision}}, b.Origin)
	WantStatus(b.t, resp, http.StatusSeeOther, body)
	to, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		b.t.Fatal(err)
	}
	return to
}

// Fetcher is the Go SDK's AuthorizationCodeFetcher played by this person,
// who signs in and allows; check, when set, sees the consent page.
func (b *Browser) Fetcher(check func(page string)) sdkauth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *sdkauth.AuthorizationArgs) (*sdkauth.AuthorizationResult, error) {
		path, page := b.ToConsent(args.URL)
		if check != nil {
			check(page)
		}
		to := b.Consent(path, page, "allow")
		q := to.Query()
		if q.Get("code") == "" {
			return nil, errors.New("no code in the redirect: " + to.String())
		}
		return &sdkauth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
	}
}
