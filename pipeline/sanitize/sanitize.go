// Package sanitize makes model- and caller-written Markdown inert before it
// is posted: no HTML, no images, no links to foreign hosts, no mentions, no
// link reference definitions; code is left as written. It also writes the
// inert pieces the summaries are built of: code spans and blocks, table
// cells, and a code fence the model left open closed (CloseFences).
package sanitize

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/prscout/prscout/pipeline"
)

// Model-written text (the summary, each finding's title and body) is posted
// as Markdown on the pull request, where it is read by people and by
// Bitbucket's renderer. Markdown makes it inert:
//
//   - HTML is never rendered: every "<" that could open a tag, a comment or
//     an autolink outside code becomes "&lt;";
//   - images are dropped (a remote image leaks whatever its URL carries to
//     its host when the page is viewed): "![alt](url)" becomes "[image: alt]";
//   - links stay links only when they are relative or point over http(s) at
//     one of the allowed hosts (the pull request's own host); any other
//     link, javascript:/data: among them, keeps its text and loses its target;
//   - bare URLs to other hosts are put in a code span, so they are not
//     auto-linked;
//   - mentions (@everyone, @here, @{account}, @name) are put in a code span,
//     so a review never notifies anyone;
//   - link reference definitions ("[x]: url") are dropped: they are
//     invisible, and the only ones prscout writes are its own markers;
//   - bidirectional controls are shown as their code points (ShowBidi),
//     in code too, so what a reader sees is what they paste.
//
// Code (fenced blocks and inline code spans) is left exactly as written: it
// is shown literally, never rendered.
func Markdown(s string, hosts []string) string {
	if s == "" {
		return s
	}
	s = ShowBidi(s)
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	fence := ""
	markers := 0
	for _, line := range strings.SplitAfter(s, "\n") {
		body := strings.TrimRight(line, "\r\n")
		if f := fenceOpen(body); fence == "" && f != "" {
			fence = f
			b.WriteString(line)
			continue
		} else if fence != "" {
			if strings.HasPrefix(strings.TrimLeft(body, " "), fence) && strings.Trim(strings.TrimLeft(body, " "), fence[:1]) == "" {
				fence = ""
			}
			b.WriteString(line)
			continue
		}
		if linkRefDef.MatchString(body) {
			b.WriteString(line[len(body):]) // keep the line break, drop the definition
			continue
		}
		b.WriteString(sanitizeInline(body, hosts, &markers))
		b.WriteString(line[len(body):])
	}
	return b.String()
}

// linkRefDef matches a Markdown link reference definition line.
var linkRefDef = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*\S`)

// fenceOpen returns the fence a line opens ("```" or "~~~" runs of 3+), or "".
func fenceOpen(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return ""
	}
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(t) && t[n] == c {
			n++
		}
		if n >= 3 {
			return t[:n]
		}
	}
	return ""
}

// urlRe matches a bare URL or a dangerous scheme outside a link.
var urlRe = regexp.MustCompile(`^(?i)(?:https?://|ftp://|javascript:|data:|vbscript:|file:)[^\s<>()\[\]` + "`" + `]*`)

// The sanitizer is one pass over each line: bracket and parenthesis pairs
// are matched once up front, a link or image is rewritten where it stands
// (its text is never sanitized a second time) and nothing is escaped twice.
// So its time is linear in its input and its output is bounded:
//
//	len(Markdown(s)) <= 6*len(s) + MaxLinkMarkers*len(linkMarker)
//
// the worst case per byte being a bidirectional mark shown (ShowBidi:
// the 2 bytes of U+061C become the 12 of "⟨U+061C⟩"); "<a" → "&lt;a" is
// 5/2, every other rewrite at most doubles what it replaces, and only the
// first MaxLinkMarkers removed links of a text say so (later ones keep
// their text only).
const (
	// MaxLinkNesting is how many links and images may be open inside each
	// other; an opener deeper than that is escaped ("\[") and shown as text.
	MaxLinkNesting = 8
	// MaxLinkMarkers is how many removed links are marked as removed.
	MaxLinkMarkers = 16
	linkMarker     = " (link removed)"
)

