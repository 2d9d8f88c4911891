package web_test

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/riverqueue/river"

	"vibesell/approvals"
	"vibesell/store/storetest"
	"vibesell/web/webtest"
)

// upload posts a CSV file to the leads page's upload form.
func (b browser) upload(t *testing.T, name, content, csrf string) webtest.Page {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("csrf", csrf)
	fw, _ := mw.CreateFormFile("file", name)
	fw.Write([]byte(content))
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, b.Base+"/app/leads/uploads", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", b.Origin)
	return b.Do(req)
}

// startWorkers works the approvals' jobs in the background, as a server
// does: the browser test waits on the page, as a person would, for an
// import of 100,000 rows in batches.
func (a *app) startWorkers(t *testing.T) {
	t.Helper()
	workers := river.NewWorkers()
	periodic := approvals.AddWorkers(workers, a.approvals)
	storetest.StartRiver(t, a.pool, &river.Config{Workers: workers, PeriodicJobs: periodic})
}

// The upload path over HTTP: the first rows and a guessed mapping, the
// invalid rows by line once checked, the approval it asks for, another
// workspace's upload not found, and blocking an address.
func TestUploadingLeads(t *testing.T) {
	t.Parallel()
	a := setup(t)
	b := a.browser(t)
	b.signIn("ada@acme.test")
	leads := b.Get("/app/leads")
	if leads.Status != http.StatusOK || !strings.Contains(leads.Body, "Upload a list of people") {
		t.Fatalf("leads page: %d\n%s", leads.Status, leads.Body)
	}
	up := b.upload(t, "people.csv", "Email,First name,Company\nana@alpha.test,Ana,Alpha\nnot-an-address,Bob,Beta\nana@alpha.test,Ana,Alpha\ncid@gamma.test,Cid,Gamma\ninfo@delta.test,,Delta\n", leads.CSRF(t))
	if up.Status != http.StatusSeeOther || !regexp.MustCompile(`^/app/leads/uploads/up_[0-9a-f]{16}$`).MatchString(up.Location) {
		t.Fatalf("upload: %d %s\n%s", up.Status, up.Location, up.Body)
	}
	page := b.Get(up.Location)
	for _, want := range []string{"<td>not-an-address</td>", `<option value="email" selected>Email</option>`, `<option value="first_name" selected>First name</option>`} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("upload page lacks %q", want)
		}
	}
	refused := b.Post(up.Location+"/check", url.Values{"csrf": {page.CSRF(t)}, "col0": {""}, "col1": {"first_name"}, "col2": {"company"}})
	if refused.Status != http.StatusUnprocessableEntity || !strings.Contains(refused.Body, "No column is set to email") {
		t.Errorf("a mapping without email: %d", refused.Status)
	}
	checked := b.Post(up.Location+"/check", url.Values{"csrf": {page.CSRF(t)}, "col0": {"email"}, "col1": {"first_name"}, "col2": {"company"}})
	if checked.Status != http.StatusSeeOther {
		t.Fatalf("check: %d\n%s", checked.Status, checked.Body)
	}
	page = b.Get(checked.Location)
	for _, want := range []string{`<dd id="valid">3</dd>`, `<dd id="duplicates">1 (`, `<dd id="invalid">1</dd>`, "<td>3</td><td>&#39;not-an-address&#39; is not an email address</td>"} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("checked page lacks %q", want)
		}
	}
	ask := b.Post(strings.TrimSuffix(checked.Location, "?checked=1")+"/import", url.Values{"csrf": {page.CSRF(t)}})
	if ask.Status != http.StatusSeeOther || !strings.HasPrefix(ask.Location, "/app/approvals/ap_") {
		t.Fatalf("ask to import: %d %s\n%s", ask.Status, ask.Location, ask.Body)
	}
	ap := b.Get(ask.Location)
	if !strings.Contains(ap.Body, "Imports 2 rows from the file people.csv") {
		t.Errorf("approval page:\n%s", ap.Body)
	}
	// Carried out, the leads page says what was left out, each count
	// apart: the invalid line, the repeated one and the role address.
	if r := b.Post(ask.Location+"/approve", url.Values{"csrf": {ap.CSRF(t)}, "confirm": {"yes"}}); r.Status != http.StatusSeeOther {
		t.Fatalf("approve the import: %d\n%s", r.Status, r.Body)
	}
	if done := a.execute(t, strings.TrimPrefix(ask.Location, "/app/approvals/")); done.Status != approvals.Done {
		t.Fatalf("the import: %s %v", done.Status, done.Outcome)
	}
	want := "Done: 2 imported; not imported: 1 invalid line of the file, 1 line repeating an address already in the file and 1 with a role address (info@, sales@…)."
	if p := b.Get("/app/leads"); !strings.Contains(html.UnescapeString(p.Body), want) {
		t.Errorf("the leads page does not say %q:\n%s", want, p.Body)
	}

	other := a.browser(t)
	other.signIn("bob@globex.test")
	if p := other.Get(up.Location); p.Status != http.StatusNotFound {
		t.Errorf("Globex opens Acme's upload: %d", p.Status)
	}

	blocked := b.Post("/app/leads/suppressions", url.Values{"csrf": {leads.CSRF(t)}, "entries": {"cid@gamma.test\nbeta.test"}})
	if !strings.Contains(blocked.Body, "Blocked 1 address and 1 whole domain.") {
		t.Errorf("block:\n%s", blocked.Body)
	}
	bad := b.Post("/app/leads/suppressions", url.Values{"csrf": {leads.CSRF(t)}, "entries": {"nonsense"}})
	if bad.Status != http.StatusUnprocessableEntity || !strings.Contains(bad.Body, "neither an email address nor a domain") {
		t.Errorf("block nonsense: %d", bad.Status)
	}
}

