package testalloc

import "testing"

var sink []byte

// TestBytesCountsTheWork: a 1 MiB allocation is counted, and nothing
// allocating counts (almost) nothing.
func TestBytesCountsTheWork(t *testing.T) {
	if got := Bytes(func() { sink = make([]byte, 1<<20) }); got < 1<<20 {
		t.Errorf("a 1 MiB allocation counted %d bytes", got)
	}
	if got := Bytes(func() {}); got > 64<<10 {
		t.Errorf("no work counted %d bytes", got)
	}
}
