package golang

import (
	"bytes"

	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/ident"
)

// Reads reports whether the Go engine reads the file at p.
func Reads(p string) bool { return lexed.LangOf(p) == lexed.LangGo }

// isGeneratedGo reports whether Go source carries the standard marker
// "// Code generated ... DO NOT EDIT." before its package clause.
func isGeneratedGo(src []byte) bool {
	head := src
	if i := bytes.Index(head, []byte("\npackage ")); i >= 0 {
		head = head[:i]
	}
	return bytes.Contains(head, []byte("// Code generated ")) && bytes.Contains(head, []byte("DO NOT EDIT"))
}

// goChars are the bytes of Go identifiers as the engine reads them: every
// non-ASCII byte counts, '$' does not.
const goChars = ident.Unicode

// CodeLines returns the lines of lines on which src has a token: a line
// that only holds comments changes no behaviour, so it touches no
// declaration. A multi-line raw string covers every line it spans.
func CodeLines(src []byte, lines map[int]bool) map[int]bool {
	return codeLinesAt(lexed.SumOf, src, lines)
}

// codeLines is CodeLines with the content's Sum from the engine.
func (e *goEngine) codeLines(src []byte, lines map[int]bool) map[int]bool {
	return codeLinesAt(e.sumOf, src, lines)
}

func codeLinesAt(sum func([]byte) lexed.Sum, src []byte, lines map[int]bool) map[int]bool {
	if len(lines) == 0 {
		return lines
	}
	code := lexed.CachedAt(lexed.KeyAt("go/code", "", sum(src)), func() (codeLines, int64) {
		c := scanCodeLines(src)
		return c, int64(len(c)) * 8
	})
	out := map[int]bool{}
	for l := range lines {
		if code.has(l) {
			out[l] = true
		}
	}
	return out
}

// codeLines is a set of lines (1-based), one bit a line.
type codeLines []uint64

func (c codeLines) has(l int) bool {
	return l >= 0 && l/64 < len(c) && c[l/64]&(1<<(l%64)) != 0
}

// scanCodeLines returns the lines on which src has a token, as go/scanner
// finds them (line directives aside: the lines are the file's own). It
// only tells comments, literals and blanks apart, a few times faster than
// a full scan, which also makes each literal's text.
func scanCodeLines(src []byte) codeLines {
	var out codeLines
	line := 1
	mark := func() {
		for line/64 >= len(out) {
			out = append(out, 0)
		}
		out[line/64] |= 1 << (line % 64)
	}
	i := 0
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		i = 3 // a byte order mark opening the file is not a token
	}
	for i < len(src) {
		c := src[i]
		switch c {
		case '\n':
			line++
			i++
			continue
		case ' ', '\t', '\r':
			i++
			continue
		case '/':
			if i+1 < len(src) && src[i+1] == '/' {
				for i < len(src) && src[i] != '\n' {
					i++
				}
				continue
			}
			if i+1 < len(src) && src[i+1] == '*' {
				i += 2
				for i < len(src) && !(src[i] == '*' && i+1 < len(src) && src[i+1] == '/') {
					if src[i] == '\n' {
						line++
					}
					i++
				}
				i += 2
				continue
			}
		}
		mark()
		switch c {
		case '"', '\'':
			// Ends at its quote or, unterminated, before the line's end;
			// an escape takes the next byte unless that ends the line.
			for i++; i < len(src) && src[i] != '\n'; i++ {
				if src[i] == c {
					i++
					break
				}
				if src[i] == '\\' && i+1 < len(src) && src[i+1] != '\n' {
					i++
				}
			}
		case '`':
			for i++; i < len(src); i++ {
				if src[i] == '`' {
					i++
					break
				}
				if src[i] == '\n' {
					line++
					mark()
				}
			}
		default:
			i++
		}
	}
	return out
}
