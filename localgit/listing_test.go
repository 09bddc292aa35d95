package localgit

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/prscout/prscout/pipeline"
)

func (c *listingCache) builtCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.builds
}

// The trees of one commit share one listing: the second tree answers
// without running git ls-tree again, and another commit gets a listing of
// its own.
func TestTreeListingSharedByCommit(t *testing.T) {
	p, f := rootRepo(t)
	ctx := context.Background()
	list := func(commit, dir string) []string {
		t.Helper()
		got, err := openTree(t, p, commit).ListDir(ctx, dir)
		if err != nil {
			t.Fatalf("ListDir(%q) at %s: %v", dir, commit, err)
		}
		return got
	}
	head := list(f.headSHA, "")
	if n := p.listings.builtCount(); n != 1 {
		t.Fatalf("after the first tree: %d listings built, want 1", n)
	}
	if again := list(f.headSHA, ""); !reflect.DeepEqual(again, head) {
		t.Errorf("second tree lists %q, want %q", again, head)
	}
	if got, want := list("feature", "dir"), []string{"dir/b.txt"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ListDir(dir) = %q, want %q", got, want)
	}
	if n := p.listings.builtCount(); n != 1 {
		t.Fatalf("after three trees of one commit: %d listings built, want 1", n)
	}

	// The fork point still has gone.txt, which the head deleted.
	fork := list(f.forkSHA, "")
	if n := p.listings.builtCount(); n != 2 {
		t.Fatalf("after a tree of another commit: %d listings built, want 2", n)
	}
	if !contains(fork, "gone.txt") || contains(head, "gone.txt") {
		t.Errorf("fork lists %q and head %q; want gone.txt at the fork only", fork, head)
	}
	data, err := openTree(t, p, f.forkSHA).ReadFile(ctx, "gone.txt")
	if err != nil || string(data) != "to be deleted\n" {
		t.Errorf("ReadFile(gone.txt) at the fork = %q, %v", data, err)
	}
	if _, err := openTree(t, p, f.headSHA).ReadFile(ctx, "gone.txt"); err == nil {
		t.Error("ReadFile(gone.txt) at the head succeeded")
	}
	if n := p.listings.builtCount(); n != 2 {
		t.Fatalf("after reads at both commits: %d listings built, want 2", n)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// A listing whose context ended is not kept: the next tree lists again.
func TestTreeListingFailureNotKept(t *testing.T) {
	p, f := rootRepo(t)
	tree := openTree(t, p, f.headSHA)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tree.ListDir(ctx, ""); err == nil {
		t.Fatal("ListDir with an ended context succeeded")
	}
	if n := p.listings.builtCount(); n != 0 {
		t.Fatalf("%d listings kept after a failed one, want 0", n)
	}
	got, err := tree.ListDir(context.Background(), "")
	if err != nil || !contains(got, "a.go") {
		t.Fatalf("ListDir after the failure = %q, %v", got, err)
	}
}

// The cache keeps the most recently used listings within both bounds.
func TestListingCacheBounds(t *testing.T) {
	listing := func(n int) *treeListing {
		l := &treeListing{}
		for i := range n {
			l.order = append(l.order, fmt.Sprint(i))
		}
		return l
	}
	c := newListingCache(2, 10)
	a, b, cc := listing(3), listing(3), listing(3)
	c.put("a", a)
	c.put("b", b)
	if c.get("a") != a { // a is now the most recent
		t.Fatal("a missing")
	}
	c.put("c", cc) // two listings at most: b, the least recent, goes
	if c.get("b") != nil {
		t.Error("b kept beyond two listings")
	}
	if c.get("a") != a || c.get("c") != cc {
		t.Error("a or c lost")
	}
	big := listing(8) // 3 + 3 + 8 > 10 entries, and 3 + 8 still: a and c both go
	c.put("big", big)
	if c.get("big") != big {
		t.Fatal("big missing")
	}
	if c.get("a") != nil || c.get("c") != nil {
		t.Errorf("kept %d entries in %d listings beside big, want none", c.entries-len(big.order), len(c.recent)-1)
	}
	if c.entries != 8 {
		t.Errorf("entries = %d, want 8", c.entries)
	}
	c.put("huge", listing(11)) // over the whole bound: not kept, nothing evicted
	if c.get("huge") != nil || c.get("big") != big {
		t.Error("a listing over the bound was kept or evicted another")
	}
	c.put("big", listing(2)) // replacing a key counts its entries once
	if c.entries != 2 || len(c.recent) != 1 {
		t.Errorf("after replacing big: %d entries in %d listings, want 2 in 1", c.entries, len(c.recent))
	}
}

// Trees of two commits read concurrently through the shared cache (run
// with -race).
func TestTreeListingConcurrent(t *testing.T) {
	p, f := rootRepo(t)
	p.listings = newListingCache(1, defaultListingEntries) // commits evict each other
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		commit := f.headSHA
		if i%2 == 1 {
			commit = f.forkSHA
		}
		wg.Go(func() {
			tree, err := p.OpenTree(context.Background(), anyRepo, commit)
			if err != nil {
				errs <- err
				return
			}
			defer tree.Close()
			got, err := tree.ListDir(context.Background(), "dir")
			if err != nil || !reflect.DeepEqual(got, []string{"dir/b.txt"}) {
				errs <- fmt.Errorf("ListDir(dir) at %s = %q, %v", commit, got, err)
				return
			}
			_, err = tree.ReadFile(context.Background(), "gone.txt")
			if (commit == f.forkSHA) != (err == nil) {
				errs <- fmt.Errorf("ReadFile(gone.txt) at %s: %v", commit, err)
			}
			if err != nil && !errors.Is(err, pipeline.ErrNotFound) {
				errs <- fmt.Errorf("ReadFile(gone.txt) at %s: %v, want not found", commit, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// A commit's first indexed search with a set of globs keeps their coverage:
// the next searches with those globs need the identifier index no more,
// while other globs and other commits still do.
func TestGrepCoverageKeptPerGlobs(t *testing.T) {
	p, f := rootRepo(t)
	ctx := context.Background()
	search := func(commit string, words, globs []string) ([]string, bool) {
		t.Helper()
		got, ok, err := openTree(t, p, commit).(*codeTree).grepIndexed(ctx, words, globs, 0)
		if err != nil {
			t.Fatalf("grepIndexed(%v, %v) at %s: %v", words, globs, commit, err)
		}
		return got, ok
	}
	if got, ok := search(f.headSHA, []string{"A"}, []string{"*.go"}); !ok || !reflect.DeepEqual(got, []string{"a.go"}) {
		t.Fatalf("first search = %q, ok %v; want [a.go] from the index", got, ok)
	}
	p.idents = newIdentIndex(0) // empty and full: takes no blob
	if got, ok := search(f.headSHA, []string{"A", "package"}, []string{"*.go"}); !ok || !reflect.DeepEqual(got, []string{"a.go"}) {
		t.Errorf("same globs = %q, ok %v; want [a.go] from the kept coverage", got, ok)
	}
	if got, ok := search(f.headSHA, []string{"A"}, []string{"*.txt"}); ok {
		t.Errorf("other globs answered %q without the index", got)
	}
	if got, ok := search(f.forkSHA, []string{"A"}, []string{"*.go"}); ok {
		t.Errorf("another commit answered %q without the index", got)
	}
}
