package lookup

import (
	"math"

	"github.com/maypok86/otter/v2"

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

// lookupCache holds lookup results bounded by the total bytes of what it
// holds (contents, listings and keys), safe for concurrent use: otter with
// a weigher, since one 512 KiB file weighs as much as thousands of "not
// found" answers and a bound by entry count would not see it.
type lookupCache struct {
	maxBytes int64
	c        *otter.Cache[lookupKey, pipeline.LookupResult]
}

// newLookupCache returns a cache holding at most maxBytes; maxBytes <= 0
// gives nil, a cache that keeps nothing (all methods accept a nil receiver).
func newLookupCache(maxBytes int64) *lookupCache {
	if maxBytes <= 0 {
		return nil
	}
	return &lookupCache{maxBytes: maxBytes, c: otter.Must(&otter.Options[lookupKey, pipeline.LookupResult]{
		MaximumWeight: uint64(maxBytes),
		Weigher: func(k lookupKey, r pipeline.LookupResult) uint32 {
			return uint32(min(cacheWeight(k, r), math.MaxUint32))
		},
	})}
}

// get returns the cached result for k.
func (c *lookupCache) get(k lookupKey) (pipeline.LookupResult, bool) {
	if c == nil {
		return pipeline.LookupResult{}, false
	}
	return c.c.GetIfPresent(k)
}

// add stores r under k; the cache evicts what is least likely to be used
// again until the total fits. An entry heavier than the whole cache is not
// stored.
func (c *lookupCache) add(k lookupKey, r pipeline.LookupResult) {
	if c == nil || cacheWeight(k, r) > c.maxBytes {
		return
	}
	c.c.Set(k, r)
}

// stats returns the number of entries and the bytes they weigh.
func (c *lookupCache) stats() (entries int, bytes int64) {
	if c == nil {
		return 0, 0
	}
	c.c.CleanUp()
	return c.c.EstimatedSize(), int64(c.c.WeightedSize())
}

// cacheEntryOverhead approximates the bookkeeping bytes of one entry (map
// slot, node, struct headers) so that many small negative answers still
// count against the bound.
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
