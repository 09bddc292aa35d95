package engine

import "testing"

func TestCacheKeepsByReaderPathAndContent(t *testing.T) {
	c := NewCache(1 << 20)
	reads := 0
	read := func() (int, int64) { reads++; return reads, 10 }
	src := []byte("package p\n")
	if v := Cached(c, "go", "a.go", src, read); v != 1 {
		t.Fatalf("first reading = %d", v)
	}
	if v := Cached(c, "go", "a.go", []byte("package p\n"), read); v != 1 || reads != 1 {
		t.Fatalf("same reader, path and content read again: %d, %d reads", v, reads)
	}
	for _, k := range []struct{ reader, path, src string }{
		{"java", "a.go", "package p\n"},
		{"go", "b.go", "package p\n"},
		{"go", "a.go", "package q\n"},
	} {
		before := reads
		Cached(c, k.reader, k.path, []byte(k.src), read)
		if reads != before+1 {
			t.Errorf("%+v answered from another file's reading", k)
		}
	}
}

func TestNilCacheKeepsNothing(t *testing.T) {
	if c := NewCache(0); c != nil {
		t.Fatalf("NewCache(0) = %v, want nil", c)
	}
	var c *Cache
	reads := 0
	read := func() (int, int64) { reads++; return reads, 10 }
	Cached(c, "go", "a.go", []byte("x"), read)
	Cached(c, "go", "a.go", []byte("x"), read)
	if reads != 2 {
		t.Fatalf("a nil cache kept a reading: %d reads", reads)
	}
	c.Put(KeyAt("go", "a.go", SumOf([]byte("x"))), 1, 1) // must not panic
	if _, ok := Get[int](c, KeyAt("go", "a.go", SumOf([]byte("x")))); ok {
		t.Fatal("a nil cache answered a reading")
	}
}

// One reading heavier than a sixteenth of the cache is not kept: it would
// flush the readings every other file's request reuses.
func TestCacheRefusesAHugeReading(t *testing.T) {
	c := NewCache(1600)
	k := KeyAt("go", "big.go", SumOf([]byte("big")))
	c.Put(k, "big", 101)
	if _, ok := Get[string](c, k); ok {
		t.Fatal("a reading over a sixteenth of the cache was kept")
	}
	c.Put(k, "small", 100)
	if v, ok := Get[string](c, k); !ok || v != "small" {
		t.Fatalf("a reading within the bound was not kept: %q, %v", v, ok)
	}
}
