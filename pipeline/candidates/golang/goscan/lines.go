package goscan

import (
	"bytes"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// ScanLines returns the lines on which src has a token, as go/scanner
// finds them (line directives aside: the lines are the file's own). It
// only tells comments, literals and blanks apart, a few times faster than
// a full scan, which also makes each literal's text.
func ScanLines(src []byte) engine.Bits {
	var out engine.Bits
	line := 1
	mark := func() { out.Add(line) }
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
			// The line is marked: the rest of a token, and the spaces
			// and tokens after it, up to a string, comment or line end.
			for i++; i < len(src) && !lineBreaks[src[i]]; i++ {
			}
		}
	}
	return out
}

// lineBreaks are the bytes after which ScanLines cannot tell a line's
// state from its start: a line end, a string's or a comment's start.
var lineBreaks = [256]bool{'\n': true, '"': true, '\'': true, '`': true, '/': true}
