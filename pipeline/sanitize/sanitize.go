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
	"sort"
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
	if strings.Contains(s, "\r") {
		// A lone CR ends a line for the renderer: it does here too.
		s = loneCR.ReplaceAllString(s, "\n$1")
	}
	st := readStructure([]byte(s))
	sort.Slice(st.spans, func(i, j int) bool { return st.spans[i][0] < st.spans[j][0] })
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	markers := 0
	off, sp := 0, 0 // sp: the first code span that may reach the line
	for i, line := range strings.SplitAfter(s, "\n") {
		if line == "" {
			continue
		}
		body := strings.TrimRight(line, "\r\n")
		kind := textLine
		if i < len(st.kinds) {
			kind = st.kinds[i]
		}
		if kind == codeLine {
			b.WriteString(line)
			off += len(line)
			continue
		}
		for sp < len(st.spans) && st.spans[sp][1] <= off {
			sp++
		}
		var code [][2]int // the line's code spans (parts of spans), as ranges of body
		for k := sp; k < len(st.spans) && st.spans[k][0] < off+len(body); k++ {
			if a, z := max(st.spans[k][0]-off, 0), min(st.spans[k][1]-off, len(body)); a < z {
				code = append(code, [2]int{a, z})
			}
		}
		switch {
		case kind == defLine:
			// the definition is dropped, what precedes it and the line break kept
			b.WriteString(body[:min(st.defAt[i], len(body))])
		case kind == textLine && len(code) == 0 && linkRefDef.MatchString(body):
			// the definition is dropped, the line break kept
		default:
			b.WriteString(keepBlockStart(body, sanitizeText(body, code, hosts, &markers), kind == htmlLine))
		}
		b.WriteString(line[len(body):])
		off += len(line)
	}
	return b.String()
}

// keepBlockStart makes the sanitized line out begin a block the way its
// input in did: a rewrite (a removed link's text, an image) must not start a
// heading, a quote, a list or a fence the input did not have, which would
// change how the lines after it pair their code. A line of an HTML block
// (a paragraph once its "<" is escaped) loses any block meaning it has.
func keepBlockStart(in, out string, html bool) string {
	t := strings.TrimLeft(out, " \t")
	if t == "" {
		return out
	}
	lead := out[:len(out)-len(t)]
	ti := strings.TrimLeft(in, " \t")
	if !html && ti != "" && ti[0] == t[0] {
		return out
	}
	if strings.IndexByte("#>-+*=_~|", t[0]) >= 0 {
		return lead + `\` + t
	}
	if n := digitRun(t); n > 0 && n < len(t) && (t[n] == '.' || t[n] == ')') {
		return lead + t[:n] + `\` + t[n:]
	}
	return out
}

func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// urlPrefixes start a bare URL or a dangerous scheme outside a link (case
// aside).
var urlPrefixes = []string{"http://", "https://", "ftp://", "javascript:", "data:", "vbscript:", "file:", "www."}

// urlLen returns the length of the bare URL at the start of s (its prefix,
// then every byte up to a space, "<", ">", a parenthesis, a bracket, a
// backslash or a backtick), 0 when s does not start with one.
func urlLen(s string) int {
	for _, p := range urlPrefixes {
		if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
			n := len(p)
			for n < len(s) && strings.IndexByte(" \t\n\r\f\v<>()[]\\`", s[n]) < 0 {
				n++
			}
			return n
		}
	}
	return 0
}

// loneCR matches a CR not followed by LF (and what follows it).
var loneCR = regexp.MustCompile(`\r([^\n]|$)`)

// linkRefDef matches a Markdown link reference definition line.
var linkRefDef = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*\S`)

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

// matchPairs returns, for each opening byte of s, the index of the closing
// byte that balances it (or -1), skipping backslash-escaped bytes and the
// code ranges: one pass with a stack.
func matchPairs(s string, code [][2]int, open, close byte) []int32 {
	var match []int32
	var stack []int32
	k := 0
	for i := 0; i < len(s); i++ {
		if k < len(code) && i == code[k][0] {
			i = code[k][1] - 1
			k++
			continue
		}
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

// sanitizeText returns the line s with images, links, URLs, HTML and
// mentions made inert, and its code ranges (sorted, apart) as written. A
// backtick outside code is escaped, so the output pairs no code span the
// input did not have.
func sanitizeText(s string, code [][2]int, hosts []string, markers *int) string {
	if s == "" {
		return s
	}
	w := &inliner{s: s, code: code, hosts: hosts, markers: markers, brackets: matchPairs(s, code, '[', ']')}
	w.b.Grow(len(s) + len(s)/8)
	if w.brackets != nil {
		w.parens = matchPairs(s, code, '(', ')')
	}
	for i := 0; i < len(s); {
		i = w.step(i)
	}
	return w.b.String()
}

// inliner is sanitizeText's state over one line.
type inliner struct {
	s                string
	code             [][2]int
	k                int // the next code range
	hosts            []string
	markers          *int
	brackets, parens []int32
	frames           []linkFrame
	imageDepth       int
	b                strings.Builder
	last             byte // the last byte written, for mentions' word starts
}

func (w *inliner) write(t string) {
	if t != "" {
		w.b.WriteString(t)
		w.last = t[len(t)-1]
	}
}

// span writes t as an inserted code span; a backslash or a backtick before
// it would escape or lengthen its opening backtick.
func (w *inliner) span(t string) {
	if w.last == '\\' || w.last == '`' {
		w.write(" ")
	}
	w.write(CodeSpan(t))
}

