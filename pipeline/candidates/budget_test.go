package candidates

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/prscout/prscout/internal/testalloc"

	"github.com/prscout/prscout/pipeline/candidates/treesit"
)

// budgetShape is one source made to make a reader or a phase of the
// search run long or grow large: the repository at the head (tree), the
// change, and the candidate the search must still list.
type budgetShape struct {
	name   string
	tree   map[string]string
	change Change
	want   string
}

// budgetShapes are the hostile shapes of the candidates budget, scaled by
// scale (1 is the size that ran far past the budget; tests that only count
// work use less).
func budgetShapes(scale float64) []budgetShape {
	n := func(k int) int { return max(1, int(float64(k)*scale)) }
	added := func(p, src string) Change {
		lines := make([]int, strings.Count(src, "\n"))
		for i := range lines {
			lines[i] = i + 1
		}
		return Change{Path: p, Status: StatusAdded, New: []byte(src), AddedLines: lines}
	}
	var out []budgetShape

	x := "import { a } from './a';\n" + strings.Repeat("a.bbbbb\n", n(40_000))
	out = append(out, budgetShape{name: "js-member-lines", want: "src/a.js",
		tree:   map[string]string{"src/a.js": "export const a = { bbbbb: 1 };\n", "src/x.js": x},
		change: added("src/x.js", x)})

	c0, c1 := "export function target() {\n  return 1;\n}\n", "export function target() {\n  return 2;\n}\n"
	imp := map[string]string{"src/c.js": c1}
	semis := strings.Repeat(";", n(2<<20-256))
	for i := range n(150) {
		imp[fmt.Sprintf("lib/u%03d.js", i)] = "import {target} from '../src/c'\ntarget();\n" + semis + "\n"
	}
	out = append(out, budgetShape{name: "js-150-importers", want: "lib/u000.js", tree: imp,
		change: Change{Path: "src/c.js", Status: StatusModified, Old: []byte(c0), New: []byte(c1), AddedLines: []int{2}, RemovedLines: []int{2}}})

	d := n(20_000)
	fs := "from pkg.a import target\n\nx = " + strings.Repeat(`f"{`, d) + "target()" + strings.Repeat(`}"`, d) + "\n"
	out = append(out, budgetShape{name: "py-nested-fstrings", want: "pkg/a.py",
		tree:   map[string]string{"pkg/a.py": "def target():\n    return 1\n", "pkg/x.py": fs},
		change: added("pkg/x.py", fs)})

	var java strings.Builder
	java.WriteString("package p;\n\nimport p.Target;\n\n")
	for i := range n(20_000) {
		fmt.Fprintf(&java, "class C%d{", i)
	}
	java.WriteString("void m(){ Target.run(); }" + strings.Repeat("}", n(20_000)) + "\n")
	out = append(out, budgetShape{name: "java-nested-classes", want: "src/main/java/p/Target.java",
		tree: map[string]string{"src/main/java/p/Target.java": "package p;\n\npublic class Target {\n  public static void run() {}\n}\n",
			"src/main/java/p/Deep.java": java.String()},
		change: added("src/main/java/p/Deep.java", java.String())})

	chain := "from pkg.a import A\n\na = A()\nx = a" + strings.Repeat(".m()", n(50_000)) + "\n"
	out = append(out, budgetShape{name: "py-call-chain", want: "pkg/a.py",
		tree:   map[string]string{"pkg/a.py": "class A:\n    def m(self):\n        return self\n", "pkg/x.py": chain},
		change: added("pkg/x.py", chain)})

	t := n(1 << 20 / 5)
	tmpl := "import { target } from './t';\n\nexport const x = " + strings.Repeat("`${", t) + "target()" + strings.Repeat("}`", t) + ";\n"
	out = append(out, budgetShape{name: "ts-nested-templates", want: "src/t.ts",
		tree:   map[string]string{"src/t.ts": "export function target(): string {\n  return '';\n}\n", "src/x.ts": tmpl},
		change: added("src/x.ts", tmpl)})
	return out
}

