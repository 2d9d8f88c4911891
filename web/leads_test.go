package web_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/chromedp/chromedp"
	"github.com/miekg/dns"
	"github.com/riverqueue/river"
	"github.com/xuri/excelize/v2"
	"golang.org/x/text/encoding/charmap"

	"vibesell/approvals"
	"vibesell/audience"
	"vibesell/store/storetest"
	"vibesell/web"
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
	want := "Done: 2 imported; not imported: 1 invalid line of the file, 1 line repeating an address already in the file and 1 flagged by the list check (no mail server, disposable-address domain or role address)."
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

// The list check on the upload's page: each flagged row with its reason
// and the count per reason, looked up in a DNS server of the test's; the
// person's choice to skip them or not is what the approval asks for.
func TestUploadFlags(t *testing.T) {
	t.Parallel()
	a := setup(t, func(a *app, cfg *web.Deps) {
		a.audience = audience.New(audience.Deps{DB: a.pool, Config: audience.Config{UploadURL: a.srv.URL + web.LeadsPath}, Approvals: a.approvals,
			MailDomains: audience.NewMailDomains(mailDNS(t))})
		cfg.Audience = a.audience
	})
	b := a.browser(t)
	b.signIn("ada@acme.test")
	leads := b.Get("/app/leads")
	up := b.upload(t, "people.csv", "email,first_name\nana@alpha.test,Ana\ncid@nowhere.test,Cid\nfay@mailinator.com,Fay\ninfo@alpha.test,\ngus@alpha.test,Gus\nhal@fail.test,Hal\n", leads.CSRF(t))
	if up.Status != http.StatusSeeOther {
		t.Fatalf("upload: %d\n%s", up.Status, up.Body)
	}
	page := b.Get(up.Location)
	checked := b.Post(up.Location+"/check", url.Values{"csrf": {page.CSRF(t)}, "col0": {"email"}, "col1": {"first_name"}})
	if checked.Status != http.StatusSeeOther {
		t.Fatalf("check: %d\n%s", checked.Status, checked.Body)
	}
	page = b.Get(checked.Location)
	body := html.UnescapeString(page.Body)
	for _, want := range []string{
		"<dt>The domain has no mail server</dt><dd>1</dd>", "<dt>A disposable-address domain</dt><dd>1</dd>",
		"<dt>A role address (info@, sales@…), not a person</dt><dd>1</dd>",
		"<tr><td>3</td><td data-verbatim>cid@nowhere.test</td><td>The domain has no mail server</td></tr>",
		"<tr><td>4</td><td data-verbatim>fay@mailinator.com</td><td>A disposable-address domain</td></tr>",
		"<tr><td>5</td><td data-verbatim>info@alpha.test</td><td>A role address (info@, sales@…), not a person</td></tr>",
		"<legend>The 3 flagged rows</legend>",
		"1 domain was not looked up (the DNS failed or did not answer in time), so its rows are not flagged for mail servers.", `<input type="radio" name="flagged" value="skip" checked> Skip them`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("checked page lacks %q:\n%s", want, page.Body)
		}
	}
	importPath := strings.TrimSuffix(checked.Location, "?checked=1") + "/import"
	for _, c := range []struct{ flagged, want string }{
		{"skip", "Skipped: 3 flagged by the list check, as chosen: 1 with a domain that has no mail server, 1 with a disposable-address domain and 1 with a role address (info@, sales@…)"},
		{"keep", "Flagged by the list check but imported, as chosen: 1 with a domain that has no mail server"},
	} {
		ask := b.Post(importPath, url.Values{"csrf": {page.CSRF(t)}, "flagged": {c.flagged}})
		if ask.Status != http.StatusSeeOther {
			t.Fatalf("ask to import (%s): %d\n%s", c.flagged, ask.Status, ask.Body)
		}
		if ap := b.Get(ask.Location); !strings.Contains(html.UnescapeString(ap.Body), c.want) {
			t.Errorf("the approval (%s) does not say %q:\n%s", c.flagged, c.want, ap.Body)
		}
	}
}

