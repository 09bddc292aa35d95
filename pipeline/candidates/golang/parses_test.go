package golang

import (
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// memTree is a head tree held in memory.
type memTree map[string]string

func (t memTree) Grep(_ context.Context, words, globs []string, limit int) ([]string, error) {
	var out []string
	for p, src := range t {
		if !strings.HasSuffix(p, ".go") {
			continue
		}
		for _, w := range words {
			if regexp.MustCompile(`\b` + regexp.QuoteMeta(w) + `\b`).MatchString(src) {
				out = append(out, p)
				break
			}
		}
	}
	sort.Strings(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func (t memTree) ReadFile(_ context.Context, p string) ([]byte, error) {
	if src, ok := t[p]; ok {
		return []byte(src), nil
	}
	return nil, errors.New(p + ": not found")
}

func (t memTree) ListDir(_ context.Context, dir string) ([]string, error) {
	var out []string
	for p := range t {
		if engine.DirOf(p) == dir {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

// TestARequestParsesAFileOnce changes b.B so that its added line uses
// c.New, whose file also calls b.B: the lookup of New's type and the
// search for B's references both need c/c.go, which one request parses
// once, whichever of the two comes first.
func TestARequestParsesAFileOnce(t *testing.T) {
	base := "package b\n\nfunc B() int {\n\treturn 1\n}\n"
	head := "package b\n\nimport \"example.com/m/c\"\n\nfunc B() int {\n\tv := c.New()\n\treturn v.N()\n}\n"
	tree := memTree{
		"go.mod": "module example.com/m\n",
		"b/b.go": head,
		"c/c.go": "package c\n\nimport \"example.com/m/b\"\n\ntype T struct{}\n\n" +
			"func New() *T {\n\treturn &T{}\n}\n\nfunc (t *T) N() int {\n\treturn 2\n}\n\n" +
			"func Twice() int {\n\treturn b.B() * 2\n}\n",
		"c/d.go": "package c\n\nfunc Other() int {\n\treturn 3\n}\n",
	}
	ch := &engine.Change{Path: "b/b.go", Old: []byte(base), New: []byte(head),
		Added: map[int]bool{3: true, 6: true, 7: true}, Removed: map[int]bool{4: true}}
	for run := range 20 { // the background search and the lookups race differently
		ev := engine.NewEvidence([]*engine.Change{ch})
		e := newGoEngine(context.Background(), tree, nil)
		if err := e.find([]*engine.Change{ch}, []*engine.Change{ch}, ev); err != nil {
			t.Fatal(err)
		}
		fe := ev.Files["c/c.go"]
		if fe == nil {
			t.Fatalf("run %d: c/c.go is no candidate", run)
		}
		kinds := map[engine.Kind]bool{}
		for _, it := range fe.Items {
			kinds[it.Kind] = true
		}
		if !kinds[engine.KindUses] || !kinds[engine.KindImpact] {
			t.Fatalf("run %d: c/c.go is not found by both the lookup and the search: %+v", run, fe.Items)
		}
		for p, n := range e.files.parses() {
			if n != 1 {
				t.Fatalf("run %d: %s parsed %d times in one request", run, p, n)
			}
		}
		if n := e.files.parses()["c/c.go"]; n != 1 {
			t.Fatalf("run %d: c/c.go parsed %d times, want once", run, n)
		}
	}
}

// blobTree is a memTree that names each file's content by an id and
// counts the reads of each file.
type blobTree struct {
	memTree
	mu    sync.Mutex
	reads map[string]int
}

func (t *blobTree) ReadFile(ctx context.Context, p string) ([]byte, error) {
	t.mu.Lock()
	t.reads[p]++
	t.mu.Unlock()
	return t.memTree.ReadFile(ctx, p)
}

func (t *blobTree) BlobID(_ context.Context, p string) (string, bool) {
	src, ok := t.memTree[p]
	return fmt.Sprintf("%x", sha1.Sum([]byte(src))), ok
}

// TestAPackageKeptByBlobIsNotRead lists a package's declarations in two
// requests sharing a cache: the second finds each file's reading by its
// blob id and reads none of them, and lists what the first did.
func TestAPackageKeptByBlobIsNotRead(t *testing.T) {
	tree := &blobTree{memTree: memTree{
		"c/c.go": "package c\n\ntype T struct{}\n\nfunc (t *T) N() int { return 2 }\n",
		"c/d.go": "package c\n\nfunc Other() int { return 3 }\n",
	}, reads: map[string]int{}}
	cache := engine.NewCache(1 << 20)
	first := newGoEngine(context.Background(), tree, cache).dir("c")
	if tree.reads["c/c.go"] != 1 || tree.reads["c/d.go"] != 1 {
		t.Fatalf("the first request read %v, want each file once", tree.reads)
	}
	second := newGoEngine(context.Background(), tree, cache).dir("c")
	if tree.reads["c/c.go"] != 1 || tree.reads["c/d.go"] != 1 {
		t.Fatalf("the second request read the files again: %v", tree.reads)
	}
	if !reflect.DeepEqual(first, second) || len(second.decls["T.N"]) != 1 || len(second.decls["Other"]) != 1 {
		t.Fatalf("the second request lists %+v, the first %+v", second, first)
	}
	tree.memTree["c/d.go"] = "package c\n\nfunc Another() int { return 4 }\n"
	third := newGoEngine(context.Background(), tree, cache).dir("c")
	if tree.reads["c/d.go"] != 2 || len(third.decls["Another"]) != 1 || len(third.decls["Other"]) != 0 {
		t.Fatalf("a new content is not read: reads %v, decls %v", tree.reads, third.decls)
	}
}
