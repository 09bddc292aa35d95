package java

import (
	"context"
	"runtime"

	"github.com/prscout/prscout/pipeline"
)

// partMinTokens is the fewest tokens a part of a walk holds: below it a
// goroutine and an evidence merge cost more than the walk saves.
var partMinTokens = 20_000

// inParts runs walk over files in up to GOMAXPROCS contiguous parts of
// about the same number of tokens walked (tokens(f) of each), at once
// (pipeline.Parallel). Once every file is read (loadTypes is done), the
// walks only read the search's maps; each part gets a copy of the search
// with its own evidence and javaSees memo (the first walks the search
// itself), and the parts' evidence is merged in part order, so each file's reasons come in the order one walk
// over all the files gives them. It stops between files when ctx ends and
// returns ctx's error.
func (s *javaSearch) inParts(ctx context.Context, files []*jfile, tokens func(f *jfile) int, walk func(w *javaSearch, f *jfile)) error {
	total := 0
	for _, f := range files {
		total += tokens(f)
	}
	n := max(min(runtime.GOMAXPROCS(0), len(files), total/partMinTokens), 1)
	// Part k is files[ends[k]:ends[k+1]].
	ends := make([]int, n+1)
	for k, acc := 0, 0; k < n; k++ {
		end := ends[k]
		for end < len(files) && (k == n-1 || acc < total*(k+1)/n) {
			acc += tokens(files[end])
			end++
		}
		ends[k+1] = end
	}
	parts := []*javaSearch{s}
	for range n - 1 {
		w := *s
		w.ev, w.sees = s.ev.Fork(), nil
		parts = append(parts, &w)
	}
	pipeline.Parallel(n, func(k int) {
		for _, f := range files[ends[k]:ends[k+1]] {
			if ctx.Err() != nil {
				return
			}
			walk(parts[k], f)
		}
	})
	for _, w := range parts[1:] {
		s.ev.Merge(w.ev)
	}
	return ctx.Err()
}
