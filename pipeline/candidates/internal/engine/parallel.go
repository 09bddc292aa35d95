package engine

import (
	"context"

	"github.com/prscout/prscout/pipeline"
)

// Parallel calls fn(0..n-1) on as many goroutines as there are CPUs; with
// one CPU, in order on the caller's (pipeline.Parallel).
func Parallel(n int, fn func(i int)) { pipeline.Parallel(n, fn) }

// ParallelCtx is Parallel calling fn(i) only while ctx lasts: once it
// ends, the indexes not yet taken are skipped.
func ParallelCtx(ctx context.Context, n int, fn func(i int)) {
	pipeline.Parallel(n, func(i int) {
		if ctx.Err() == nil {
			fn(i)
		}
	})
}
