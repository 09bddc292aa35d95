package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/prscout/prscout/pipeline/candidates"
	"github.com/prscout/prscout/pipeline/candidates/golang"
)

// truth is what the Go type checker says a commit's reviewer needs: the
// files outside the change that declare objects used on added lines (uses)
// and the files that refer to objects whose declaration the change touched
// (impact).
type truth struct {
	Uses   []string `json:"uses"`
	Impact []string `json:"impact"`
	// Errors counts packages with type errors (the truth may miss files).
	Errors int `json:"errors"`
}

func (t truth) all() map[string]bool {
	m := map[string]bool{}
	for _, p := range t.Uses {
		m[p] = true
	}
	for _, p := range t.Impact {
		m[p] = true
	}
	return m
}

// computeTruth type-checks every package of the checkout (tests included) at
// the head commit. A declaration counts as touched when an added line falls
// in its span (a function from `func` to its closing brace, a struct field,
// an interface method, a type's header, a var/const spec), or when a removed
// line fell in its span at the base and the head still declares it. Removed
// declarations add nothing: code that still refers to them at the head
// does not type-check.
func computeTruth(dir string, changes []candidates.Change) (truth, error) {
	fset := token.NewFileSet()
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
			packages.NeedTypes | packages.NeedTypesInfo,
		Dir:   dir,
		Tests: true,
		Fset:  fset,
		Env:   append(os.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOWORK=off"),
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		return truth{}, fmt.Errorf("load packages: %w", err)
	}
	abs, _ := filepath.Abs(dir)
	rel := func(p string) (string, bool) {
		r, err := filepath.Rel(abs, p)
		if err != nil || strings.HasPrefix(r, "..") {
			return "", false
		}
		return filepath.ToSlash(r), true
	}
	added := map[string]map[int]bool{}
	changed := map[string]bool{}
	var olds []candidates.Change
	for _, c := range changes {
		changed[c.Path] = true
		if c.OldPath != "" {
			changed[c.OldPath] = true
		}
		if !strings.HasSuffix(c.Path, ".go") {
			continue
		}
		m := map[int]bool{}
		for _, l := range c.AddedLines {
			m[l] = true
		}
		// A comment-only line touches no declaration (the engine's
		// definition, golang.CodeLines).
		added[c.Path] = golang.CodeLines(c.New, m)
		if len(c.RemovedLines) > 0 && c.Old != nil {
			olds = append(olds, c)
		}
	}
	key := func(obj types.Object) string {
		p := fset.Position(obj.Pos())
		r, ok := rel(p.Filename)
		if !ok {
			return ""
		}
		return fmt.Sprintf("%s:%d", r, p.Offset)
	}
	touched := map[string]bool{}
	var t truth
	uses := map[string]bool{}
	impact := map[string]bool{}
	for _, pkg := range pkgs {
		if len(pkg.Errors) > 0 {
			t.Errors++
		}
		if pkg.TypesInfo == nil {
			continue
		}
		for _, f := range pkg.Syntax {
			r, ok := rel(fset.Position(f.Pos()).Filename)
			if !ok || added[r] == nil {
				continue
			}
			for _, obj := range touchedObjects(fset, pkg.TypesInfo, f, added[r]) {
				if k := key(obj); k != "" {
					touched[k] = true
				}
			}
		}
		// Declarations that lost lines and still exist at the head.
		for _, c := range olds {
			op := c.Path
			if c.OldPath != "" {
				op = c.OldPath
			}
			if pkg.Types == nil || !samePackageDir(pkg, abs, op) {
				continue
			}
			for _, n := range oldTouchedNames(c.Old, c.RemovedLines) {
				if obj := lookupHead(pkg.Types, n); obj != nil {
					if k := key(obj); k != "" {
						touched[k] = true
					}
				}
			}
		}
	}
	for _, pkg := range pkgs {
		if pkg.TypesInfo == nil {
			continue
		}
		for id, obj := range pkg.TypesInfo.Uses {
			if obj == nil || obj.Pkg() == nil {
				continue
			}
			switch obj.(type) {
			case *types.PkgName, *types.Label:
				continue
			}
			pos := fset.Position(id.Pos())
			from, ok := rel(pos.Filename)
			if !ok {
				continue
			}
			declPos := fset.Position(obj.Pos())
			decl, ok := rel(declPos.Filename)
			if !ok {
				continue
			}
			if lines := added[from]; lines != nil && lines[pos.Line] && !changed[decl] && !skipped(decl) {
				uses[decl] = true
			}
			if !changed[from] && !skipped(from) && touched[key(obj)] {
				impact[from] = true
			}
		}
	}
	for p := range uses {
		t.Uses = append(t.Uses, p)
	}
	for p := range impact {
		t.Impact = append(t.Impact, p)
	}
	return t, nil
}

func skipped(p string) bool {
	for _, d := range strings.Split(filepath.ToSlash(filepath.Dir(p)), "/") {
		if d == "testdata" || d == "vendor" {
			return true
		}
	}
	return false
}

// samePackageDir reports whether pkg's files live in the directory of path p.
func samePackageDir(pkg *packages.Package, abs, p string) bool {
	want := filepath.Join(abs, filepath.Dir(filepath.FromSlash(p)))
	for _, f := range pkg.GoFiles {
		return filepath.Dir(f) == want
	}
	return false
}

