package golang

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// The finder answers as bytes.Contains, on texts of a small alphabet where
// near misses are frequent.
func TestFinderAnswersAsContains(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	word := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = `ab"/`[r.IntN(4)]
		}
		return b
	}
	for range 20000 {
		pat, text := word(r.IntN(7)), word(r.IntN(40))
		if got, want := newFinder(string(pat)).in(text), bytes.Contains(text, pat); got != want {
			t.Fatalf("%q in %q: %t, want %t", pat, text, got, want)
		}
	}
}