// mailDNS is a DNS server on 127.0.0.1 where alpha.test has a mail server
// fail.test's lookups fail, and no other name exists.
func mailDNS(t *testing.T) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := dns.NewServeMux()
	mux.HandleFunc(".", func(w dns.ResponseWriter, req *dns.Msg) {
		q := req.Question[0]
		m := new(dns.Msg)
		m.SetReply(req)
		m.RecursionAvailable = true
		switch {
		case q.Name == "alpha.test." && q.Qtype == dns.TypeMX:
			m.Answer = append(m.Answer, &dns.MX{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeMX, Class: dns.ClassINET, Ttl: 60}, Preference: 10, Mx: "mail.alpha.test."})
		case q.Name == "alpha.test.":
		case q.Name == "fail.test.":
			m.SetRcode(req, dns.RcodeServerFailure)
		default:
			m.SetRcode(req, dns.RcodeNameError)
		}
		w.WriteMsg(m)
	})
	started := make(chan struct{})
	srv := &dns.Server{PacketConn: pc, Handler: mux, NotifyStartedFunc: func() { close(started) }}
	go srv.ActivateAndServe()
	<-started
	t.Cleanup(func() { srv.Shutdown() })
	return pc.LocalAddr().String()
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

// utf16LE is s as UTF-16, little endian, as Excel's "Unicode text" saves.
func utf16LE(s string) string {
	var b strings.Builder
	for _, u := range utf16.Encode([]rune(s)) {
		b.WriteByte(byte(u))
		b.WriteByte(byte(u >> 8))
	}
	return b.String()
}

