package localgit

import (
	"math/rand"
	"slices"
	"testing"
)

// hasAny must agree with a plain membership check on both of its paths
// (the merge walk and the binary search), with words given in order.
func TestIdentSetHasAnyAgreesWithMembership(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for n := 0; n < 2000; n++ {
		s := make(identSet, r.Intn(300))
		for i := range s {
			s[i] = uint64(r.Intn(1000))
		}
		slices.Sort(s)
		s = slices.Compact(s)
		words := make([]uint64, 1+r.Intn(40))
		for i := range words {
			words[i] = uint64(r.Intn(1000))
		}
		slices.Sort(words)
		words = slices.Compact(words)
		want := false
		for _, w := range words {
			if slices.Contains(s, w) {
				want = true
			}
		}
		if got := s.hasAny(words); got != want {
			t.Fatalf("hasAny(%v) over %d identifiers = %v, want %v", words, len(s), got, want)
		}
	}
}
