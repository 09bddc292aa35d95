package typescript

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/typescript/jsdecl"

	"github.com/prscout/prscout/pipeline/candidates/typescript/modpaths"
	"github.com/prscout/prscout/pipeline/candidates/typescript/modtypes"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

// typeNames renders types as name@path, sorted.
func typeNames(ts []modtypes.Type) []string {
	var out []string
	for _, t := range ts {
		p := ""
		if t.File != nil {
			p = t.File.Path
		}
		out = append(out, t.Name+"@"+p)
	}
	slices.Sort(out)
	return out
}

// Each member access of a handler resolves its receiver from the start (c
// of (c) => ..., through the handler type of another file): the lookups of
// one World work each expression out once, and answer what lookups made
// each in a World of its own answer.
func TestReceiversWorkedOutOnce(t *testing.T) {
	files := maps.Clone(honoLike)
	files["test/app.ts"] = "import {Hono} from '../src/hono.js';\n\nconst app = new Hono();\napp.get('/', (c) => {\n" +
		"  c.json({});\n  c.set('a', 1);\n  c.vars.get('a');\n  c.json({b: c.vars.size});\n  const v = c.vars;\n  v.has('a');\n  return c.json({});\n});\n"
	tree := pipelinetest.NewTree(files)
	ctx := context.Background()
	aliases := modpaths.Load(ctx, tree)
	f := readJS("test/app.ts", []byte(files["test/app.ts"]), aliases)
	shared := newTypeWorld(ctx, tree, aliases, nil)
	alone, members, context := 0, 0, 0
	for i := range f.Toks {
		if i < 2 || f.Toks[i-1].Text != "." {
			continue
		}
		members++
		w := newTypeWorld(ctx, tree, aliases, nil)
		want := typeNames(w.Receiver(f.File, i))
		alone += w.Lookups()
		if slices.Contains(want, "Context@src/context.ts") {
			context++
		}
		if got := typeNames(shared.Receiver(f.File, i)); !slices.Equal(got, want) {
			t.Errorf("receiver of %s at line %d: %v, alone %v", f.Toks[i].Text, f.Toks[i].Line, got, want)
		}
	}
	if members < 10 || context < 6 {
		t.Fatalf("%d member accesses, %d of them on a Context: the test's handler is not read as written", members, context)
	}
	if shared.Lookups()*2 > alone {
		t.Errorf("one World worked out %d expressions for %d member accesses, a World each %d: want at most half", shared.Lookups(), members, alone)
	}
}

// The parameter scopes of a file are read once for all the searches and
// lookups of a request, and kept with its reading: a later pull request
// leaving the file unchanged reads them from the readers' cache.
func TestScopesReadOncePerContent(t *testing.T) {
	cache := engine.NewCache(64 << 20)
	files := maps.Clone(honoLike)
	files["test/more.ts"] = "import {Hono} from '../src/hono.js';\n\nconst app = new Hono();\napp.get('/x', (c) => c.json([]));\napp.get('/y', (c) => c.json(null));\n"
	ctxV0 := files["src/context.ts"]
	ask := func(old, new string) (int64, []string) {
		t.Helper()
		files["src/context.ts"] = new
		cs := []*engine.Change{lineChange("src/context.ts", old, new)}
		ev := engine.NewEvidence(cs)
		ev.Cache = cache
		before := jsdecl.ScopeReads()
		if err := find(context.Background(), pipelinetest.NewTree(files), nil, cs, ev); err != nil {
			t.Fatal(err)
		}
		return jsdecl.ScopeReads() - before, slices.Sorted(maps.Keys(ev.Files))
	}
	v1 := strings.Replace(ctxV0, "String(o)", "JSON.stringify(o)", 1)
	v2 := strings.Replace(ctxV0, "String(o)", "String(o) + ''", 1)
	n1, got1 := ask(ctxV0, v1)
	n2, got2 := ask(v1, v2)
	if !slices.Contains(got1, "test/app.ts") || !slices.Contains(got1, "test/more.ts") || !slices.Equal(got1, got2) {
		t.Fatalf("evidence in %v, then %v: want test/app.ts and test/more.ts both times", got1, got2)
	}
	if n1 < 3 {
		t.Fatalf("the first request read the scopes of %d files: the test's handler is not read as written", n1)
	}
	if n2 > 1 {
		t.Errorf("the second request read the scopes of %d files, want at most 1 (the new side of src/context.ts)", n2)
	}
}

// A member called on a receiver no import or type ties to the changed
// class is textual evidence while no searched file declares a member of
// that name; one that does (another class's refreshAll) makes the call
// nothing.
func TestTextualMembersUnlessDeclaredElsewhere(t *testing.T) {
	old := "export class Widget {\n  refreshAll(): void {\n    this.n = 1;\n  }\n  n = 0;\n}\n"
	new := strings.Replace(old, "this.n = 1", "this.n = 2", 1)
	caller := "export function go(x: any) {\n  x.refreshAll();\n}\n"
	textual := func(files map[string]string) []string {
		t.Helper()
		files["src/widget.ts"] = new
		cs := []*engine.Change{lineChange("src/widget.ts", old, new)}
		ev := engine.NewEvidence(cs)
		if err := find(context.Background(), pipelinetest.NewTree(files), nil, cs, ev); err != nil {
			t.Fatal(err)
		}
		var out []string
		for p, f := range ev.Files {
			if slices.ContainsFunc(f.Items, func(it engine.Item) bool { return it.Method == engine.MethodTextual }) {
				out = append(out, p)
			}
		}
		slices.Sort(out)
		return out
	}
	if got := textual(map[string]string{"src/caller.ts": caller}); !slices.Equal(got, []string{"src/caller.ts"}) {
		t.Errorf("textual evidence in %v, want [src/caller.ts]", got)
	}
	other := "export class Board {\n  refreshAll(): void {}\n}\n"
	if got := textual(map[string]string{"src/caller.ts": caller, "src/board.ts": other}); len(got) != 0 {
		t.Errorf("textual evidence in %v with another class declaring refreshAll, want none", got)
	}
}

// Whether a parameter's scope holds a token is a binary search over the
// scopes of its name: it answers as looking at each of them does, nested,
// side by side, or neither.
func TestInScopeAnswersAsEveryScope(t *testing.T) {
	src := "const c = 1;\napp.get('/', (c) => c.json(c));\nfunction f(c, d) {\n  return (c) => { g((x, c) => c + x); return c; };\n}\n" +
		"app.use(async (c, next) => { await next(); c.header('x'); });\nc.done();\nclass K {\n  m(c: Context) {\n    return c;\n  }\n}\nc;\n"
	f := readJS("test/scopes.ts", []byte(src), nil)
	scopes := jsdecl.ParamScopes(f.File)
	if len(scopes["c"]) < 5 {
		t.Fatalf("scopes of c: %v, want at least 5, nested and side by side", scopes["c"])
	}
	for name, ss := range scopes {
		for i := range f.Toks {
			want := slices.ContainsFunc(ss, func(p modtypes.Scope) bool { return p.From <= i && i <= p.To })
			if got := modtypes.InScope(ss, i); got != want {
				t.Errorf("InScope(%s, token %d %q, line %d) = %v, want %v", name, i, f.Toks[i].Text, f.Toks[i].Line, got, want)
			}
		}
	}
}