// Bound is the most bytes Markdown answers for an input of n bytes.
func Bound(n int) int { return 6*n + MaxLinkMarkers*len(linkMarker) }

// sanitizeInline sanitizes one line outside fenced code, leaving inline code
// spans as written.
func sanitizeInline(line string, hosts []string, markers *int) string {
	var b strings.Builder
	b.Grow(len(line) + len(line)/8)
	spans := codeSpans(line)
	from := 0
	for _, sp := range spans {
		sanitizeText(&b, line[from:sp[0]], hosts, markers)
		b.WriteString(line[sp[0]:sp[1]])
		from = sp[1]
	}
	sanitizeText(&b, line[from:], hosts, markers)
	return b.String()
}

// codeSpans returns the [start, end) of each inline code span of line: a
// backtick run closed by the next run of the same length. Each run is looked
// at once (a queue of later runs per length), so unmatched runs of many
// lengths cost no rescans.
func codeSpans(line string) [][2]int {
	type run struct{ at, n int }
	var runs []run
	for i := 0; i < len(line); {
		if line[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(line) && line[j] == '`' {
			j++
		}
		runs = append(runs, run{i, j - i})
		i = j
	}
	if len(runs) < 2 {
		return nil
	}
	byLen := map[int][]int{} // run length -> indexes into runs, in order
	for k, r := range runs {
		byLen[r.n] = append(byLen[r.n], k)
	}
	var spans [][2]int
	for k := 0; k < len(runs); k++ {
		q := byLen[runs[k].n]
		for len(q) > 0 && q[0] <= k {
			q = q[1:]
		}
		byLen[runs[k].n] = q
		if len(q) == 0 {
			continue // no closing run: the backticks are literal text
		}
		closer := q[0]
		spans = append(spans, [2]int{runs[k].at, runs[closer].at + runs[closer].n})
		k = closer // runs inside the span are its text
	}
	return spans
}

// matchPairs returns, for each opening byte of s, the index of the closing
// byte that balances it (or -1), skipping backslash-escaped bytes: one pass
// with a stack.
func matchPairs(s string, open, close byte) []int32 {
	var match []int32
	var stack []int32
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case open:
			if match == nil {
				match = make([]int32, len(s))
				for k := range match {
					match[k] = -1
				}
			}
			stack = append(stack, int32(i))
		case close:
			if n := len(stack); n > 0 {
				match[stack[n-1]] = int32(i)
				stack = stack[:n-1]
			}
		}
	}
	return match
}

// linkFrame is a link or image whose text is being written.
type linkFrame struct {
	closeAt int    // index of the "]" that ends the text
	resume  int    // index after the ")" that ends the target
	kind    byte   // 'i' image, 'k' kept link, 'r' removed link
	target  string // a kept link's target
}

