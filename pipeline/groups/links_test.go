package groups

import (
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/ident"
)

// plainNameLinks is NameLinks read plainly from its contract: one file at a
// time, each changed line's identifiers cut again for each question.
func plainNameLinks(files []pipeline.ChangedFile) Links {
	declared := map[string][]int{}
	for i, f := range files {
		seen := map[string]bool{}
		eachChangedLine(f.Diff, func(line string, added bool) {
			if !added {
				return
			}
			for at := 0; ; {
				start, end, ok := ident.Next(line, at, ident.Dollar)
				if !ok {
					break
				}
				at = end
				if !declKeywords[line[start:end]] {
					continue
				}
				if name := declaredAfter(line, start, end); name != "" && !seen[name] {
					seen[name] = true
					declared[name] = append(declared[name], i)
				}
			}
		})
	}
	var out Links
	for u, f := range files {
		seen := map[string]bool{}
		n := 0
		eachChangedLine(f.Diff, func(line string, _ bool) {
			for _, t := range ident.All(line, ident.Dollar) {
				if n >= maxLinksPerFile || len(t) < minLinkName || declKeywords[t] || seen[t] {
					continue
				}
				seen[t] = true
				by := declared[t]
				if len(by) > maxDeclaringFiles {
					continue
				}
				for _, d := range by {
					if d != u && n < maxLinksPerFile {
						out = append(out, [2]int{d, u})
						n++
					}
				}
			}
		})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i][0] != out[j][0] {
			return out[i][0] < out[j][0]
		}
		return out[i][1] < out[j][1]
	})
	return out
}

// TestNameLinksAsPlain compares NameLinks with plainNameLinks on random
// changes of shared, common and keyword names, declared and used on added,
// removed and context lines.
func TestNameLinksAsPlain(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	words := []string{"func", "class", "def", "type", "var", "let", "interface", "x", "ab", "$el", "Parse", "parse", "Client", "do_it",
		"Handler", "get", "set", "Value", "value", "Node", "walk", "Ünïcode", "a1", "Config"}
	for round := range 300 {
		files := make([]pipeline.ChangedFile, 1+rng.Intn(12))
		for i := range files {
			var b strings.Builder
			fmt.Fprintf(&b, "--- a/f%d\n+++ b/f%d\n@@ -1,9 +1,9 @@\n", i, i)
			for range rng.Intn(25) {
				b.WriteByte(" +-"[rng.Intn(3)])
				for range rng.Intn(7) {
					w := words[rng.Intn(len(words))]
					if rng.Intn(4) == 0 {
						w += fmt.Sprint(rng.Intn(5))
					}
					b.WriteString(w)
					b.WriteString([]string{" ", "(", ".", ") {", " = "}[rng.Intn(5)])
				}
				b.WriteByte('\n')
			}
			files[i] = pipeline.ChangedFile{Path: fmt.Sprintf("f%d.go", i), Diff: b.String()}
		}
		got, want := NameLinks(files), plainNameLinks(files)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: NameLinks = %v, want %v", round, got, want)
		}
	}
	// Over the per-file bound of links: the same ones, in the same order.
	files := sharedNamesChange(60)
	if got, want := NameLinks(files), plainNameLinks(files); !slices.Equal(got, want) {
		t.Fatalf("shared names: %d links, want %d", len(got), len(want))
	}
}
