package golang

import (
	"fmt"
	"go/ast"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/golang/goscan"
)

// declShape lists every node of a file outside function bodies, with its
// offset and identifier name, and each body's brace offsets.
func declShape(a *ast.File) []string {
	var out []string
	at := func(p token.Pos) int { return int(p - a.FileStart) }
	for _, d := range a.Decls {
		ast.Inspect(d, func(n ast.Node) bool {
			switch n := n.(type) {
			case nil:
				return false
			case *ast.BlockStmt:
				out = append(out, fmt.Sprintf("block %d-%d", at(n.Lbrace), at(n.Rbrace)))
				return false
			case *ast.Ident:
				out = append(out, fmt.Sprintf("ident %s %d", n.Name, at(n.Pos())))
			default:
				out = append(out, fmt.Sprintf("%T %d-%d", n, at(n.Pos()), at(n.End())))
			}
			return true
		})
	}
	return out
}

// TestSkeletonKeepsDeclarations parses this repository's own Go files
// whole and with every body blanked: the declarations, signatures and
// positions must be the same, and most bodies must be blanked.
func TestSkeletonKeepsDeclarations(t *testing.T) {
	var files, blanked, bodies int
	eachRepoGoFile(t, func(p string, src []byte) bool {
		files++
		full := parseSrc(p, src)
		skel := parseKeep(p, src, nil)
		if full == nil || skel == nil {
			t.Fatalf("%s: not parsed", p)
		}
		if a, b := declShape(full.ast), declShape(skel.ast); !reflect.DeepEqual(a, b) {
			for i := range min(len(a), len(b)) {
				if a[i] != b[i] {
					t.Fatalf("%s: declarations differ with bodies blanked: %q, not %q", p, b[i], a[i])
				}
			}
			t.Fatalf("%s: declarations differ with bodies blanked: %d nodes, not %d", p, len(b), len(a))
		}
		if !reflect.DeepEqual(full.imports, skel.imports) || len(full.top) != len(skel.top) || len(full.methods) != len(skel.methods) {
			t.Fatalf("%s: index differs with bodies blanked", p)
		}
		for _, d := range full.ast.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && len(fd.Body.List) > 0 {
				bodies++
			}
		}
		blanked += len(skel.blanked)
		return true
	})
	if files < 100 || blanked < bodies*9/10 {
		t.Fatalf("%d files: %d of %d non-empty bodies blanked", files, blanked, bodies)
	}
}

func TestSkeletonKeepsWhatIsAsked(t *testing.T) {
	src := []byte("package p\n\nfunc A() {\n\tb()\n}\n\nfunc (t *T) B() int {\n\treturn 1\n}\n\nfunc C() { c() }\n")
	f := parseKeep("p.go", src, func(b goscan.Body) bool { return b.From == 7 })
	if f == nil {
		t.Fatal("not parsed")
	}
	got := map[string]int{}
	for _, d := range f.ast.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			got[fd.Name.Name] = len(fd.Body.List)
		}
	}
	if want := map[string]int{"A": 0, "B": 1, "C": 1}; !reflect.DeepEqual(got, want) {
		t.Fatalf("statements per body: got %v, want %v", got, want)
	}
	if len(f.blanked) != 1 || f.covers(func(b goscan.Body) bool { return b.From == 3 }) || !f.covers(func(b goscan.Body) bool { return b.From == 7 }) {
		t.Fatalf("blanked %v: covers answers wrong", f.blanked)
	}
}

// A raw string is read as the scanner reads it: a line "}" inside one does
// not end the body.
func TestSkeletonSkipsRawStrings(t *testing.T) {
	src := "package p\n\nfunc A() {\n\ts := `\n}\nfunc B() {\n`\n\t_ = s /* } */\n\tb('`')\n}\n\nfunc C() {\n\tc()\n}\n"
	bodies := goscan.Bodies([]byte(src))
	if len(bodies) != 2 || bodies[0].From != 3 || bodies[0].To != 10 || bodies[1].From != 12 {
		t.Fatalf("bodies %+v", bodies)
	}
	f := parseKeep("p.go", []byte(src), nil)
	if f == nil || len(f.blanked) != 2 {
		t.Fatalf("not parsed with both bodies blanked: %+v", f)
	}
}

// A body that gofmt's layout does not describe is parsed, never cut: a line
// at column 0 in it, or a nested brace at column 0 that would end it early.
func TestSkeletonFallsBackToTheWholeSource(t *testing.T) {
	for _, src := range []string{
		"package p\n\nfunc A() {\nb()\n}\n",
		"package p\n\nfunc A() {\n\tif x {\n}\n\tb()\n}\n",
	} {
		f := parseKeep("p.go", []byte(src), nil)
		if f == nil {
			t.Fatalf("%q: not parsed", src)
		}
		fd := f.ast.Decls[0].(*ast.FuncDecl)
		if len(f.blanked) != 0 || len(fd.Body.List) == 0 {
			t.Fatalf("%q: body blanked (%d statements left)", src, len(fd.Body.List))
		}
	}
}

// eachRepoGoFile calls fn with the path and content of each Go file of
// this repository (testdata and dot folders left out) until fn answers
// false.
func eachRepoGoFile(t *testing.T, fn func(p string, src []byte) bool) {
	t.Helper()
	root := filepath.Join("..", "..", "..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !fn(p, src) {
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
