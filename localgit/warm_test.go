package localgit

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/cochange"
)

// TestWarmLeavesTheFirstRequestNothingToStart: after Warm, a first
// request's reads (a search, the co-change history, a file) at HEAD start
// no git process and index no blob, where a cold provider's start some and
// index HEAD's blobs (the baseline, measured here); at an older commit they
// do only what the commit has of its own. Both answer as a cold provider.
func TestWarmLeavesTheFirstRequestNothingToStart(t *testing.T) {
	p, f := rootRepo(t)
	ctx := context.Background()
	type answer struct {
		text      string
		processes int64
		indexed   int
	}
	first := func(p *Provider, commit string) answer {
		t.Helper()
		before, indexed := gitCommands.Load(), p.idents.len()
		tree, err := p.OpenTree(ctx, anyRepo, commit)
		if err != nil {
			t.Fatal(err)
		}
		defer tree.Close()
		paths, err := tree.Grep(ctx, []string{"A", "b", "c"}, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		pairs, err := tree.(interface {
			CoChanged(context.Context, string, []string) ([]cochange.Pair, error)
		}).CoChanged(ctx, commit, []string{"a.go"})
		if err != nil {
			t.Fatal(err)
		}
		src, err := tree.ReadFile(ctx, "a.go")
		return answer{fmt.Sprint(paths, pairs, string(src), err), gitCommands.Load() - before, p.idents.len() - indexed}
	}
	cold := New(f.dir)
	wantHead, wantFork := first(cold, f.headSHA), first(cold, f.forkSHA)
	if wantHead.processes+wantFork.processes == 0 || wantHead.indexed == 0 {
		t.Fatalf("a cold provider's first reads started %d git processes and indexed %d blobs: nothing to compare with",
			wantHead.processes+wantFork.processes, wantHead.indexed)
	}
	if err := p.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	started := p.readers.started.Load()
	gotHead, gotFork := first(p, f.headSHA), first(p, f.forkSHA)
	if gotHead.text != wantHead.text || gotFork.text != wantFork.text {
		t.Errorf("after Warm: %q and %q, a cold provider answers %q and %q", gotHead.text, gotFork.text, wantHead.text, wantFork.text)
	}
	if gotHead.processes != 0 || gotHead.indexed != 0 {
		t.Errorf("after Warm the first reads at HEAD started %d git processes and indexed %d blobs, want none (a cold provider: %d and %d)",
			gotHead.processes, gotHead.indexed, wantHead.processes, wantHead.indexed)
	}
	// At another commit, what the commit has of its own is read as by a
	// provider that served HEAD before: its listing and its blobs.
	if gotFork.processes > wantFork.processes || gotFork.indexed > wantFork.indexed {
		t.Errorf("after Warm the first reads at the fork started %d git processes and indexed %d blobs, want at most %d and %d",
			gotFork.processes, gotFork.indexed, wantFork.processes, wantFork.indexed)
	}
	if n := p.readers.started.Load() - started; n != 0 {
		t.Errorf("after Warm the first reads started %d cat-file processes, want 0", n)
	}
}

// TestWarmOnlyARootRepository: a root of repositories is not read ahead
// (which of them a request names is not known).
func TestWarmOnlyARootRepository(t *testing.T) {
	root := t.TempDir()
	newFixture(t, filepath.Join(root, "acme", "shop"))
	p := New(root)
	before := gitCommands.Load()
	if err := p.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := gitCommands.Load() - before; n != 0 {
		t.Errorf("Warm on a root of repositories started %d git processes, want 0", n)
	}
}

// TestWarmStopsWithItsContext: a Warm whose context has ended (the server
// shutting down) stops with its error and keeps nothing.
func TestWarmStopsWithItsContext(t *testing.T) {
	p, _ := rootRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Warm(ctx); err == nil {
		t.Fatal("Warm with an ended context: no error")
	}
	if n := p.idents.len(); n != 0 {
		t.Errorf("Warm with an ended context indexed %d blobs", n)
	}
}

// TestHeadFiles: a root repository's HEAD files are listed, the regular
// files `git ls-tree -r` lists (no symbolic link or submodule); a root of
// repositories lists none.
func TestHeadFiles(t *testing.T) {
	p, f := rootRepo(t)
	got, err := p.HeadFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", f.dir, "ls-tree", "-r", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		meta, path, _ := strings.Cut(l, "\t")
		if strings.HasPrefix(meta, "100644 blob") || strings.HasPrefix(meta, "100755 blob") {
			want = append(want, path)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Fatalf("HeadFiles: %v, git lists %v", got, want)
	}
	root := t.TempDir()
	newFixture(t, filepath.Join(root, "acme", "shop"))
	if got, err := New(root).HeadFiles(context.Background()); err != nil || got != nil {
		t.Fatalf("HeadFiles of a root of repositories: %v, %v", got, err)
	}
}
