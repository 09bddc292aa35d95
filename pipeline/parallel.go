package pipeline

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Parallel calls fn(0) … fn(n-1) on up to GOMAXPROCS goroutines, each
// taking the next index as it finishes one, and returns when all have
// returned; with one CPU, in order on the caller's goroutine.
func Parallel(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				fn(i)
			}
		}()
	}
	wg.Wait()
}
