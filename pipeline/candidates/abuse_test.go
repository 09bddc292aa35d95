package candidates

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/prscout/prscout/internal/testalloc"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
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

// treeBytes is the size of a tree's sources.
func treeBytes(tree map[string]string) int {
	n := 0
	for _, src := range tree {
		n += len(src)
	}
	return n
}

// maxAllocPerByte bounds the bytes Find may allocate per byte of the
// sources it reads (tokens, their index, the lookups): a reader that
// rescans or copies per token allocates far more on these inputs.
const maxAllocPerByte = 400

// TestAbuseCandidatesBudget: each pathological input is read with work
// bounded by its size (bytes allocated, counted, not timed), and still
// finds the caller; a file of more tokens than one file may hold
// (lexed.MaxTokens) is read up to them, and the answer says so.
func TestAbuseCandidatesBudget(t *testing.T) {
	for name, tree := range pathological() {
		var got []Candidate
		var err error
		alloc := testalloc.Bytes(func() { got, err = Find(context.Background(), memTree(tree), pathologicalChange(tree), Options{}) })
		var cut *CutError
		switch {
		case name == "comment-tsconfig" && err != nil:
			t.Errorf("%s: %v", name, err)
		case name != "comment-tsconfig" && (!errors.As(err, &cut) || !strings.Contains(err.Error(), "src/use.ts ") || !strings.Contains(err.Error(), fmt.Sprintf("more than %d tokens", lexed.MaxTokens))):
			t.Errorf("%s: err %v, want the cut of src/use.ts's tokens", name, err)
		}
		if per := float64(alloc) / float64(treeBytes(tree)); per > maxAllocPerByte {
			t.Errorf("%s: %.0f bytes allocated per byte of source (bound %d)", name, per, maxAllocPerByte)
		}
		if !listed(got, "src/use.ts") {
			t.Errorf("%s: the caller in src/use.ts is not a candidate: %+v", name, got)
		}
		t.Logf("%s: %d KB allocated, %d candidates", name, alloc>>10, len(got))
	}
}

// TestAbuseTokensBoundedPerFile: past lexed.MaxTokens, a file's size adds
// to a search's work only the copies of its bytes: the member-accesses
// shape at four times its size allocates at most a few bytes more per
// byte added (uncut, its tokens, 48 bytes about every 2.4 bytes, lexed
// by two phases, added over 100), measured against the shape's own size
// in the same test. Both sizes make the same MaxTokens tokens; what the
// larger adds is about 9 bytes a byte: the lexer's copy of each file's
// text in each phase, and the test tree's reads and greps, which copy
// their strings.
func TestAbuseTokensBoundedPerFile(t *testing.T) {
	changed := pathological()["member-accesses"]["src/store.ts"]
	var alloc [2]uint64
	var size [2]int
	for k, n := range []int{40_000, 160_000} {
		members := "import { Store } from './store';\nconst st = new Store();\n" + strings.Repeat("st.persist('a');\n", n)
		tree := map[string]string{"src/store.ts": changed, "src/use.ts": members, "src/use2.ts": members}
		var got []Candidate
		var err error
		alloc[k] = testalloc.Bytes(func() { got, err = Find(context.Background(), memTree(tree), pathologicalChange(tree), Options{}) })
		size[k] = treeBytes(tree)
		var cut *CutError
		if !errors.As(err, &cut) || !listed(got, "src/use.ts") {
			t.Fatalf("%d lines: err %v, src/use.ts listed %v: want the callers found before the cut listed with it", n, err, listed(got, "src/use.ts"))
		}
	}
	added := float64(alloc[1]) - float64(alloc[0])
	per := added / float64(size[1]-size[0])
	t.Logf("%d KB allocated, %d KB at four times the size: %.1f bytes per byte added", alloc[0]>>10, alloc[1]>>10, per)
	if per > 12 {
		t.Errorf("four times the source: %d KB allocated, %d KB at its size: %.1f bytes per byte added, want at most 12", alloc[1]>>10, alloc[0]>>10, per)
	}
}

// TestAbuseCandidatesCancelled: with the client gone (the context
// cancelled), the engine reads nothing and answers the context's error.
func TestAbuseCandidatesCancelled(t *testing.T) {
	for name, files := range pathological() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		tree := &countingTree{Tree: memTree(files)}
		_, err := Find(ctx, tree, pathologicalChange(files), Options{})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err %v, want context.Canceled", name, err)
		}
		if tree.calls > 0 {
			t.Errorf("%s: %d calls of the tree after the context was cancelled: %q", name, tree.calls, tree.lateCalls)
		}
	}
}

// FuzzCandidatesLexers: any source of at most 64 KiB, as each language the
// lexers read and as a tsconfig.json, is searched with work bounded by its
// size (bytes allocated), never a clock.
func FuzzCandidatesLexers(f *testing.F) {
	f.Add("st.persist('a');\n", "/* c */ {\"compilerOptions\": {\"paths\": {\"a/*\": [\"./src/*\"],}}}")
	f.Add(strings.Repeat("a.b.c(", 200), strings.Repeat("/*", 300))
	f.Fuzz(func(t *testing.T, src, tsconfig string) {
		if len(src) > 64<<10 || len(tsconfig) > 64<<10 {
			return
		}
		for _, p := range []string{"src/a.ts", "pkg/a.py", "src/A.java", "lib/a.rb"} {
			files := map[string]string{p: src, "src/b.ts": src, "pkg/b.py": src, "src/B.java": src, "lib/b.rb": src, "tsconfig.json": tsconfig}
			alloc := testalloc.Bytes(func() {
				_, _ = Find(context.Background(), memTree(files), []Change{{Path: p, Old: []byte(src + "\n"), New: []byte(src), AddedLines: []int{1}, RemovedLines: []int{1}}}, Options{})
			})
			if bound := uint64(maxAllocPerByte*treeBytes(files) + fuzzAllocBase); alloc > bound {
				t.Fatalf("%s: %d bytes allocated for %d bytes of source", p, alloc, treeBytes(files))
			}
		}
	})
}

// fuzzAllocBase is what a search allocates whatever its sources (maps,
// the rank, the configuration's parse).
const fuzzAllocBase = 4 << 20
