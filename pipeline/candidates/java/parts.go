package java

import (
	"context"
	"runtime"
	"sync"
)

// partMinTokens is the fewest tokens a part of a walk holds: below it a
// goroutine and an evidence merge cost more than the walk saves.
var partMinTokens = 20_000

// inParts runs walk over files in up to GOMAXPROCS contiguous parts of
// about the same number of tokens walked (tokens(f) of each), at once. Once every file is read
// (loadTypes is done), the walks only read the search's maps; each part
// gets a copy of the search with its own evidence and javaSees memo, and
// the parts' evidence is merged in part order, so each file's reasons come
// in the order one walk over all the files gives them. It stops between
// files when ctx ends and returns ctx's error.
func (s *javaSearch) inParts(ctx context.Context, files []*jfile, tokens func(f *jfile) int, walk func(w *javaSearch, f *jfile)) error {
	total := 0
	for _, f := range files {
		total += tokens(f)
	}
	n := min(runtime.GOMAXPROCS(0), len(files), total/partMinTokens)
	if n <= 1 {
		for _, f := range files {
			if err := ctx.Err(); err != nil {
				return err
			}
			walk(s, f)
		}
		return nil
	}
	parts := make([]*javaSearch, n)
	var wg sync.WaitGroup
	start, acc := 0, 0
	for k := range n {
		end := start
		for end < len(files) && (k == n-1 || acc < total*(k+1)/n) {
			acc += tokens(files[end])
			end++
		}
		w := *s
		w.ev, w.sees = s.ev.Fork(), nil
		parts[k] = &w
		wg.Add(1)
		go func(w *javaSearch, part []*jfile) {
			defer wg.Done()
			for _, f := range part {
				if ctx.Err() != nil {
					return
				}
				walk(w, f)
			}
		}(&w, files[start:end])
		start = end
	}
	wg.Wait()
	for _, w := range parts {
		s.ev.Merge(w.ev)
	}
	return ctx.Err()
}
