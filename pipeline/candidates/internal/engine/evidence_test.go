package engine

import (
	"context"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestAddKeepsTheBestOfEachSymbol: a file keeps one item per symbol, and
// sorting what it keeps gives the same best item and the same symbols in
// the same order as sorting every item added.
func TestAddKeepsTheBestOfEachSymbol(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	symbols := []string{"a", "b", "c", "d"}
	for trial := range 2000 {
		e := NewEvidence(nil)
		var all []Item
		for i := range 1 + rng.IntN(30) {
			it := Item{
				Symbol: symbols[rng.IntN(len(symbols))],
				Score:  []float64{0.5, 0.7, 0.9}[rng.IntN(3)],
				Change: DeclChange(rng.IntN(3)),
				Call:   rng.IntN(2) == 0,
				Reason: string(rune('A' + i)),
			}
			all = append(all, it)
			e.Add("f.go", it)
		}
		kept := e.Files["f.go"].Items
		want, got := distinctFirst(all), distinctFirst(kept)
		if len(kept) != len(want) || !slices.Equal(got, want) {
			t.Fatalf("trial %d: kept %v, want the items %v of %v", trial, got, want, all)
		}
	}
}

// distinctFirst sorts items as the ranking does and gives each symbol's
// first item, as "symbol:reason".
func distinctFirst(items []Item) []string {
	items = slices.Clone(items)
	sort.SliceStable(items, func(i, j int) bool { return Outranks(items[i], items[j]) })
	seen := map[string]bool{}
	var out []string
	for _, it := range items {
		if !seen[it.Symbol] {
			seen[it.Symbol] = true
			out = append(out, it.Symbol+":"+it.Reason)
		}
	}
	return out
}

// TestCutsDistinct: a cut recorded twice (two searches reading one file
// cut short) is listed once, and at most four are kept, in order.
func TestCutsDistinct(t *testing.T) {
	ev := NewEvidence(nil)
	for _, w := range []string{"a", "b", "a", "c", "b", "d", "e"} {
		ev.Cut(w)
	}
	if got := ev.Cuts(); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Errorf("cuts %q, want a b c d", got)
	}
}

// partialReading is a reading read to line (0: whole).
type partialReading struct{ line int }

func (r partialReading) ReadTo() (int, int) { return r.line, 100 }

// TestReadFilesCountsPartialReadings: the files ReadFiles keeps whose
// readings ended before them are one cut naming the first by path and
// counting the others, each once however often it is read; a whole
// reading is none.
func TestReadFilesCountsPartialReadings(t *testing.T) {
	tree := &grepTree{files: map[string]string{"b.js": "7", "a.js": "3", "c.js": "0", "d.js": "5"}}
	ev := NewEvidence(nil)
	read := func(_ string, src []byte) (partialReading, int, bool) {
		return partialReading{int(src[0] - '0')}, 1, true
	}
	if ev.Cuts() != nil {
		t.Fatalf("cuts %q before any reading", ev.Cuts())
	}
	ReadFiles(context.Background(), tree, ev, "JavaScript", []string{"c.js"}, read)
	if got := ev.Cuts(); len(got) != 0 {
		t.Fatalf("a whole reading: cuts %q, want none", got)
	}
	ReadFiles(context.Background(), tree, ev, "JavaScript", []string{"b.js", "a.js", "c.js"}, read)
	ReadFiles(context.Background(), tree, ev, "JavaScript", []string{"a.js", "d.js"}, read)
	want := "a.js and 2 other files hold more than 100 tokens: what follows the last read (line 3 of a.js) was not read"
	if got := ev.Cuts(); !slices.Equal(got, []string{want}) {
		t.Errorf("cuts %q, want %q", got, want)
	}
}