// link reports the "[text](target)" whose "[" is at i: the "]" and the index
// after the ")". It must end inside the open frame's text.
func (w *inliner) link(i int) (closeAt, resume int, ok bool) {
	if w.brackets == nil || w.brackets[i] < 0 {
		return 0, 0, false
	}
	c := int(w.brackets[i])
	if c+1 >= len(w.s) || w.s[c+1] != '(' || w.parens[c+1] < 0 {
		return 0, 0, false
	}
	p := int(w.parens[c+1])
	if n := len(w.frames); n > 0 && p >= w.frames[n-1].closeAt {
		return 0, 0, false
	}
	return c, p + 1, true
}

// step writes what starts at i and returns where the next step starts.
func (w *inliner) step(i int) int {
	s := w.s
	if n := len(w.frames); n > 0 && i == w.frames[n-1].closeAt {
		return w.closeFrame()
	}
	if w.k < len(w.code) && i == w.code[w.k][0] {
		if w.last == '`' && s[i] == '`' {
			w.write(" ") // an inserted span's closer and this opener would make one run
		}
		end := w.code[w.k][1]
		w.write(s[i:end])
		w.k++
		return end
	}
	c := s[i]
	switch {
	case c == '\\' && i+1 < len(s) && s[i+1] != '@' && isASCIIPunct(s[i+1]) && (w.k >= len(w.code) || w.code[w.k][0] != i+1):
		w.write(s[i : i+2]) // an escaped character stays escaped
		return i + 2
	case c == '`':
		w.write("\\`")
		return i + 1
	case c == ']' && w.imageDepth == 0 && i+1 < len(s) && s[i+1] == '(':
		w.write(`\]`) // no "[" of this line opens it: one of an earlier line would
		return i + 1
	case c == '[' || c == ']' || c == '!':
		if next, ok := w.bracket(i); ok {
			return next
		}
	case c == '<':
		if i+1 < len(s) && (isASCIILetter(s[i+1]) || s[i+1] == '/' || s[i+1] == '!' || s[i+1] == '?') {
			w.write("&lt;")
			return i + 1
		}
	case c == '@' && mentionStart(w.last):
		if n := mentionLen(s[i:]); n > 0 {
			w.span(s[i : i+n])
			return i + n
		}
	}
	if (i == 0 || s[i-1] == '_' || !isWordByte(s[i-1])) && isASCIILetter(c) {
		if n := urlLen(s[i:]); n > 0 {
			u := s[i : i+n]
			target := u
			if len(u) >= 4 && strings.EqualFold(u[:4], "www.") {
				target = "http://" + u // linked as such by GFM renderers
			}
			if allowedLink(target, w.hosts) {
				w.write(u)
			} else {
				w.span(u)
			}
			return i + n
		}
	}
	w.b.WriteByte(c)
	w.last = c
	return i + 1
}

// closeFrame ends the innermost link or image at its "]" and returns the
// index after its target.
func (w *inliner) closeFrame() int {
	s := w.s
	f := w.frames[len(w.frames)-1]
	w.frames = w.frames[:len(w.frames)-1]
	switch f.kind {
	case 'i':
		w.imageDepth--
		if f.resume < len(s) && (s[f.resume] == '(' || s[f.resume] == '[' || s[f.resume] == ':') {
			w.write(`\]`) // "[image: x](y)" would be a link, "[image: x]:" a definition
		} else {
			w.write("]")
		}
	case 'k':
		w.write("](" + f.target + ")")
	case 'r':
		if *w.markers < MaxLinkMarkers {
			*w.markers++
			w.write(linkMarker)
		}
	}
	return f.resume
}

// bracket handles a "[", "]" or "![" at i: a link or image opened, or a
// bracket shown as text; ok is false when i is plain text.
func (w *inliner) bracket(i int) (next int, ok bool) {
	s, c := w.s, w.s[i]
	switch {
	case c == '!':
		if i+1 >= len(s) || s[i+1] != '[' || w.imageDepth > 0 {
			return 0, false
		}
		closeAt, resume, ok := w.link(i + 1)
		if !ok {
			return 0, false
		}
		if len(w.frames) < MaxLinkNesting {
			w.frames = append(w.frames, linkFrame{closeAt: closeAt, resume: resume, kind: 'i'})
			w.imageDepth++
			w.write("[image: ")
		} else {
			w.write(`!\[`)
		}
		return i + 2, true
	case w.imageDepth > 0:
		w.write(`\` + string(c)) // an image's text is shown, never parsed
		return i + 1, true
	case c == '[':
		closeAt, resume, ok := w.link(i)
		if !ok {
			return 0, false
		}
		if len(w.frames) >= MaxLinkNesting {
			w.write(`\[`) // nested too deep: shown as text
			return i + 1, true
		}
		target := strings.TrimSpace(s[closeAt+2 : resume-1])
		f := linkFrame{closeAt: closeAt, resume: resume, kind: 'r'}
		if allowedLink(target, w.hosts) {
			f.kind, f.target = 'k', target
			w.write("[")
		}
		w.frames = append(w.frames, f)
		return i + 1, true
	}
	return 0, false
}

// mentionStart reports whether a mention may start after the byte before it
// (0 at the start of the text): anything but a word byte or "@" (an e-mail
// address is no mention; "*@x*" or "(@x" is).
func mentionStart(prev byte) bool {
	return prev == 0 || prev == '_' || !isWordByte(prev) && prev != '@'
}

// isASCIIPunct reports whether a backslash may escape c (CommonMark's ASCII
// punctuation).
func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
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
			case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == ']' || c == '`':
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
