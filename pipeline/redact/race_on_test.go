//go:build race

package redact_test

// perByteAlloc is how many bytes a byte of input may allocate: the race
// detector's instrumentation moves more values to the heap.
const perByteAlloc = 64
