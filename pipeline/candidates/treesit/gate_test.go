//go:build cgo

package treesit

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// gateTree is a C project where lib_step, defined in src/lib.c and
// declared in include/lib.h, is called by files that include the header
// (app/u*.c), named only in comments and strings by others (other/c*.c)
// and called in files of their own that declare another lib_step
// (other/d*.c). include/lib.h includes include/util.h, whose inline
// helper calls lib_step, as does its unit src/util.c.
func gateTree() mapTree {
	tree := mapTree{
		"src/lib.c":      "#include \"lib.h\"\n\nint lib_step(int n) {\n    return n + 1;\n}\n",
		"include/lib.h":  "#include \"util.h\"\n\nint lib_step(int n);\n",
		"include/util.h": "static inline int twice(int n) { return lib_step(lib_step(n)); }\n",
		"src/util.c":     "#include \"util.h\"\n\nint thrice(int n) { return lib_step(twice(n)); }\n",
	}
	for i := range 10 {
		tree[fmt.Sprintf("app/u%d.c", i)] = fmt.Sprintf("#include \"lib.h\"\n\nint u%d(void) {\n    return lib_step(%d);\n}\n", i, i)
	}
	for i := range 30 {
		tree[fmt.Sprintf("other/c%d.c", i)] = fmt.Sprintf("/* lib_step */\nconst char *c%d = \"lib_step\";\n", i)
		tree[fmt.Sprintf("other/d%d.c", i)] = fmt.Sprintf("static int lib_step(int n) { return n; }\nint d%d(void) {\n    return lib_step(1);\n}\n", i)
	}
	return tree
}

// findParsing runs the reader over cs in tree and answers the evidence
// and the searched files it parsed (not the changed ones).
func findParsing(t *testing.T, tree mapTree, cs []*engine.Change) (*engine.Evidence, []string) {
	t.Helper()
	var mu sync.Mutex
	var parsed []string
	parseFile = func(ctx context.Context, l *language, p string, src []byte, spans bool) (*file, error) {
		if !spans && !slices.ContainsFunc(cs, func(c *engine.Change) bool { return c.Path == p }) {
			mu.Lock()
			parsed = append(parsed, p)
			mu.Unlock()
		}
		return parse(ctx, l, p, src, spans)
	}
	ev := engine.NewEvidence(cs)
	if err := Reader.Find(context.Background(), tree, cs, cs, ev); err != nil {
		t.Fatal(err)
	}
	slices.Sort(parsed)
	return ev, parsed
}

func bodyChange(tree mapTree, p, from, to string) []*engine.Change {
	old := tree[p]
	line := strings.Count(old[:strings.Index(old, from)], "\n") + 1
	return []*engine.Change{{Path: p, Old: []byte(old), New: []byte(strings.Replace(old, from, to, 1)),
		Added: map[int]bool{line: true}, Removed: map[int]bool{line: true}}}
}

// TestGateParsesOnlyIncluders: for a change to lib_step's body, the search
// parses the files that include its header, not those that name it only
// in comments or strings nor those with a lib_step of their own, and
// lists the same files as the search that parses every hit.
func TestGateParsesOnlyIncluders(t *testing.T) {
	t.Cleanup(func() { parseFile, gateIncludes = parse, true })
	tree := gateTree()
	cs := bodyChange(tree, "src/lib.c", "n + 1", "n + 2")
	gateIncludes = false
	all, parsedAll := findParsing(t, tree, cs)
	gateIncludes = true
	ev, parsed := findParsing(t, tree, cs)
	if got, want := slices.Sorted(maps.Keys(ev.Files)), slices.Sorted(maps.Keys(all.Files)); !slices.Equal(got, want) {
		t.Errorf("listed %q, want %q as without the gate", got, want)
	}
	for i := range 10 {
		if ev.Files[fmt.Sprintf("app/u%d.c", i)] == nil {
			t.Errorf("app/u%d.c not listed", i)
		}
	}
	for _, p := range parsed {
		if strings.HasPrefix(p, "other/") {
			t.Errorf("parsed %s", p)
		}
	}
	// The 10 includers, the header and what it includes, src/util.c.
	if len(parsed) > 13 || len(parsedAll) < 60 {
		t.Errorf("parsed %d files (%q), %d without the gate", len(parsed), parsed, len(parsedAll))
	}
}

