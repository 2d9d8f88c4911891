package vibesell_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// One time zone: a text writes a moment with FormatTimeFor, in the
// workspace's zone with UTC beside it. FormatTime (UTC alone) is kept for
// the few texts no workspace reads in its zone, listed here with why; a new
// call anywhere else fails this test, so a moment cannot slip back into UTC.
func TestMomentsAreWrittenInTheWorkspacesZone(t *testing.T) {
	allowed := map[string]string{
		"text.go":                    "FormatTime is defined here",
		"zone.go":                    "FormatTimeBeside writes UTC alone when the zone is UTC",
		"cmd/server/support_list.go": "the operator's list of every workspace's tickets, on the server's terminal",
		"sending/order_approval.go":  "an order's outcome, written by a job and stored with the approval",
		"campaigns/launch.go":        "FormatIn writes a moment in a zone it is given, with UTC beside it",
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			name := ""
			switch f := call.Fun.(type) {
			case *ast.SelectorExpr:
				if x, ok := f.X.(*ast.Ident); ok && x.Name == "vibesell" {
					name = f.Sel.Name
				}
			case *ast.Ident:
				if file.Name.Name == "vibesell" {
					name = f.Name
				}
			}
			if name == "FormatTime" {
				if _, ok := allowed[filepath.ToSlash(path)]; !ok {
					t.Errorf("%s: FormatTime writes a moment in UTC alone; write it with FormatTimeFor(ctx, …), in the workspace's zone", fset.Position(call.Pos()))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
