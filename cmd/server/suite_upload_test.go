package main

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"vibesell/auth"
	"vibesell/store/storetest"
)

// uploader is a signed-in person's browser on a server of the suite, safe
// to use from several goroutines: it reports what it got and never stops
// the test itself.
type uploader struct {
	base   string
	client *http.Client
	csrf   string
}

var suiteCSRF = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func signInUploader(t *testing.T, base, email, password string) *uploader {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	u := &uploader{base: base, client: &http.Client{Jar: jar, Timeout: 2 * time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	csrf := func(path string) string {
		_, body, err := u.get(path)
		m := suiteCSRF.FindStringSubmatch(body)
		if err != nil || m == nil {
			t.Fatalf("no form at %s: %v\n%s", path, err, body)
		}
		return html.UnescapeString(m[1])
	}
	form := url.Values{"csrf": {csrf("/app/sign-in")}, "email": {email}, "password": {password}, "next": {"/app/leads"}}
	req, _ := http.NewRequest(http.MethodPost, base+"/app/sign-in", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	if status, body, err := u.do(req); err != nil || status != http.StatusSeeOther {
		t.Fatalf("sign in: %d %v\n%s", status, err, body)
	}
	u.csrf = csrf("/app/leads")
	return u
}

func (u *uploader) do(req *http.Request) (int, string, error) {
	res, err := u.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if loc := res.Header.Get("Location"); loc != "" {
		return res.StatusCode, loc, err
	}
	return res.StatusCode, html.UnescapeString(string(b)), err
}

func (u *uploader) get(path string) (int, string, error) {
	req, _ := http.NewRequest(http.MethodGet, u.base+path, nil)
	return u.do(req)
}

// upload posts a file to the leads page's form; a redirect answers its
// Location as the body.
func (u *uploader) upload(name string, content []byte) (int, string, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("csrf", u.csrf)
	fw, _ := mw.CreateFormFile("file", name)
	fw.Write(content)
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, u.base+"/app/leads/uploads", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", u.base)
	return u.do(req)
}

// rssPeak samples a process's resident memory every 20 ms until stopped,
// and returns the most it saw, in KB.
func rssPeak(t *testing.T, pid int) (stop func() int) {
	var peak atomic.Int64
	peak.Store(int64(rss(t, pid)))
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
			if m := vmRSS.FindSubmatch(raw); err == nil && m != nil {
				var kb int64
				fmt.Sscan(string(m[1]), &kb)
				if kb > peak.Load() {
					peak.Store(kb)
				}
			}
		}
	})
	return func() int {
		close(done)
		wg.Wait()
		return int(peak.Load())
	}
}

