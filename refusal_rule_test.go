package vibesell_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"vibesell"
)

// A feature writes a refusal, and the next steps it gives, once, for a
// person: what to do in words, the tool that does it beside the words, in
// a vibesell.Next. The toolkit writes the tool for the assistant, the web
// app a link to the page. So no feature builds a sentence out of a tool's
// name: a vibesell.Tool* constant is never formatted or concatenated into
// text, and no string literal spells a tool's name. The adapters (tools,
// toolkit, web), the wiring and the test suites speak to their reader
// directly and are not features.
func TestFeaturesNameNoToolInASentence(t *testing.T) {
	adapters := map[string]bool{"tools": true, "toolkit": true, "web": true, "cmd": true, "e2e": true, "conformance": true, "ui": true}
	var names []string
	for _, n := range toolNames(t) {
		if strings.Contains(n, "_") { // "remember" is a word as well as a tool
			names = append(names, regexp.QuoteMeta(n))
		}
	}
	spelled := regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\b`)
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." {
			top, _, _ := strings.Cut(filepath.ToSlash(path), "/")
			// A package named …test is a test suite's helper.
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata" || adapters[top] || strings.HasSuffix(d.Name(), "test") {
				return filepath.SkipDir
			}
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.Dir(path) == "." {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		var stack []ast.Node
		ast.Inspect(file, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			stack = append(stack, n)
			switch n := n.(type) {
			case *ast.BasicLit:
				if n.Kind != token.STRING {
					return true
				}
				if s, err := strconv.Unquote(n.Value); err == nil && spelled.MatchString(s) {
					t.Errorf("%s: the text spells the tool %s; give the step as a vibesell.Next instead", fset.Position(n.Pos()), spelled.FindString(s))
				}
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); !ok || x.Name != "vibesell" || !strings.HasPrefix(n.Sel.Name, "Tool") {
					return true
				}
				if into := intoText(stack[:len(stack)-1]); into != "" {
					t.Errorf("%s: vibesell.%s is written into text (%s); give the step as a vibesell.Next instead", fset.Position(n.Pos()), n.Sel.Name, into)
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

// intoText says how an expression under ancestors ends up in a text: a
// formatting call or a concatenation; "" when it does not.
func intoText(ancestors []ast.Node) string {
	for i := len(ancestors) - 1; i >= 0; i-- {
		switch a := ancestors[i].(type) {
		case *ast.BinaryExpr:
			if a.Op == token.ADD {
				return "concatenated"
			}
		case *ast.CallExpr:
			if sel, ok := a.Fun.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok {
					switch {
					case x.Name == "fmt" && strings.Contains(sel.Sel.Name, "printf"),
						x.Name == "fmt" && sel.Sel.Name == "Errorf",
						x.Name == "vibesell" && sel.Sel.Name == "Errorf",
						x.Name == "strings" && sel.Sel.Name == "Join":
						return x.Name + "." + sel.Sel.Name
					}
				}
			}
		case ast.Stmt, *ast.CompositeLit, *ast.KeyValueExpr:
			// A statement or a field of its own: the name is a value here.
			return ""
		}
	}
	return ""
}

// toolNames are the values of the root package's Tool* constants, read
// from toolname.go so that a new tool is covered without a list to keep.
func toolNames(t *testing.T) []string {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), "toolname.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(file, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, id := range spec.Names {
			if lit, ok := spec.Values[i].(*ast.BasicLit); ok && strings.HasPrefix(id.Name, "Tool") {
				v, _ := strconv.Unquote(lit.Value)
				out = append(out, v)
			}
		}
		return true
	})
	if len(out) < 42 || !strings.Contains(strings.Join(out, " "), vibesell.ToolChooseSendingSource) {
		t.Fatalf("read %d tool names from toolname.go, want the 41 and the card's own", len(out))
	}
	return out
}
