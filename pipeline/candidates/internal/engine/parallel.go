package engine

import "github.com/prscout/prscout/pipeline"

// Parallel calls fn(0..n-1) on as many goroutines as there are CPUs; with
// one CPU, in order on the caller's (pipeline.Parallel).
func Parallel(n int, fn func(i int)) { pipeline.Parallel(n, fn) }
