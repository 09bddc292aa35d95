package typescript

import (
	"sync"

	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

// groupWords numbers the words of the searches of one Find, so that which
// of them a searched file holds is looked up once per file rather than
// once per search and file: the changes' searches share their files
// (groupPaths), and each asks of every one of them whether it holds one of
// its own words (mentions).
type groupWords struct {
	words []string       // the words of all the searches, each once
	bit   map[string]int // words' index
	mu    sync.Mutex     // the searches read files on every core
	held  map[*lexed.File][]uint64
	looks int // files whose words were looked up, for tests
}

func newGroupWords(group []*tokSearch) *groupWords {
	g := &groupWords{bit: map[string]int{}, held: map[*lexed.File][]uint64{}}
	for _, s := range group {
		for _, w := range s.words {
			if _, ok := g.bit[w]; !ok {
				g.bit[w] = len(g.words)
				g.words = append(g.words, w)
			}
		}
	}
	for _, s := range group {
		s.wordBits = g.set(s.words)
		s.group = g
	}
	return g
}

// set is the bit set of words, all of them the group's.
func (g *groupWords) set(words []string) []uint64 {
	out := make([]uint64, (len(g.words)+63)/64)
	for _, w := range words {
		k := g.bit[w]
		out[k/64] |= 1 << (k % 64)
	}
	return out
}

// heldBy is the bit set of the group's words f holds as identifiers,
// looked up on f's first use.
func (g *groupWords) heldBy(f *lexed.File) []uint64 {
	g.mu.Lock()
	b, ok := g.held[f]
	g.mu.Unlock()
	if ok {
		return b
	}
	idents := f.Index().Idents
	b = make([]uint64, (len(g.words)+63)/64)
	for k, w := range g.words {
		if idents[w] {
			b[k/64] |= 1 << (k % 64)
		}
	}
	g.mu.Lock()
	g.held[f] = b
	g.looks++
	g.mu.Unlock()
	return b
}

// overlaps reports whether the bit sets a and b share a bit.
func overlaps(a, b []uint64) bool {
	for i := range min(len(a), len(b)) {
		if a[i]&b[i] != 0 {
			return true
		}
	}
	return false
}
