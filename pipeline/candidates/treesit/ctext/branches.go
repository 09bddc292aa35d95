package ctext

import (
	"bytes"
	"strings"
)

// FirstBranches is src as one configuration of its conditional
// directives: of each #if, #ifdef or #ifndef group the first branch is
// kept (the next one after #if 0), and the other branches and the
// conditional directives themselves are blanked to spaces, so that every
// byte keeps its offset, line and column. It is nil when src has no
// conditional directive.
//
// A grammar reads a preprocessor line as a construct of its own: one in
// the middle of a declaration or an expression (an #ifdef __cplusplus
// around an extern "C", a branch per platform inside a statement) can
// leave the rest of the file an error node, while any one configuration
// of the file parses.
func FirstBranches(src []byte) []byte {
	type group struct{ parentLive, taken bool }
	var out []byte // src's copy, made at the first byte blanked
	blank := func(from, to int) {
		if out == nil {
			out = bytes.Clone(src)
		}
		for i := from; i < to; i++ {
			if out[i] != '\n' {
				out[i] = ' '
			}
		}
	}
	var groups []group
	live := true
	for i := 0; i < len(src); {
		e := endOfLogicalLine(src, i)
		switch d, rest := directiveName(src[i:e]); d {
		case "if", "ifdef", "ifndef":
			zero := d == "if" && isZero(rest)
			groups = append(groups, group{parentLive: live, taken: !zero})
			live = live && !zero
			blank(i, e)
		case "elif", "elifdef", "elifndef", "else":
			if n := len(groups); n > 0 {
				live = groups[n-1].parentLive && !groups[n-1].taken
				groups[n-1].taken = true
			}
			blank(i, e)
		case "endif":
			if n := len(groups); n > 0 {
				live = groups[n-1].parentLive
				groups = groups[:n-1]
			}
			blank(i, e)
		default:
			if !live {
				blank(i, e)
			}
		}
		i = e + 1
	}
	return out
}

// endOfLogicalLine is the end of the line at i, its continuations (a
// backslash before the newline) included.
func endOfLogicalLine(src []byte, i int) int {
	for i < len(src) && src[i] != '\n' {
		if src[i] == '\\' && i+1 < len(src) && src[i+1] == '\n' {
			i += 2
			continue
		}
		i++
	}
	return i
}

// directiveName is the name of the directive on line ("" for a line that
// is none) and the text after it, trimmed.
func directiveName(line []byte) (string, []byte) {
	k := skipBlanks(line, 0)
	if k >= len(line) || line[k] != '#' {
		return "", nil
	}
	k = skipBlanks(line, k+1)
	w := k
	for w < len(line) && 'a' <= line[w] && line[w] <= 'z' {
		w++
	}
	return string(line[k:w]), bytes.TrimSpace(line[w:])
}

func skipBlanks(line []byte, k int) int {
	for k < len(line) && (line[k] == ' ' || line[k] == '\t') {
		k++
	}
	return k
}

// isZero reports whether an #if's condition is the literal 0.
func isZero(cond []byte) bool {
	return len(cond) > 0 && cond[0] == '0' && (len(cond) == 1 || strings.IndexByte(" \t/", cond[1]) >= 0)
}
