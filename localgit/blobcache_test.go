package localgit

import (
	"fmt"
	"strings"
	"testing"
)

// TestBlobCacheBoundByBytes: the blob cache serves what it keeps, refuses a
// blob over an eighth of its bound and never weighs more than the bound.
func TestBlobCacheBoundByBytes(t *testing.T) {
	c := newBlobCache(8 << 10)
	data := []byte(strings.Repeat("x", 900))
	c.put("a", data)
	if got, ok := c.get("a"); !ok || string(got) != string(data) {
		t.Fatalf("get(a) = %d bytes, %v; want the blob put", len(got), ok)
	}
	c.put("big", make([]byte, 1<<10+1))
	if _, ok := c.get("big"); ok {
		t.Error("a blob over an eighth of the cache must not be kept")
	}
	for i := range 100 {
		c.put(fmt.Sprint("b", i), data)
	}
	c.c.CleanUp()
	if w := c.c.WeightedSize(); w > 8<<10 {
		t.Errorf("the cache weighs %d bytes, over its bound of %d", w, 8<<10)
	}
	var none *blobCache
	none.put("a", data)
	if _, ok := none.get("a"); ok {
		t.Error("a nil cache keeps nothing")
	}
}