// A 100,000-row CSV uploaded through the page in a real browser: the
// columns mapped, the invalid rows listed by line, the import approved
// and carried out.
func TestBrowserUploadsAHundredThousandLeads(t *testing.T) {
	if testing.Short() {
		t.Skip("uploads and imports 100,000 rows in a browser")
	}
	t.Parallel()
	a := setup(t)
	a.startWorkers(t)

	var csv strings.Builder
	csv.WriteString("Work Email,Given name,Organisation,Notes\n")
	for i := range 100_000 {
		switch {
		case i == 41_999:
			csv.WriteString("not an address,Broken,Row,x\n") // line 42,001
		default:
			fmt.Fprintf(&csv, "person%d@company%d.test,Person %d,Company %d,x\n", i, i%700, i, i%700)
		}
	}
	file := filepath.Join(t.TempDir(), "prospects.csv")
	if err := os.WriteFile(file, []byte(csv.String()), 0o600); err != nil {
		t.Fatal(err)
	}

	ctx := webtest.ChromiumWithin(t, 3*time.Minute)
	tab := webtest.NewTab(t, ctx)
	step, text := tab.Step, tab.Text

	step("open the leads page", chromedp.Navigate(a.srv.URL+"/app/leads"))
	step("wait for the sign-in form", chromedp.WaitVisible(chromedp.ID("email")))
	step("type the email", chromedp.SendKeys(chromedp.ID("email"), "ada@acme.test"))
	step("type the password", chromedp.SendKeys(chromedp.ID("password"), password))
	step("sign in", chromedp.Submit(chromedp.ID("password")))
	step("wait for the upload form", chromedp.WaitVisible(chromedp.ID("file")))
	step("choose the file", chromedp.SetUploadFiles(chromedp.ID("file"), []string{file}))
	step("upload", chromedp.Submit(chromedp.ID("file")))
	step("wait for the mapping", chromedp.WaitVisible(chromedp.ID("col0")))
	tab.Screenshot("leads-1-mapping")
	step("map the name", chromedp.SetValue(chromedp.ID("col1"), "first_name"))
	step("check", chromedp.Submit(chromedp.ID("col0")))
	step("wait for the result", chromedp.WaitVisible(chromedp.ID("valid")))
	tab.Screenshot("leads-2-checked")
	if got := []string{text("rows"), text("valid"), text("invalid")}; strings.Join(got, "|") != "100,000|99,999|1" {
		t.Fatalf("rows, valid, invalid shown: %v", got)
	}
	if lines := text("invalid-lines"); !strings.Contains(lines, "42,001") || !strings.Contains(lines, "'not an address' is not an email address") {
		t.Fatalf("invalid rows shown: %q", lines)
	}
	step("ask to import", chromedp.Click(chromedp.CSS(".btn-approve")))
	step("wait for the approval", chromedp.WaitVisible(chromedp.ID("approve")))
	tab.Screenshot("leads-3-approval")
	// It costs nothing, so there is no box to tick.
	step("approve", chromedp.Click(chromedp.ID("approve")))
	var status string
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if s, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("status"))); err == nil {
			if status = strings.TrimSpace(s); status == "Done" {
				break
			}
		}
	}
	if status != "Done" {
		t.Fatalf("the approval still says %q", status)
	}
	if outcome := text("outcome"); !strings.Contains(outcome, "Imported 99,999 leads") {
		t.Fatalf("outcome: %q", outcome)
	}
	step("open the leads page", chromedp.Navigate(a.srv.URL+"/app/leads"))
	if last := text("last-import"); !strings.HasPrefix(last, "Done: 99,999 imported; not imported: 1 invalid line of the file.") {
		t.Fatalf("last import shown: %q", last)
	}
	var leads, distinct int
	a.pool.QueryRow(context.Background(), `SELECT count(*), count(DISTINCT email) FROM leads WHERE workspace_id = $1`, a.acme.ID).Scan(&leads, &distinct)
	if leads != 99_999 || distinct != leads {
		t.Fatalf("%d leads, %d distinct", leads, distinct)
	}
	_ = approvals.Done
}
