package engine

import "testing"

func TestBits(t *testing.T) {
	s := NewBits(128)
	for _, i := range []int{0, 63, 64, 127, -1, 1000} {
		s.Add(i)
	}
	for i := -2; i < 1100; i++ {
		want := i == 0 || i == 63 || i == 64 || i == 127 || i == 1000
		if got := s.Has(i); got != want {
			t.Errorf("Has(%d) = %v, want %v", i, got, want)
		}
	}
	if got := len(NewBits(0)); got != 0 {
		t.Errorf("an empty set of no room keeps %d words", got)
	}
	var grown Bits
	grown.Add(200)
	if !grown.Has(200) || grown.Has(199) || len(grown) != 4 {
		t.Errorf("a set grown to 200 holds %v", grown)
	}
}
