//go:build cgo

package treesit

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/treesit/usesonly"
)

// bestScore is the best item's score of p in ev, 0 when p is not listed.
func bestScore(ev *engine.Evidence, p string) float64 {
	f := ev.Files[p]
	if f == nil {
		return 0
	}
	s := 0.0
	for _, it := range f.Items {
		s = max(s, it.Score)
	}
	return s
}

// TestCppUsesOnlyBelowReferences: the files that only declare names the
// added lines use are listed below the file referring to the changed
// method, and at most usesonly.Max of them however many there are.
func TestCppUsesOnlyBelowReferences(t *testing.T) {
	t.Cleanup(func() { parseFile = parse })
	for _, declaring := range []int{1, 5} {
		old := "#include \"run.h\"\n"
		body := "n"
		tree := mapTree{
			"src/run.h":    "class Run {\n public:\n  int Go(int n);\n};\n",
			"app/main.cpp": "#include \"src/run.h\"\n\nint main() {\n  Run r;\n  return r.Go(1);\n}\n",
		}
		for i := range declaring {
			tree[fmt.Sprintf("src/h%d.h", i)] = fmt.Sprintf("int Helper%d(int n);\n", i)
			old += fmt.Sprintf("#include \"h%d.h\"\n", i)
			body += fmt.Sprintf(" + Helper%d(n)", i)
		}
		old += "\nint Run::Go(int n) {\n  return n;\n}\n"
		tree["src/run.cpp"] = old
		ev, _ := findParsing(t, tree, bodyChange(tree, "src/run.cpp", "return n;", "return "+body+";"))
		caller := bestScore(ev, "app/main.cpp")
		listed := 0
		for i := range declaring {
			if sc := bestScore(ev, fmt.Sprintf("src/h%d.h", i)); sc > 0 {
				listed++
				if sc >= caller {
					t.Errorf("%d declaring: h%d.h %.3f, not below the caller main.cpp %.3f", declaring, i, sc, caller)
				}
			}
		}
		if caller == 0 || listed != min(declaring, usesonly.Max) {
			t.Errorf("%d declaring: caller %.3f, %d of them listed; want the caller and %d", declaring, caller, listed, min(declaring, usesonly.Max))
		}
	}
}

// TestCppMacroUsesDeclareNothing: a macro's use the grammar reads as a
// function definition (TEST, TEST_F) declares nothing: a change adding a
// test lists no other test file for "declaring" TEST, while a function
// of another name stays a declaration.
func TestCppMacroUsesDeclareNothing(t *testing.T) {
	for _, c := range []struct {
		src  string
		want string // the callables read, by name
	}{
		{"TEST(Suite, One) {\n  EXPECT_EQ(1, 1);\n}\n", ""},
		{"TEST_F(Fixture, Two) {\n  ASSERT_TRUE(ok());\n}\n", ""},
		{"int Value() {\n  return 1;\n}\n", "Value"},
		{"int F2() {\n  return 1;\n}\n", "F2"},
	} {
		f, err := parse(context.Background(), languages["cpp"], "test/a_test.cc", []byte(c.src), false)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range f.decls {
			if callableKinds[d.kind] {
				got = append(got, d.name)
			}
		}
		if strings.Join(got, ",") != c.want {
			t.Errorf("%q: callables %q, want %q", c.src, got, c.want)
		}
	}
	t.Cleanup(func() { parseFile = parse })
	old := "#include \"gtest.h\"\n\nTEST(Suite, One) {\n  EXPECT_EQ(1, 1);\n}\n"
	tree := mapTree{
		"test/gtest.h":     "#define TEST(a, b) void a##b()\n#define EXPECT_EQ(a, b) (a == b)\n",
		"test/b_test.cc":   "#include \"gtest.h\"\n\nTEST(Suite, Two) {\n  EXPECT_EQ(2, 2);\n}\n",
		"test/c_test.cc":   "#include \"gtest.h\"\n\nTEST(Other, Three) {\n  EXPECT_EQ(3, 3);\n}\n",
		"test/a_test.cc":   old,
		"test/unrelated.h": "int Unrelated();\n",
	}
	ev, _ := findParsing(t, tree, bodyChange(tree, "test/a_test.cc", "}\n", "}\n\nTEST(Suite, Four) {\n  EXPECT_EQ(4, 4);\n}\n"))
	for _, p := range []string{"test/b_test.cc", "test/c_test.cc"} {
		if ev.Files[p] != nil {
			t.Errorf("%s listed: %+v", p, ev.Files[p].Items)
		}
	}
}

