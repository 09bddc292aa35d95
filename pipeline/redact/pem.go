package redact

import (
	"regexp"
	"strings"
)

// PEM private keys span lines, so they have their own scan over the whole
// text before the line rules run.

var (
	pemBegin = regexp.MustCompile(`-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----`)
	pemEnd   = regexp.MustCompile(`-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----`)
)

// maxPEMBytes bounds how far a BEGIN line looks for its END line.
const maxPEMBytes = 64 << 10

// minPEMBody is the least base64 a key body holds between BEGIN and END; a
// BEGIN marker with nothing after it is a constant in code
// (strings.HasPrefix(s, "-----BEGIN ... KEY-----")), not a key.
const minPEMBody = 32

// redactPrivateKeys replaces each PEM private key block, from its BEGIN
// line to its END line (or, without an END within maxPEMBytes, the BEGIN
// line and the base64 lines right after it), keeping line breaks and each
// next line's diff prefix. Linear: each END search starts where the
// previous one stopped.
func redactPrivateKeys(s string) (string, int) {
	begins := pemBegin.FindAllStringIndex(s, -1)
	if len(begins) == 0 {
		return s, 0
	}
	var b strings.Builder
	last, n := 0, 0
	endFrom, endAt := 0, []int(nil) // the next END at or after endFrom
	for _, bg := range begins {
		if bg[0] < last {
			continue
		}
		if endAt == nil || endAt[0] < bg[1] {
			endFrom = max(endFrom, bg[1])
			if loc := pemEnd.FindStringIndex(s[endFrom:]); loc != nil {
				endAt = []int{endFrom + loc[0], endFrom + loc[1]}
			} else {
				endAt = []int{len(s) + 1, len(s) + 1}
			}
			endFrom = endAt[1]
		}
		var stop int
		if endAt[0] <= len(s) && endAt[0]-bg[1] <= maxPEMBytes && base64Bytes(s[bg[1]:endAt[0]]) >= minPEMBody {
			stop = endAt[1]
		} else if stop = skipKeyLines(s, bg[1]); base64Bytes(s[bg[1]:stop]) < minPEMBody {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:bg[0]])
		b.WriteString(Marker + KindPrivateKey + "]")
		keepLines(&b, s[bg[0]:stop])
		last = stop
		n++
	}
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
}

// base64Bytes counts the base64 alphabet's bytes in s.
func base64Bytes(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; isIdentByte(c) && c != '_' || c == '+' || c == '/' {
			n++
		}
	}
	return n
}

// skipKeyLines returns the end of the base64-looking lines after at (a
// diff prefix allowed), stopping at the first other line.
func skipKeyLines(s string, at int) int {
	for at < len(s) && s[at] == '\n' {
		next := at + 1
		if next < len(s) && (s[next] == '+' || s[next] == '-' || s[next] == ' ') {
			next++
		}
		end := strings.IndexByte(s[next:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += next
		}
		line := strings.TrimRight(s[next:end], "\r")
		if len(line) < 16 || strings.Trim(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") != "" {
			return at
		}
		at = end
	}
	return at
}

// keepLines writes one line break for each line break of a redacted block,
// followed by the next line's diff prefix ('+', '-' or ' '), so a redacted
// key keeps the diff's hunk line counts and the source's line numbers.
func keepLines(b *strings.Builder, block string) {
	for i := 0; i < len(block); i++ {
		if block[i] != '\n' {
			continue
		}
		b.WriteByte('\n')
		if i+1 < len(block) {
			switch c := block[i+1]; c {
			case '+', '-', ' ':
				b.WriteByte(c)
			}
		}
	}
}
