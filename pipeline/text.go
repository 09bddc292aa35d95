package pipeline

import (
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
