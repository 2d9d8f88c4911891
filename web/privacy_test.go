package web_test

import (
	"html"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
	"vibesell/auth/oauth"
	"vibesell/proof"
	"vibesell/sandboxmail"
	"vibesell/web"
	"vibesell/webhooks"
)

// spoken writes a duration as the test expects a person to read it,
// independently of the page's own writing: whole days, else whole hours,
// else minutes.
func spoken(d time.Duration) string {
	n, unit := int(d/time.Minute), "minute"
	switch {
	case d%(24*time.Hour) == 0:
		n, unit = int(d/(24*time.Hour)), "day"
	case d%time.Hour == 0:
		n, unit = int(d/time.Hour), "hour"
	}
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}

var tags = regexp.MustCompile(`<[^>]+>`)

// pageText is a page's words as a person reads them: no tags, one space
// between words.
func pageText(body string) string {
	return strings.Join(strings.Fields(html.UnescapeString(tags.ReplaceAllString(body, " "))), " ")
}

// The privacy page states each retention the code keeps, with the code's
// own figure: changing a constant without the page (or the page without
// the constant) fails here. It is read signed out, as the directory and a
// person deciding to connect read it.
func TestPrivacyPageFiguresAreTheCodes(t *testing.T) {
	t.Parallel()
	jobsKept := 36 * time.Hour
	a := setup(t, func(_ *app, d *web.Deps) { d.JobsKept = jobsKept; d.SupportEmail = "help@operator.test" })
	p := a.browser(t).Get(web.PrivacyPath)
	if p.Status != http.StatusOK {
		t.Fatalf("privacy page signed out: %d %s", p.Status, p.Location)
	}
	text := pageText(p.Body)
	for _, want := range []string{
		"A sign-in lasts at most " + spoken(auth.WebSessionLifetime),
		"ends after " + spoken(auth.WebSessionIdleLimit) + " without use",
		"Failed sign-in attempts are counted for " + spoken(auth.SignInWindow),
		"recognised for " + spoken(auth.DeviceLifetime),
		"keeps the last " + vibesell.Count(sandboxmail.OutboxKeeps) + " messages",
		"An approval nobody decides expires after " + spoken(approvals.DefaultTTL),
		"card works for " + spoken(proof.TTL),
		"access lasts " + spoken(oauth.AccessTokenLifetime) + " at a time and renews for up to " + spoken(oauth.RefreshTokenLifetime),
		"never allowed is deleted after " + spoken(oauth.UnusedClientKept),
		"session ends after " + spoken(auth.MCPSessionIdleLimit) + " without use and is deleted " + spoken(auth.EndedMCPSessionKept) + " after it ends",
		"Deleted " + spoken(jobsKept) + " after the task is done",
		"Kept for good",                         // the do-not-email list
		"this server never sees or stores them", // card numbers: Stripe's
		"help@operator.test",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the privacy page lacks %q", want)
		}
	}
	if want := spoken(webhooks.Kept) + ", then deleted"; !strings.Contains(text, want) {
		t.Errorf("the privacy page lacks the webhooks' %q", want)
	}
	mustNotNameTools(t, p.Body)
}

// The terms, the privacy page and the support page answer anyone, and
// the sign-in page and every page's footer link them.
func TestPolicyAndSupportPagesAnswerSignedOut(t *testing.T) {
	t.Parallel()
	a := setup(t, func(_ *app, d *web.Deps) { d.SupportEmail = "help@operator.test" })
	b := a.browser(t)
	for path, want := range map[string]string{
		web.TermsPath:   "The assistant cannot pay",
		web.PrivacyPath: "What we keep",
		"/app/support":  `<a href="mailto:help@operator.test">help@operator.test</a>`,
	} {
		p := b.Get(path)
		if p.Status != http.StatusOK {
			t.Errorf("%s signed out: %d %s", path, p.Status, p.Location)
			continue
		}
		if !strings.Contains(p.Body, want) {
			t.Errorf("%s lacks %q", path, want)
		}
		if strings.Contains(p.Body, "Tickets") {
			t.Errorf("%s shows tickets signed out", path)
		}
	}
	signIn := b.Get("/app/sign-in")
	for _, link := range []string{`href="/privacy"`, `href="/terms"`, `href="/app/support"`} {
		if n := strings.Count(signIn.Body, link); n < 2 { // the sign-in card and the footer
			t.Errorf("the sign-in page links %s %d times, want the card's and the footer's", link, n)
		}
	}
	// Without SUPPORT_EMAIL the support page still says how to reach the
	// operator.
	bare := setup(t)
	if p := bare.browser(t).Get("/app/support"); p.Status != http.StatusOK || !strings.Contains(p.Body, "Ask the assistant to contact support") {
		t.Errorf("support page without an address: %d", p.Status)
	}
}
