package ui_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The Claude connector directory shows an MCP App by screenshots of it:
// the card showing an approval, a choice, and a campaign's results, drawn
// by the browser test at the width of a wide conversation.
const directoryWidth = 1000

// directoryShots are the scenarios photographed for the directory, and
// the file each picture is kept as in docs/screenshots.
var directoryShots = []struct{ scenario, file string }{
	{"approval", "card-approval.png"},
	{"choice", "card-choice.png"},
	{"campaign-paused-automatically", "card-campaign-results.png"},
	{"campaign-estimate", "card-campaign-estimate.png"},
}

// committedShots is where the pictures are kept in the repository; the
// browser test rewrites them with -update.
var committedShots = filepath.Join("..", "docs", "screenshots")

// pngSize reads a PNG's width and height from its header (the IHDR chunk
// that must come first).
func pngSize(b []byte) (width, height int, err error) {
	sig := []byte("\x89PNG\r\n\x1a\n")
	if len(b) < 24 || !bytes.Equal(b[:8], sig) || string(b[12:16]) != "IHDR" {
		return 0, 0, errors.New("not a PNG")
	}
	return int(binary.BigEndian.Uint32(b[16:20])), int(binary.BigEndian.Uint32(b[20:24])), nil
}

// checkShot says whether the file is a PNG at least directoryWidth wide.
func checkShot(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("no screenshot: %v", err)
		return nil
	}
	w, h, err := pngSize(b)
	switch {
	case err != nil:
		t.Errorf("%s: %v", path, err)
	case w < directoryWidth || h < 100:
		t.Errorf("%s is %d×%d pixels; the directory wants at least %d wide", path, w, h, directoryWidth)
	}
	return b
}

// takeDirectoryShots draws the directory's scenarios at directoryWidth in
// the harness, checks each picture, and keeps them in
// test-artifacts/ui/directory (and, with -update, in docs/screenshots).
func takeDirectoryShots(t *testing.T, all []*scenario, chrome, artifacts string) {
	t.Helper()
	byName := map[string]*scenario{}
	for _, sc := range all {
		byName[sc.Name] = sc
	}
	var picked []*scenario
	for _, s := range directoryShots {
		sc, ok := byName[s.scenario]
		if !ok {
			t.Fatalf("no scenario %q to photograph for the directory", s.scenario)
		}
		picked = append(picked, sc)
	}
	dir := filepath.Join(artifacts, "directory")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(picked)
	if err != nil {
		t.Fatal(err)
	}
	fixtures := filepath.Join(t.TempDir(), "directory.json")
	if err := os.WriteFile(fixtures, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// The checks ran at the chat's width above; at this width the
	// pictures are what counts, so the harness's verdict is only logged.
	out, err := runNode(t, 4*time.Minute, filepath.Join("harness", "run.mjs"), "--card", "card.html", "--scenarios", fixtures,
		"--out", dir, "--results", filepath.Join(dir, "results.json"), "--chromium", chrome, "--width", "1000")
	t.Logf("directory screenshots (%v):\n%s", err, out)
	for _, s := range directoryShots {
		png := checkShot(t, filepath.Join(dir, s.scenario+"-light.png"))
		if png == nil {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, s.file), png, 0o644); err != nil {
			t.Fatal(err)
		}
		if *updateGenerated {
			if err := os.WriteFile(filepath.Join(committedShots, s.file), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// The screenshots kept for the directory are there, and wide enough.
func TestDirectoryScreenshotsAreKept(t *testing.T) {
	for _, s := range directoryShots {
		checkShot(t, filepath.Join(committedShots, s.file))
	}
}
