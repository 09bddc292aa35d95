package java

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

// mapTree serves files from a map; Grep answers the files of a glob
// holding a word (as text, as a fixed-string grep does).
type mapTree map[string]string

func (m mapTree) Grep(_ context.Context, words, globs []string, _ int) ([]string, error) {
	var out []string
	for p, src := range m {
		ok := false
		for _, g := range globs {
			if m, _ := path.Match(g, path.Base(p)); m {
				ok = true
			}
		}
		if !ok {
			continue
		}
		for _, w := range words {
			if strings.Contains(src, w) {
				out = append(out, p)
				break
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

func (m mapTree) ListDir(_ context.Context, d string) ([]string, error) {
	var out []string
	for p := range m {
		if path.Dir(p) == d {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (m mapTree) ReadFile(_ context.Context, p string) ([]byte, error) {
	s, ok := m[p]
	if !ok {
		return nil, fmt.Errorf("%s: no such file", p)
	}
	return []byte(s), nil
}

var identRE = regexp.MustCompile(`[A-Za-z0-9_$\x80-\xff]+`)

// naiveMostNaming ranks files as mostNaming must: by the touched
// declarations whose name, and class's name when it has one, are among the
// file's identifiers; ties in the given order; javaManyFiles at most.
func naiveMostNaming(tree mapTree, changed map[string]bool, paths []string, touched []javaTouch) []string {
	var out []namingScore
	for _, p := range paths {
		src, ok := tree[p]
		if !ok || changed[p] || !strings.HasSuffix(p, ".java") {
			continue
		}
		idents := map[string]bool{}
		for _, m := range identRE.FindAllString(src, -1) {
			idents[m] = true
		}
		n := 0
		for _, t := range touched {
			if idents[t.d.Name] && (t.d.Container == "" || idents[javaTopName(t.d.Container)]) {
				n++
			}
		}
		if n > 0 {
			out = append(out, namingScore{p, n})
		}
	}
	return mostFirst(out)
}

// mostNaming ranks files like the plain reading of its contract on random
// sources: names that are prefixes, suffixes and extensions of each other,
// names of 63 bytes and more, non-ASCII bytes, files changed or missing.
func TestMostNamingMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	long := strings.Repeat("L", 63)
	vocab := []string{"get", "getX", "xget", "Foo", "FooBar", "Bar", "x", "_", "$v", "size", "Size",
		long, long + "M", long[:62], "Caf\xc3\xa9", "Caf", "a1", "1a", "Map", "Entry", "Map$Entry"}
	seps := []string{" ", ".", "(", ");\n", "\t", "<", ">", "//", "\"", "é", "-", "\n"}
	for round := range 20 {
		tree := mapTree{}
		var paths []string
		for i := range 300 {
			var b strings.Builder
			for range rng.IntN(60) {
				b.WriteString(vocab[rng.IntN(len(vocab))])
				b.WriteString(seps[rng.IntN(len(seps))])
			}
			p := fmt.Sprintf("src/F%d.java", i)
			if i%50 == 7 {
				p = fmt.Sprintf("src/F%d.kt", i)
			}
			if i%40 != 3 { // a few paths grep answered but the tree lacks
				tree[p] = b.String()
			}
			paths = append(paths, p)
		}
		var touched []javaTouch
		// A declaration's name is an identifier: 1a, a number, names none.
		name := func() string {
			for {
				if n := vocab[rng.IntN(len(vocab))]; n[0] < '0' || n[0] > '9' {
					return n
				}
			}
		}
		for range 1 + rng.IntN(6) {
			d := lexed.Decl{Name: name()}
			if rng.IntN(3) > 0 {
				d.Container = name()
				if rng.IntN(2) == 0 {
					d.Container += ".Inner"
				}
			}
			touched = append(touched, javaTouch{d: d})
		}
		changed := map[string]bool{paths[11]: true, paths[12]: true}
		s := &javaSearch{tree: tree, ev: &engine.Evidence{Changed: changed}}
		// mostNaming ranks a search's answer (engine.Found): the change's
		// files and other languages' are already gone.
		found := slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return changed[p] || !strings.HasSuffix(p, ".java") })
		got, err := s.mostNaming(context.Background(), found, touched)
		if err != nil {
			t.Fatal(err)
		}
		want := naiveMostNaming(tree, changed, paths, touched)
		if len(want) == 0 {
			t.Fatalf("round %d: no file names %v: the comparison proves little", round, touched)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d, touched %v:\n got %d paths %v\nwant %d paths %v", round, touched, len(got), got, len(want), want)
		}
	}
}

// joinedIs answers as joining the parts does.
func TestJoinedIs(t *testing.T) {
	parts := [][]string{nil, {}, {""}, {"com"}, {"com", "google"}, {"com", "google", "gson"}, {"com.google", "gson"}, {"", ""}, {"a", "", "b"}}
	for _, ps := range parts {
		for _, s := range []string{"", ".", "com", "com.google", "com.google.gson", "com.google.gson.x", "comgoogle", "com.googlegson", "a..b", "a.b"} {
			if got, want := joinedIs(ps, s), strings.Join(ps, ".") == s; got != want {
				t.Errorf("joinedIs(%q, %q) = %t, want %t", ps, s, got, want)
			}
		}
	}
}
