package localgit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/prscout/prscout/pipeline"
)

// TestTreesShareBlobReaders: the trees of a stream of requests read
// through the cat-file processes the trees before them started; a kept
// process that died meanwhile is replaced without a failed read.
func TestTreesShareBlobReaders(t *testing.T) {
	p, f := rootRepo(t)
	ctx := context.Background()
	read := func(commit, path, want string) {
		t.Helper()
		tree, err := p.OpenTree(ctx, anyRepo, commit)
		if err != nil {
			t.Fatal(err)
		}
		defer tree.Close()
		got, err := tree.ReadFile(ctx, path)
		if err != nil || string(got) != want {
			t.Fatalf("%s at %s: %q %v, want %q", path, commit, got, err, want)
		}
	}
	read(f.forkSHA, "a.go", "package a\n\nfunc A() int { return 1 }\n")
	started := p.readers.started.Load()
	if started != 1 {
		t.Fatalf("the first tree started %d readers, want 1", started)
	}
	// Other blobs than the first tree read: the blob cache cannot answer.
	read(f.headSHA, "a.go", "package a\n\nfunc A() int { return 2 }\n")
	read(f.mainSHA, "main-only.txt", "main moved on\n")
	batch := func(path, want string) {
		t.Helper()
		err := p.ReadFiles(ctx, anyRepo, f.headSHA, []string{path}, 0, func(_ int, data []byte, err error) {
			if err != nil || string(data) != want {
				t.Errorf("ReadFiles %s: %q %v, want %q", path, data, err, want)
			}
		})
		if err != nil {
			t.Fatalf("ReadFiles %s: %v", path, err)
		}
	}
	batch("dir/b.txt", "b\n")
	if n := p.readers.started.Load() - started; n != 0 {
		t.Errorf("the next trees and ReadFiles started %d readers, want 0 (the first tree's is kept)", n)
	}
	p.readers.mu.Lock()
	killed := 0
	for _, rs := range p.readers.idle {
		for _, br := range rs {
			_ = br.cmd.Process.Kill()
			_ = br.cmd.Wait()
			killed++
		}
	}
	p.readers.mu.Unlock()
	if killed == 0 {
		t.Fatal("no reader kept")
	}
	batch("big.txt", strings.Repeat("0123456789\n", 200))
	read(f.forkSHA, "dir/sub/c.txt", "c\n")
}

// TestMergeBaseAskedOnce: the diff and the changed paths of a review start
// together; they share one git merge-base.
func TestMergeBaseAskedOnce(t *testing.T) {
	for range 5 {
		p, f := rootRepo(t) // a new repository: nothing is known of it
		ctx := context.Background()
		asked := mergeBases.asked.Load()
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(2)
			go func() {
				defer wg.Done()
				if _, err := p.Diff(ctx, anyRepo, f.mainSHA, f.headSHA, pipeline.DiffOptions{}); err != nil {
					t.Error(err)
				}
			}()
			go func() {
				defer wg.Done()
				if _, err := p.ChangedPaths(ctx, anyRepo, f.mainSHA, f.headSHA, pipeline.DiffOptions{}); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if n := mergeBases.asked.Load() - asked; n != 1 {
			t.Fatalf("8 concurrent callers asked git merge-base %d times, want 1", n)
		}
	}
}

// TestFullIdsVerifiedWithoutAProcess: a full id is verified through the
// kept cat-file process, with rev-parse's answers (a tag object's id names
// the commit it points to; a tree's id or an unknown id names none) and
// no git process of its own.
func TestFullIdsVerifiedWithoutAProcess(t *testing.T) {
	p, f := rootRepo(t)
	ctx := context.Background()
	git(t, f.dir, "tag", "-a", "-m", "annotated", "ann", f.forkSHA)
	tagID := git(t, f.dir, "rev-parse", "ann")
	treeID := git(t, f.dir, "rev-parse", f.headSHA+"^{tree}")
	ids := []string{f.headSHA, f.mainSHA, tagID, treeID, strings.Repeat("2", 40)}
	type answer struct {
		sha      string
		notFound bool
	}
	want := make([]answer, len(ids))
	for i, id := range ids {
		sha, err := ResolveRevision(ctx, f.dir, id+"^{commit}")
		want[i] = answer{sha, errors.Is(err, pipeline.ErrNotFound)}
		if err != nil && !want[i].notFound {
			t.Fatal(err)
		}
	}
	if want[2].sha != f.forkSHA || !want[3].notFound || !want[4].notFound {
		t.Fatalf("rev-parse's answers %+v: the fixture is not what the test expects", want)
	}
	if _, err := p.ResolveCommit(ctx, anyRepo, f.forkSHA); err != nil { // starts the kept process
		t.Fatal(err)
	}
	before := gitCommands.Load()
	for i, id := range ids {
		sha, err := p.ResolveCommit(ctx, anyRepo, id)
		if got := (answer{sha, errors.Is(err, pipeline.ErrNotFound)}); got != want[i] || (err != nil && !got.notFound) {
			t.Errorf("ResolveCommit(%s) = %q, %v; rev-parse answers %+v", id, sha, err, want[i])
		}
	}
	if n := gitCommands.Load() - before; n != 0 {
		t.Errorf("verifying %d full ids started %d git processes, want 0", len(ids), n)
	}
}

// TestReadFileMissingDirWithoutAProcess: a path whose directory the commit
// lacks, or whose directory is a file, is not found without a git ls-tree
// (the kept cat-file process tells), with the answer ls-tree gives; a path
// in a directory the commit has is still read.
func TestReadFileMissingDirWithoutAProcess(t *testing.T) {
	p, f := rootRepo(t)
	ctx := context.Background()
	if got, err := p.ReadFile(ctx, anyRepo, f.headSHA, "dir/sub/c.txt", 0); err != nil || string(got) != "c\n" {
		t.Fatalf("dir/sub/c.txt = %q, %v", got, err)
	}
	for _, path := range []string{".prscout/rules.json", "a.go/x", "dir/nope/x.txt"} {
		want := fmt.Sprintf("%s: %v", path, pipeline.ErrNotFound)
		before := gitCommands.Load()
		_, err := p.ReadFile(ctx, anyRepo, f.headSHA, path, 0)
		if !errors.Is(err, pipeline.ErrNotFound) || err.Error() != want {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
		if n := gitCommands.Load() - before; n != 0 {
			t.Errorf("%s: %d git processes, want 0", path, n)
		}
		// The ls-tree answer, which ReadFile gave before.
		if _, err := statPath(ctx, nil, f.dir, f.headSHA, path); err == nil || err.Error() != want {
			t.Errorf("%s: ls-tree answers %v, want %q", path, err, want)
		}
	}
	// The kept process stayed in step.
	if got, err := p.ReadFile(ctx, anyRepo, f.headSHA, "dir/b.txt", 0); err != nil || string(got) != "b\n" {
		t.Errorf("dir/b.txt after them = %q, %v", got, err)
	}
}
