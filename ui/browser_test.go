package ui_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/riverqueue/river"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
	"vibesell/cards"
	"vibesell/replies"
	"vibesell/sending"
	"vibesell/store/storetest"
	"vibesell/toolkit"
	"vibesell/toolkit/toolkittest"
	"vibesell/tools"
	"vibesell/ui"
	"vibesell/workspace"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// publicURL is where approvals' appUrl points in these tests; nothing is
// served there (the test host records the link, it opens nothing).
const publicURL = "https://vibesell.example.com"

// testAction is an action with consequences that may be decided in the
// card (decideHere), executed by the test: the product's own actions that
// may be (import_leads, launch_campaign…) are not served yet.
const testAction = "import_leads"

// env is the real VibeSell MCP server, serving this card, on a fresh
// database with one workspace and the approvals' background workers
// running, and an in-process client acting for that workspace.
type env struct {
	c         *toolkittest.Client
	ws        workspace.Workspace
	approvals *approvals.Service
	clock     *clock
	pool      *pgxpool.Pool
}

// clock is the real time, moved forward when a test needs days to pass
// (a mailbox to be prepared before it can warm up).
type clock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
}

func connect(t *testing.T) *env {
	t.Helper()
	pool := storetest.New(t)
	ctx := context.Background()
	svc := workspace.New(workspace.Deps{DB: pool, Clock: vibesell.SystemClock{}})
	ws, err := svc.Create(ctx, "Acme Analytics")
	if err != nil {
		t.Fatal(err)
	}
	clock := &clock{}
	logger := slog.New(slog.DiscardHandler)
	appr := approvals.New(approvals.Deps{DB: pool, Clock: clock, PublicURL: publicURL, Logger: logger})
	choices := cards.New(cards.Deps{DB: pool, Clock: clock})
	send := sending.New(sending.Deps{DB: pool, Clock: clock, Config: sending.DefaultConfig(), Cards: choices, Offers: svc, Approvals: appr})
	appr.Register(vibesell.ToolOrderSendingSetup, sending.NewOrderAction(send))
	appr.Register(testAction, approvals.ExecutorFuncs{ExecuteFunc: func(ctx context.Context, ex approvals.Execution) (string, error) {
		return "Imported 250 leads into the campaign “Q3 SaaS heads of marketing”. Nobody was emailed.", nil
	}})
	startWorkers(t, pool, appr, logger)
	deps := tools.Deps{Workspaces: svc, Sending: send, Approvals: appr, Cards: choices, Replies: replies.NewReplies(replies.RepliesDeps{DB: pool})}
	srv := tools.NewServer(deps, &toolkit.Options{CardHTML: ui.CardHTML})
	c := toolkittest.Connect(t, srv, auth.Principal{WorkspaceID: ws.ID, WorkspaceSlug: ws.Slug})
	return &env{c: c, ws: ws, approvals: appr, clock: clock, pool: pool}
}

// startWorkers runs the approvals' River workers until the test ends, so
// an approved action is carried out as in production.
func startWorkers(t *testing.T, pool *pgxpool.Pool, appr *approvals.Service, logger *slog.Logger) {
	t.Helper()
	workers := river.NewWorkers()
	storetest.StartRiver(t, pool, &river.Config{Workers: workers, PeriodicJobs: approvals.AddWorkers(workers, appr), Logger: logger})
}