// The wide upload of the attack, and files that are not text, sent at once
// by a signed-in person: each is refused with a sentence, none is logged
// as an error of ours, a page of an upload kept before the bounds answers
// at once, and the server's memory (its RSS, sampled every 20 ms) grows by
// a few MB, not the 3 GB a header of 1,000,000 columns once took.
func TestSuiteWideUpload(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL := storetest.NewURL(t)
	pool := connect(t, dbURL)
	ws, _ := workspaceWithToken(t, pool, "Uploads")
	const email, password = "ada@uploads.test", "correct horse battery staple"
	if _, err := auth.NewAccounts(auth.AccountsDeps{DB: pool}).CreateUser(ctx, auth.NewUser{WorkspaceID: ws.ID, Email: email, Password: password}); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	srv, cmd := startProcessAt(t, addr, "DATABASE_URL="+dbURL, "LOG_LEVEL=warn")
	stderr := srv.stderr
	base := "http://" + addr
	u := signInUploader(t, base, email, password)

	// An upload kept before the bounds, as the attack left one.
	header := make([]string, 1_000_000)
	for i := range header {
		header[i] = "c"
	}
	if _, err := pool.Exec(ctx, `INSERT INTO lead_uploads (workspace_id, id, file_name, content, header, uploaded_at)
		VALUES ($1, 'up_00000000000000aa', 'wide.csv', $2, $3, now())`, ws.ID, []byte(strings.Join(header, ",")+"\n"), header); err != nil {
		t.Fatal(err)
	}

	random := make([]byte, 2<<20)
	rng := rand.New(rand.NewPCG(26, 2))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	wide := []byte("email" + strings.Repeat(",c", 999_999) + "\n")
	files := []struct {
		name    string
		content []byte
		want    string
	}{
		{"1,000,000 columns (2 MB)", wide, "The file's header has 1,000,000 columns"},
		{"random bytes (2 MB)", random, "The file does not look like text"},
		{"a PNG image", append([]byte("\x89PNG\r\n\x1a\n"), random[:64<<10]...), "The file looks like a PNG image"},
		{"1,000,000 columns in UTF-16 (4 MB)", append([]byte("\xff\xfe"), utf16LE(wide)...), "The file's header has 1,000,000 columns"},
		{"1,000,000 columns in Windows-1252 (2 MB)", append([]byte("Pr\xe9nom,"), wide...), "The file's header has 1,000,001 columns"},
		{"a workbook with a row of 1,000 cells", wideWorkbook(t), "Row 1 of the sheet \u201cSheet1\u201d has 1,000 columns"},
		{"a workbook unpacking to 256 MB", workbookBomb(t), "it may be damaged, protected by a password, or unpack to more than 128 MB"},
		{"a NUL in a header cell", []byte("email,na\x00me\n"), "holds a NUL character"},
	}
	// A file at the bounds: 200 columns, six lines of almost 64 KB.
	var atBounds strings.Builder
	atBounds.WriteString("email")
	for i := 2; i <= 200; i++ {
		fmt.Fprintf(&atBounds, ",%s%d", strings.Repeat("n", 95), i)
	}
	for i := range 6 {
		fmt.Fprintf(&atBounds, "\nlead%d@uploads.test,%s%s", i, strings.Repeat("long ", 12_000), strings.Repeat(",x", 198))
	}
	status, bounded, err := u.upload("bounds.csv", []byte(atBounds.String()+"\n"))
	if err != nil || status != http.StatusSeeOther {
		t.Fatalf("a file at the bounds: %d %v\n%.2000s", status, err, bounded)
	}

	rounds := suiteSize(3, 10)
	start := rss(t, cmd.Process.Pid)
	stop := rssPeak(t, cmd.Process.Pid)
	began := time.Now()
	var mu sync.Mutex
	outcomes := map[string]int{}
	var slowest time.Duration
	count := func(what string, took time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		outcomes[what]++
		slowest = max(slowest, took)
	}
	var wg sync.WaitGroup
	for range rounds {
		for _, f := range files {
			wg.Go(func() {
				t0 := time.Now()
				status, body, err := u.upload("leads.csv", f.content)
				switch {
				case err != nil:
					count(f.name+": no answer: "+err.Error(), time.Since(t0))
				case status == http.StatusUnprocessableEntity && strings.Contains(body, f.want):
					count(f.name+": refused with its sentence", time.Since(t0))
				default:
					count(fmt.Sprintf("%s: %d %.200s", f.name, status, body), time.Since(t0))
				}
			})
		}
		wg.Go(func() {
			t0 := time.Now()
			status, body, err := u.get("/app/leads/uploads/up_00000000000000aa")
			switch {
			case err != nil:
				count("the page of the upload kept before: no answer: "+err.Error(), time.Since(t0))
			case status == http.StatusUnprocessableEntity && strings.Contains(body, "has 1,000,000 columns, more than the 200") && len(body) < 64<<10:
				count("the page of the upload kept before: refused with its sentence", time.Since(t0))
			default:
				count(fmt.Sprintf("the page of the upload kept before: %d, %d bytes", status, len(body)), time.Since(t0))
			}
		})
		wg.Go(func() {
			t0 := time.Now()
			status, body, err := u.get(bounded)
			switch {
			case err != nil:
				count("the page of a file at the bounds: no answer: "+err.Error(), time.Since(t0))
			case status == http.StatusOK && strings.Count(body, "<select ") == 200 && len(body) < 512<<10:
				count("the page of a file at the bounds: shown, under 512 KB", time.Since(t0))
			default:
				count(fmt.Sprintf("the page of a file at the bounds: %d, %d bytes", status, len(body)), time.Since(t0))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(began)
	peak := stop()
	after := rss(t, cmd.Process.Pid)
	errors := errorLine.FindAllString(stderr.String(), -1)
	t.Logf("%d rounds of %d files and two pages at once, in %s (the slowest answer %s): %v; RSS %d MB at the start, %d MB at the peak, %d MB after; %d ERROR lines",
		rounds, len(files), elapsed.Round(10*time.Millisecond), slowest.Round(10*time.Millisecond), outcomes, start>>10, peak>>10, after>>10, len(errors))
	for what, n := range outcomes {
		if !strings.HasSuffix(what, "refused with its sentence") && !strings.HasSuffix(what, "shown, under 512 KB") {
			t.Errorf("%d × %s", n, what)
		}
	}
	if len(errors) > 0 {
		t.Errorf("bad input logged ERROR lines:\n%s", strings.Join(errors, "\n"))
	}
	// The files are up to 4 MB; each request may hold a few copies of
	// its body while it is read (and once decoded, its text), and Go
	// keeps what it freed for a while: three times a round's bytes.
	roundMB := 0
	for _, f := range files {
		roundMB += len(f.content)
	}
	roundMB = max(16, 3*roundMB>>20)
	if grew := int((peak - start) >> 10); grew > roundMB*rounds {
		t.Errorf("RSS grew by %d MB for %d rounds, want at most %d MB", grew, rounds, roundMB*rounds)
	}
}

// utf16LE is b, ASCII, as UTF-16 little endian.
func utf16LE(b []byte) []byte {
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, c, 0)
	}
	return out
}

// wideWorkbook is an .xlsx workbook whose first row has 1,000 cells.
func wideWorkbook(t *testing.T) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	row := make([]any, 1000)
	for i := range row {
		row[i] = fmt.Sprintf("c%d", i)
	}
	if err := f.SetSheetRow("Sheet1", "A1", &row); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// workbookBomb is a small zip that says it is an .xlsx workbook and whose
// sheet unpacks to 256 MB of spaces.
func workbookBomb(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for _, name := range []string{"[Content_Types].xml", "xl/workbook.xml"} {
		w, _ := z.Create(name)
		io.WriteString(w, `<?xml version="1.0"?><x/>`)
	}
	w, err := z.Create("xl/worksheets/sheet1.xml")
	if err != nil {
		t.Fatal(err)
	}
	spaces := bytes.Repeat([]byte(" "), 1<<20)
	for range 256 {
		w.Write(spaces)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
