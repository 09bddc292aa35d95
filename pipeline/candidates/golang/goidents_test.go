package golang

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/golang/goscan"
	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/ident"
)

// Reading a file for a set of words answers as a word-by-word reading
// does: which words occur and how, over this repository's own Go files and a few written for the edges
// ('$' beside a name, a digit before one, non-ASCII, a word longer than
// maxWord).
func TestWantedInAnswersAsTheList(t *testing.T) {
	srcs := map[string][]byte{
		"dollar.go":  []byte("package p\n\nvar s = \"a$Name b\" // Name\nvar Name = x.Other\n"),
		"key.go":     []byte("package p\n\nvar v = T{Name: 1, Other :2}\nfunc f() { x := 1; Name := 2 }\n\u00e9Name := 1\n"),
		"digit.go":   []byte("package p\n\nvar a = 1Name + Name2\n"),
		"dollars.go": []byte("$Other Other$ x$y $Name2$ 1$Find Find$1 \u00e9$T $\u00e9Name\nctx err\n$"),
		"dollar1.go": []byte("Other$Name2 string$"),
		"long.go":    []byte("var " + strings.Repeat("a", 64) + ", " + strings.Repeat("b", 65) + " = 1, 2\n"),
	}
	eachRepoGoFile(t, func(p string, src []byte) bool {
		srcs[p] = src
		return len(srcs) < 120
	})
	words := map[string]bool{}
	for _, n := range []string{"Name", "Other", "x", "err", "ctx", "Find", "string", "Name2", "T", "notThere", "\u00e9Name",
		strings.Repeat("a", 64), strings.Repeat("b", 65)} {
		words[n] = true
	}
	ws := newWordSet(words)
	found := 0
	for p, src := range srcs {
		got, at := wantedIn(&ws.set, src)
		if want := ws.offsets(src); !slices.Equal(at, want) {
			t.Fatalf("%s: offsets %v, reading word by word %v", p, at, want)
		}
		if want := ws.in(src, false); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: words %v, reading word by word %v", p, got, want)
		}
		found += len(got)
	}
	if found < 100 {
		t.Fatalf("%d words found", found)
	}
}

// One reading of a file for the offsets of a set of names answers, for
// each declaration and each function body, what reading its text does:
// over this repository's own Go files, with names they hold and lack.
func TestWordOffsetsAnswerAsTheText(t *testing.T) {
	ws := newWordSet(map[string]bool{"err": true, "Find": true, "ctx": true, "goFile": true, "notThere": true, "e": true})
	checked := 0
	eachRepoGoFile(t, func(p string, src []byte) bool {
		f := parseSrc(p, src)
		if f == nil {
			return true
		}
		_, at := wantedIn(&ws.set, src)
		for _, d := range f.ast.Decls {
			a, b := f.tf.Offset(d.Pos()), f.tf.Offset(d.End())
			if got, want := namedIn(at, a, b), ws.in(src[a:b], true) != nil; got != want {
				t.Fatalf("%s: declaration at %d: offsets say %t, its text %t", p, a, got, want)
			}
			checked++
		}
		for _, fb := range goscan.Bodies(src) {
			if got, want := namedIn(at, fb.Start, fb.Close+1), ws.in(fb.Text(src), true) != nil; got != want {
				t.Fatalf("%s: body at %d: offsets say %t, its text %t", p, fb.Start, got, want)
			}
			checked++
		}
		return true
	})
	if checked < 1000 {
		t.Fatalf("%d declarations and bodies checked", checked)
	}
}

// TestNamesAtAnswersAsTheText: the offsets namesAt keeps are those a
// reading of the text word by word finds, for the files of this repository
// and for edge cases ('$' beside a name, non-ASCII, a name longer than a
// word set keeps).
func TestNamesAtAnswersAsTheText(t *testing.T) {
	long := strings.Repeat("x", maxWord+1)
	sets := []map[string]bool{
		{"err": true, "Find": true, "ctx": true, "goFile": true, "notThere": true, "e": true},
		{"a": true, "b": true, "π": true, long: true, "x": true, "$": true},
	}
	extra := map[string]string{
		"dollar.go":  "package p\n\nvar a$b = \"${a}\" + a + $b\n",
		"unicode.go": "package p\n\nvar π, aπ = 1, 2 // π\nfunc b() { _ = π + aπ }\n",
		"long.go":    "package p\n\nvar " + long + ", x = 1, 2\nvar _ = " + long + " + x + 1x\n",
	}
	// The offsets of a larger set of words, as the search for references
	// reads them, are filtered for each set.
	every := map[string]bool{"p": true, "var": true, "func": true, "return": true, "aπ": true}
	for _, names := range sets {
		for n := range names {
			every[n] = true
		}
	}
	all := newWordSet(every)
	checked := 0
	check := func(p string, src []byte) {
		_, at := wantedIn(&all.set, src)
		for _, names := range sets {
			got, want := namesAt(src, at, names), newWordSet(names).offsets(src)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: offsets of %v = %v, the text's %v", p, names, got, want)
			}
			checked += len(want)
		}
	}
	for p, src := range extra {
		check(p, []byte(src))
	}
	eachRepoGoFile(t, func(p string, src []byte) bool {
		check(p, src)
		return true
	})
	if checked < 1000 {
		t.Fatalf("%d offsets checked", checked)
	}
}

// offsets, the reference namesAt is checked against, returns
// the offsets in src at which one of the words starts as
// a whole identifier, in order: one reading of a file answers, for every
// part of it that starts and ends at a token's edge, whether in would
// find a word there (namedIn).
func (ws *wordSet) offsets(src []byte) []int {
	var out []int
	for at := 0; ; {
		i, j, ok := ident.Next(src, at, goscan.Chars)
		if !ok {
			return out
		}
		at = j
		if ws.has(src[i:j]) {
			out = append(out, i)
		}
	}
}

// wordSet is the reading of a whole text for the words, which the
// reader's readings (wantedIn, namesAt) must answer as.
type wordSet struct {
	words map[string]bool
	set   ident.Set[bool] // the same words, as the search asks them
}

func newWordSet(words map[string]bool) *wordSet {
	ws := &wordSet{words: words}
	for w := range words {
		ws.set.Put(w, true)
	}
	return ws
}

// has reports whether the identifier w is one of the words.
func (ws *wordSet) has(w []byte) bool {
	n := len(w)
	return n > 0 && n <= maxWord && ws.words[string(w)]
}

// in returns which words occur in src and how; with first, it stops at the
// first.
func (ws *wordSet) in(src []byte, first bool) map[string]uint8 {
	var found map[string]uint8
	for at := 0; ; {
		i, j, ok := ident.Next(src, at, goscan.Chars)
		if !ok {
			break
		}
		at = j
		if ws.has(src[i:j]) {
			if found == nil {
				found = map[string]uint8{}
			}
			found[string(src[i:j])] |= engine.Occurrence(src, i, j)
			if first {
				return found
			}
		}
	}
	return found
}
