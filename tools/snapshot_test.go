package tools

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"vibesell/auth"
	"vibesell/toolkit/toolkittest"
)

// updateSnapshots rewrites the snapshots from the registry. Either
//
//	go test ./tools -run TestToolSnapshots -update
//	UPDATE_TOOLSNAPS=true go test ./tools -run TestToolSnapshots
var updateSnapshots = flag.Bool("update", false, "rewrite testdata/toolsnaps from the registry")

const snapshotDir = "testdata/toolsnaps"

// TestToolSnapshots keeps the public contract in review: every tool as a
// host sees it in tools/list (name, title, description, the four hints,
// both schemas, _meta) and what its spec requires beyond a workspace, one
// file per tool. A change to any of it, a description's wording included,
// fails here until the snapshots are rewritten and the diff is committed
// with the change; so does a snapshot of a tool that no longer exists.
func TestToolSnapshots(t *testing.T) {
	update := *updateSnapshots || os.Getenv("UPDATE_TOOLSNAPS") == "true"
	client := toolkittest.Connect(t, NewServer(Deps{}, nil), auth.Principal{WorkspaceID: uuid.New(), WorkspaceSlug: "snapshots"})

	var names []string
	for _, tool := range Registry(Deps{}) {
		names = append(names, tool.Name())
		t.Run(tool.Name(), func(t *testing.T) {
			var listed map[string]any
			if err := json.Unmarshal(client.For(t).Tool(tool.Name()), &listed); err != nil {
				t.Fatal(err)
			}
			listed["requires"] = tool.Needs()
			got := snapshotJSON(t, listed)
			path := filepath.Join(snapshotDir, tool.Name()+".json")
			if update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if os.IsNotExist(err) {
				t.Fatalf("%s has no snapshot: %s", tool.Name(), refreshHint)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want, got) {
				var wantValue, gotValue any
				_ = json.Unmarshal(want, &wantValue)
				_ = json.Unmarshal(got, &gotValue)
				t.Errorf("%s differs from its snapshot (-snapshot +now):\n%s\n%s", tool.Name(), cmp.Diff(wantValue, gotValue), refreshHint)
			}
		})
	}

	files, err := filepath.Glob(filepath.Join(snapshotDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		if slices.Contains(names, name) {
			continue
		}
		if update {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s is the snapshot of a tool the registry no longer has: %s", f, refreshHint)
	}
}

const refreshHint = "if the change is meant, run `go test ./tools -run TestToolSnapshots -update` and commit testdata/toolsnaps with it"

// snapshotJSON writes v with sorted keys, two-space indents and text as
// it is (no \u003c for <), so a change reads as a small diff in review.
func snapshotJSON(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
