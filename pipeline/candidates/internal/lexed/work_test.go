package lexed

import (
	"strings"
	"testing"

	"github.com/prscout/prscout/internal/testalloc"
)

// tokensBound is the most Tokens may allocate for n bytes: one copy of
// the source, and at most one token a byte (40 bytes a token) made in
// blocks and joined once, about three times over.
func tokensBound(n int) uint64 { return uint64(n) + 160*uint64(n) + 8192 }

// checkTokensWork lexes src in mode and fails when the tokens or the
// bytes allocated are not bounded by the source's length.
func checkTokensWork(t *testing.T, src []byte, mode LexMode) {
	t.Helper()
	var toks []Tok
	got := testalloc.Bytes(func() { toks = Tokens(src, mode) })
	if len(toks) > len(src)+1 || len(toks) > MaxTokens {
		t.Fatalf("mode %d: %d tokens of %d bytes", mode, len(toks), len(src))
	}
	if bound := tokensBound(len(src)); got > bound {
		t.Fatalf("mode %d: %d bytes allocated lexing %d bytes (bound %d)", mode, got, len(src), bound)
	}
}

// deepSources are nested and single-line sources of about n bytes: nested
// f-strings, template literals, braces, strings, comments and member
// chains, each of which once cost a copy or a recursion per level.
func deepSources(n int) []string {
	d := n / 5
	return []string{
		strings.Repeat(`f"{`, d) + "x" + strings.Repeat(`}"`, d),
		strings.Repeat(`f'''{`, d/2) + "x" + strings.Repeat(`}'''`, d/2),
		strings.Repeat(`f"{x:{`, d/2) + strings.Repeat(`}}"`, d/2),
		strings.Repeat("`${", d) + "x" + strings.Repeat("}`", d),
		"x = `${" + strings.Repeat("{`${", d/2) + strings.Repeat("}`}", d/2) + "}`",
		strings.Repeat("{", n/2) + strings.Repeat("}", n/2),
		strings.Repeat("a.m()", n/5),
		strings.Repeat("\"a\" ", n/4),
		strings.Repeat("/* */", n/5),
		strings.Repeat("class C{", n/8) + strings.Repeat("}", n/8),
		strings.Repeat(";", n),
	}
}

// TestTokensWorkBounded: on deep and long sources, every mode makes at
// most a token per byte and allocates at most a fixed multiple of the
// source (a nested string copying its content was quadratic).
func TestTokensWorkBounded(t *testing.T) {
	for _, src := range deepSources(100_000) {
		for _, mode := range []LexMode{LexCLike, LexJS, LexPython, LexHash} {
			checkTokensWork(t, []byte(src), mode)
		}
	}
}

// TestTokensCapped: a source of more than MaxTokens tokens is cut there,
// its first tokens kept.
func TestTokensCapped(t *testing.T) {
	src := "import x\n" + strings.Repeat(";", 2*MaxTokens)
	toks := Tokens([]byte(src), LexPython)
	if len(toks) != MaxTokens || toks[0].Text != "import" || toks[1].Text != "x" {
		t.Fatalf("%d tokens, first %+v", len(toks), toks[:2])
	}
}

// TestTokensCapIsABound: no source makes more than MaxTokens tokens, those
// of one template substitution or f-string field holding them all too,
// and a file whose tokens were cut says to which line it was read
// (ReadTo) while one of exactly MaxTokens says it was read whole.
func TestTokensCapIsABound(t *testing.T) {
	over := strings.Repeat("a;", MaxTokens)
	for _, c := range []struct{ path, src string }{
		{"src/t.ts", "x = `${" + over + "}`\n"},
		{"src/t.ts", "x = `${`${" + over + "}`}`\n"},
		{"pkg/f.py", "x = f\"{(" + over + ")}\"\n"},
		{"pkg/f.py", "x = f'''{(\n" + over + "\n)}'''\n"},
		{"src/A.java", "class A {\n" + over + "\n}\n"},
	} {
		f := Read(c.path, []byte(c.src))
		if len(f.Toks) != MaxTokens {
			t.Errorf("%s %.20q: %d tokens, want the cap %d", c.path, c.src, len(f.Toks), MaxTokens)
		}
		if line, bound := f.ReadTo(); len(f.Toks) == 0 || line != f.Toks[len(f.Toks)-1].Line || bound != MaxTokens {
			t.Errorf("%s %.20q: read to line %d (bound %d), want the last token's line and %d", c.path, c.src, line, bound, MaxTokens)
		}
	}
	exact := "x" + strings.Repeat(";", MaxTokens-1) // MaxTokens tokens, no more
	f := Read("src/e.ts", []byte(exact+"\n// a comment after them\n"))
	if line, _ := f.ReadTo(); len(f.Toks) != MaxTokens || line != 0 {
		t.Errorf("exactly MaxTokens tokens: %d made, read to line %d, want all and the whole file (0)", len(f.Toks), line)
	}
}

// FuzzTokens: any source, in every mode, lexes with work bounded by its
// length (tokens and bytes allocated), never a clock.
func FuzzTokens(f *testing.F) {
	for _, s := range deepSources(2000) {
		f.Add(s)
	}
	f.Add("s = f\"a{b.c!r:>{width}}{{lit}} {d['k']}\" + `${a}${`${b}`}` // c\n")
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 64<<10 {
			return
		}
		for _, mode := range []LexMode{LexCLike, LexJS, LexPython, LexHash} {
			checkTokensWork(t, []byte(src), mode)
		}
	})
}

// A token's text is cut from the one copy of the source, punctuation
// included: lexing a file allocates its copy and the token blocks (one,
// or a few joined once when the source holds more tokens than its length
// foretold), never a string per token: ten times the source, the same
// allocations.
func TestTokensAllocateNoTextPerToken(t *testing.T) {
	line := "call(argument_one, argument_two[index]);\n"
	for _, mode := range []LexMode{LexCLike, LexJS, LexPython, LexHash} {
		var allocs [2]float64
		for k, n := range []int{200, 2000} {
			src := []byte(strings.Repeat(line, n))
			toks := Tokens(src, mode)
			if len(toks) != n*10 || toks[1].Text != "(" || toks[9].Text != ";" {
				t.Fatalf("mode %d: %d tokens, %q %q", mode, len(toks), toks[1].Text, toks[9].Text)
			}
			allocs[k] = testing.AllocsPerRun(10, func() { Tokens(src, mode) })
		}
		if allocs[1] > allocs[0] || allocs[0] > 6 {
			t.Errorf("mode %d: lexing 2,000 and 20,000 tokens allocated %v and %v times, want the same, at most 6 (the source's copy, the token blocks, their join)", mode, allocs[0], allocs[1])
		}
	}
}