// manyCallers is a repository of n files of lang calling target(), whose
// body the change modifies: every phase has n files to go through.
func manyCallers(lang string, n int) budgetShape {
	type layout struct {
		decl, decl2, declPath, caller string
		callerPath                    func(i int) string
	}
	l := map[string]layout{
		"go": {"package lib\n\nfunc Target() int {\n\treturn 1\n}\n", "package lib\n\nfunc Target() int {\n\treturn 2\n}\n", "lib/lib.go",
			"package use\n\nimport \"example.com/app/lib\"\n\nvar X = lib.Target()\n", func(i int) string { return fmt.Sprintf("use%03d/use.go", i) }},
		"js": {"export function target() {\n  return 1;\n}\n", "export function target() {\n  return 2;\n}\n", "src/c.js",
			"import {target} from '../src/c'\ntarget();\n", func(i int) string { return fmt.Sprintf("lib/u%03d.js", i) }},
		"python": {"def target():\n    return 1\n", "def target():\n    return 2\n", "pkg/a.py",
			"from pkg.a import target\n\ntarget()\n", func(i int) string { return fmt.Sprintf("pkg/u%03d.py", i) }},
		"java": {"package p;\n\npublic class Target {\n  public static int run() {\n    return 1;\n  }\n}\n", "package p;\n\npublic class Target {\n  public static int run() {\n    return 2;\n  }\n}\n", "src/main/java/p/Target.java",
			"package p;\n\nclass U {\n  int x = Target.run();\n}\n", func(i int) string { return fmt.Sprintf("src/main/java/p/U%03d.java", i) }},
		"text": {"function target_name(a)\n  return a\nend\n", "function target_name(a, b)\n  return a\nend\n", "lib/a.lua",
			"target_name(1)\n", func(i int) string { return fmt.Sprintf("lib/u%03d.lua", i) }},
		// The syntax reader lists many callers of a changed signature only
		// (a body's change with more than a few callers lists none of them).
		"syntax": {"pub fn target() -> i32 {\n    1\n}\n", "pub fn target(n: i32) -> i32 {\n    n\n}\n", "src/calc.rs",
			"use crate::calc::target;\n\npub fn f() -> i32 {\n    target()\n}\n", func(i int) string { return fmt.Sprintf("src/u%03d.rs", i) }},
	}[lang]
	tree := map[string]string{"go.mod": goMod, l.declPath: l.decl2}
	if lang == "text" {
		n = min(n, 12) // the identifier search drops a name more files mention
	}
	for i := range n {
		tree[l.callerPath(i)] = l.caller
	}
	added, removed := lineDiff(l.decl, l.decl2)
	return budgetShape{name: "many-" + lang, tree: tree, want: l.callerPath(0),
		change: Change{Path: l.declPath, Status: StatusModified, Old: []byte(l.decl), New: []byte(l.decl2), AddedLines: added, RemovedLines: removed}}
}

// countingTree counts the calls Find makes of a tree, cancels the context
// at the cancelAt-th read (0: never) and counts the calls made after.
type countingTree struct {
	Tree
	mu          sync.Mutex
	calls, late int
	lateCalls   []string // what the calls after the cancel asked
	cancelAt    int
	cancel      context.CancelFunc
	cancelled   bool
}

func (c *countingTree) count(read bool, what string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	if c.cancelled {
		c.late++
		c.lateCalls = append(c.lateCalls, what)
	}
	if read && c.cancelAt > 0 && c.calls >= c.cancelAt && !c.cancelled {
		c.cancelled = true
		c.cancel()
	}
}

func (c *countingTree) Grep(ctx context.Context, words, globs []string, limit int) ([]string, error) {
	c.count(false, "grep "+strings.Join(words, ","))
	return c.Tree.Grep(ctx, words, globs, limit)
}

func (c *countingTree) ReadFile(ctx context.Context, p string) ([]byte, error) {
	c.count(true, "read "+p)
	return c.Tree.ReadFile(ctx, p)
}

func (c *countingTree) ListDir(ctx context.Context, dir string) ([]string, error) {
	c.count(false, "list "+dir)
	return c.Tree.ListDir(ctx, dir)
}

