package typescript

import (
	"context"
	"maps"
	"slices"
	"testing"

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
