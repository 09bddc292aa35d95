package lexed

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestTokensOnAnswersAsEveryToken checks TokensOn against asking every
// token whether its line is set, on this package's own sources with random
// line sets (empty, sparse, dense, past the end, a false entry).
func TestTokensOnAnswersAsEveryToken(t *testing.T) {
	paths, err := filepath.Glob("*.go")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no sources: %v", err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		toks := Tokens(src, LexCLike)
		last := toks[len(toks)-1].Line
		for _, density := range []float64{0, 0.01, 0.2, 1} {
			lines := map[int]bool{last + 5: true, 1: false}
			for l := 0; l <= last; l++ {
				if rng.Float64() < density {
					lines[l] = true
				}
			}
			var want []int
			for i, tk := range toks {
				if lines[tk.Line] {
					want = append(want, i)
				}
			}
			if got := TokensOn(toks, lines); !slices.Equal(got, want) {
				t.Errorf("%s, density %v: %d tokens, want %d", p, density, len(got), len(want))
			}
		}
	}
}
