package vibesell_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// layers are the module's packages from the bottom up: a package imports
// only packages of lower layers, never one of its own layer or above. A
// test helper (billing/billingtest) stands with its parent and may import
// it and what is below it. A new package must be placed here, which is
// the moment to decide what it stands on.
var layers = [][]string{
	{"vibesell", "vibesell/migrations", "vibesell/proofread", "vibesell/ui"},
	{"vibesell/store", "vibesell/outbound"},
	{"vibesell/auth", "vibesell/proof", "vibesell/mail"},
	{"vibesell/workspace", "vibesell/cards", "vibesell/auth/oauth", "vibesell/toolkit", "vibesell/sandboxmail", "vibesell/notices", "vibesell/webhooks"},
	{"vibesell/approvals", "vibesell/audit"},
	{"vibesell/billing", "vibesell/campaigns"},
	{"vibesell/sending", "vibesell/audience", "vibesell/mailboxes"},
	{"vibesell/delivery"},
	{"vibesell/replies"},
	// The adapters, and the fixture that wires every feature for their
	// tests as the server does.
	{"vibesell/tools", "vibesell/web", "vibesell/featuretest"},
	{"vibesell/cmd/server", "vibesell/e2e"},
}

// modulePackage is one package of the module, as its non-test files say.
type modulePackage struct {
	path    string
	imports []string
	files   []*ast.File
}

// readModule parses every package of the module but its tests.
func readModule(t *testing.T) map[string]*modulePackage {
	t.Helper()
	pkgs := map[string]*modulePackage{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		importPath := path.Join("vibesell", filepath.ToSlash(filepath.Dir(p)))
		pkg := pkgs[importPath]
		if pkg == nil {
			pkg = &modulePackage{path: importPath}
			pkgs[importPath] = pkg
		}
		pkg.files = append(pkg.files, f)
		for _, spec := range f.Imports {
			imp, _ := strconv.Unquote(spec.Path.Value)
			if (imp == "vibesell" || strings.HasPrefix(imp, "vibesell/")) && !slices.Contains(pkg.imports, imp) {
				pkg.imports = append(pkg.imports, imp)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// layerOf is the layer a package stands in, and for a test helper its
// parent's; false when the package is in no layer.
func layerOf(pkg string) (int, bool) {
	if dir, base := path.Split(pkg); strings.HasSuffix(base, "test") && path.Base(strings.TrimSuffix(dir, "/"))+"test" == base {
		pkg = strings.TrimSuffix(dir, "/")
	}
	for i, layer := range layers {
		if slices.Contains(layer, pkg) {
			return i, true
		}
	}
	return 0, false
}

func TestImportsGoDown(t *testing.T) {
	for _, pkg := range readModule(t) {
		from, ok := layerOf(pkg.path)
		if !ok {
			t.Errorf("%s is in no layer: place it in arch_test.go's layers, above what it imports", pkg.path)
			continue
		}
		// A test helper may import its parent, in the parent's layer.
		isHelper := !slices.ContainsFunc(layers, func(l []string) bool { return slices.Contains(l, pkg.path) })
		for _, imp := range pkg.imports {
			to, ok := layerOf(imp)
			switch {
			case !ok:
				t.Errorf("%s imports %s, which is in no layer", pkg.path, imp)
			case isHelper && path.Dir(pkg.path) == imp:
			case to >= from:
				t.Errorf("%s (layer %d) imports %s (layer %d): an import up or sideways", pkg.path, from, imp, to)
			}
		}
	}
}

func TestNoAliasAcrossPackages(t *testing.T) {
	for _, pkg := range readModule(t) {
		for _, f := range pkg.files {
			ast.Inspect(f, func(n ast.Node) bool {
				spec, ok := n.(*ast.TypeSpec)
				if !ok || !spec.Assign.IsValid() {
					return true
				}
				if sel, ok := spec.Type.(*ast.SelectorExpr); ok {
					t.Errorf("%s: type %s = %s.%s aliases another package's type: give the noun one home", pkg.path, spec.Name.Name, sel.X, sel.Sel.Name)
				}
				return true
			})
		}
	}
}

// sqlText is text that is a statement or a piece of one.
var sqlText = regexp.MustCompile(`\bSELECT\b[\s\S]*\bFROM\b|\bINSERT INTO\b|\bUPDATE\s+\w+\s+SET\b|\bDELETE FROM\b|\bEXISTS\s*\(|\bWHERE\b`)

func TestNoExportedSQL(t *testing.T) {
	for _, pkg := range readModule(t) {
		for _, f := range pkg.files {
			for _, decl := range f.Decls {
				switch d := decl.(type) {
				case *ast.GenDecl:
					for _, s := range d.Specs {
						spec, ok := s.(*ast.ValueSpec)
						if !ok {
							continue
						}
						for i, name := range spec.Names {
							if name.IsExported() && i < len(spec.Values) && holdsSQL(spec.Values[i]) {
								t.Errorf("%s.%s holds SQL: no SQL text crosses a package boundary; make it a method that runs the query", pkg.path, name.Name)
							}
						}
					}
				case *ast.FuncDecl:
					if d.Name.IsExported() && strings.HasSuffix(d.Name.Name, "SQL") {
						t.Errorf("%s.%s hands out SQL: no SQL text crosses a package boundary", pkg.path, d.Name.Name)
					}
				}
			}
		}
	}
}

// holdsSQL says whether a constant's or variable's value has SQL in its
// string literals.
func holdsSQL(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil && sqlText.MatchString(s) {
				found = true
			}
		}
		return !found
	})
	return found
}

// TestLayersAreReal keeps the layers honest: every package they name
// exists, so a package moved or removed is taken out of them.
func TestLayersAreReal(t *testing.T) {
	pkgs := readModule(t)
	for _, layer := range layers {
		for _, p := range layer {
			if pkgs[p] == nil {
				t.Errorf("layers name %s, which has no Go files", p)
			}
		}
	}
}
