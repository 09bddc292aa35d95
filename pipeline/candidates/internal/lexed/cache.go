package lexed

import (
	"hash/maphash"
	"math"

	"github.com/maypok86/otter/v2"
)

// cacheBytes bounds the memory the read files kept across requests take
// (by Weight's estimate), least recently used out first.
const cacheBytes = 128 << 20

// A file's reading depends only on its path and content, and the files a
// review searches are mostly the same from one pull request to the next:
// the readers keep what they made of a file, keyed by reader, path and
// content, and share it with every later request that reads the same
// content. A kept value is never changed after its reader returns it.
type cacheKey struct {
	reader, path string
	sum          uint64 // maphash of the content
	n            int    // the content's length
}

type cached struct {
	v      any
	weight int64
}

var (
	cacheSeed = maphash.MakeSeed()
	cache     = otter.Must(&otter.Options[cacheKey, cached]{
		MaximumWeight: cacheBytes,
		Weigher: func(k cacheKey, c cached) uint32 {
			return uint32(min(c.weight+int64(len(k.path)), math.MaxUint32))
		},
	})
)

// Cached returns what read made of the file at p with content src, from
// an earlier call with the same reader name, path and content, else from
// read, whose answer is then kept with its weight (Weight). The value is
// shared by every caller: read must return it complete (its Index built),
// and no caller may change it.
func Cached[T any](reader, p string, src []byte, read func() (T, int64)) T {
	return CachedAt(KeyOf(reader, p, src), read)
}

// CachedAt is Cached for the file k names.
func CachedAt[T any](k Key, read func() (T, int64)) T {
	if v, ok := Get[T](k); ok {
		return v
	}
	v, w := read()
	Put(k, v, w)
	return v
}

// Key names what a reader keeps of one file: the reader, the path and the
// content.
type Key struct{ k cacheKey }

// KeyOf is the key of what reader keeps of the file at p with content src.
func KeyOf(reader, p string, src []byte) Key { return KeyAt(reader, p, SumOf(src)) }

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

// Get returns the value kept under k, if there is one of type T. The value
// is shared: no caller may change it.
func Get[T any](k Key) (T, bool) {
	if c, ok := cache.GetIfPresent(k.k); ok {
		if v, ok := c.v.(T); ok {
			return v, true
		}
	}
	var zero T
	return zero, false
}

// Put keeps v under k with its weight (the memory it takes, in bytes),
// replacing what was kept there. v is shared from then on: it must be
// complete, and nobody may change it.
func Put(k Key, v any, weight int64) {
	if weight <= cacheBytes/16 { // one huge file cannot flush the rest
		cache.Set(k.k, cached{v: v, weight: weight})
	}
}

// Weight estimates the memory f takes, read from n bytes of source: its
// tokens (whose texts are cut from a copy of the source), declarations,
// imports and index.
func Weight(f *File, n int) int64 {
	w := int64(n) + int64(len(f.Toks))*52 + int64(len(f.Decls))*96 + int64(len(f.Imports))*128
	if f.idx != nil {
		w += int64(len(f.idx.Idents)+len(f.idx.DeclAt)) * 48
	}
	return w
}
