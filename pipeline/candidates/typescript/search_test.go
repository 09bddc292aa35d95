package typescript

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/candidates/typescript/jsdecl"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

// grepLog records the words of each Grep.
type grepLog struct {
	engine.Tree
	calls [][]string
}

func (g *grepLog) Grep(ctx context.Context, words, globs []string, limit int) ([]string, error) {
	g.calls = append(g.calls, slices.Clone(words))
	return g.Tree.Grep(ctx, words, globs, limit)
}

// The JS changes of one diff share one search, and it holds no name that
// can name no file of the repository: names bound by external packages
// (vitest's it, node:path's join) and locals no import binds.
func TestFindJSOneSearch(t *testing.T) {
	files := map[string]string{
		"src/a.ts":     "import {it} from 'vitest';\nimport * as path from 'node:path';\nimport {helper} from './b.js';\n\nexport function a(): string {\n  return 'a';\n}\n",
		"src/b.ts":     "export function helper(): number {\n  return 1;\n}\n",
		"src/c.ts":     "import {a} from './a.js';\n\nexport function c(): string {\n  return 'c';\n}\n",
		"src/it.ts":    "export function it(): void {}\n",
		"src/local.ts": "export const local = 1;\n",
		"src/old.js":   "exports.legacy = function legacy() {};\n\nfunction run() {\n  return 1;\n}\n",
	}
	head := map[string]string{}
	for p, s := range files {
		head[p] = s
	}
	head["src/a.ts"] = strings.Replace(files["src/a.ts"], "return 'a';", "const local = helper();\n  it(path.join('x', String(local)));\n  return 'a';", 1)
	head["src/c.ts"] = strings.Replace(files["src/c.ts"], "return 'c';", "return a() + 'c';", 1)
	tree := &grepLog{Tree: pipelinetest.NewTree(head)}
	var cs []*engine.Change
	head["src/old.js"] = strings.Replace(files["src/old.js"], "return 1;", "const {legacy} = require('./legacy.js');\n  return legacy();", 1)
	for _, p := range []string{"src/a.ts", "src/c.ts", "src/old.js"} {
		cs = append(cs, lineChange(p, files[p], head[p]))
	}
	ev := engine.NewEvidence(cs)
	if err := find(context.Background(), tree, nil, cs, ev); err != nil {
		t.Fatal(err)
	}
	if len(tree.calls) != 1 {
		t.Fatalf("%d searches %v, want 1", len(tree.calls), tree.calls)
	}
	words := tree.calls[0]
	for _, w := range []string{"it", "join", "local"} {
		if slices.Contains(words, w) {
			t.Errorf("searched %q: %v", w, words)
		}
	}
	for _, w := range []string{"a", "helper", "legacy"} {
		if !slices.Contains(words, w) {
			t.Errorf("did not search %q: %v", w, words)
		}
	}
	if ev.Files["src/b.ts"] == nil {
		t.Errorf("src/b.ts (declares helper) not found: %v", ev.Files)
	}
}

// TestObjectKeyAt: which tokens named retry are keys of an object literal
// (a value), not of a type literal, a block's label or a pattern.
func TestObjectKeyAt(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want bool
	}{
		{"got('u', {retry: 2})", true},
		{"got({timeout: 1, retry})", true},
		{"const o: Options = {a: f(x), retry: 1}", true},
		{"export default {retry: 1}", true},
		{"return {retry}", true},
		{"const x = cond ? {retry: 1} : null", true},
		{"type T = {retry: number}", false},
		{"export type T = {retry: number}", false},
		{"function f(o: {retry: number}) {}", false},
		{"type B = Options & {retry: 1}", false},
		{"const {retry} = options", false},
		{"const [a, retry] = list", false},
		{"if (x) { retry: for (;;) {} }", false},
		{"interface O { retry: number }", false},
		{"f(a, retry)", false},
	} {
		f := readJS("a.ts", []byte(tt.src), nil)
		k := slices.IndexFunc(f.Toks, func(tk lexed.Tok) bool { return tk.Text == "retry" })
		if k < 0 {
			t.Fatalf("%q: no retry token", tt.src)
		}
		if got := jsdecl.ObjectKeyAt(f.File, k) >= 0; got != tt.want {
			t.Errorf("ObjectKeyAt(%q) = %v, want %v", tt.src, got, tt.want)
		}
	}
}
