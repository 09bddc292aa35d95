package localgit

import (
	"context"
	"testing"
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
	if n := p.readers.started.Load() - started; n != 0 {
		t.Errorf("the next trees started %d readers, want 0 (the first tree's is kept)", n)
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
	read(f.forkSHA, "dir/sub/c.txt", "c\n")
}