// TestCppNamespaceBecomesStruct: a namespace that becomes a struct of its
// name, or the other way, keeps its enum and the struct: nothing is
// removed, and a file naming them is not listed; an enum renamed is
// removed, and that file is listed.
func TestCppNamespaceBecomesStruct(t *testing.T) {
	t.Cleanup(func() { parseFile = parse })
	asNamespace := "namespace YAML {\nnamespace Style {\nenum value { Default, Block, Flow };\n}\n}\n"
	asStruct := "namespace YAML {\nstruct Style {\n  enum value { Default, Block, Flow };\n};\n}\n"
	renamed := "namespace YAML {\nnamespace Style {\nenum kind { Default, Block, Flow };\n}\n}\n"
	for _, c := range []struct {
		name, old, new string
		lines          map[int]bool
		listed         bool
	}{
		{"namespace to struct", asNamespace, asStruct, map[int]bool{2: true, 3: true, 4: true}, false},
		{"struct to namespace", asStruct, asNamespace, map[int]bool{2: true, 3: true, 4: true}, false},
		{"enum renamed", asNamespace, renamed, map[int]bool{3: true}, true},
	} {
		tree := mapTree{
			"include/style.h": c.new,
			"src/emitter.cpp": "#include \"style.h\"\n\nbool Emit(YAML::Style::value v) {\n  return v == YAML::Style::Flow;\n}\n",
		}
		cs := []*engine.Change{{Path: "include/style.h", Old: []byte(c.old), New: []byte(c.new), Added: c.lines, Removed: c.lines}}
		ev, _ := findParsing(t, tree, cs)
		if listed := ev.Files["src/emitter.cpp"] != nil; listed != c.listed {
			t.Errorf("%s: emitter.cpp listed %v, want %v", c.name, listed, c.listed)
		}
	}
}

// TestCppInheritedMemberThroughSubclass: a changed method of a base class
// called through a receiver typed by a subclass is a reference to it,
// whether the subclass's header is read (it overrides another member of
// the name) or only included; a call through an unrelated type of a
// member of the same name is not.
func TestCppInheritedMemberThroughSubclass(t *testing.T) {
	t.Cleanup(func() { parseFile = parse })
	for _, derived := range []string{
		"#include \"base.h\"\n\nclass Derived : public Base {\n public:\n  void Stop();\n};\n",
		"#include \"base.h\"\n\nclass Derived : public Base {\n public:\n  void Run(int n, int m);\n};\n",
	} {
		tree := mapTree{
			"src/base.h":    "class Base {\n public:\n  void Run(int n);\n};\n",
			"src/base.cpp":  "#include \"base.h\"\n\nvoid Base::Run(int n) {\n  n++;\n}\n",
			"src/derived.h": derived,
			"src/other.h":   "class Other {\n public:\n  void Run(int n);\n};\n",
			"app/use.cpp":   "#include \"src/derived.h\"\n\nvoid use(Derived& d) {\n  d.Run(1);\n}\n",
			"app/other.cpp": "#include \"src/other.h\"\n\nvoid other(Other& o) {\n  o.Run(1);\n}\n",
		}
		ev, _ := findParsing(t, tree, bodyChange(tree, "src/base.cpp", "n++;", "n += 2;"))
		if ev.Files["app/use.cpp"] == nil || ev.Files["app/other.cpp"] != nil {
			t.Errorf("derived %q: use.cpp listed %v, other.cpp listed %v; want true, false",
				derived, ev.Files["app/use.cpp"] != nil, ev.Files["app/other.cpp"] != nil)
		}
	}
}
