package goast

import (
	"fmt"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strings"
	"testing"
)

// The Go reader's enclosing calls follow engine.EnclosingCalls's rule, as lexed.EnclosingCalls's rule: the
// innermost brackets open across an added line must be a call's.
func TestEnclosingCallees(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		added      []int // lines of the file (the body starts on line 4)
		want       []string
	}{
		{"an argument line", "\tx := pkg.Build(\n\t\t1,\n\t\t2,\n\t)\n\t_ = x\n", []int{6}, []string{"Build"}},
		{"generic callee", "\tx := Make[int](\n\t\t1,\n\t)\n\t_ = x\n", []int{5}, []string{"Make"}},
		{"the callee's line added too", "\tx := Build(\n\t\t1,\n\t)\n\t_ = x\n", []int{4, 5}, nil},
		{"a function literal's body", "\trun(func() {\n\t\twork()\n\t})\n", []int{5}, nil},
		{"a composite literal", "\tuse(T{\n\t\tA: 1,\n\t})\n", []int{5}, nil},
		{"the innermost call", "\touter(\n\t\tinner(\n\t\t\t1,\n\t\t),\n\t)\n", []int{6}, []string{"inner"}},
		{"a statement, not an argument", "\tx := 1\n\t_ = x\n", []int{4}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte("package p\n\nfunc f() {\n" + tc.body + "}\n")
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, "p.go", src, 0)
			if err != nil {
				t.Fatalf("%v:\n%s", err, src)
			}
			added := map[int]bool{}
			for _, l := range tc.added {
				added[l] = true
			}
			var got []string
			for id := range EnclosingCallees(file, fset.File(file.Pos()), added) {
				got = append(got, id.Name)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("callees %q, want %q", got, tc.want)
			}
		})
	}
}

// Members answers a struct's fields and an interface's methods, and nothing
// for another type.
func TestMembers(t *testing.T) {
	for _, tc := range []struct {
		typ   string
		names []string // nil: no members
		iface bool
	}{
		{"struct{ A, B int; C string }", []string{"A", "B", "C"}, false},
		{"interface{ M(); N() int }", []string{"M", "N"}, true},
		{"struct{}", []string{}, false},
		{"[]int", nil, false},
		{"map[string]T", nil, false},
	} {
		x, err := parser.ParseExpr(tc.typ)
		if err != nil {
			t.Fatal(err)
		}
		fl, iface := Members(x)
		if tc.names == nil {
			if fl != nil || iface {
				t.Errorf("%s: members %v, iface %t, want none", tc.typ, fl, iface)
			}
			continue
		}
		names := []string{}
		for _, f := range fl.List {
			for _, n := range f.Names {
				names = append(names, n.Name)
			}
		}
		if !slices.Equal(names, tc.names) || iface != tc.iface {
			t.Errorf("%s: members %v, iface %t, want %v, %t", tc.typ, names, iface, tc.names, tc.iface)
		}
	}
}

// TestEnclosingCalleesPruned: with few added lines EnclosingCallees skips
// the nodes that hold none of them, and answers as the full walk does (a
// map of the same lines with every other line set false, too many for the
// skipping, walks everything).
func TestEnclosingCalleesPruned(t *testing.T) {
	var b strings.Builder
	b.WriteString("package p\n")
	for i := range 20 {
		fmt.Fprintf(&b, "\nfunc f%d() {\n\tx := outer%d(\n\t\tinner(\n\t\t\t1,\n\t\t),\n\t\tT{\n\t\t\tA: 2,\n\t\t},\n\t)\n\trun(func() {\n\t\twork(x,\n\t\t\t3)\n\t})\n}\n", i, i)
	}
	src := b.String()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	tf := fset.File(file.FileStart)
	found := 0
	for l := 1; l <= tf.LineCount(); l++ {
		few := map[int]bool{l: true}
		all := map[int]bool{}
		for k := 1; k <= tf.LineCount(); k++ {
			all[k] = k == l
		}
		got, want := EnclosingCallees(file, tf, few), EnclosingCallees(file, tf, all)
		if !maps.Equal(got, want) {
			t.Errorf("line %d: %d callees, %d walking everything", l, len(got), len(want))
		}
		found += len(got)
	}
	if found == 0 {
		t.Fatal("no argument line: the test tests nothing")
	}
}
