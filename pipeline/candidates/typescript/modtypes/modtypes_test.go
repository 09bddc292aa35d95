package modtypes

import (
	"context"
	"testing"

	"github.com/prscout/prscout/pipeline/pipelinetest"

	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

func TestRenamedFrom(t *testing.T) {
	for _, tc := range []struct{ src, name, want string }{
		{"class Hono {}\nexport { Hono as HonoBase }\n", "HonoBase", "Hono"},
		{"import { a as b } from './a'\n", "b", "a"},
		{"import type { A as B } from './a'\n", "B", "A"},
		{"const x = y as HonoBase\n", "HonoBase", ""},
		{"export { Hono }\n", "Hono", ""},
	} {
		f := &lexed.File{Toks: lexed.Tokens([]byte(tc.src), lexed.LexJS)}
		if got := renamesOf(f)[tc.name]; got != tc.want {
			t.Errorf("renamesOf(%q)[%q] = %q, want %q", tc.src, tc.name, got, tc.want)
		}
	}
}

// testHost lexes with the lexer only and knows no aliases.
type testHost struct{}

func (testHost) Lex(p string, src []byte) *lexed.File    { return lexed.Read(p, src) }
func (testHost) Aliases(string) []string                 { return nil }
func (testHost) External(*lexed.File, lexed.Import) bool { return false }
func (testHost) Scopes(*lexed.File) map[string][]Scope   { return nil }

// A chain's lookups resolve the same imports many times: each import of a
// directory is resolved once, and every later lookup of it makes nothing.
func TestImportFileResolvedOnce(t *testing.T) {
	tree := pipelinetest.NewTree(map[string]string{
		"src/a.ts":         "export const a = 1\n",
		"src/main.ts":      "import {a} from './a'\n",
		"src/lib/b.ts":     "import {a} from '../a'\n",
		"src/lib/c.ts":     "export const c = 2\n",
		"src/index.ts":     "export * from './lib'\n",
		"src/lib/index.ts": "export * from './c'\n",
	})
	w := New(context.Background(), tree, testHost{})
	main := &lexed.File{Path: "src/main.ts"}
	b := &lexed.File{Path: "src/lib/b.ts"}
	if g := w.importFile(main, "./a"); g == nil || g.Path != "src/a.ts" {
		t.Fatalf("./a from src/main.ts: %v", g)
	}
	if g := w.importFile(b, "../a"); g == nil || g.Path != "src/a.ts" {
		t.Fatalf("../a from src/lib/b.ts: %v", g)
	}
	if g := w.importFile(main, "./lib"); g == nil || g.Path != "src/lib/index.ts" {
		t.Fatalf("./lib from src/main.ts: %v", g)
	}
	if g := w.importFile(main, "./none"); g != nil {
		t.Fatalf("./none from src/main.ts: %s", g.Path)
	}
	if n := testing.AllocsPerRun(50, func() {
		w.importFile(main, "./a")
		w.importFile(b, "../a")
		w.importFile(main, "./lib")
		w.importFile(main, "./none")
	}); n != 0 {
		t.Errorf("resolving known imports again allocated %v times, want 0", n)
	}
}

// A kept answer is given again only where asking again would answer the
// same: nested no deeper than its lookups fit in maxTypeDepth, with the
// steps it took counted again and fitting in maxTypeSteps; an answer a
// bound stopped is not kept.
func TestExprMemoAnswersAsAskingAgain(t *testing.T) {
	f := &lexed.File{Path: "a.ts", Toks: lexed.Tokens([]byte("a ;\n"), lexed.LexJS)}
	kept := []Type{{Name: "T"}}
	w := New(context.Background(), pipelinetest.NewTree(nil), testHost{})
	keep := func() { w.exprs = map[exprAt]exprMemo{{f, 1}: {types: kept, steps: 5, height: 3}} }
	keep()
	w.steps = maxTypeSteps - 4
	if got := w.exprTypes(f, 1, 0); len(got) != 0 || w.steps != maxTypeSteps-4 {
		t.Errorf("steps past the budget: %v from memory, %d steps counted", got, w.steps-(maxTypeSteps-4))
	}
	w.steps = 0
	keep()
	if got := w.exprTypes(f, 1, maxTypeDepth-2); len(got) != 0 || w.steps != 0 {
		t.Errorf("nested past maxTypeDepth: %v from memory", got)
	}
	keep()
	if got := w.exprTypes(f, 1, maxTypeDepth-3); len(got) != 1 || w.steps != 5 || w.deepest < maxTypeDepth {
		t.Errorf("within the bounds: %v, %d steps counted, deepest %d; want the kept answer, 5 steps and %d", got, w.steps, w.deepest, maxTypeDepth)
	}
	w.exprs = nil
	if w.exprTypes(f, 1, maxTypeDepth+1); len(w.exprs) != 0 {
		t.Errorf("an answer cut by the nesting bound was kept: %v", w.exprs)
	}
	if w.exprTypes(f, 1, 0); len(w.exprs) != 1 {
		t.Errorf("a whole answer was not kept: %v", w.exprs)
	}
}
