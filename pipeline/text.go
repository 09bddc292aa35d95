package pipeline

import (
	"bytes"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// CountNoun renders a count with its noun: "1 line", "3 lines".
func CountNoun(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// ByCount is one when n is 1, else many: the word agreeing with a count
// ("is" or "are", "its" or "their").
func ByCount(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// OneLine folds text onto one line: every whitespace run (line breaks
// included) becomes one space, and leading and trailing space goes.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// ShortCommit abbreviates a commit id to 12 characters, as logs, prompts and
// comments show it.
func ShortCommit(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// SameCommit compares commit ids that may be abbreviated (Bitbucket's
// webhooks and links carry 12-digit ids): one must be a prefix of the other,
// and both at least 7 hex digits long, else they must be equal.
func SameCommit(a, b string) bool {
	a, b = strings.ToLower(strings.TrimSpace(a)), strings.ToLower(strings.TrimSpace(b))
	if len(a) < 7 || len(b) < 7 {
		return a == b && a != ""
	}
	return strings.HasPrefix(a, b) || strings.HasPrefix(b, a)
}

// StripSpace removes every whitespace character: snippets are compared
// ignoring indentation, tabs versus spaces, CRLF and spacing inside a line.
func StripSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// ClipRunes cuts s to at most n runes, marking the cut with "…".
func ClipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// CutAtWord cuts s to at most n runes at a word boundary, marking the cut
// with "…": head is the kept text with the mark, rest what was cut away,
// space trimmed. Without a space in the second half of the kept part, the
// cut falls inside the word. s that fits returns (s, "").
func CutAtWord(s string, n int) (head, rest string) {
	if utf8.RuneCountInString(s) <= n {
		return s, ""
	}
	if n < 2 {
		return "…", strings.TrimSpace(s)
	}
	r := []rune(s)
	cut := n - 1
	for i := cut; i > cut/2; i-- {
		if unicode.IsSpace(r[i]) {
			cut = i
			break
		}
	}
	return strings.TrimRightFunc(string(r[:cut]), unicode.IsSpace) + "…", strings.TrimSpace(string(r[cut:]))
}

// FirstLine is the first line of s, surrounding space trimmed.
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// IsFullCommit reports whether s is a whole commit id: 40 (SHA-1) or 64
// (SHA-256) hex digits, either case, as opposed to an abbreviation or a
// name to resolve.
func IsFullCommit(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// RuneCount counts characters as code points, as utf8.RuneCountInString
// does (an invalid byte counts as one), skipping through ASCII eight bytes
// at a time: prompts are mostly ASCII, and the review groups count the same
// diffs and sources several times.
func RuneCount(s string) int {
	const hi = 0x8080808080808080
	n := 0
	for len(s) > 0 {
		if len(s) >= 8 {
			w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
				uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
			if w&hi == 0 {
				n += 8
				s = s[8:]
				continue
			}
		}
		if s[0] < utf8.RuneSelf {
			n++
			s = s[1:]
			continue
		}
		_, size := utf8.DecodeRuneInString(s)
		n++
		s = s[size:]
	}
	return n
}

// BinarySniff is how many leading bytes of a file git searches for a NUL
// byte to call it binary (its buffer_is_binary).
const BinarySniff = 8000

// LooksBinary applies git's rule: a NUL byte in the first BinarySniff bytes.
func LooksBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), BinarySniff)], 0) >= 0
}

// Unlimited is the list limit of FitFolding's first rendering: every
// entry.
const Unlimited = -1

// FitFolding renders text with render, passing the limit on list entries
// to apply: Unlimited first, then each of limits (shortest last) until the
// text takes at most budget bytes. Past the last limit it is cut at a line,
// an open code fence closed, and note added on a line of its own.
func FitFolding(render func(limit int) string, limits []int, budget int, note string) string {
	s := render(Unlimited)
	if len(s) <= budget {
		return s
	}
	for _, limit := range limits {
		if s = render(limit); len(s) <= budget {
			return s
		}
	}
	note = "\n\n" + note + "\n\n"
	cut := max(budget-len(note)-8, 0)
	if i := strings.LastIndexByte(s[:cut], '\n'); i > 0 {
		cut = i
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	s = s[:cut]
	if strings.Count("\n"+s, "\n```")%2 == 1 {
		s += "\n```"
	}
	return s + note
}

// FoldLimit is how many of n entries a list shows under limit (Unlimited:
// all).
func FoldLimit(n, limit int) int {
	if limit < 0 || limit > n {
		return n
	}
	return limit
}
