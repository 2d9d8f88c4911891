package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"vibesell/proofread"
	"vibesell/store/storetest"
	"vibesell/toolkit"
	"vibesell/ui"
)

// The official MCP TypeScript SDK client (e2e/sdk/check.mjs) lists every
// tool over streamable HTTP with a bearer token and over stdio, checks each
// tool's card links and annotations, calls each one with arguments from
// its schema examples, and validates every structuredContent against the
// tool's outputSchema (the SDK's own validation, and Ajv's). It runs under
// each revision, pinned, each on a workspace of its own: 2025-11-25 with
// @modelcontextprotocol/sdk 1.x (its newest), and 2026-07-28 with
// @modelcontextprotocol/client 2.x.
func TestOfficialTypeScriptClient(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds the server and runs Node")
	}
	t.Parallel()
	node := needTool(t, "node", "it runs the official MCP TypeScript SDK client")
	needNode(t, node, 20)
	dir := filepath.Join(repoRoot(t), "e2e", "sdk")
	npmCI(t, dir)
	bin := buildServer(t)

	dbURL := storetest.NewURL(t)
	srv := startServer(t, bin, "DATABASE_URL="+dbURL)
	for _, protocol := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(protocol, func(t *testing.T) {
			ws, token := newWorkspace(t, dbURL, "SDK Check "+protocol)
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			dump := filepath.Join(t.TempDir(), "results.jsonl")
			if keep := os.Getenv("E2E_RESULTS"); keep != "" {
				// To read or proofread the results again by hand.
				dump = keep + "." + protocol
				_ = os.Remove(dump)
			}
			cmd := exec.CommandContext(ctx, node, "check.mjs", "--http", srv.url, "--stdio", bin, "--workspace", ws.Slug, "--dump", dump,
				"--card-uri", toolkit.CardURI(ui.CardHTML), "--protocol", protocol)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "VIBESELL_TOKEN="+token, "DATABASE_URL="+dbURL, "LOG_LEVEL=warn")
			cmd.WaitDelay = 10 * time.Second
			var stdout, stderr syncBuffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			runErr := cmd.Run()

			out := stdout.String()
			// The HTTP server's log and, on the script's stderr, the stdio one's.
			logs := srv.stderr.String() + "\n" + stderr.String()
			passes, fails, summary := readChecks(t, out, logs)
			if runErr != nil && fails == 0 || !summary || passes == 0 {
				t.Errorf("node check.mjs: %v (ran to the end: %v)\nits stderr and the stdio server's:\n%s\nHTTP server stderr:\n%s",
					runErr, summary, tail(stderr.String(), 20), tail(srv.stderr.String(), 20))
			}
			if !strings.Contains(out, "PASS http protocol "+protocol) || !strings.Contains(out, "PASS stdio protocol "+protocol) {
				t.Errorf("the client did not speak %s over HTTP and stdio", protocol)
			}
			t.Logf("TypeScript SDK client on %s: %d checks passed, %d failed", protocol, passes, fails)
			proofreadResults(t, dump)
		})
	}
}

// proofreadResults runs the text of every result the client got, refusals
// included, through the proofreader: what the assistant reads, and
// repeats to the person; and checks each is finished (a next step, and
// links that only the person opens).
func proofreadResults(t *testing.T, dump string) {
	t.Helper()
	data, err := os.ReadFile(dump)
	if err != nil {
		t.Fatalf("the client wrote no results: %v", err)
	}
	seen := map[string]int{}
	results, tools := 0, map[string]bool{}
	for line := range strings.Lines(string(data)) {
		var r struct {
			Tool    string `json:"tool"`
			IsError bool   `json:"isError"`
			Text    string `json:"text"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("results line %q: %v", line, err)
		}
		results++
		tools[r.Tool] = true
		for _, f := range append(proofread.Text(r.Text, proofread.Assistant), proofread.Result(r.Text, r.IsError)...) {
			// The first of each mistake per tool: the same sentence
			// repeats across calls with other ids.
			key := r.Tool + " " + f.Rule
			if seen[key]++; seen[key] == 1 {
				t.Errorf("%s (isError %v): %s", r.Tool, r.IsError, f)
			}
		}
	}
	t.Logf("proofread %d results of %d tools", results, len(tools))
}

// readChecks reports a check script's PASS and FAIL lines (a FAIL with
// what the server logged under its ref) and counts them; summary says
// whether the script ran to its SUMMARY line.
func readChecks(t *testing.T, out, logs string) (passes, fails int, summary bool) {
	t.Helper()
	for line := range strings.Lines(out) {
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "FAIL "):
			fails++
			t.Error(line + cause(line, logs))
		case strings.HasPrefix(line, "PASS "):
			passes++
			t.Log(line)
		case strings.HasPrefix(line, "SUMMARY "):
			summary = true
		default:
			t.Log(line)
		}
	}
	return passes, fails, summary
}

var refPattern = regexp.MustCompile(`\(ref ([0-9a-f]{8})\)`)

// cause finds, for a FAIL line naming an internal failure's ref, what the
// server logged under that ref: the error and, for a panic, the first
// line of this module's code in the stack.
func cause(fail, logs string) string {
	m := refPattern.FindStringSubmatch(fail)
	if m == nil {
		return ""
	}
	for line := range strings.Lines(logs) {
		if !strings.Contains(line, "ref="+m[1]) {
			continue
		}
		msg := ""
		if _, after, ok := strings.Cut(line, ` err="`); ok {
			msg, _, _ = strings.Cut(after, `" stack=`)
			msg = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(msg), `"`))
		} else if _, after, ok := strings.Cut(line, `"err":"`); ok { // LOG_FORMAT=json
			msg, _, _ = strings.Cut(after, `"`)
		}
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		if _, stack, ok := strings.Cut(line, "panic("); ok {
			for _, f := range framePattern.FindAllString(stack, -1) {
				if !strings.Contains(f, "/usr/local/go/") && !strings.Contains(f, "/pkg/mod/") && !strings.Contains(f, "tools/errors.go") {
					msg += " at " + f
					break
				}
			}
		}
		return "\n\tserver log for ref " + m[1] + ": " + msg
	}
	return "\n\t(no server log line for ref " + m[1] + ")"
}

var framePattern = regexp.MustCompile(`/[^\s\\"]+\.go:\d+`)

// needNode fails or skips (as needTool does) when node is older than major.
func needNode(t *testing.T, node string, major int) {
	t.Helper()
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		t.Fatalf("node --version: %v", err)
	}
	v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
	got, _ := strconv.Atoi(strings.Split(v, ".")[0])
	if got >= major {
		return
	}
	msg := "node " + v + " is too old: install Node.js " + strconv.Itoa(major) + " or newer"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg + "; skipped because CI is not set")
}
