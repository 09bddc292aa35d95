package localgit

import (
	"context"
	"strings"
	"sync"
)

// A code tree answers ReadFile, ListDir and indexed Grep from the path index
// of its commit, built from one `git ls-tree -r -l -z` (tens of
// milliseconds for ten thousand files). A commit names its tree for good, so
// the index is kept by repository directory and commit id and shared by
// every code tree opened at that commit: the requests of one pull request
// all read the same head.

// Bounds of a Provider's listing cache: at most defaultListings commits and
// defaultListingEntries tree entries in all (about 300 bytes each, and 110
// more per glob set searched). A listing larger than the whole bound is
// built for its tree alone.
const (
	defaultListings       = 4
	defaultListingEntries = 1 << 18
)

// maxCoverages bounds the glob sets whose coverage a listing keeps (the
// candidate engine searches each language with one set).
const maxCoverages = 8

// treeListing is the path index of one commit, never changed once built,
// and the coverage of the globs searched at the commit (identindex.go).
type treeListing struct {
	index map[string]treeEntry // path -> entry, every blob and link of the commit
	order []string             // the index's paths in git's tree order
	dirs  map[string][]string  // dir ("" root) -> regular files directly in it

	mu        sync.Mutex
	coverages map[string]*coverage // globs joined by NUL -> their coverage
}

func (l *treeListing) coverage(key string) *coverage {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.coverages[key]
}

// keepCoverage keeps cov for key unless maxCoverages are kept already.
func (l *treeListing) keepCoverage(key string, cov *coverage) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.coverages == nil {
		l.coverages = map[string]*coverage{}
	}
	if len(l.coverages) < maxCoverages {
		l.coverages[key] = cov
	}
}

// listTree builds the listing of commit with `git ls-tree -r -l -z`.
func listTree(ctx context.Context, dir, commit string) (*treeListing, error) {
	entries, _, err := lsTreeOpts(ctx, dir, []string{"-r"}, commit, 0)
	if err != nil {
		return nil, err
	}
	l := &treeListing{
		index: make(map[string]treeEntry, len(entries)),
		order: make([]string, 0, len(entries)),
		dirs:  map[string][]string{},
	}
	for _, e := range entries {
		l.index[e.Path] = e
		l.order = append(l.order, e.Path)
		if e.kind() == "file" {
			d := ""
			if i := strings.LastIndexByte(e.Path, '/'); i >= 0 {
				d = e.Path[:i]
			}
			l.dirs[d] = append(l.dirs[d], e.Path)
		}
	}
	return l, nil
}

// listingCache keeps the listings of the most recently used commits, the
// most recent first. Two trees of a commit not yet listed may both list it;
// the second listing replaces the first.
type listingCache struct {
	maxListings, maxEntries int

	mu      sync.Mutex
	recent  []cachedListing // most recently used first
	entries int             // tree entries held in all
	builds  int             // listings built (tests count git runs with it)
}

type cachedListing struct {
	key string // repository directory NUL commit id
	l   *treeListing
}

func newListingCache(maxListings, maxEntries int) *listingCache {
	return &listingCache{maxListings: maxListings, maxEntries: maxEntries}
}

// listing returns commit's listing from the cache, or builds it and keeps
// it. A nil cache builds every time. A failed build (such as one whose
// context ended) keeps nothing.
func (c *listingCache) listing(ctx context.Context, dir, commit string) (*treeListing, error) {
	if c == nil {
		return listTree(ctx, dir, commit)
	}
	key := dir + "\x00" + commit
	if l := c.get(key); l != nil {
		return l, nil
	}
	l, err := listTree(ctx, dir, commit)
	if err != nil {
		return nil, err
	}
	c.put(key, l)
	return l, nil
}

// held returns commit's listing when the cache holds it, nil otherwise
// (it builds none).
func (c *listingCache) held(dir, commit string) *treeListing {
	if c == nil {
		return nil
	}
	return c.get(dir + "\x00" + commit)
}

func (c *listingCache) get(key string) *treeListing {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.recent {
		if e.key == key {
			copy(c.recent[1:i+1], c.recent[:i])
			c.recent[0] = e
			return e.l
		}
	}
	return nil
}

func (c *listingCache) put(key string, l *treeListing) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.builds++
	n := len(l.order)
	if n > c.maxEntries || c.maxListings <= 0 {
		return
	}
	for i, e := range c.recent {
		if e.key == key {
			c.entries -= len(e.l.order)
			c.recent = append(c.recent[:i], c.recent[i+1:]...)
			break
		}
	}
	for len(c.recent) > 0 && (len(c.recent) >= c.maxListings || c.entries+n > c.maxEntries) {
		last := len(c.recent) - 1
		c.entries -= len(c.recent[last].l.order)
		c.recent[last] = cachedListing{}
		c.recent = c.recent[:last]
	}
	c.recent = append([]cachedListing{{key, l}}, c.recent...)
	c.entries += n
}