func listed(got []Candidate, p string) bool {
	return slices.ContainsFunc(got, func(c Candidate) bool { return c.Path == p })
}

// TestBudgetShapesFound: each hostile shape, at a quarter of its size,
// still lists the candidate it holds; the 150 large importers are cut by
// the tokens one Find keeps, and what was read is listed with the cut.
func TestBudgetShapesFound(t *testing.T) {
	for _, s := range budgetShapes(0.25) {
		got, err := Find(context.Background(), memTree(s.tree), []Change{s.change}, Options{})
		var cut *CutError
		switch {
		case s.name == "js-150-importers" && !errors.As(err, &cut):
			t.Errorf("%s: err %v, want a CutError", s.name, err)
		case s.name != "js-150-importers" && err != nil:
			t.Errorf("%s: %v", s.name, err)
		}
		if !listed(got, s.want) {
			t.Errorf("%s: %s not listed: %+v", s.name, s.want, got)
		}
	}
}

// TestBudgetShapesLinear: doubling a shape at most a little more than
// doubles the bytes Find allocates for it (a copy per nesting level or a
// name of all outer classes quadruples them), against a baseline measured
// here.
func TestBudgetShapesLinear(t *testing.T) {
	small, large := budgetShapes(0.05), budgetShapes(0.1)
	for i := range small {
		// The bytes allocated per byte of the repository.
		run := func(s budgetShape) float64 {
			tree, size := memTree(s.tree), 0
			for _, src := range s.tree {
				size += len(src)
			}
			return float64(testalloc.Bytes(func() { _, _ = Find(context.Background(), tree, []Change{s.change}, Options{}) })) / float64(size)
		}
		a, b := run(small[i]), run(large[i])
		if b > 1.3*a+16 {
			t.Errorf("%s: %.0f bytes allocated per byte, %.0f at twice the size", small[i].name, a, b)
		}
		t.Logf("%s: %.0f bytes allocated per byte, %.0f at twice the size", small[i].name, a, b)
	}
}

// TestBudgetStopsOnCancel: whenever the context ends (here at the k-th
// read of a tree), every reader stops at once: it makes at most one more
// call of the tree per reading worker, and answers the context's error.
func TestBudgetStopsOnCancel(t *testing.T) {
	shapes := budgetShapes(0.05)
	for _, lang := range readerShapes() {
		shapes = append(shapes, manyCallers(lang, 60))
	}
	workers := max(runtime.GOMAXPROCS(0), 4) + 1
	for _, s := range shapes {
		for _, k := range []int{1, 2, 3, 5, 10, 30} {
			ctx, cancel := context.WithCancel(context.Background())
			tree := &countingTree{Tree: memTree(s.tree), cancelAt: k, cancel: cancel}
			_, err := Find(ctx, tree, []Change{s.change}, Options{})
			cancel()
			if tree.cancelled && !errors.Is(err, context.Canceled) {
				t.Errorf("%s, cancelled at read %d: err %v", s.name, k, err)
			}
			if tree.late > workers {
				t.Errorf("%s, cancelled at read %d: %d calls of the tree after it (of %d): %q", s.name, k, tree.late, tree.calls, tree.lateCalls)
			}
		}
	}
}

// readerShapes are the readers manyCallers has a layout for, in this
// build: the tree-sitter reader's only with cgo.
func readerShapes() []string {
	out := []string{"go", "js", "python", "java", "text"}
	if treesit.Built {
		out = append(out, "syntax")
	}
	return out
}

// TestManyCallersFound: with no bound reached, every reader lists the
// callers of the changed declaration.
func TestManyCallersFound(t *testing.T) {
	for _, lang := range readerShapes() {
		s := manyCallers(lang, 60)
		got, err := Find(context.Background(), memTree(s.tree), []Change{s.change}, Options{})
		if err != nil || !listed(got, s.want) {
			t.Errorf("%s: %s not listed (err %v): %+v", s.name, s.want, err, got)
		}
	}
}
