package tokens

import (
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// A change that edits only comments or docstrings changes no behaviour: its
// lines touch no declaration, so neither callers nor users are listed for it.
// The lexer drops comments; codeLines also drops Python docstrings (a string
// that is the whole first statement of a module, class or function).

// codeChange returns c with its added and removed lines cut to those that
// hold code in nf and of (c itself when nothing is cut).
func codeChange(c *engine.Change, nf, of *tfile) *engine.Change {
	added, removed := codeLines(nf, c.Added), codeLines(of, c.Removed)
	if len(added) == len(c.Added) && len(removed) == len(c.Removed) {
		return c
	}
	cc := *c
	cc.Added, cc.Removed = added, removed
	return &cc
}

// codeLines returns the lines of lines on which f has a token that is not a
// docstring (a multi-line string covers every line it spans).
func codeLines(f *tfile, lines map[int]bool) map[int]bool {
	if f == nil || len(lines) == 0 {
		return lines
	}
	out := map[int]bool{}
	for i, t := range f.toks {
		if f.lang == langPython && isDocstring(f.toks, i) {
			continue
		}
		first := startLine(t)
		for l := first; l <= t.line; l++ {
			if lines[l] {
				out[l] = true
			}
		}
	}
	return out
}

// isDocstring reports whether toks[i] is a Python docstring: a string
// starting its line, first in the file or right after a block's ':' on an
// earlier line, and followed by nothing else on its statement.
func isDocstring(toks []tok, i int) bool {
	t := toks[i]
	if t.kind != tkString {
		return false
	}
	if i > 0 {
		p := toks[i-1]
		if p.text != ":" || p.line == startLine(t) {
			return false
		}
	}
	return i+1 == len(toks) || toks[i+1].line > t.line
}

// startLine is the line a token starts on: a string token carries the line
// it ends on.
func startLine(t tok) int {
	if t.kind == tkString {
		return t.line - strings.Count(t.text, "\n")
	}
	return t.line
}
