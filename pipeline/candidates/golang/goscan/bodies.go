// Package goscan reads what the Go reader needs of a file's bytes without
// parsing it: the function bodies in gofmt's layout (so a parse can skip
// them), the top-level names it declares and the lines that hold code.
// Everything here is a function of the content alone, so its answers can
// be kept by blob.
package goscan

import (
	"bytes"

	"github.com/prscout/prscout/pipeline/ident"
)

// Body is the body of one top-level function in gofmt-formatted source.
type Body struct {
	Start       int // offset of the "func" keyword
	Open, Close int // offsets of the body's braces
	From, To    int // lines (1-based) of the keyword and of the closing brace
}

// Text is the declaration's source from the keyword to the closing brace.
func (b Body) Text(src []byte) []byte { return src[b.Start : b.Close+1] }

// Bodies finds the bodies gofmt writes as a line "func ... {" at column
// 0 and a line "}", with every line between them indented by a tab or empty
// outside strings and comments (raw strings, comments and string literals
// are skipped as Go's scanner reads them). Anything else (a one-line
// function, a signature over several lines, code at column 0 in a body) is
// left out: such a body is simply parsed.
func Bodies(src []byte) []Body {
	var out []Body
	var cur *Body
	line := 1
	for i := 0; i < len(src); {
		if i == 0 || src[i-1] == '\n' {
			// A line start outside strings and comments.
			rest := src[i:]
			switch {
			case cur != nil && rest[0] == '}' && (len(rest) == 1 || rest[1] == '\n'):
				cur.Close, cur.To = i, line
				out = append(out, *cur)
				cur = nil
			case cur != nil && rest[0] != '\t' && rest[0] != '\n':
				cur = nil // not gofmt's layout: this body is parsed
			}
			if cur == nil && bytes.HasPrefix(rest, []byte("func ")) {
				l := rest
				if e := bytes.IndexByte(rest, '\n'); e >= 0 {
					l = rest[:e]
				}
				if n := len(l); n > 6 && l[n-1] == '{' && l[n-2] == ' ' {
					cur = &Body{Start: i, Open: i + n - 1, From: line}
				}
			}
		}
		switch c := src[i]; c {
		case '\n':
			line++
			i++
		case '`':
			j := bytes.IndexByte(src[i+1:], '`')
			if j < 0 {
				return out // an unterminated raw string: the parser will say so
			}
			line += bytes.Count(src[i+1:i+1+j], []byte{'\n'})
			i += j + 2
		case '"', '\'':
			i++
			for i < len(src) && src[i] != c && src[i] != '\n' {
				if src[i] == '\\' {
					i++
				}
				i++
			}
			if i < len(src) && src[i] == c {
				i++
			}
		case '/':
			switch {
			case i+1 < len(src) && src[i+1] == '/':
				if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
					i += j // the newline is read as such
				} else {
					i = len(src)
				}
			case i+1 < len(src) && src[i+1] == '*':
				j := bytes.Index(src[i+2:], []byte("*/"))
				if j < 0 {
					return out
				}
				line += bytes.Count(src[i+2:i+2+j], []byte{'\n'})
				i += j + 4
			default:
				i++
			}
		default:
			for i++; i < len(src) && !lineBreaks[src[i]]; i++ {
			}
		}
	}
	return out
}

// NamedOutsideBodies reports whether src holds w as a whole identifier
// (under c) outside the bodies Bodies finds: a package-level declaration,
// a struct's field or an interface's method named w can only be there.
// bodies answers Bodies(src) when a match needs them (nil: Bodies is
// called), for a caller that keeps them.
func NamedOutsideBodies(src []byte, w string, c ident.Chars, bodies func() []Body) bool {
	if bodies == nil {
		bodies = func() []Body { return Bodies(src) }
	}
	var found []Body
	k := 0
	for off := 0; ; {
		i := bytes.Index(src[off:], []byte(w))
		if i < 0 || w == "" {
			return false
		}
		i += off
		off = i + 1
		end := i + len(w)
		if i > 0 && c.IsByte(src[i-1]) || end < len(src) && c.IsByte(src[end]) {
			continue
		}
		if found == nil {
			found = bodies()
		}
		for k < len(found) && found[k].Close < i {
			k++
		}
		if k == len(found) || i <= found[k].Open {
			return true
		}
	}
}
