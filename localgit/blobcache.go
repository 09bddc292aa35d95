package localgit

import (
	"math"
	"sync/atomic"

	"github.com/maypok86/otter/v2"
)

// defaultBlobCacheBytes bounds the blobs a Provider keeps in memory for its
// code trees.
const defaultBlobCacheBytes = 64 << 20

// blobCache keeps blob contents by object id, bounded by their total size
// (otter with a weigher). A blob id names its content, so an entry is valid
// in every repository and at every commit that has it: the reviews of one
// repository read mostly the same blobs again.
type blobCache struct {
	maxBytes int64
	c        *otter.Cache[string, []byte]
	batches  atomic.Int64 // cat-file runs of ReadFiles for blobs it lacked (tests count them)
}

// countBatch counts one cat-file run of ReadFiles.
func (c *blobCache) countBatch() {
	if c != nil {
		c.batches.Add(1)
	}
}

func newBlobCache(maxBytes int64) *blobCache {
	return &blobCache{maxBytes: maxBytes, c: otter.Must(&otter.Options[string, []byte]{
		MaximumWeight: uint64(maxBytes),
		Weigher:       func(oid string, data []byte) uint32 { return uint32(min(blobWeight(oid, data), math.MaxUint32)) },
	})}
}

func blobWeight(oid string, data []byte) int64 { return int64(len(data) + len(oid)) }

func (c *blobCache) get(oid string) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	return c.c.GetIfPresent(oid)
}

// put keeps data (which must not be changed afterwards); a blob larger than
// an eighth of the cache is not kept, so one file cannot flush the rest.
func (c *blobCache) put(oid string, data []byte) {
	if c == nil || blobWeight(oid, data) > c.maxBytes/8 {
		return
	}
	c.c.SetIfAbsent(oid, data)
}
