package localgit

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLsCacheAnswersAgainWithoutGit: reads at a commit give the same
// answers as a provider that keeps nothing, and reading them again runs no
// ls-tree.
func TestLsCacheAnswersAgainWithoutGit(t *testing.T) {
	p, f := rootRepo(t)
	plain := &Provider{Root: p.Root} // keeps nothing
	ctx := context.Background()
	reads := func(p *Provider) []string {
		var out []string
		for _, path := range []string{"a.go", "gone.txt", "dir", "dir/sub/c.txt"} {
			data, err := p.ReadFile(ctx, anyRepo, f.headSHA, path, 0)
			out = append(out, fmt.Sprintf("read %s: %q %v", path, data, err))
		}
		for _, dir := range []string{"", "dir", "a.go", "missing"} {
			entries, more, err := p.ListDir(ctx, anyRepo, f.headSHA, dir, 100)
			out = append(out, fmt.Sprintf("list %q: %d entries %v %v", dir, len(entries), more, err))
			for _, e := range entries {
				out = append(out, fmt.Sprintf("  %s %s %v", e.Path, e.Type, deref(e.Size)))
			}
		}
		err := p.ReadFiles(ctx, anyRepo, f.forkSHA, []string{"a.go", "dir/b.txt", "nope.txt", "dir"}, 0, func(i int, data []byte, err error) {
			out = append(out, fmt.Sprintf("batch %d: %q %v", i, data, err))
		})
		return append(out, fmt.Sprint("batch:", err))
	}
	want := reads(plain)
	if diff := cmp.Diff(want, reads(p)); diff != "" {
		t.Fatalf("first reads differ from a provider keeping nothing (-want +got):\n%s", diff)
	}
	runs := p.ls.runs.Load()
	if runs == 0 {
		t.Fatal("no ls-tree run counted")
	}
	if diff := cmp.Diff(want, reads(p)); diff != "" {
		t.Errorf("reads again differ (-want +got):\n%s", diff)
	}
	if again := p.ls.runs.Load() - runs; again != 0 {
		t.Errorf("reading again ran ls-tree %d times, want 0", again)
	}
}

// TestReadFilesAnswersFromWhatIsKept: ReadFiles at a commit a code tree
// listed runs no ls-tree, reads only the blobs nobody read before, keeps
// those it reads for the next call (the next pull request's base side is
// this one's head side), and answers as a provider keeping nothing does.
func TestReadFilesAnswersFromWhatIsKept(t *testing.T) {
	p, f := rootRepo(t)
	plain := &Provider{Root: p.Root} // keeps nothing
	ctx := context.Background()
	reads := func(p *Provider, paths []string) []string {
		var out []string
		err := p.ReadFiles(ctx, anyRepo, f.headSHA, paths, 1000, func(i int, data []byte, err error) {
			out = append(out, fmt.Sprintf("%d %s: %q %v", i, paths[i], data, err))
			if len(data) > 0 {
				data[0] = '!' // the caller's own bytes: nothing kept changes
			}
		})
		return append(out, fmt.Sprint("batch:", err))
	}
	listed := []string{"dir/b.txt", "a.go", "big.txt", "bin.dat", "link", "sub", "dir/sub/c.txt"}
	mixed := []string{"untracked.txt", "a.go", "dir", "../x", "dir/b.txt", "sub", "a.go"}
	tree := openTree(t, p, f.headSHA)
	if _, err := tree.ReadFile(ctx, "a.go"); err != nil {
		t.Fatal(err)
	}
	runs, batches := p.ls.runs.Load(), p.blobs.batches.Load()
	if diff := cmp.Diff(reads(plain, listed), reads(p, listed)); diff != "" {
		t.Fatalf("answers differ from a provider keeping nothing (-want +got):\n%s", diff)
	}
	if n := p.ls.runs.Load() - runs; n != 0 {
		t.Errorf("reading files the tree listed ran ls-tree %d times, want 0", n)
	}
	if n := p.blobs.batches.Load() - batches; n != 1 {
		t.Errorf("reading files ran cat-file %d times, want 1 (for the blobs the tree did not read)", n)
	}
	for range 2 {
		if diff := cmp.Diff(reads(plain, listed), reads(p, listed)); diff != "" {
			t.Fatalf("answers again differ (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(reads(plain, mixed), reads(p, mixed)); diff != "" {
			t.Fatalf("answers with errors between differ (-want +got):\n%s", diff)
		}
	}
	if n := p.blobs.batches.Load() - batches; n != 1 {
		t.Errorf("reading the same files again ran cat-file %d more times, want 0", n-1)
	}
}
