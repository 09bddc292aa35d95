package pipeline

import (
	"sync/atomic"
	"testing"
)

// TestParallelCallsEachIndexOnce: every index is called exactly once,
// whatever the count.
func TestParallelCallsEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 1000} {
		calls := make([]int32, n)
		Parallel(n, func(i int) { atomic.AddInt32(&calls[i], 1) })
		for i, c := range calls {
			if c != 1 {
				t.Fatalf("n=%d: index %d called %d times", n, i, c)
			}
		}
	}
}
