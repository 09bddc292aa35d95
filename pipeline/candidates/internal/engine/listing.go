package engine

import (
	"context"
	"sync"
)

// Listing answers which files a tree holds, each directory listed once (one
// that cannot be listed holds nothing); it is safe for concurrent use. The
// readers ask it rather than reading a file to learn whether it exists.
type Listing struct {
	ctx  context.Context
	tree Tree

	mu     sync.Mutex
	listed map[string]dirFiles
}

// dirFiles are the files directly in a directory, in order and as a set.
type dirFiles struct {
	list []string
	set  map[string]bool
}

// NewListing lists tree's directories under ctx.
func NewListing(ctx context.Context, tree Tree) *Listing {
	return &Listing{ctx: ctx, tree: tree, listed: map[string]dirFiles{}}
}

func (l *Listing) dir(d string) dirFiles {
	l.mu.Lock()
	files, ok := l.listed[d]
	l.mu.Unlock()
	if !ok {
		files.list, _ = l.tree.ListDir(l.ctx, d)
		files.set = make(map[string]bool, len(files.list))
		for _, f := range files.list {
			files.set[f] = true
		}
		l.mu.Lock()
		l.listed[d] = files
		l.mu.Unlock()
	}
	return files
}

// List answers the files directly in d ("" for the root), in the tree's
// order.
func (l *Listing) List(d string) []string { return l.dir(d).list }

// Has reports whether the tree holds the file p.
func (l *Listing) Has(p string) bool { return l.dir(DirOf(p)).set[p] }