// touchedObjects returns the objects of file f whose declaration span
// contains an added line.
func touchedObjects(fset *token.FileSet, info *types.Info, f *ast.File, lines map[int]bool) []types.Object {
	line := func(p token.Pos) int { return fset.Position(p).Line }
	hit := func(a, b token.Pos) bool {
		for l := line(a); l <= line(b); l++ {
			if lines[l] {
				return true
			}
		}
		return false
	}
	var out []types.Object
	def := func(id *ast.Ident) {
		if obj := info.Defs[id]; obj != nil {
			out = append(out, obj)
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if hit(d.Pos(), d.End()) {
				def(d.Name)
			}
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.ValueSpec:
					from := sp.Pos()
					if len(d.Specs) == 1 && !d.Lparen.IsValid() {
						from = d.Pos()
					}
					if hit(from, sp.End()) {
						for _, n := range sp.Names {
							def(n)
						}
					}
				case *ast.TypeSpec:
					switch tt := sp.Type.(type) {
					case *ast.StructType:
						if hit(sp.Pos(), tt.Fields.Opening) {
							def(sp.Name)
						}
						tn, _ := info.Defs[sp.Name].(*types.TypeName)
						var st *types.Struct
						if tn != nil {
							st, _ = tn.Type().Underlying().(*types.Struct)
						}
						for _, fld := range tt.Fields.List {
							if !hit(fld.Pos(), fld.End()) {
								continue
							}
							for _, n := range fld.Names {
								def(n)
							}
							if len(fld.Names) == 0 && st != nil {
								for i := 0; i < st.NumFields(); i++ {
									if v := st.Field(i); v.Pos() >= fld.Pos() && v.Pos() < fld.End() {
										out = append(out, v)
									}
								}
							}
						}
					case *ast.InterfaceType:
						if hit(sp.Pos(), tt.Methods.Opening) {
							def(sp.Name)
						}
						for _, m := range tt.Methods.List {
							if !hit(m.Pos(), m.End()) {
								continue
							}
							if len(m.Names) == 0 {
								def(sp.Name)
							}
							for _, n := range m.Names {
								def(n)
							}
						}
					default:
						if hit(sp.Pos(), sp.End()) {
							def(sp.Name)
						}
					}
				}
			}
		}
	}
	return out
}

// oldName is a declaration at the base: a package-level name, or a member
// (method, field, interface method) of type recv.
type oldName struct{ recv, name string }

// oldTouchedNames parses base source and returns the declarations whose
// span contains a removed line.
func oldTouchedNames(src []byte, removed []int) []oldName {
	fset := token.NewFileSet()
	f, _ := parser.ParseFile(fset, "old.go", src, parser.SkipObjectResolution)
	if f == nil {
		return nil
	}
	lines := map[int]bool{}
	for _, l := range removed {
		lines[l] = true
	}
	lines = golang.CodeLines(src, lines)
	line := func(p token.Pos) int { return fset.Position(p).Line }
	hit := func(a, b token.Pos) bool {
		for l := line(a); l <= line(b); l++ {
			if lines[l] {
				return true
			}
		}
		return false
	}
	var out []oldName
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !hit(d.Pos(), d.End()) {
				continue
			}
			n := oldName{name: d.Name.Name}
			if d.Recv != nil && len(d.Recv.List) > 0 {
				n.recv = baseTypeName(d.Recv.List[0].Type)
			}
			out = append(out, n)
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.ValueSpec:
					from := sp.Pos()
					if len(d.Specs) == 1 && !d.Lparen.IsValid() {
						from = d.Pos()
					}
					if hit(from, sp.End()) {
						for _, n := range sp.Names {
							out = append(out, oldName{name: n.Name})
						}
					}
				case *ast.TypeSpec:
					var list *ast.FieldList
					switch tt := sp.Type.(type) {
					case *ast.StructType:
						list = tt.Fields
					case *ast.InterfaceType:
						list = tt.Methods
					}
					if list == nil {
						if hit(sp.Pos(), sp.End()) {
							out = append(out, oldName{name: sp.Name.Name})
						}
						continue
					}
					if hit(sp.Pos(), list.Opening) {
						out = append(out, oldName{name: sp.Name.Name})
					}
					for _, fld := range list.List {
						if !hit(fld.Pos(), fld.End()) {
							continue
						}
						for _, n := range fld.Names {
							out = append(out, oldName{recv: sp.Name.Name, name: n.Name})
						}
						if len(fld.Names) == 0 {
							if _, isIface := sp.Type.(*ast.InterfaceType); isIface {
								out = append(out, oldName{name: sp.Name.Name})
							} else if b := baseTypeName(fld.Type); b != "" {
								out = append(out, oldName{recv: sp.Name.Name, name: b})
							}
						}
					}
				}
			}
		}
	}
	return out
}

func baseTypeName(x ast.Expr) string {
	for {
		switch t := x.(type) {
		case *ast.StarExpr:
			x = t.X
		case *ast.IndexExpr:
			x = t.X
		case *ast.IndexListExpr:
			x = t.X
		case *ast.SelectorExpr:
			return t.Sel.Name
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}

// lookupHead finds a base declaration's object in the head package: a
// package-level object, or a method or field declared directly on recv.
func lookupHead(pkg *types.Package, n oldName) types.Object {
	if n.recv == "" {
		return pkg.Scope().Lookup(n.name)
	}
	tn, ok := pkg.Scope().Lookup(n.recv).(*types.TypeName)
	if !ok {
		return nil
	}
	obj, index, _ := types.LookupFieldOrMethod(tn.Type(), true, pkg, n.name)
	if obj == nil || len(index) != 1 {
		return nil
	}
	return obj
}
