package identhash

import (
	"slices"
	"testing"
)

// TestSetKeepsZeroAside: 0 marks an empty slot, so the hash 0 is counted
// apart and comes first.
func TestSetKeepsZeroAside(t *testing.T) {
	var s set
	s.add(0)
	s.add(0)
	s.add(5)
	if !s.zero || s.n != 1 {
		t.Errorf("the hash 0 is kept aside: zero %v, n %d", s.zero, s.n)
	}
	if got := s.sorted(); !slices.Equal(got, []uint64{0, 5}) {
		t.Errorf("sorted = %v", got)
	}
}

// TestSortedAcrossGrowthAndWrap: hashes placed near the end of the slots
// wrap to the start; sorted still returns every hash once, in order.
func TestSortedAcrossGrowthAndWrap(t *testing.T) {
	var s set
	var want []uint64
	for i := range uint64(5000) {
		h := ^uint64(0) - i*i // many near the top: they wrap
		if i%3 == 0 {
			h = i * 0x9E3779B97F4A7C15
		}
		want = append(want, h)
		s.add(h)
		s.add(h)
	}
	slices.Sort(want)
	want = slices.Compact(want)
	if got := s.sorted(); !slices.Equal(got, want) {
		t.Fatalf("sorted: %d hashes, want %d (in order: %v)", len(got), len(want), slices.IsSorted(got))
	}
}