// TestGateParsesDeclaringHeadersUnits: for a name an added line uses, the
// search parses the headers the changed file includes that hold it, then
// the units of those that declare it only: src/lib.c for include/lib.h,
// not src/util.c, whose header only calls it.
func TestGateParsesDeclaringHeadersUnits(t *testing.T) {
	t.Cleanup(func() { parseFile = parse })
	tree := gateTree()
	cs := bodyChange(tree, "app/u3.c", "lib_step(3)", "lib_step(3) + 1")
	ev, parsed := findParsing(t, tree, cs)
	for _, p := range []string{"include/lib.h", "src/lib.c"} {
		if ev.Files[p] == nil {
			t.Errorf("%s not listed (%q)", p, slices.Sorted(maps.Keys(ev.Files)))
		}
	}
	if want := []string{"include/lib.h", "include/util.h", "src/lib.c"}; !slices.Equal(parsed, want) {
		t.Errorf("parsed %q, want %q", parsed, want)
	}
}

// TestGateBoundsHitsPerName: of more includers than maxPerWord naming a
// changed name, those holding the most searched names are parsed.
func TestGateBoundsHitsPerName(t *testing.T) {
	t.Cleanup(func() { parseFile, maxPerWord = parse, 24 })
	maxPerWord = 4
	tree := gateTree()
	tree["src/lib.c"] += "\nint lib_more(int n) {\n    return n;\n}\n"
	tree["include/lib.h"] += "int lib_more(int n);\n"
	for _, i := range []int{2, 5, 7, 9} {
		p := fmt.Sprintf("app/u%d.c", i)
		tree[p] = strings.Replace(tree[p], "return lib_step", "return lib_more(1) + lib_step", 1)
	}
	old := tree["src/lib.c"]
	cs := []*engine.Change{{Path: "src/lib.c", Old: []byte(old), New: []byte(strings.NewReplacer("n + 1", "n + 2", "return n;", "return n - 1;").Replace(old)),
		Added: map[int]bool{4: true, 8: true}, Removed: map[int]bool{4: true, 8: true}}}
	_, parsed := findParsing(t, tree, cs)
	var apps []string
	for _, p := range parsed {
		if strings.HasPrefix(p, "app/") {
			apps = append(apps, p)
		}
	}
	if want := []string{"app/u2.c", "app/u5.c", "app/u7.c", "app/u9.c"}; !slices.Equal(apps, want) {
		t.Errorf("parsed %q, want %q", apps, want)
	}
}

// TestGateParsesFirstWhatNamesTheType: of more includers than maxPerWord
// calling a changed member, those that name its type too are parsed,
// before those naming more of the other changed names.
func TestGateParsesFirstWhatNamesTheType(t *testing.T) {
	t.Cleanup(func() { parseFile, maxPerWord = parse, 24 })
	maxPerWord = 4 // the header and three includers
	old := "#include \"calc.hpp\"\n\nint Calc::compute(int n) {\n    return n + 1;\n}\n\n" +
		"int helper(int n) {\n    return n + 1;\n}\n\nint helper2(int n) {\n    return n + 1;\n}\n"
	tree := mapTree{
		"include/calc.hpp": "class Calc {\npublic:\n    int compute(int n);\n};\nint helper(int n);\nint helper2(int n);\n",
		"src/calc.cpp":     old,
	}
	for i := range 12 {
		src := fmt.Sprintf("#include \"calc.hpp\"\n\nint u%d(Other &c) {\n    return c.compute(%d) + helper(1) + helper2(2);\n}\n", i, i)
		if i%4 == 1 {
			src = fmt.Sprintf("#include \"calc.hpp\"\n\nint u%d(Calc &c) {\n    return c.compute(%d);\n}\n", i, i)
		}
		tree[fmt.Sprintf("app/u%02d.cpp", i)] = src
	}
	cs := []*engine.Change{{Path: "src/calc.cpp", Old: []byte(old), New: []byte(strings.ReplaceAll(old, "n + 1", "n + 2")),
		Added: map[int]bool{4: true, 8: true, 12: true}, Removed: map[int]bool{4: true, 8: true, 12: true}}}
	_, parsed := findParsing(t, tree, cs)
	for _, p := range []string{"app/u01.cpp", "app/u05.cpp", "app/u09.cpp"} {
		if !slices.Contains(parsed, p) {
			t.Errorf("%s not parsed (%q)", p, parsed)
		}
	}
}
