package localgit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/ident"
)

// BenchmarkIdentsOf indexes the package's own sources, as a search indexes
// the blobs it covers.
func BenchmarkIdentsOf(b *testing.B) {
	paths, _ := filepath.Glob("*.go")
	var srcs [][]byte
	n := 0
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		srcs = append(srcs, src)
		n += len(src)
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, src := range srcs {
			identsOf(src)
		}
	}
}

// TestIdentsOfIsTheDistinctHashes: identsOf is the sorted distinct hashes
// of the blob's identifiers, as a map gathers them, and nil for a binary
// blob.
func TestIdentsOfIsTheDistinctHashes(t *testing.T) {
	paths, _ := filepath.Glob("*.go")
	texts := []string{"", "x", "a a a", "héllo naïve_1 _ __ a1b2", strings.Repeat("w1 w2 w3 ", 5000)}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(src))
	}
	var b strings.Builder
	for i := range 20000 { // enough distinct identifiers to grow the set many times
		fmt.Fprintf(&b, "id%d ", i%7919)
	}
	texts = append(texts, b.String())
	for _, text := range texts {
		want := map[uint64]bool{}
		for i := 0; ; {
			start, end, ok := ident.Next([]byte(text), i, 0)
			if !ok {
				break
			}
			want[identHash(text[start:end])] = true
			i = end
		}
		got := identsOf([]byte(text))
		if len(got) != len(want) || !slices.IsSorted(got) {
			t.Fatalf("%.40q: %d hashes (sorted %v), want %d distinct", text, len(got), slices.IsSorted(got), len(want))
		}
		for i, h := range got {
			if !want[h] || (i > 0 && got[i-1] == h) {
				t.Fatalf("%.40q: hash %x not an identifier's, or repeated", text, h)
			}
		}
	}
	if identsOf([]byte("GIF89a\x00\x01binary")) != nil {
		t.Error("a binary blob has identifiers")
	}
}

// TestSearchKeepsTheBlobsItIndexes: the blobs a search reads to index them
// are kept in the blob cache, so reading its hits next reads no object
// again; a blob over the tree's size bound is not kept.
func TestSearchKeepsTheBlobsItIndexes(t *testing.T) {
	p, f := rootRepo(t)
	ctx := context.Background()
	tree, err := p.OpenTree(ctx, anyRepo, f.headSHA)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	tree.(*codeTree).maxBytes = 1000 // big.txt (2,200 bytes) is over it
	// The search covers every file: it indexes them all, big.txt too.
	paths, err := tree.Grep(ctx, []string{"A"}, nil, 0)
	if err != nil || fmt.Sprint(paths) != "[a.go]" {
		t.Fatalf("Grep = %v, %v; want a.go", paths, err)
	}
	if p.idents.len() == 0 {
		t.Fatal("the search indexed no blob: the test measures nothing")
	}
	for path, kept := range map[string]bool{"a.go": true, "big.txt": false} {
		oid := git(t, f.dir, "rev-parse", f.headSHA+":"+path)
		if _, ok := p.blobs.get(oid); ok != kept {
			t.Errorf("%s in the blob cache after the search: %v, want %v", path, ok, kept)
		}
	}
}
