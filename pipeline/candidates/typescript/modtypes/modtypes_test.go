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
