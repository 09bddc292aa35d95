package typescript

import (
	"fmt"
	"slices"
	"testing"
)

// The searches of a Find ask of each file they share whether it holds
// one of their words: the file's words are looked up once for all of
// them, and each answer is the one a lookup of the search's own words
// gives.
func TestGroupWordsLookedUpOncePerFile(t *testing.T) {
	var group []*tokSearch
	for k := range 5 {
		// Each search has words of its own and some shared.
		words := []string{fmt.Sprintf("own%d", k), "shared", fmt.Sprintf("w%d", k%2)}
		for j := range 70 {
			words = append(words, fmt.Sprintf("many%d_%d", k, j)) // past one word of bits
		}
		group = append(group, &tokSearch{words: words})
	}
	srcs := []string{"own1 + 1\n", "shared()\n", "w1.x\n", "nothing\n", "many4_69\n", "own0; own3\n"}
	var files []*jsFile
	for i, src := range srcs {
		files = append(files, readJS(fmt.Sprintf("f%d.ts", i), []byte(src), nil))
	}
	g := newGroupWords(group)
	for range 3 {
		for _, s := range group {
			for _, f := range files {
				want := slices.ContainsFunc(s.words, func(w string) bool { return f.Index().Idents[w] })
				if got := s.mentions(f); got != want {
					t.Errorf("search of %v... mentions %s (%q): %v, want %v", s.words[:3], f.Path, srcs[slices.Index(files, f)], got, want)
				}
			}
		}
	}
	if g.looks != len(files) {
		t.Errorf("the files' words were looked up %d times, want %d (once per file)", g.looks, len(files))
	}
}

// The impact walk's filter keeps every touched name and drops the names
// of a length no touched name has, or starting with a byte none starts
// with.
func TestNameFilter(t *testing.T) {
	var f nameFilter
	names := []string{"json", "Context", "$el", "_private", "x1234567890123456789012345678901234567890123456789012345678901234567"}
	for _, n := range names {
		f.add(n)
	}
	for _, n := range names {
		if !f.has(n) {
			t.Errorf("the filter drops %q, which was added", n)
		}
	}
	for _, n := range []string{"jsonxy", "context", "Xontext", "el", "", "abcde"} {
		if f.has(n) {
			t.Errorf("the filter keeps %q: no added name has its length or its first byte", n)
		}
	}
}
