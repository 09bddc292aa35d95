//go:build cgo

package treesit

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// TestCppDeclarations: the C++ declarations a library writes are read,
// each with its container: classes whose heads hold an export macro and
// their members, bases given as templates, destructors, member operators
// in the class and out of it, and definitions qualified by a namespace
// and a class (ns::Foo::bar), template specializations. A free operator is no declaration.
func TestCppDeclarations(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string // container.name of the callables and containers
		supers    []string // the first container's supertypes
	}{
		{"export macro", "namespace YAML {\nclass YAML_CPP_API Node : public Base {\n public:\n  void bar();\n};\n" +
			"struct GTEST_API_ TestInfo final {\n  int run();\n};\n}\nstruct STAT st;\n",
			[]string{".Node", "Node.bar", ".TestInfo", "TestInfo.run"}, []string{"Base"}},
		{"template base", "template <typename T>\nclass Foo : public detail::Base<T>, Other<T, 2> {\n  int get();\n};\n",
			[]string{".Foo", "Foo.get"}, []string{"Base", "Other"}},
		{"destructor", "class Foo {\n  ~Foo();\n  virtual ~Foo() {}\n};\nFoo::~Foo() {\n  close();\n}\n",
			[]string{".Foo", "Foo.Foo", "Foo.Foo", "Foo.Foo"}, nil},
		{"operators", "class Foo {\n  bool operator==(const Foo& o) const;\n  Foo& operator<<(int v);\n};\n" +
			"bool Foo::operator==(const Foo& o) const { return true; }\nFoo& Foo::operator<<(int v) { return *this; }\n" +
			"std::ostream& operator<<(std::ostream& os, const Foo& f) { return os; }\n",
			[]string{".Foo", "Foo.operator", "Foo.operator", "Foo.operator", "Foo.operator"}, nil},
		{"specialization", "template <>\nstruct convert<bool> : base<bool> {\n  static Node encode(bool rhs);\n};\n" +
			"template <typename T>\nclass formatter<std::vector<T>> {\n  auto parse(int c) { return c; }\n};\n",
			[]string{".convert", "convert.encode", ".formatter", "formatter.parse"}, []string{"base"}},
		{"nested qualifier", "void detail::memory::merge(int a) {\n  run(a);\n}\nint* YAML::Emitter::Write(int x) { return 0; }\n",
			[]string{"memory.merge", "Emitter.Write"}, nil},
	} {
		f, err := parse(context.Background(), languages["cpp"], "src/x.h", []byte(c.src), false)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		var supers []string
		for _, d := range f.decls {
			if callableKinds[d.kind] || containerKinds[d.kind] {
				got = append(got, d.container+"."+d.name)
			}
			if containerKinds[d.kind] && supers == nil {
				supers = d.supers
			}
		}
		if !slices.Equal(got, c.want) || !slices.Equal(supers, c.supers) {
			t.Errorf("%s: declarations %q supers %q, want %q %q", c.name, got, supers, c.want, c.supers)
		}
	}
}

