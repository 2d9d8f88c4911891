package vibesell_test

import (
	"go/ast"
	"path"
	"regexp"
	"strings"
	"testing"
)

// setterName is the name of a method that hands a service a dependency
// after it was built.
var setterName = regexp.MustCompile(`^(Set|Use|Attach)([A-Z]|$)|^KeepInMemory|^Keep\w*InMemory$`)

// wideConstructors are constructors of more than two parameters that
// stay so, each with why.
var wideConstructors = map[string]string{
	// A generic cache over one reading of the workspace's context: the
	// reading is the cache's subject, not a dependency, and a Deps struct
	// cannot carry the type parameter's function more clearly.
	"vibesell/workspace.NewContextCache": "generic: the read function is what the cache caches",
}

// isHelperPackage says whether a package is a test helper (storetest,
// featuretest), built for tests and free of the services' rule.
func isHelperPackage(p string) bool {
	return strings.HasSuffix(path.Base(p), "test")
}

// TestOneConstructorShape keeps services built one way: everything a
// service needs is given to New (or NewX) at once, in a Deps struct when
// there is more than a pair, and nothing is handed over later.
func TestOneConstructorShape(t *testing.T) {
	for _, pkg := range readModule(t) {
		if pkg.path == "vibesell" || isHelperPackage(pkg.path) {
			continue
		}
		constructed := map[string]bool{} // types some New* returns a pointer to
		for _, f := range pkg.files {
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "New") || fn.Type.Results == nil {
					continue
				}
				star, isPointer := fn.Type.Results.List[0].Type.(*ast.StarExpr)
				if isPointer {
					if id, ok := star.X.(*ast.Ident); ok {
						constructed[id.Name] = true
					} else if ix, ok := star.X.(*ast.IndexExpr); ok {
						if id, ok := ix.X.(*ast.Ident); ok {
							constructed[id.Name] = true
						}
					}
				}
				if !isPointer || fn.Type.Params.NumFields() <= 2 {
					continue // a value constructor, or a narrow one
				}
				if _, ok := wideConstructors[pkg.path+"."+fn.Name.Name]; ok {
					continue
				}
				t.Errorf("%s.%s takes %d parameters: give the service a Deps struct (New(d Deps))", pkg.path, fn.Name.Name, fn.Type.Params.NumFields())
			}
		}
		for _, f := range pkg.files {
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Recv == nil || !fn.Name.IsExported() || !setterName.MatchString(fn.Name.Name) {
					continue
				}
				star, ok := fn.Recv.List[0].Type.(*ast.StarExpr)
				if !ok {
					continue
				}
				recv, ok := star.X.(*ast.Ident)
				if !ok || !constructed[recv.Name] || takesContextFirst(fn) {
					continue
				}
				t.Errorf("%s: (*%s).%s sets a dependency after construction: give it in the constructor's Deps", pkg.path, recv.Name, fn.Name.Name)
			}
		}
	}
}

// takesContextFirst says whether a method's first parameter is a
// context.Context: such a method is an operation of the feature
// (workspace's SetSender, approvals' SetPolicy), not a setter.
func takesContextFirst(fn *ast.FuncDecl) bool {
	if fn.Type.Params.NumFields() == 0 {
		return false
	}
	sel, ok := fn.Type.Params.List[0].Type.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == "context" && sel.Sel.Name == "Context"
}
