package golang

import (
	"sync"
	"unsafe"

	"github.com/prscout/prscout/pipeline/candidates/golang/goscan"
	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/ident"
)

// The search for references reads every file git grep names for the
// changed names (some two thousand on a large range) to learn which of the
// names each holds and how (after a dot, before a colon). Few of those
// files come back with the same content in the next pull request, and
// most are ruled out: each is read once for the request's few names, and
// nothing of the reading is kept.

// srcID names a content by where it is in memory: a request reads each
// file once and never changes what it read.
type srcID struct {
	data *byte
	n    int
}

// sumOf returns engine.SumOf(src), computed once a request for each
// content however many readers key it.
func (e *goEngine) sumOf(src []byte) engine.Sum {
	if len(src) == 0 {
		return engine.SumOf(src)
	}
	return onceFor(&e.sumMu, e.sums, src, engine.SumOf)
}

// bodiesOf returns goscan.Bodies(src), found once a request for each
// content however many readings need it.
func (e *goEngine) bodiesOf(src []byte) []goscan.Body {
	if len(src) == 0 {
		return nil
	}
	return onceFor(&e.sumMu, e.bodies, src, goscan.Bodies)
}

// onceFor answers f(src) from m, keyed by the content's place in memory
// (the request's readings share their bytes), computing it on a miss; mu
// guards m.
func onceFor[T any](mu *sync.Mutex, m map[srcID]T, src []byte, f func([]byte) T) T {
	return engine.Memo(mu, m, srcID{unsafe.SliceData(src), len(src)}, func() T { return f(src) })
}

// wantedIn answers the words of want (of maxWord bytes at most) among the
// identifiers of src, each with how it occurs, and the offsets at which
// they occur, in order.
func wantedIn(want *ident.Set[bool], src []byte) (map[string]uint8, []int) {
	var found map[string]uint8
	var at []int
	eachNamed(src, want, func(i, j int) {
		if found == nil {
			found = map[string]uint8{}
		}
		found[string(src[i:j])] |= engine.Occurrence(src, i, j)
		at = append(at, i)
	})
	return found, at
}

// namesAt returns the offsets of at (where wantedIn found its words in
// src) at which one of names occurs.
func namesAt(src []byte, at []int, names map[string]bool) []int {
	var out []int
	for _, i := range at {
		if names[string(src[i:ident.End(src, i, goscan.Chars)])] {
			out = append(out, i)
		}
	}
	return out
}

// eachNamed calls fn with the extent of each identifier of src that set
// holds (of maxWord bytes at most), in order.
func eachNamed(src []byte, set *ident.Set[bool], fn func(i, j int)) {
	for at := 0; ; {
		i, j, ok := ident.Next(src, at, goscan.Chars)
		if !ok {
			return
		}
		at = j
		if j-i > maxWord {
			continue
		}
		if _, ok := set.Get(unsafe.String(&src[i], j-i)); ok {
			fn(i, j)
		}
	}
}
