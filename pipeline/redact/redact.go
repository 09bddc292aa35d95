// Package redact is the secret redaction applied to everything prscout
// sends toward a prompt or an n8n item: diffs, sources, fetched files, pull
// request text and Jira text.
//
// Secrets replaces each secret value with "[REDACTED:<kind>]". It finds
// them with three kinds of rule:
//
//   - token rules: vendor formats with a fixed prefix or structure (GitHub,
//     npm, Stripe, OpenAI, ...), each written from the vendor's public
//     description of its format, with a validator that drops placeholders
//     and documented example values;
//   - a parser for name/value pairs (assignments, YAML and .env lines, JSON
//     keys, XML elements, command-line flags, setenv-style arguments) that
//     redacts the value when the name says it is a secret and the value
//     looks like a literal rather than code or a placeholder;
//   - passwords in connection URLs, Basic and Bearer credentials, and PEM
//     private keys (the one rule that spans lines).
//
// The work is linear in the input: one byte scan finds the keywords that
// select the rules worth running on each line, and rules run line by line.
// A redaction never adds or removes a line break, so a redacted diff keeps
// its hunk line counts and a source keeps its line numbers.
package redact

import (
	"strconv"
	"strings"
)

// Marker starts every redaction: a secret is written as "[REDACTED:<kind>]".
const Marker = "[REDACTED:"

// MaxLineGrowth bounds how many bytes redaction may add to one line (a
// marker is longer than a short password). A line whose redactions would
// grow it more is cut after its first secret: the text before that secret,
// one marker, nothing after it.
const MaxLineGrowth = 256

// maxReplacements bounds the secrets redacted one by one on a line (and
// so the cost of checking overlaps); a line with more is cut after its
// first secret.
const maxReplacements = 64

// maxLine is the longest line on which every rule runs. Longer lines (a
// minified bundle, a data blob) get the token rules only: each is a
// pre-filtered linear scan, while the name/value parser is what would cost
// on a megabyte of punctuation.
const maxLine = 64 << 10

// Secrets returns s with every secret it finds replaced by "[REDACTED:kind]"
// and adds the number of redactions per kind to counts (which may be nil).
// It returns s itself when nothing was found, keeps every line break (the
// result has exactly as many lines as s), grows no line by more than
// MaxLineGrowth bytes, and runs in time linear in len(s).
func Secrets(s string, counts map[string]int) string {
	if s == "" {
		return s
	}
	add := func(kind string, n int) {
		if counts != nil && n > 0 {
			counts[kind] += n
		}
	}
	if strings.Contains(s, "PRIVATE KEY") {
		var n int
		s, n = redactPrivateKeys(s)
		add(KindPrivateKey, n)
	}
	var sc scanner
	var b *strings.Builder
	done := 0 // s[:done] is in b (when b != nil)
	write := func(from, to int, out string) {
		if b == nil {
			b = &strings.Builder{}
			b.Grow(len(s) + len(s)/8)
		}
		b.WriteString(s[done:from])
		b.WriteString(out)
		done = to
	}
	// A value line found below its name line waits until the scan has
	// written everything before it.
	var pending struct {
		from, to int
		out      string
	}
	flush := func(before int) bool {
		if pending.to > pending.from && pending.from <= before {
			write(pending.from, pending.to, pending.out)
			at := pending.from
			pending.from, pending.to = 0, 0
			return at == before
		}
		return false
	}
	sc.lines(s, func(from, to int, m lineMatch) {
		if flush(from) {
			return // this line was the pending value line
		}
		line := s[from:to]
		if out, changed := sc.redactLine(line, m, add); changed {
			write(from, to, out)
		}
		if m.generic && pending.to == pending.from {
			if vf, vt, out, kind := valueBelow(s, to, line); vt > vf {
				add(kind, 1)
				pending.from, pending.to, pending.out = vf, vt, out
			}
		}
	})
	flush(len(s))
	if b == nil {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// Count returns how many redaction markers s holds (for the note a prompt
// carries; Note's own text holds none).
func Count(s string) int {
	return strings.Count(s, Marker)
}

// Note is the line a prompt carries when n secrets were redacted from what
// it shows, followed by a blank line; "" when n is 0. Its text holds no
// Marker, so Count of a prompt that carries it still counts secrets only.
func Note(n int) string {
	if n <= 0 {
		return ""
	}
	what := strconv.Itoa(n) + " secrets"
	if n == 1 {
		what = "1 secret"
	}
	return "Note: prscout replaced " + what + " (keys, tokens, passwords) found in the pull request, its diffs and sources with REDACTED markers that name each secret's kind before building this prompt. Do not ask for them; do report a committed secret as an issue.\n\n"
}

// replacement is one secret found on a line: line[from:to] becomes the
// kind's marker.
type replacement struct {
	from, to int
	kind     string
}

// overlaps reports whether [from, to) meets a replacement already taken.
func overlaps(reps []replacement, from, to int) bool {
	for _, r := range reps {
		if from < r.to && r.from < to {
			return true
		}
	}
	return false
}

// apply writes line with reps (sorted here by position) replaced by their
// markers, bounded by MaxLineGrowth.
func apply(line string, reps []replacement) string {
	for i := 1; i < len(reps); i++ { // insertion sort: a line has a few
		for j := i; j > 0 && reps[j].from < reps[j-1].from; j-- {
			reps[j], reps[j-1] = reps[j-1], reps[j]
		}
	}
	var b strings.Builder
	b.Grow(len(line) + 32*len(reps))
	last := 0
	for _, r := range reps {
		b.WriteString(line[last:r.from])
		b.WriteString(Marker)
		b.WriteString(r.kind)
		b.WriteByte(']')
		last = r.to
	}
	b.WriteString(line[last:])
	if b.Len() > len(line)+MaxLineGrowth {
		return line[:reps[0].from] + Marker + reps[0].kind + "]"
	}
	return b.String()
}
