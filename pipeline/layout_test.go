package pipeline_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The house's bounds on the service's code (scripts/ and tests aside): no
// package over maxPackageLines non-test lines, no file over maxFileLines,
// at most maxLongFuncs functions over longFuncLines lines, and every package
// with its doc comment.
const (
	maxPackageLines = 3000
	maxFileLines    = 800
	longFuncLines   = 100
	maxLongFuncs    = 5
)

// TestLayoutBounds reads every non-test Go file of the module outside
// scripts/ and checks the bounds.
func TestLayoutBounds(t *testing.T) {
	root := ".."
	pkgLines := map[string]int{}
	pkgDoc := map[string]bool{}
	var long []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel == "scripts" || rel == "testdata" || strings.HasSuffix(rel, "/testdata") || (rel != "." && strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n := strings.Count(string(src), "\n")
		dir := filepath.Dir(rel)
		pkgLines[dir] += n
		if n > maxFileLines {
			t.Errorf("%s: %d lines, over %d", rel, n, maxFileLines)
		}
		f, err := parser.ParseFile(fset, p, src, parser.ParseComments)
		if err != nil {
			return err
		}
		if f.Doc != nil {
			pkgDoc[dir] = true
		} else if _, ok := pkgDoc[dir]; !ok {
			pkgDoc[dir] = false
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if l := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; l > longFuncLines {
				long = append(long, rel+" "+fd.Name.Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgLines) < 20 {
		t.Fatalf("read %d packages: the walk missed the module", len(pkgLines))
	}
	for dir, n := range pkgLines {
		if n > maxPackageLines {
			t.Errorf("package %s: %d non-test lines, over %d", dir, n, maxPackageLines)
		}
		if !pkgDoc[dir] {
			t.Errorf("package %s has no doc comment", dir)
		}
	}
	sort.Strings(long)
	if len(long) > maxLongFuncs {
		t.Errorf("%d functions over %d lines, at most %d allowed:\n%s", len(long), longFuncLines, maxLongFuncs, strings.Join(long, "\n"))
	}
}
