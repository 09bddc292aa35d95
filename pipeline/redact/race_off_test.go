//go:build !race

package redact_test

// perByteAlloc is how many bytes a byte of input may allocate.
const perByteAlloc = 16
