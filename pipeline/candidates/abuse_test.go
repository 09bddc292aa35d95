package candidates

import (
	"context"
	"strings"
	"testing"
	"time"
)

// pathological are sources that made the tokens engine run far past its
// budget: a file of 40,000 one-line member accesses of the changed method,
// a 1.4 MB comment-only tsconfig.json, and both.
func pathological() map[string]map[string]string {
	changed := "export class Store {\n  persist(s: string): string {\n    return s.trim();\n  }\n}\n"
	members := "import { Store } from './store';\nconst st = new Store();\n" + strings.Repeat("st.persist('a');\n", 40_000)
	tsconfig := strings.Repeat("/* a comment */\n", 90_000) + "{}\n"
	return map[string]map[string]string{
		"member-accesses":  {"src/store.ts": changed, "src/use.ts": members},
		"comment-tsconfig": {"src/store.ts": changed, "tsconfig.json": tsconfig, "src/use.ts": "import { Store } from './store';\nnew Store().persist('a');\n"},
		"both":             {"src/store.ts": changed, "tsconfig.json": tsconfig, "src/use.ts": members, "src/use2.ts": members},
	}
}

func pathologicalChange(tree map[string]string) []Change {
	return []Change{{Path: "src/store.ts", Old: []byte(strings.Replace(tree["src/store.ts"], "s.trim()", "s", 1)), New: []byte(tree["src/store.ts"]), AddedLines: []int{3}, RemovedLines: []int{3}}}
}

// TestAbuseCandidatesBudget: each pathological input is done well within
// the 5 s budget, and still finds the caller.
func TestAbuseCandidatesBudget(t *testing.T) {
	for name, tree := range pathological() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		start := time.Now()
		got, err := Find(ctx, memTree(tree), pathologicalChange(tree), Options{})
		d := time.Since(start)
		cancel()
		if d > 5500*time.Millisecond {
			t.Errorf("%s: %s against a 5s budget", name, d)
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		found := false
		for _, c := range got {
			found = found || c.Path == "src/use.ts"
		}
		if !found {
			t.Errorf("%s: the caller in src/use.ts is not a candidate: %+v", name, got)
		}
		t.Logf("%s: %s, %d candidates", name, d, len(got))
	}
}

// TestAbuseCandidatesCancelled: with the client gone (the context
// cancelled), the engine stops at once.
func TestAbuseCandidatesCancelled(t *testing.T) {
	for name, tree := range pathological() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		start := time.Now()
		_, _ = Find(ctx, memTree(tree), pathologicalChange(tree), Options{})
		if d := time.Since(start); d > 200*time.Millisecond {
			t.Errorf("%s: %s after the context was cancelled", name, d)
		}
	}
}

// FuzzCandidatesLexers: any source of at most 64 KiB, as each language the
// lexers read and as a tsconfig.json, is done within 2 s.
func FuzzCandidatesLexers(f *testing.F) {
	f.Add("st.persist('a');\n", "/* c */ {\"compilerOptions\": {\"paths\": {\"a/*\": [\"./src/*\"],}}}")
	f.Add(strings.Repeat("a.b.c(", 200), strings.Repeat("/*", 300))
	f.Fuzz(func(t *testing.T, src, tsconfig string) {
		if len(src) > 64<<10 || len(tsconfig) > 64<<10 {
			return
		}
		for _, p := range []string{"src/a.ts", "pkg/a.py", "src/A.java", "lib/a.rb"} {
			tree := memTree(map[string]string{p: src, "src/b.ts": src, "pkg/b.py": src, "src/B.java": src, "lib/b.rb": src, "tsconfig.json": tsconfig})
			start := time.Now()
			_, _ = Find(context.Background(), tree, []Change{{Path: p, Old: []byte(src + "\n"), New: []byte(src), AddedLines: []int{1}, RemovedLines: []int{1}}}, Options{})
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("%s: %d bytes took %s", p, len(src), d)
			}
		}
	})
}