// sanitizeText writes s (text without code) with images, links, URLs, HTML
// and mentions made inert.
func sanitizeText(b *strings.Builder, s string, hosts []string, markers *int) {
	if s == "" {
		return
	}
	brackets := matchPairs(s, '[', ']')
	var parens []int32
	if brackets != nil {
		parens = matchPairs(s, '(', ')')
	}
	var frames []linkFrame
	last := byte(0) // the last byte written, for mentions' word starts
	write := func(t string) {
		if t != "" {
			b.WriteString(t)
			last = t[len(t)-1]
		}
	}
	// link reports the "[text](target)" whose "[" is at i: the "]" and the
	// index after the ")". It must end inside the open frame's text.
	link := func(i int) (closeAt, resume int, ok bool) {
		if brackets == nil || brackets[i] < 0 {
			return 0, 0, false
		}
		c := int(brackets[i])
		if c+1 >= len(s) || s[c+1] != '(' || parens[c+1] < 0 {
			return 0, 0, false
		}
		p := int(parens[c+1])
		if n := len(frames); n > 0 && p >= frames[n-1].closeAt {
			return 0, 0, false
		}
		return c, p + 1, true
	}
	imageDepth := 0
	for i := 0; i < len(s); {
		if n := len(frames); n > 0 && i == frames[n-1].closeAt {
			f := frames[n-1]
			frames = frames[:n-1]
			switch f.kind {
			case 'i':
				imageDepth--
				if f.resume < len(s) && (s[f.resume] == '(' || s[f.resume] == '[') {
					write(`\]`) // "[image: x](y)" would be a link
				} else {
					write("]")
				}
			case 'k':
				write("](" + f.target + ")")
			case 'r':
				if *markers < MaxLinkMarkers {
					*markers++
					write(linkMarker)
				}
			}
			i = f.resume
			continue
		}
		c := s[i]
		switch {
		case c == '[' || c == ']':
			if imageDepth > 0 {
				write(`\` + string(c)) // an image's text is shown, never parsed
				i++
				continue
			}
			if c == '[' {
				if closeAt, resume, ok := link(i); ok && len(frames) < MaxLinkNesting {
					target := strings.TrimSpace(s[closeAt+2 : resume-1])
					f := linkFrame{closeAt: closeAt, resume: resume, kind: 'r'}
					if allowedLink(target, hosts) {
						f.kind, f.target = 'k', target
						write("[")
					}
					frames = append(frames, f)
					i++
					continue
				} else if ok {
					write(`\[`) // nested too deep: shown as text
					i++
					continue
				}
			}
		case c == '!' && i+1 < len(s) && s[i+1] == '[' && imageDepth == 0:
			if closeAt, resume, ok := link(i + 1); ok {
				if len(frames) < MaxLinkNesting {
					frames = append(frames, linkFrame{closeAt: closeAt, resume: resume, kind: 'i'})
					imageDepth++
					write("[image: ")
				} else {
					write(`!\[`)
				}
				i += 2
				continue
			}
		case c == '<':
			if i+1 < len(s) && (isASCIILetter(s[i+1]) || s[i+1] == '/' || s[i+1] == '!' || s[i+1] == '?') {
				write("&lt;")
				i++
				continue
			}
		case c == '@' && mentionStart(last):
			if n := mentionLen(s[i:]); n > 0 {
				write("`" + s[i:i+n] + "`")
				i += n
				continue
			}
		}
		if (i == 0 || !isWordByte(s[i-1])) && isASCIILetter(c) {
			if loc := urlRe.FindStringIndex(s[i:]); loc != nil {
				u := s[i : i+loc[1]]
				if allowedLink(u, hosts) {
					write(u)
				} else {
					write(CodeSpan(u))
				}
				i += loc[1]
				continue
			}
		}
		b.WriteByte(c)
		last = c
		i++
	}
}

// mentionStart reports whether a mention may start after the byte before it
// (0 at the start of the text).
func mentionStart(prev byte) bool {
	return prev == 0 || strings.IndexByte(" \t\r\f\v([{,;:!?\"'", prev) >= 0
}

// mentionLen returns the length of the mention at the start of s ("@{id}" of
// at most 80 bytes, or "@name"), 0 when there is none. Neither form holds a
// "]", so a mention never runs past the end of the link text it is in.
func mentionLen(s string) int {
	if len(s) < 2 {
		return 0
	}
	if s[1] == '{' {
		for j := 2; j < len(s) && j <= 82; j++ {
			switch c := s[j]; {
			case c == '}':
				if j == 2 {
					return 0
				}
				return j + 1
			case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == ']':
				return 0
			}
		}
		return 0
	}
	if !isWordByte(s[1]) {
		return 0
	}
	j := 2
	for j < len(s) && (isWordByte(s[j]) || s[j] == '.' || s[j] == '-') {
		j++
	}
	return j
}

// allowedLink reports whether a link target may stay clickable: a relative
// path or fragment, or http(s) to one of hosts.
func allowedLink(target string, hosts []string) bool {
	target = strings.Trim(strings.TrimSpace(target), "<>")
	if t, _, ok := strings.Cut(target, " "); ok { // drop a "title"
		target = t
	}
	u, err := url.Parse(target)
	if err != nil {
		return false
	}
	if u.Scheme == "" && u.Host == "" {
		return !strings.HasPrefix(target, "//") && !strings.Contains(strings.ToLower(target), ":")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return false
	}
	host := strings.ToLower(u.Hostname())
	for _, h := range hosts {
		if h != "" && host == strings.ToLower(h) {
			return true
		}
	}
	return false
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isWordByte(c byte) bool { return isASCIILetter(c) || c >= '0' && c <= '9' || c == '_' }

// CodeSpan wraps s in a backtick code span long enough for the backticks s
// holds (CommonMark), on one line.
func CodeSpan(s string) string {
	s = ShowBidi(pipeline.OneLine(s))
	if s == "" {
		return "``"
	}
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			if run > longest {
				longest = run
			}
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// TableCell makes text safe inside a pipe-table cell: one line (tables cannot
// hold line breaks on Bitbucket) and every '|' escaped.
func TableCell(s string) string {
	s = ShowBidi(pipeline.OneLine(s))
	s = strings.ReplaceAll(s, `\|`, `|`)
	s = strings.ReplaceAll(s, "|", `\|`)
	if s == "" {
		return " "
	}
	return s
}

// CloseFences closes a fenced code block model text leaves open (a reply cut
// at its token limit does): left open, it would swallow everything after it,
// our tables and the hidden marker included, into a visible code block.
func CloseFences(s string) string {
	var open string // the opening fence run ("```", "~~~~", ...), "" when none
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimRight(strings.TrimLeft(line, " "), "\r")
		if len(line)-len(strings.TrimLeft(line, " ")) > 3 {
			continue // indented code, not a fence
		}
		run := fenceRun(t)
		if run == "" {
			continue
		}
		switch {
		case open == "":
			if run[0] == '`' && strings.Contains(t[len(run):], "`") {
				continue // a backtick fence's info string cannot hold a backtick
			}
			open = run
		case run[0] == open[0] && len(run) >= len(open) && strings.TrimSpace(t[len(run):]) == "":
			open = ""
		}
	}
	if open == "" {
		return s
	}
	return strings.TrimRight(s, "\n") + "\n" + open
}

// fenceRun returns the leading run of 3+ backticks or tildes of t, or "".
func fenceRun(t string) string {
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return t[:n]
}

// CodeBlock writes lines as a fenced code block with the info string info:
// the fence is a backtick run longer than any run in the lines (at least
// three), so no line of the code can close it, in CommonMark or in
// Python-Markdown (whose closing fence must equal the opening one). The
// code is shown literally, never rendered.
func CodeBlock(info string, lines []string) string {
	longest := 2
	for _, l := range lines {
		run := 0
		for i := 0; i < len(l); i++ {
			if l[i] == '`' {
				run++
				longest = max(longest, run)
			} else {
				run = 0
			}
		}
	}
	fence := strings.Repeat("`", longest+1)
	var b strings.Builder
	b.WriteString(fence)
	b.WriteString(strings.Map(func(r rune) rune {
		if r == '`' || r == '\n' || r == '\r' || isBidi(r) {
			return -1
		}
		return r
	}, info))
	b.WriteByte('\n')
	for _, l := range lines {
		b.WriteString(ShowBidi(strings.TrimRight(l, "\r")))
		b.WriteByte('\n')
	}
	b.WriteString(fence)
	return b.String()
}

// ShowBidi replaces every bidirectional control character of s (the
// embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069, the
// marks U+200E, U+200F and U+061C) with its code point in sight, as
// "⟨U+202E⟩": text or code that reorders itself when shown (Trojan Source)
// reads as it is, and what a reader sees is what they paste. The brackets
// have no meaning in Markdown, so the result is as inert as s.
func ShowBidi(s string) string {
	if !hasBidi(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for _, r := range s {
		if isBidi(r) {
			fmt.Fprintf(&b, "⟨U+%04X⟩", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isBidi(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F || r == 0x061C
}

// hasBidi reports whether s holds a bidirectional control: each is a
// multi-byte rune whose first byte is 0xE2 (U+200E..U+2069) or 0xD8
// (U+061C), so most text is passed over by a byte scan.
func hasBidi(s string) bool {
	if strings.IndexByte(s, 0xE2) < 0 && strings.IndexByte(s, 0xD8) < 0 {
		return false
	}
	return strings.IndexFunc(s, isBidi) >= 0
}
