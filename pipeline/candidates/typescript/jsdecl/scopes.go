package jsdecl

import (
	"sync/atomic"

	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/candidates/typescript/modtypes"
)

// scopeReads counts ParamScopes' readings in this process.
var scopeReads atomic.Int64

// ScopeReads is how many files ParamScopes has read in this process: the
// work the readers' cache saves (tests count it).
func ScopeReads() int64 { return scopeReads.Load() }

// ParamScopes finds the parameter lists of a JS file's functions: "(...)"
// followed by "=>" or, after an optional return type, by a body "{", and
// the lone parameter of "x =>"; catch (e) binds e in its block.
func ParamScopes(f *lexed.File) map[string][]modtypes.Scope {
	scopeReads.Add(1)
	toks := f.Toks
	s := &jsScan{toks: toks, br: f.Brackets}
	out := map[string][]modtypes.Scope{}
	for j := 0; j < len(toks); j++ {
		switch {
		case s.isIdent(j) && s.punctAt(j+1, "=") && s.arrowAt(j+2) && !s.punctAt(j-1, "."):
			if end := s.arrowBodyEnd(j + 3); end > j {
				out[s.text(j)] = append(out[s.text(j)], modtypes.Scope{Name: s.text(j), From: j, To: end})
			}
		case s.punctAt(j, "("):
			close := s.br.CloseOrLast(j)
			if close <= j || close >= len(toks)-1 {
				continue
			}
			switch s.text(j - 1) {
			case "if", "while", "for", "switch", "with", "return", "typeof", "await", "yield", "in", "of":
				continue
			}
			k := close + 1
			if s.punctAt(k, ":") {
				k = s.skipTypeTo(k+1, len(toks), true)
			}
			end := -1
			switch {
			case s.punctAt(k, "=") && s.arrowAt(k+1):
				end = s.arrowBodyEnd(k + 2)
			case s.punctAt(k, "{") && (s.isIdent(j-1) || s.punctAt(j-1, ">") || s.punctAt(j-1, "*") || j > 0 && toks[j-1].Kind == lexed.TkString):
				// A method named by a string ('~run'(dataset) {...}) too.
				end = s.br.CloseOrLast(k)
			}
			if end < 0 {
				continue
			}
			for pos, n := range s.paramNames(j+1, close) {
				out[n] = append(out[n], modtypes.Scope{Name: n, Pos: pos, From: j, To: end})
			}
		}
	}
	for _, ss := range out { // in the order of their From: j only grows
		for k := range ss {
			ss[k].Reach = ss[k].To
			if k > 0 {
				ss[k].Reach = max(ss[k].To, ss[k-1].Reach)
			}
		}
	}
	return out
}

// arrowBodyEnd returns the index of the last token of the arrow function
// body starting at i: a block's '}', or the expression's last token before
// a ',', ';' or closing bracket at depth 0 (or a line break no operator
// continues).
func (s *jsScan) arrowBodyEnd(i int) int {
	if i >= len(s.toks) {
		return -1
	}
	if s.punctAt(i, "{") {
		return s.br.CloseOrLast(i)
	}
	for j := i; j < len(s.toks); j++ {
		switch {
		case s.punctAt(j, "(") || s.punctAt(j, "[") || s.punctAt(j, "{"):
			j = s.br.CloseOrLast(j)
		case s.punctAt(j, ",") || s.punctAt(j, ";") || s.punctAt(j, ")") || s.punctAt(j, "]") || s.punctAt(j, "}"):
			return j - 1
		}
		if j+1 < len(s.toks) && s.toks[j+1].Line > s.toks[j].Line && !s.continuesAfter(j, false) && !s.continuesBefore(j+1) {
			return j
		}
	}
	return len(s.toks) - 1
}

// paramNames returns the names a parameter list toks[i:end] binds: each
// parameter's name (after modifiers and "..."), and the names of object
// and array patterns; types and default values bind nothing.
func (s *jsScan) paramNames(i, end int) []string {
	var out []string
	start := true // at the start of a parameter
	for j := i; j < end; j++ {
		switch {
		case s.punctAt(j, ","):
			start = true
		case !start:
			if s.punctAt(j, "(") || s.punctAt(j, "[") || s.punctAt(j, "{") {
				j = s.br.CloseOrLast(j)
			} else if s.punctAt(j, "<") {
				j = s.skipAngle(j) - 1
			}
		case s.punctAt(j, "."):
		case s.isIdent(j) && isModifier(s.text(j)) && s.isIdent(j+1):
		case s.isIdent(j):
			out = append(out, s.text(j))
			start = false
		case s.punctAt(j, "{") || s.punctAt(j, "["):
			close := min(s.br.CloseOrLast(j), end)
			out = append(out, s.bindingNames(j, close)...)
			j = close
			start = false
		default:
			start = false
		}
	}
	return out
}

// isModifier reports whether w is a word that may stand before a declared
// name: a modifier (static, readonly, async...), an accessor's get or set,
// export or default.
func isModifier(w string) bool {
	switch w {
	case "public", "private", "protected", "static", "readonly", "abstract", "async", "override",
		"declare", "accessor", "get", "set", "final", "synchronized", "native", "transient", "volatile", "default", "export":
		return true
	}
	return false
}