// TestServerServesTheCard checks the wiring: the card a host reads is this
// package's, with the MCP Apps MIME type.
func TestServerServesTheCard(t *testing.T) {
	c := connect(t).c
	res, err := c.MCP().ReadResource(c.Context(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: toolkit.CardURI(ui.CardHTML)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 {
		t.Fatalf("%d contents, want 1", len(res.Contents))
	}
	text, ok := res.Contents[0].(mcp.TextResourceContents)
	if !ok {
		t.Fatalf("content is %T, want text", res.Contents[0])
	}
	if text.MIMEType != "text/html;profile=mcp-app" || text.Text != ui.CardHTML {
		t.Fatalf("served %q (%d bytes), want this package's card as text/html;profile=mcp-app", text.MIMEType, len(text.Text))
	}
}

// TestCardInBrowser shows the card real results of the Go server (and,
// for kinds whose tools are not served yet, results written here) in
// headless Chromium through a test host built from the MCP Apps SDK's
// AppBridge, under the default MCP Apps content security policy. It checks
// what the person sees and what the card sends; that no light block shows
// on a dark host; that at 320 to 600 pixels nothing scrolls sideways and
// no word breaks; and that dates are in one style (harness/run.mjs). It
// saves light, dark (own palette and host variables) and 320-pixel
// screenshots of each card to test-artifacts/ui/ at the repository root,
// and logs where; and the directory's screenshots, 1,000 pixels wide, to
// test-artifacts/ui/directory (docs/screenshots with -update).
func TestCardInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("the browser test takes minutes; it runs without -short")
	}
	nodeModules(t)
	chrome := chromiumBin(t)

	s := newServer(t, connect(t))
	defined := goKinds(t)
	// In the order a person goes: what they sell, the sending setup, the
	// order's approval.
	var all []*scenario
	all = append(all, workspaceScenarios(t, s)...)
	all = append(all, choiceScenarios(t, s)...)
	all = append(all, sendingScenarios(t, s)...)
	all = append(all, approvalScenarios(t, s)...)
	all = append(all, hostScenarios(t, s)...)
	all = append(all, orderedScenarios(t, s)...)
	all = append(all, featureScenarios(t)...)
	all = append(all, repliesScenarios(t, s)...)
	all = append(all, leadScenarios()...)
	all = append(all, genericScenarios()...)

	// Kinds with neither a tool nor a Go output type yet are drawn (their
	// view is ready) but not held to expectations.
	server, handKinds, generic, previews := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, sc := range all {
		switch {
		case sc.Kind == "":
			// not a kind: a refusal, a cancelled call
		case sc.Source == "server":
			server[sc.Kind] = true
		case sc.Name == "generic":
			generic[sc.Kind] = true
		case defined[sc.Kind]:
			handKinds[sc.Kind] = true
		default:
			sc.Preview = true
			previews[sc.Kind] = true
		}
	}
	for k := range server {
		delete(handKinds, k)
		delete(previews, k)
	}

	dir := t.TempDir()
	fixtures := filepath.Join(dir, "scenarios.json")
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fixtures, b, 0o644); err != nil {
		t.Fatal(err)
	}
	artifacts, err := filepath.Abs(filepath.Join("..", "test-artifacts", "ui"))
	if err != nil {
		t.Fatal(err)
	}
	_ = os.RemoveAll(artifacts)
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(artifacts, "scenarios.json"), b, 0o644)

	results := filepath.Join(artifacts, "results.json")
	start := time.Now()
	out, runErr := runNode(t, 8*time.Minute, filepath.Join("harness", "run.mjs"),
		"--card", "card.html", "--scenarios", fixtures, "--out", artifacts, "--results", results, "--chromium", chrome)
	t.Logf("harness (%s):\n%s", time.Since(start).Round(time.Millisecond), out)
	t.Logf("screenshots (light, dark, dark-host, 320px, after the click) in %s", artifacts)

	raw, err := os.ReadFile(results)
	if err != nil {
		t.Fatalf("the harness wrote no results (%v): %v\n%s", runErr, err, out)
	}
	var report struct {
		Results []struct {
			Name     string   `json:"name"`
			Failures []string `json:"failures"`
			MS       int      `json:"ms"`
		} `json:"results"`
	}
	if err := json.Unmarshal(raw, &report); err != nil {
		t.Fatal(err)
	}
	byName := map[string]*scenario{}
	for _, sc := range all {
		byName[sc.Name] = sc
	}
	if len(report.Results) != len(all) {
		t.Errorf("the harness ran %d scenarios, want %d", len(report.Results), len(all))
	}
	for _, r := range report.Results {
		sc := byName[r.Name]
		t.Run(r.Name, func(t *testing.T) {
			for _, f := range r.Failures {
				if sc != nil && sc.Preview && !strings.HasPrefix(f, "console:") {
					t.Logf("preview (no tool or Go type returns %s yet): %s", sc.Kind, f)
					continue
				}
				t.Error(f)
			}
		})
	}
	if runErr != nil && !t.Failed() {
		t.Errorf("the harness failed: %v", runErr)
	}
	summary := "kinds checked with real server results: " + strings.Join(sortedKeys(server), ", ") +
		"\nkinds checked with results written in the test from their Go output type (no real result here yet): " + strings.Join(sortedKeys(handKinds), ", ") +
		"\nkinds without a view of their own, checked in the generic view: " + strings.Join(sortedKeys(generic), ", ") +
		"\nkinds drawn but not checked (no tool, no Go type yet): " + strings.Join(sortedKeys(previews), ", ") + "\n"
	t.Log(summary)
	_ = os.WriteFile(filepath.Join(artifacts, "kinds.txt"), []byte(summary), 0o644)
	takeDirectoryShots(t, all, chrome, artifacts)
}
