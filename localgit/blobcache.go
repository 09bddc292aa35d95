package localgit

import (
	"container/list"
	"sync"
)

// defaultBlobCacheBytes bounds the blobs a Provider keeps in memory for its
// code trees (see Provider.BlobCacheBytes).
const defaultBlobCacheBytes = 64 << 20

// blobCache keeps blob contents by object id, least recently used first out,
// bounded by their total size. A blob id names its content, so an entry is
// valid in every repository and at every commit that has it: the reviews of
// one repository read mostly the same blobs again.
type blobCache struct {
	mu       sync.Mutex
	maxBytes int64
	bytes    int64
	ll       *list.List // front = most recently used
	items    map[string]*list.Element
}

type blobEntry struct {
	oid  string
	data []byte
}

func newBlobCache(maxBytes int64) *blobCache {
	return &blobCache{maxBytes: maxBytes, ll: list.New(), items: map[string]*list.Element{}}
}

func (c *blobCache) get(oid string) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[oid]
	if !ok {
		return nil, false
	}
	c.ll.MoveToFront(el)
	return el.Value.(*blobEntry).data, true
}

// put keeps data (which must not be changed afterwards); a blob larger than
// an eighth of the cache is not kept, so one file cannot flush the rest.
func (c *blobCache) put(oid string, data []byte) {
	size := int64(len(data) + len(oid))
	if c == nil || size > c.maxBytes/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[oid]; ok {
		return
	}
	c.items[oid] = c.ll.PushFront(&blobEntry{oid: oid, data: data})
	c.bytes += size
	for c.bytes > c.maxBytes {
		el := c.ll.Back()
		e := el.Value.(*blobEntry)
		c.ll.Remove(el)
		delete(c.items, e.oid)
		c.bytes -= int64(len(e.data) + len(e.oid))
	}
}
