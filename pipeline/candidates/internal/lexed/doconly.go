package lexed

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// A change that edits only comments or docstrings changes no behaviour: its
// lines touch no declaration, so neither callers nor users are listed for it.
// The lexer drops comments; CodeLines also drops Python docstrings (a string
// that is the whole first statement of a module, class or function).

// CodeChange returns c with its added and removed lines cut to those that
// hold code in nf and of (c itself when nothing is cut).
func CodeChange[R Reading](c *engine.Change, nf, of R) *engine.Change {
	added, removed := CodeLines(lexedOf(nf), c.Added), CodeLines(lexedOf(of), c.Removed)
	if len(added) == len(c.Added) && len(removed) == len(c.Removed) {
		return c
	}
	cc := *c
	cc.Added, cc.Removed = added, removed
	return &cc
}

// CodeLines returns the lines of lines on which f has a token that is not a
// docstring (a multi-line string covers every line it spans).
func CodeLines(f *File, lines map[int]bool) map[int]bool {
	if f == nil || len(lines) == 0 {
		return lines
	}
	// The lines as a table: every token asks for the lines it spans.
	first, last := math.MaxInt, 0
	for l, ok := range lines {
		if ok {
			first, last = min(first, l), max(last, l)
		}
	}
	want := make([]bool, last+1)
	for l, ok := range lines {
		if ok && l >= 0 {
			want[l] = true
		}
	}
	out := map[int]bool{}
	// Tokens come in the order of the lines they end on: those ending
	// before the first line asked span none of them.
	from, _ := slices.BinarySearchFunc(f.Toks, first, func(t Tok, l int) int { return cmp.Compare(t.Line, l) })
	for i := from; i < len(f.Toks); i++ {
		t := f.Toks[i]
		if f.Lang == LangPython && IsDocstring(f.Toks, i) {
			continue
		}
		for l := max(StartLine(t), 0); l <= min(t.Line, last); l++ {
			if want[l] {
				out[l], want[l] = true, false // once a line, not once a token
			}
		}
	}
	return out
}

// IsDocstring reports whether toks[i] is a Python docstring: a string
// starting its line, first in the file or right after a block's ':' on an
// earlier line, and followed by nothing else on its statement.
func IsDocstring(toks []Tok, i int) bool {
	t := toks[i]
	if t.Kind != TkString {
		return false
	}
	if i > 0 {
		p := toks[i-1]
		if p.Text != ":" || p.Line == StartLine(t) {
			return false
		}
	}
	return i+1 == len(toks) || toks[i+1].Line > t.Line
}

// StartLine is the line a token starts on: a string token carries the line
// it ends on.
func StartLine(t Tok) int {
	if t.Kind == TkString {
		return t.Line - strings.Count(t.Text, "\n")
	}
	return t.Line
}
