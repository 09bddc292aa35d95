package engine

import (
	"runtime"

	"golang.org/x/sync/errgroup"
)

// Parallel calls fn(0..n-1) on as many goroutines as there are CPUs; with
// one CPU, in order on the caller's.
func Parallel(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var g errgroup.Group
	g.SetLimit(workers)
	for i := range n {
		g.Go(func() error { fn(i); return nil })
	}
	_ = g.Wait()
}
