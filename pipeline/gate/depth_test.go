package gate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dop251/goja/parser"
)

// astDepth parses src with goja and returns the depth of its AST (nil when
// it does not parse). Only for inputs whose nesting figure is small.
func astDepth(src string) (int, bool) {
	prg, err := parser.ParseFile(nil, "", src, 0, parser.WithDisableSourceMaps)
	if err != nil {
		return 0, false
	}
	d := 0
	walk(prg, func(_ any, stack []any) { d = max(d, len(stack)) })
	return d, true
}

// boundsAST is the property the nesting scan must keep: the AST goja builds
// is never much deeper than the scan's figure (so a figure under the limit
// means a parse, walk and compile of bounded depth). On the corpus the AST
// is at most twice the figure.
func boundsAST(t *testing.T, name, src string) {
	t.Helper()
	fig, _, _ := nestingDepth(src, 1<<30)
	if fig > 400 {
		return
	}
	if ast, ok := astDepth(src); ok && ast > 2*fig+10 {
		t.Errorf("%s: AST depth %d, nesting figure %d: the scan undercounts", name, ast, fig)
	}
}

func TestNestingBoundsASTOnCorpus(t *testing.T) {
	dir := corpusDir(t)
	seen := map[string]bool{}
	n := 0
	for _, v := range readVerdicts(t, dir) {
		if seen[v.file] {
			continue
		}
		seen[v.file] = true
		data, err := os.ReadFile(filepath.Join(dir, v.file))
		if err != nil {
			t.Fatal(err)
		}
		wfs, _ := decodeExport(data)
		for _, wf := range wfs {
			for _, node := range wf.nodes {
				params := decodeParams(node.Parameters)
				for _, k := range []string{"jsCode", "functionCode"} {
					if code, ok := params[k].(string); ok {
						boundsAST(t, v.file+" "+scalarString(node.Name), taskRunnerPrefix+code+taskRunnerSuffix)
						n++
					}
				}
			}
		}
	}
	if n < 4000 {
		t.Fatalf("only %d snippets checked", n)
	}
}

// TestNestingScanTokens pins the scan's reading of the tokens that decide
// nesting: strings, comments, templates, regular expressions against
// division, and statement boundaries.
func TestNestingScanTokens(t *testing.T) {
	cases := []struct {
		name, src string
		want      int
	}{
		{"empty", "", 0},
		{"parens", "((1))", 2},
		{"brackets in strings", `x = "((((" + '[[[[' + 1`, 3},
		{"brackets in comments", "// ((((\n/* [[[[ */ x", 0},
		{"template text", "x = `(((( ${ (1) } ))))`", 3},
		{"nested templates", "x = `${ `${ 1 }` }`", 3},
		{"regexp after =", "x = /((((/", 1},
		{"regexp class with slash", "x = /[/(]((/.test(s)", 4},
		{"regexp after if (...)", "if (a) /((((/.test(b)", 4},
		{"regexp after return", "function f() { return /((((/ }", 2},
		{"division after )", "x = (a) / (b)", 3},
		{"division after identifier", "x = a / (b) / c", 3},
		{"statements reset", "a = 1; b = 2; c = 3", 1},
		{"lines reset", "a = 1\nb = 2\nc = 3", 1},
		{"operator at line end continues", "a =\nb =\nc = 1", 3},
		{"if chain", "if (a) if (b) if (c) x()", 5},
		{"else if chain", "if (a) {} else if (b) {} else if (c) {}", 6},
		{"unary chain", "x = !!!!a", 5},
		{"member chain", "x = a.b.c.d", 4},
		{"call chain", "x = f(1)(2)(3)", 5},
		{"arrow chain", "f = a => b => c", 3},
		{"object literal", "x = {a: 1, b: {c: 2}}", 3},
		{"block and label", "{ a: { b: 1 } }", 4},
		{"minified functions", "function a(){}function b(){}function c(){}", 2},
		{"unterminated string ends at the line", "x = '(((\n(1)", 3},
		{"html comment is code", "<!-- ((((", 7},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, _, _ := nestingDepth(tc.src, 1<<30)
			if got != tc.want {
				t.Errorf("nestingDepth(%q) = %d, want %d", tc.src, got, tc.want)
			}
			boundsAST(t, tc.name, tc.src)
		})
	}
}

// FuzzNestingBoundsAST: for any snippet goja parses, its AST is never much
// deeper than the nesting figure, so no input slips past the limit by
// confusing the scan (a regexp read as division, a string as code).
func FuzzNestingBoundsAST(f *testing.F) {
	for _, s := range []string{
		"if (a) /((/.test(b); ((1))", "x = a / (b) / c", "x = `${ /`/ }` + ((1))", "a\n++b", "a = b\n(c)",
		"x = {} / ((1)) / 1", "function f(){} /)/; (((1)))", "of / ((1)) / 2", "x = y => ({a: /}/})",
		"label: { /(/ }", "x = a ? /(/ : /)/", "class A { static { ((1)) } }", "x = `a${`b${`c`}`}`",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		if len(code) > 4096 {
			return
		}
		boundsAST(t, "fuzz", code)
	})
}
