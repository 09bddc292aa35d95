package localgit

import (
	"context"
	"strings"
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
