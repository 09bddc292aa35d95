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
	k := cacheKey{reader: reader, path: p, sum: maphash.Bytes(cacheSeed, src), n: len(src)}
	if c, ok := cache.GetIfPresent(k); ok {
		if v, ok := c.v.(T); ok {
			return v
		}
	}
	v, w := read()
	if w <= cacheBytes/16 { // one huge file cannot flush the rest
		cache.Set(k, cached{v: v, weight: w})
	}
	return v
}

// Weight estimates the memory f takes, read from n bytes of source: its
// tokens (whose texts are cut from a copy of the source), declarations,
// imports and index.
func Weight(f *File, n int) int64 {
	w := int64(n) + int64(len(f.Toks))*48 + int64(len(f.Decls))*96 + int64(len(f.Imports))*128
	if f.idx != nil {
		w += int64(len(f.idx.Idents)+len(f.idx.DeclAt)) * 48
	}
	return w
}
