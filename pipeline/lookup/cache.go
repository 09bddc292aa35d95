package lookup

import (
	"container/list"
	"sync"

	"github.com/prscout/prscout/pipeline"
)

// lookupKey addresses one lookupCacheable lookup. Content at a commit id never
// changes, so a lookup keyed by its full commit id can be served from memory
// for as long as it is kept.
type lookupKey struct {
	Workspace string
	RepoSlug  string
	Commit    string
	Op        string
	Path      string
}

func (k lookupKey) String() string {
	// NUL never occurs in a checked path, workspace, slug or commit id, so it
	// separates the parts unambiguously.
	return k.Workspace + "\x00" + k.RepoSlug + "\x00" + k.Commit + "\x00" + k.Op + "\x00" + k.Path
}

// lookupCache is a least-recently-used cache of lookup results bounded by
// the total bytes of what it holds (contents, listings and keys), safe for
// concurrent use. It is hand-written because the common LRU libraries bound
// the number of entries, not their weight, and one 512 KiB file weighs as
// much as thousands of "not found" answers.
type lookupCache struct {
	mu       sync.Mutex
	maxBytes int64
	bytes    int64
	ll       *list.List // front = most recently used
	items    map[lookupKey]*list.Element
}

type cacheEntry struct {
	key    lookupKey
	result pipeline.LookupResult
	weight int64
}

// newLookupCache returns a cache holding at most maxBytes; maxBytes <= 0
// gives nil, a cache that keeps nothing (all methods accept a nil receiver).
func newLookupCache(maxBytes int64) *lookupCache {
	if maxBytes <= 0 {
		return nil
	}
	return &lookupCache{maxBytes: maxBytes, ll: list.New(), items: map[lookupKey]*list.Element{}}
}

// get returns the cached result for k and marks it recently used.
func (c *lookupCache) get(k lookupKey) (pipeline.LookupResult, bool) {
	if c == nil {
		return pipeline.LookupResult{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[k]
	if !ok {
		return pipeline.LookupResult{}, false
	}
	c.ll.MoveToFront(el)
	return el.Value.(*cacheEntry).result, true
}

// add stores r under k, evicting the least recently used entries until the
// total fits. An entry heavier than the whole cache is not stored.
func (c *lookupCache) add(k lookupKey, r pipeline.LookupResult) {
	if c == nil {
		return
	}
	w := cacheWeight(k, r)
	if w > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[k]; ok {
		e := el.Value.(*cacheEntry)
		c.bytes += w - e.weight
		e.result, e.weight = r, w
		c.ll.MoveToFront(el)
	} else {
		c.items[k] = c.ll.PushFront(&cacheEntry{key: k, result: r, weight: w})
		c.bytes += w
	}
	for c.bytes > c.maxBytes {
		el := c.ll.Back()
		e := el.Value.(*cacheEntry)
		c.ll.Remove(el)
		delete(c.items, e.key)
		c.bytes -= e.weight
	}
}

// stats returns the number of entries and the bytes they weigh.
func (c *lookupCache) stats() (entries int, bytes int64) {
	if c == nil {
		return 0, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items), c.bytes
}

// cacheEntryOverhead approximates the bookkeeping bytes of one entry (list
// element, map slot, struct headers) so that many small negative answers
// still count against the bound.
const cacheEntryOverhead = 128

func cacheWeight(k lookupKey, r pipeline.LookupResult) int64 {
	w := int64(cacheEntryOverhead + len(k.Workspace) + len(k.RepoSlug) + len(k.Commit) + len(k.Op) + len(k.Path))
	w += int64(len(r.Path) + len(r.Error) + len(r.Reason))
	if r.Content != nil {
		w += int64(len(*r.Content))
	}
	for _, e := range r.Entries {
		w += int64(len(e.Path) + len(e.Type) + 32)
	}
	return w
}
