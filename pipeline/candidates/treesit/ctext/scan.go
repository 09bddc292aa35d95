// Package ctext reads C and C++ source as text, without a grammar: the
// words and #include paths a file holds (Scan), and the one configuration
// of its conditional branches a parser is given when the file as written
// does not parse (FirstBranches), and C++ source with the export macros of
// its class heads blanked (BlankClassMacros).
package ctext

import (
	"bytes"

	"github.com/prscout/prscout/pipeline/ident"
)

// Scanned is what a pass over a C or C++ file finds without parsing it.
type Scanned struct {
	// Words are the words of want the file holds as identifiers outside
	// comments and strings.
	Words []string
	// Includes are the paths its #include (and #import) lines name.
	Includes []string
}

// Scan scans src for the words of want (none: only the includes).
func Scan(src []byte, want map[string]bool) Scanned {
	var sc Scanned
	var seen map[string]bool
	lineStart := true
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			lineStart = true
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			i = endOfLine(src, i)
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			if e := bytes.Index(src[i+2:], []byte("*/")); e >= 0 {
				i += e + 4
			} else {
				i = len(src)
			}
			continue
		case c == '#' && lineStart:
			var inc string
			i, inc = directive(src, i+1)
			if inc != "" {
				sc.Includes = append(sc.Includes, inc)
			}
		case c == '"' || c == '\'':
			i = endOfQuoted(src, i)
		case '0' <= c && c <= '9':
			i = endOfNumber(src, i)
		case ident.Chars(0).IsByte(c):
			e := ident.End(src, i, 0)
			if e < len(src) && src[e] == '"' && rawPrefix(src[i:e]) {
				i = endOfRaw(src, e)
				break
			}
			if w := src[i:e]; want[string(w)] {
				if seen == nil {
					seen = map[string]bool{}
				}
				if !seen[string(w)] {
					seen[string(w)] = true
					sc.Words = append(sc.Words, string(w))
				}
			}
			i = e
		default:
			i++
		}
		lineStart = false
	}
	return sc
}

func endOfLine(src []byte, i int) int {
	if e := bytes.IndexByte(src[i:], '\n'); e >= 0 {
		return i + e
	}
	return len(src)
}

// directive reads the preprocessor directive after the '#' at i: the path
// of an #include or #import (else ""), and where to go on scanning (after
// the path; the directive's other words are scanned as code).
func directive(src []byte, i int) (int, string) {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	e := ident.End(src, i, 0)
	switch string(src[i:e]) {
	case "include", "import", "include_next":
	default:
		return e, ""
	}
	for e < len(src) && (src[e] == ' ' || src[e] == '\t') {
		e++
	}
	if e >= len(src) || (src[e] != '"' && src[e] != '<') {
		return e, ""
	}
	closing := byte('"')
	if src[e] == '<' {
		closing = '>'
	}
	for k := e + 1; k < len(src) && src[k] != '\n'; k++ {
		if src[k] == closing {
			return k + 1, string(src[e+1 : k])
		}
	}
	return endOfLine(src, e), ""
}

// endOfQuoted is the end of the string or character literal at i; one left
// open ends with its line.
func endOfQuoted(src []byte, i int) int {
	q := src[i]
	for k := i + 1; k < len(src); k++ {
		switch src[k] {
		case '\\':
			k++
		case q:
			return k + 1
		case '\n':
			return k
		}
	}
	return len(src)
}

// endOfNumber is the end of the number at i, with C++'s digit separators
// (1'000) and exponents' signs.
func endOfNumber(src []byte, i int) int {
	for i < len(src) {
		c := src[i]
		switch {
		case ident.Chars(0).IsByte(c) || c == '.':
		case c == '\'' && i+1 < len(src) && ident.Chars(0).IsByte(src[i+1]):
		case (c == '+' || c == '-') && (src[i-1]|0x20 == 'e' || src[i-1]|0x20 == 'p'):
		default:
			return i
		}
		i++
	}
	return i
}

// rawPrefix reports whether p prefixes a C++ raw string literal (R"x(...)x").
func rawPrefix(p []byte) bool {
	switch string(p) {
	case "R", "LR", "uR", "UR", "u8R":
		return true
	}
	return false
}

// endOfRaw is the end of the raw string literal whose '"' is at i.
func endOfRaw(src []byte, i int) int {
	open := bytes.IndexByte(src[i:min(i+18, len(src))], '(') // a delimiter has at most 16 bytes
	if open < 0 {
		return endOfQuoted(src, i) // no raw string: an ordinary one
	}
	end := append(append([]byte{')'}, src[i+1:i+open]...), '"')
	if e := bytes.Index(src[i+open:], end); e >= 0 {
		return i + open + e + len(end)
	}
	return len(src)
}
