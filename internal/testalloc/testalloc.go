// Package testalloc measures the heap bytes a piece of work allocates: the
// work bound that tests assert where a clock would fail on a loaded
// machine.
package testalloc

import "runtime"

// Bytes returns the bytes fn allocates on the heap (runtime.MemStats's
// TotalAlloc before and after it, so what other goroutines allocate
// meanwhile counts too).
func Bytes(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
