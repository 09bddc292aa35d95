// Package ident finds identifiers in source text: the candidates engines'
// lexer and name search, and the review groups' links between files, read
// names the same way.
package ident

import "bytes"

// Chars says which bytes, besides ASCII letters, digits and '_', can be
// part of an identifier.
type Chars uint8

// The optional identifier bytes.
const (
	// Dollar: '$' (JavaScript).
	Dollar Chars = 1 << iota
	// Unicode: every non-ASCII byte (identifiers written in UTF-8).
	Unicode
)

// tables[c][b] says whether byte b is an identifier byte under c.
var tables = func() (t [4][256]bool) {
	for c := range t {
		for b := range 256 {
			t[c][b] = b == '_' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' ||
				b == '$' && Chars(c)&Dollar != 0 || b >= 0x80 && Chars(c)&Unicode != 0
		}
	}
	return t
}()

// IsByte reports whether b can be part of an identifier under c.
func (c Chars) IsByte(b byte) bool { return tables[c&(Dollar|Unicode)][b] }

// End returns the end of the run of identifier bytes of s starting at i
// (i itself when s[i] is none).
func End[T ~string | ~[]byte](s T, i int, c Chars) int {
	t := &tables[c&(Dollar|Unicode)]
	for i < len(s) && t[s[i]] {
		i++
	}
	return i
}

// Next returns the bounds of the first identifier of s at or after i: a
// run of identifier bytes that does not start with a digit (a run that
// does, a number, is skipped whole). ok is false when none is left.
func Next[T ~string | ~[]byte](s T, i int, c Chars) (start, end int, ok bool) {
	t := &tables[c&(Dollar|Unicode)]
	for i < len(s) {
		b := s[i]
		if !t[b] {
			i++
			continue
		}
		end := End(s, i, c)
		if b < '0' || b > '9' {
			return i, end, true
		}
		i = end
	}
	return len(s), len(s), false
}

// All returns the identifiers of s, in order.
func All(s string, c Chars) []string { return AppendAll(nil, s, c) }

// AppendAll appends the identifiers of s to dst, in order: a caller reading
// many lines reuses one slice.
func AppendAll(dst []string, s string, c Chars) []string {
	for i := 0; ; {
		start, end, ok := Next(s, i, c)
		if !ok {
			return dst
		}
		dst = append(dst, s[start:end])
		i = end
	}
}

// Contains reports whether src contains w as a whole identifier under c:
// no identifier byte right before or after it.
func Contains(src []byte, w string, c Chars) bool {
	if w == "" {
		return false
	}
	wb := []byte(w)
	for off := 0; ; {
		i := bytes.Index(src[off:], wb)
		if i < 0 {
			return false
		}
		i += off
		end := i + len(wb)
		if (i == 0 || !c.IsByte(src[i-1])) && (end == len(src) || !c.IsByte(src[end])) {
			return true
		}
		off = i + 1
	}
}