// TestCppOwnDeclarationFirst: a change to the body of a method defined
// out of its class lists first the header declaring it, which the
// definition's file includes or stands for, above the files declaring the
// names its added lines use.
func TestCppOwnDeclarationFirst(t *testing.T) {
	old := "#include \"parser.h\"\n#include \"token.h\"\n#include \"mark.h\"\n\nnamespace yaml {\n" +
		"void Parser::Handle(Token& t) {\n  t.Reset();\n}\n}\n"
	nw := strings.Replace(old, "  t.Reset();\n", "  t.Reset();\n  Mark m = t.MarkOf();\n  m.Advance(t.Length());\n", 1)
	tree := mapTree{
		"src/parser.h":   "namespace yaml {\nclass Parser {\n public:\n  void Handle(Token& t);\n};\n}\n",
		"src/token.h":    "namespace yaml {\nstruct Token {\n  void Reset();\n  Mark MarkOf();\n  int Length();\n};\n}\n",
		"src/mark.h":     "namespace yaml {\nstruct Mark {\n  void Advance(int n);\n};\n}\n",
		"src/parser.cpp": nw,
	}
	cs := []*engine.Change{{Path: "src/parser.cpp", Old: []byte(old), New: []byte(nw),
		Added: map[int]bool{8: true, 9: true}, Removed: map[int]bool{}}}
	ev, _ := findParsing(t, tree, cs)
	t.Cleanup(func() { parseFile = parse })
	best := func(p string) float64 {
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
	own := best("src/parser.h")
	if own == 0 || best("src/token.h") == 0 || own <= best("src/token.h") || own <= best("src/mark.h") {
		t.Errorf("parser.h %.2f, token.h %.2f, mark.h %.2f: want parser.h listed first", own, best("src/token.h"), best("src/mark.h"))
	}
}

// TestCppNearbyNameOfMany: a name an added line uses that many files of
// the changed file's folder declare, none of them included, lists none of
// them; one that a few declare lists those.
func TestCppNearbyNameOfMany(t *testing.T) {
	t.Cleanup(func() { parseFile = parse })
	for _, c := range []struct {
		declaring int
		listed    bool
	}{{maxUnseen + 2, false}, {2, true}} {
		old := "#include \"run.h\"\n\nint Run::Go(Info& info) {\n  return 0;\n}\n"
		nw := strings.Replace(old, "return 0;", "return info.Version;", 1)
		tree := mapTree{"src/run.h": "class Run {\n  int Go(Info& info);\n};\n", "src/run.cxx": nw}
		for i := range c.declaring {
			tree[fmt.Sprintf("src/gen%d.h", i)] = fmt.Sprintf("struct Gen%d {\n  int Version;\n};\n", i)
		}
		cs := []*engine.Change{{Path: "src/run.cxx", Old: []byte(old), New: []byte(nw),
			Added: map[int]bool{4: true}, Removed: map[int]bool{4: true}}}
		ev, _ := findParsing(t, tree, cs)
		if listed := ev.Files["src/gen0.h"] != nil; listed != c.listed {
			t.Errorf("%d declaring: gen0.h listed %v, want %v", c.declaring, listed, c.listed)
		}
	}
}

// TestCppImplementationHeader: a template's members defined in an
// implementation header (.tpp, .ipp, .inl) that its header includes at its
// end are read: a change to one lists its header and its callers.
func TestCppImplementationHeader(t *testing.T) {
	t.Cleanup(func() { parseFile = parse })
	for _, ext := range []string{".tpp", ".ipp", ".inl"} {
		old := "namespace lib {\ntemplate <typename T>\nvoid Vec<T>::push(const T& x) {\n  data_[n_++] = x;\n}\n}\n"
		nw := strings.Replace(old, "data_[n_++] = x;", "grow();\n  data_[n_++] = x;", 1)
		impl := "include/lib/vec" + ext
		tree := mapTree{
			"include/lib/vec.hpp": "namespace lib {\ntemplate <typename T>\nclass Vec {\n public:\n  void push(const T& x);\n  void grow();\n};\n}\n#include \"vec" + ext + "\"\n",
			impl:                  nw,
			"src/use.cpp":         "#include \"lib/vec.hpp\"\n\nint use() {\n  lib::Vec<int> v;\n  v.push(1);\n  return 0;\n}\n",
		}
		cs := []*engine.Change{{Path: impl, Old: []byte(old), New: []byte(nw), Added: map[int]bool{4: true}, Removed: map[int]bool{}}}
		ev, _ := findParsing(t, tree, cs)
		for _, p := range []string{"include/lib/vec.hpp", "src/use.cpp"} {
			if ev.Files[p] == nil {
				t.Errorf("%s: %s not listed", ext, p)
			}
		}
	}
}
