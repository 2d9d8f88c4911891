package ui_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"vibesell/ui"
)

// TestCardIsUpToDate rebuilds the card from src/ and compares it byte for
// byte with the committed card.html, which is what the server embeds.
func TestCardIsUpToDate(t *testing.T) {
	nodeModules(t)
	out := filepath.Join(t.TempDir(), "card.html")
	if log, err := runNode(t, 2*time.Minute, "build.mjs", "--out", out); err != nil {
		t.Fatalf("building the card from src/ failed: %v\n%s", err, log)
	}
	built, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(built) != ui.CardHTML {
		t.Fatalf("ui/card.html is not what src/ builds (%d bytes built, %d committed): run `cd ui && npm ci && npm run build` and commit card.html", len(built), len(ui.CardHTML))
	}
}

// TestCardSourceTypechecks runs the TypeScript compiler over the card and
// the test host (esbuild, which builds them, does not check types).
func TestCardSourceTypechecks(t *testing.T) {
	nodeModules(t)
	if log, err := runNode(t, 2*time.Minute, filepath.Join("node_modules", "typescript", "bin", "tsc"), "-p", "."); err != nil {
		t.Fatalf("tsc: %v\n%s", err, log)
	}
}

// TestCardIsSelfContained checks the committed card without Node: an HTML5
// document whose scripts and styles are all inline, loading nothing from
// any origin, as the default MCP Apps content security policy requires.
func TestCardIsSelfContained(t *testing.T) {
	html := ui.CardHTML
	if !strings.HasPrefix(strings.ToLower(html), "<!doctype html>") {
		t.Fatal("card.html does not start with <!doctype html>")
	}
	// The markup outside the script, and the stylesheet: the bundled SDK
	// mentions web addresses in code that never runs in the card, which the
	// browser test's CSP check covers.
	markup := regexp.MustCompile(`(?is)<script[^>]*>.*?</script>`).ReplaceAllString(html, "")
	style := strings.Join(regexp.MustCompile(`(?is)<style[^>]*>(.*?)</style>`).FindAllString(html, -1), "\n")
	for _, check := range []struct {
		in  string
		bad *regexp.Regexp
	}{
		{html, regexp.MustCompile(`(?i)<script[^>]+src\s*=`)},
		{markup, regexp.MustCompile(`(?i)<link[^>]+href\s*=`)},
		{markup, regexp.MustCompile(`(?i)<(img|iframe|source|video|audio|object|embed)[^>]+(src|data)\s*=`)},
		{style, regexp.MustCompile(`(?i)@import\s`)},
		{style, regexp.MustCompile(`(?i)url\(`)},
	} {
		if m := check.bad.FindString(check.in); m != "" {
			t.Errorf("card.html loads something from outside: %q", m)
		}
	}
	if n := strings.Count(strings.ToLower(html), "<script"); n != 1 {
		t.Errorf("card.html has %d scripts, want the one inline module", n)
	}
	if !strings.Contains(html, `<script type="module">`) {
		t.Error("the card's script is not an inline module")
	}
	if strings.Contains(html, "100vh") {
		t.Error("card.html uses 100vh: with the host sizing the frame to its content, it grows without end")
	}
}
