package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"vibesell/store/storetest"
)

var (
	userCreateInGreeting = regexp.MustCompile(`go run \./cmd/server (user create --workspace \S+ --email \S+)\n`)
	signInInGreeting     = regexp.MustCompile(`then sign in at:\n  (\S+)\n`)
	passwordPrinted      = regexp.MustCompile(`Password \(shown only once\): (\S+)`)
	csrfInForm           = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
)

// The first start says how to get into the web app, and following it
// word for word works: the command it gives makes an account, the address
// it gives signs that account in. The server's root leads there too.
func TestFirstStartShowsTheWayIntoTheWebApp(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewEmptyURL(t)
	s := startServer(t, "DATABASE_URL", dbURL, "LOG_LEVEL", "warn")
	s.waitReady(t)
	greeting := s.stdout.String()

	create := userCreateInGreeting.FindStringSubmatch(greeting)
	signIn := signInInGreeting.FindStringSubmatch(greeting)
	if create == nil || signIn == nil {
		t.Fatalf("the greeting does not say how to create a web account and where to sign in:\n%s", greeting)
	}
	if want := "http://" + s.addr + "/app/sign-in"; signIn[1] != want {
		t.Fatalf("the greeting says to sign in at %s, want %s", signIn[1], want)
	}
	out, err := runCmd(t, env("DATABASE_URL", dbURL, "LOG_LEVEL", "error"), strings.Fields(create[1])...)
	if err != nil {
		t.Fatalf("the greeting's command %q: %v", create[1], err)
	}
	password := passwordPrinted.FindStringSubmatch(out)
	if password == nil || !strings.Contains(out, "Sign in at "+signIn[1]+"\n") {
		t.Fatalf("the greeting's command printed:\n%s", out)
	}

	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	// The root leads to the sign-in page.
	res, err := browser.Get("http://" + s.addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Request.URL.Path != "/app/sign-in" {
		t.Fatalf("/ led to %s", res.Request.URL)
	}
	if !strings.Contains(string(body), "No account yet?") {
		t.Fatalf("/ led to a page that does not say how to get an account:\n%s", body)
	}
	// A browser asks for /favicon.ico on a page that links no icon.
	if icon, err := browser.Get("http://" + s.addr + "/favicon.ico"); err != nil || icon.StatusCode != http.StatusOK ||
		icon.Header.Get("Content-Type") != "image/svg+xml" {
		t.Fatalf("/favicon.ico: %v %v", err, icon)
	} else {
		icon.Body.Close()
	}
	csrf := csrfInForm.FindStringSubmatch(string(body))
	if csrf == nil {
		t.Fatalf("no sign-in form at the end of /:\n%s", body)
	}
	form := url.Values{"csrf": {csrf[1]}, "email": {"you@example.com"}, "password": {password[1]}, "next": {"/app/approvals"}}
	req, _ := http.NewRequest(http.MethodPost, signIn[1], strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://"+s.addr)
	res, err = browser.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Request.URL.Path != "/app/approvals" {
		t.Fatalf("signing in as the greeting says ended at %d %s", res.StatusCode, res.Request.URL)
	}
}