// zipOf is a zip file of the given parts, each holding the same small
// XML: the start of an Office document.
func zipOf(t *testing.T, names ...string) string {
	t.Helper()
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for _, name := range names {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, `<?xml version="1.0"?><x/>`)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// An upload is refused at intake with a sentence saying what is wrong and
// where, never kept and never an error of ours: more than 200 columns, a
// column's name or a line too long, or a file that is neither text nor
// a workbook (named for what it seems to be), or a workbook that cannot
// be read. A file at the bounds is kept, and its
// page shows its 200 columns and the first rows cut to what a person reads.
func TestUploadsOutOfBoundsAreRefused(t *testing.T) {
	t.Parallel()
	a := setup(t)
	b := a.browser(t)
	b.signIn("ada@acme.test")
	csrf := b.Get("/app/leads").CSRF(t)
	random := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(26, 1))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}

	for _, c := range []struct{ name, content, want string }{
		{"a header of 1,000,000 columns", "email" + strings.Repeat(",c", 999_999) + "\n", "The file's header has 1,000,000 columns; a file may have 200 at most."},
		{"a row of 201 columns", "email,name\nana@alpha.test,Ana\n" + strings.Repeat("x,", 200) + "x\n", "Line 3 of the file has 201 columns; a file may have 200 at most."},
		{"a column's name of 101 characters", "email," + strings.Repeat("n", 101) + "\nana@alpha.test,Ana\n", "Column 2 of the header is named with 101 characters; a column's name may have 100 at most."},
		{"a line of 65 KB", "email,notes\nana@alpha.test," + strings.Repeat("x", 65<<10) + "\n", "Line 2 of the file is longer than 64 KB; a line may be 64 KB at most."},
		{"a quote never closed", "email,notes\nana@alpha.test,\"" + strings.Repeat("x\n", 40<<10), "Line 2 of the file is longer than 64 KB (a quote opened on it may not be closed)"},
		{"a row of 201 columns in UTF-16", "\xff\xfe" + utf16LE("email\tname\nana@alpha.test\tAna\n"+strings.Repeat("x\t", 200)+"x\n"), "Line 3 of the file has 201 columns; a file may have 200 at most."},
		{"a line of 65 KB once read as Windows-1252", "email,notes\nana@alpha.test," + strings.Repeat("\xe9", 33<<10) + "\n", "Line 2 of the file is longer than 64 KB; a line may be 64 KB at most."},
		{"a NUL in UTF-16", utf16LE("email,na\x00me\nana@alpha.test,Ana\n"), "Line 1 of the file holds a NUL character (byte 0), which text never has."},
		{"UTF-32", "\xff\xfe\x00\x00" + strings.Repeat("e\x00\x00\x00", 10), "The file looks like UTF-32 text, which cannot be read as a list of leads."},
		{"a NUL in a header cell", "email,na\x00me\nana@alpha.test,Ana\n", "Line 1 of the file holds a NUL character (byte 0), which text never has."},
		{"random bytes", string(random), "The file does not look like text"},
		{"a PNG image", "\x89PNG\r\n\x1a\n" + string(random[:4096]), "The file looks like a PNG image, which cannot be read as a list of leads."},
		{"a damaged Excel workbook", zipOf(t, "[Content_Types].xml", "xl/workbook.xml", "xl/worksheets/sheet1.xml"), "The file looks like an Excel workbook (.xlsx), but it cannot be read"},
		{"a Word document", zipOf(t, "[Content_Types].xml", "word/document.xml"), "The file looks like a Word document (.docx), which cannot be read as a list of leads."},
		{"an older Excel workbook", "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + string(random[:4096]), "The file looks like an older Excel workbook (.xls), a workbook protected by a password, or another Office document"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := b.upload(t, "leads.csv", c.content, csrf)
			if body := html.UnescapeString(p.Body); p.Status != http.StatusUnprocessableEntity || !strings.Contains(body, c.want) {
				t.Errorf("status %d, want 422 saying %q:\n%.3000s", p.Status, c.want, body)
			}
		})
	}
	var kept int
	if err := a.pool.QueryRow(context.Background(), `SELECT count(*) FROM lead_uploads`).Scan(&kept); err != nil || kept != 0 {
		t.Errorf("%d refused uploads kept (%v), want none", kept, err)
	}
	if lines := a.logs.errors(); len(lines) != 0 {
		t.Errorf("refused uploads logged ERROR lines: %q", lines)
	}

	t.Run("a file at the bounds is kept, its page bounded", func(t *testing.T) {
		header := "email," + strings.Repeat("n", 100)
		for i := 3; i <= 200; i++ {
			header += fmt.Sprintf(",c%d", i)
		}
		// Words and cells that do not repeat: every page is proofread.
		row := "ana@alpha.test," + strings.Repeat("lorem ipsum ", (64<<10-3000)/12)
		for i := range 198 {
			row += fmt.Sprintf(",x%d", i)
		}
		up := b.upload(t, "wide.csv", header+"\n"+row+"\n", csrf)
		if up.Status != http.StatusSeeOther {
			t.Fatalf("a file at the bounds: %d, want 303\n%.3000s", up.Status, up.Body)
		}
		page := b.Get(up.Location)
		if n := strings.Count(page.Body, "<select "); page.Status != http.StatusOK || n != 200 {
			t.Errorf("its page: %d with %d selects, want 200 with 200", page.Status, n)
		}
		if !strings.Contains(page.Body, "<td>"+strings.Repeat("lorem ipsum ", 9)+"lorem ipsum…</td>") {
			t.Errorf("the long cell is not cut to 120 characters")
		}
		if len(page.Body) > 200<<10 {
			t.Errorf("its page is %d KB, want at most 200", len(page.Body)>>10)
		}
	})
}

// An upload kept before the bounds, with 100,000 columns, is refused on
// its page and when checked, with a sentence; nothing of its header
// beyond 200 columns is read.
func TestAWideUploadKeptBeforeTheBoundsIsRefused(t *testing.T) {
	t.Parallel()
	a := setup(t)
	header := make([]string, 100_000)
	for i := range header {
		header[i] = fmt.Sprintf("c%d", i)
	}
	if _, err := a.pool.Exec(context.Background(), `INSERT INTO lead_uploads (workspace_id, id, file_name, content, header, uploaded_at)
		VALUES ($1, 'up_00000000000000aa', 'wide.csv', $2, $3, now())`, a.acme.ID, []byte(strings.Join(header, ",")+"\n"), header); err != nil {
		t.Fatal(err)
	}
	b := a.browser(t)
	b.signIn("ada@acme.test")
	page := b.Get("/app/leads/uploads/up_00000000000000aa")
	want := "The file wide.csv has 100,000 columns, more than the 200 a file may have"
	if page.Status != http.StatusUnprocessableEntity || !strings.Contains(html.UnescapeString(page.Body), want) || len(page.Body) > 50<<10 {
		t.Errorf("its page: %d, %d bytes, want 422 saying %q:\n%.3000s", page.Status, len(page.Body), want, page.Body)
	}
	csrf := b.Get("/app/leads").CSRF(t)
	check := b.Post("/app/leads/uploads/up_00000000000000aa/check", url.Values{"csrf": {csrf}, "col0": {"email"}})
	if check.Status != http.StatusUnprocessableEntity || !strings.Contains(html.UnescapeString(check.Body), want) {
		t.Errorf("checking it: %d, want 422 saying %q", check.Status, want)
	}
	if lines := a.logs.errors(); len(lines) != 0 {
		t.Errorf("ERROR lines: %q", lines)
	}
}

