// Package webtest is a person's browser for the web app's tests, without
// JavaScript: it keeps cookies, does not follow redirects, and sends the
// Origin a browser would, so tests see each answer as the server gave it.
package webtest

import (
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"vibesell/proofread"
)

// Browser talks to the web app at Base.
type Browser struct {
	t      testing.TB
	Base   string // the app's origin, e.g. http://127.0.0.1:41234
	Origin string // the Origin header of posts; "" sends none
	client *http.Client
}

// New returns a browser for the app served at base.
func New(t testing.TB, base string) *Browser {
	jar, _ := cookiejar.New(nil)
	return &Browser{t: t, Base: base, Origin: base, client: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Page is one answer of the app.
type Page struct {
	Status   int
	Body     string
	Location string
	Header   http.Header
}

// Get asks for a path ("/app/approvals") or an absolute URL.
func (b *Browser) Get(u string) Page {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.url(u), nil)
	if err != nil {
		b.t.Fatal(err)
	}
	return b.Do(req)
}

// Post sends a form to a path or an absolute URL.
func (b *Browser) Post(u string, form url.Values) Page {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.url(u), strings.NewReader(form.Encode()))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if b.Origin != "" {
		req.Header.Set("Origin", b.Origin)
	}
	return b.Do(req)
}

func (b *Browser) url(u string) string {
	if strings.HasPrefix(u, "/") {
		return b.Base + u
	}
	return u
}

// Do sends a request of the test's own making, with the browser's cookies.
func (b *Browser) Do(req *http.Request) Page {
	b.t.Helper()
	res, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	page := Page{Status: res.StatusCode, Body: string(body), Location: res.Header.Get("Location"), Header: res.Header}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		// Every page a test visits is proofread as a person reads it, so
		// a mistake in any sentence of any page fails the test that
		// showed it.
		for _, f := range proofread.Page(page.Body) {
			b.t.Errorf("%s %s: %s", req.Method, req.URL.Path, f)
		}
	}
	return page
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// CSRF returns the page's form token.
func (p Page) CSRF(t testing.TB) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(p.Body)
	if m == nil {
		t.Fatalf("no csrf field in the page:\n%s", p.Body)
	}
	return html.UnescapeString(m[1])
}

// SignIn signs in with the sign-in form, to come back to next.
func (b *Browser) SignIn(email, password, next string) {
	b.t.Helper()
	form := b.Get("/app/sign-in")
	p := b.Post("/app/sign-in", url.Values{"csrf": {form.CSRF(b.t)}, "email": {email}, "password": {password}, "next": {next}})
	if p.Status != http.StatusSeeOther || p.Location != next {
		b.t.Fatalf("sign in as %s: %d %s\n%s", email, p.Status, p.Location, p.Body)
	}
}
