package engine

import "sync"

// Memo answers m[k], computing it with f and keeping it on a miss: a
// lookup a request asks again and again (a file's crate, an include's
// target, a content's sum). mu guards m and is not held while f runs, so
// two callers may compute the same value at once; either's is kept.
func Memo[K comparable, V any](mu *sync.Mutex, m map[K]V, k K, f func() V) V {
	mu.Lock()
	v, ok := m[k]
	mu.Unlock()
	if ok {
		return v
	}
	v = f()
	mu.Lock()
	m[k] = v
	mu.Unlock()
	return v
}