// utf16BE is s as UTF-16, big endian.
func utf16BE(s string) string {
	var b strings.Builder
	for _, u := range utf16.Encode([]rune(s)) {
		b.WriteByte(byte(u >> 8))
		b.WriteByte(byte(u))
	}
	return b.String()
}

// twoSheets is an .xlsx workbook whose first sheet holds notes and whose
// second holds the leads, as excelize (and Excel) write it.
func twoSheets(t *testing.T) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	if err := f.SetSheetName("Sheet1", "Notes"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.NewSheet("Leads"); err != nil {
		t.Fatal(err)
	}
	for name, rows := range map[string][][]any{
		"Notes": {{"Read me"}, {"The leads are on the next sheet."}},
		"Leads": {{"Email", "First name", "Company", "Employees"}, {"jose@alpha.test", "José", "Crème & Co", 120}, {"priya@ledgerbase.example.com", "Priya"}},
	} {
		for i, row := range rows {
			cell, _ := excelize.CoordinatesToCellName(1, i+1)
			if err := f.SetSheetRow(name, cell, &row); err != nil {
				t.Fatal(err)
			}
		}
	}
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Every kind of file a spreadsheet writes, uploaded in a real browser:
// each is read (the page says how: encoding and separator, or sheet) and
// its first rows show José as written, or it is refused with a sentence
// naming what it seems to be. Checked, each reads the same rows: no
// error of ours, whatever the encoding.
func TestBrowserReadsEveryFileASpreadsheetWrites(t *testing.T) {
	t.Parallel()
	a := setup(t)
	dir := t.TempDir()
	const leads = "Email,First name,Company\r\njose@alpha.test,José,Crème & Co\r\npriya@ledgerbase.example.com,Priya,Ledgerbase\r\n"
	cp1252, err := charmap.Windows1252.NewEncoder().String(leads)
	if err != nil {
		t.Fatal(err)
	}
	tabs := strings.ReplaceAll(leads, ",", "\t")
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
	files := []struct {
		name, content string
		reading       string // what the page says of how it was read
		refusal       string // or of why it was not
	}{
		{"excel.csv", cp1252, "Read as Western European (Windows-1252), columns separated by commas.", ""},
		{"unicode.txt", "\xff\xfe" + utf16LE(tabs), "Read as Unicode (UTF-16, little-endian), columns separated by tabs.", ""},
		{"unicode-be.csv", utf16BE(leads), "Read as Unicode (UTF-16, big-endian), columns separated by commas.", ""},
		{"europe.csv", strings.ReplaceAll(leads, ",", ";"), "Read as UTF-8, columns separated by semicolons.", ""},
		{"export.tsv", tabs, "Read as UTF-8, columns separated by tabs.", ""},
		{"leads.xlsx", string(twoSheets(t)), "Read from the Excel workbook's sheet \u201cNotes\u201d.", ""},
		{"photo.png", png, "", "The file looks like a PNG image, which cannot be read as a list of leads."},
	}
	for i, f := range files {
		files[i].name = filepath.Join(dir, f.name)
		if err := os.WriteFile(files[i].name, []byte(f.content), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	ctx := webtest.ChromiumWithin(t, 2*time.Minute)
	tab := webtest.NewTab(t, ctx)
	step, text := tab.Step, tab.Text
	step("open the leads page", chromedp.Navigate(a.srv.URL+"/app/leads"))
	step("wait for the sign-in form", chromedp.WaitVisible(chromedp.ID("email")))
	step("type the email", chromedp.SendKeys(chromedp.ID("email"), "ada@acme.test"))
	step("type the password", chromedp.SendKeys(chromedp.ID("password"), password))
	step("sign in", chromedp.Submit(chromedp.ID("password")))
	step("wait for the leads page", chromedp.WaitVisible(chromedp.ID("file")))
	upload := func(f string) {
		t.Helper()
		step("open the leads page", chromedp.Navigate(a.srv.URL+"/app/leads"))
		step("wait for the upload form", chromedp.WaitVisible(chromedp.ID("file")))
		step("choose "+filepath.Base(f), chromedp.SetUploadFiles(chromedp.ID("file"), []string{f}))
		step("upload", chromedp.Submit(chromedp.ID("file")))
		step("wait for the next page", chromedp.WaitVisible(chromedp.CSS("#reading, .alert")))
	}
	check := func() {
		t.Helper()
		step("check", chromedp.Submit(chromedp.ID("col0")))
		step("wait for the result", chromedp.WaitVisible(chromedp.ID("valid")))
		if got := []string{text("rows"), text("valid"), text("invalid")}; strings.Join(got, "|") != "2|2|0" {
			t.Errorf("rows, valid, invalid: %v, want 2, 2, 0", got)
		}
	}
	for _, f := range files {
		upload(f.name)
		base := filepath.Base(f.name)
		if f.refusal != "" {
			if got, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".alert"))); err != nil || !strings.Contains(got, f.refusal) {
				t.Errorf("%s: the page says %q (%v), want %q", base, got, err, f.refusal)
			}
			continue
		}
		tab.Screenshot("files-" + strings.TrimSuffix(base, filepath.Ext(base)))
		if got := text("reading"); got != f.reading {
			t.Errorf("%s: %q, want %q", base, got, f.reading)
		}
		if base == "leads.xlsx" {
			if rows := text("first-rows"); !strings.Contains(rows, "The leads are on the next sheet.") {
				t.Errorf("the first sheet's rows: %q", rows)
			}
			step("choose the second sheet", chromedp.SetValue(chromedp.ID("sheet"), "1"))
			step("read it", chromedp.Click(chromedp.ID("read-sheet")))
			step("wait for it", chromedp.WaitVisible(`//span[@id="reading"][contains(., "Leads")]`))
			if got, want := text("reading"), "Read from the Excel workbook's sheet \u201cLeads\u201d."; got != want {
				t.Errorf("after choosing the sheet: %q, want %q", got, want)
			}
		}
		if rows := text("first-rows"); !strings.Contains(rows, "José Crème & Co") || !strings.Contains(rows, "Priya") {
			t.Errorf("%s: the first rows read %q", base, rows)
		}
		check()
	}
	if lines := a.logs.errors(); len(lines) != 0 {
		t.Errorf("ERROR lines: %q", lines)
	}
}

// A file whose header is one column is read with commas; a row holding
// semicolons is then not an address, and its reason says why it may be.
func TestACheckNamesASeparatorInACell(t *testing.T) {
	t.Parallel()
	a := setup(t)
	b := a.browser(t)
	b.signIn("ada@acme.test")
	up := b.upload(t, "europe.csv", "email\npriya@ledgerbase.example.com;Priya;Ledgerbase\n", b.Get("/app/leads").CSRF(t))
	page := b.Get(up.Location)
	if !strings.Contains(page.Body, "Read as UTF-8, columns separated by commas.") {
		t.Errorf("the page does not say how the file was read:\n%.3000s", page.Body)
	}
	checked := b.Get(b.Post(up.Location+"/check", url.Values{"csrf": {page.CSRF(t)}, "col0": {"email"}}).Location)
	want := "'priya@ledgerbase.example.com;Priya;Ledgerbase' is not an email address (it holds semicolons, but the file's columns were read as separated by commas)"
	if !strings.Contains(html.UnescapeString(checked.Body), want) {
		t.Errorf("the checked page does not say %q:\n%.3000s", want, checked.Body)
	}
}
