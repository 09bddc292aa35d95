package engine

import (
	"hash/maphash"
	"math"

	"github.com/maypok86/otter/v2"
)

// A file's reading depends only on its path and content, and the files a
// review searches are mostly the same from one pull request to the next:
// the readers keep what they made of a file in a Cache, keyed by reader,
// path and content, and share it with every later request that reads the
// same content. A kept value is never changed after its reader returns it.
//
// The Cache belongs to whoever calls candidates.Find (the server keeps one
// for its lifetime, sized by its settings); Find itself keeps nothing
// across calls.
type Cache struct {
	c        *otter.Cache[cacheKey, cached]
	maxBytes int64
}

type cacheKey struct {
	reader, path string
	sum          uint64 // maphash of the content
	n            int    // the content's length
	blob         string // or the content's id in the tree (BlobIDs)
}

type cached struct {
	v      any
	weight int64
}

// NewCache returns a cache bounded to maxBytes of kept readings (by their
// readers' estimates), least recently used out first; nil, which keeps
// nothing, when maxBytes is not positive.
func NewCache(maxBytes int64) *Cache {
	if maxBytes <= 0 {
		return nil
	}
	return &Cache{maxBytes: maxBytes, c: otter.Must(&otter.Options[cacheKey, cached]{
		MaximumWeight: uint64(maxBytes),
		Weigher: func(k cacheKey, c cached) uint32 {
			return uint32(min(c.weight+int64(len(k.path)+len(k.blob)), math.MaxUint32))
		},
	})}
}

var cacheSeed = maphash.MakeSeed()

// Key names what a reader keeps of one file: the reader, the path and the
// content.
type Key struct{ k cacheKey }

// Sum names a content (its hash and length): a reader that keeps several
// things of one file hashes its content once.
type Sum struct {
	sum uint64
	n   int
}

// SumOf is the Sum of src.
func SumOf(src []byte) Sum { return Sum{maphash.Bytes(cacheSeed, src), len(src)} }

// KeyAt is the key of what reader keeps of the file at p with the content
// s names.
func KeyAt(reader, p string, s Sum) Key {
	return Key{cacheKey{reader: reader, path: p, sum: s.sum, n: s.n}}
}

// BlobKey is the key of what reader keeps of the file at p whose content
// the tree names id (BlobIDs): what is kept under it is found without
// reading the file.
func BlobKey(reader, p, id string) Key {
	return Key{cacheKey{reader: reader, path: p, blob: id}}
}

// Cached returns what read made of the file at p with content src, from
// an earlier call with the same reader name, path and content, else from
// read, whose answer is then kept with its weight. The value is shared by
// every caller: read must return it complete, and no caller may change it.
func Cached[T any](c *Cache, reader, p string, src []byte, read func() (T, int64)) T {
	if c == nil {
		v, _ := read()
		return v
	}
	return CachedAt(c, KeyAt(reader, p, SumOf(src)), read)
}

// CachedAt is Cached for the file k names.
func CachedAt[T any](c *Cache, k Key, read func() (T, int64)) T {
	if v, ok := Get[T](c, k); ok {
		return v
	}
	v, w := read()
	c.Put(k, v, w)
	return v
}

// Get returns the value kept under k, if there is one of type T. The value
// is shared: no caller may change it.
func Get[T any](c *Cache, k Key) (T, bool) {
	if c != nil {
		if e, ok := c.c.GetIfPresent(k.k); ok {
			if v, ok := e.v.(T); ok {
				return v, true
			}
		}
	}
	var zero T
	return zero, false
}

// Put keeps v under k with its weight (the memory it takes, in bytes),
// replacing what was kept there. v is shared from then on: it must be
// complete, and nobody may change it.
func (c *Cache) Put(k Key, v any, weight int64) {
	if c != nil && weight <= c.maxBytes/16 { // one huge file cannot flush the rest
		c.c.Set(k.k, cached{v: v, weight: weight})
	}
}
