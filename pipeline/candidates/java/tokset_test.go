package java

import "testing"

func TestTokSet(t *testing.T) {
	s := newTokSet(128)
	for _, i := range []int{0, 63, 64, 127, 128, -1, 1000} {
		s.add(i)
	}
	for i := -2; i < 200; i++ {
		want := i == 0 || i == 63 || i == 64 || i == 127
		if got := s.has(i); got != want {
			t.Errorf("has(%d) = %v, want %v", i, got, want)
		}
	}
	if got := len(newTokSet(0)); got != 0 {
		t.Errorf("a file of no tokens keeps %d words", got)
	}
}
