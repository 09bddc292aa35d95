package review

import (
	"net/url"
	"regexp"
	"strings"
)

// Model-written text (the summary, each finding's title and body) is posted
// as Markdown on the pull request, where it is read by people and by
// Bitbucket's renderer. sanitizeMarkdown makes it inert:
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
//     invisible, and the only ones prscout writes are its own markers.
//
// Code (fenced blocks and inline code spans) is left exactly as written: it
// is shown literally, never rendered.
func sanitizeMarkdown(s string, hosts []string) string {
	if s == "" {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	fence := ""
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
		b.WriteString(sanitizeInline(body, hosts))
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

// mentionRe matches a mention at a word start: @{account id} or @name.
var mentionRe = regexp.MustCompile(`(^|[\s(\[{,;:!?"'])(@(?:\{[^}\s]{1,80}\}|[A-Za-z0-9_][A-Za-z0-9_.\-]*))`)

// sanitizeInline sanitizes one line outside fenced code, leaving inline code
// spans as written.
func sanitizeInline(line string, hosts []string) string {
	var b strings.Builder
	rest := line
	for rest != "" {
		i := strings.IndexByte(rest, '`')
		if i < 0 {
			b.WriteString(sanitizeText(rest, hosts))
			break
		}
		b.WriteString(sanitizeText(rest[:i], hosts))
		run := 0
		for i+run < len(rest) && rest[i+run] == '`' {
			run++
		}
		ticks := rest[i : i+run]
		after := rest[i+run:]
		end := indexRun(after, ticks)
		if end < 0 { // no closing run: the backticks are literal text
			b.WriteString(ticks)
			rest = after
			continue
		}
		b.WriteString(ticks + after[:end] + ticks)
		rest = after[end+run:]
	}
	return b.String()
}

// indexRun finds a run of exactly len(ticks) backticks in s.
func indexRun(s, ticks string) int {
	for from := 0; ; {
		j := strings.Index(s[from:], ticks)
		if j < 0 {
			return -1
		}
		j += from
		k := j + len(ticks)
		if (j == 0 || s[j-1] != '`') && (k == len(s) || s[k] != '`') {
			return j
		}
		for k < len(s) && s[k] == '`' {
			k++
		}
		from = k
	}
}

// sanitizeText handles text without code: images, links, URLs, HTML and
// mentions.
func sanitizeText(s string, hosts []string) string {
	if s == "" {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '!' && i+1 < len(s) && s[i+1] == '[':
			if text, _, n, ok := parseLink(s[i+1:]); ok {
				b.WriteString("[image: " + escapeBrackets(sanitizeText(text, hosts)) + "]")
				i += 1 + n
				continue
			}
		case c == '[':
			if text, target, n, ok := parseLink(s[i:]); ok {
				text = sanitizeText(text, hosts)
				if allowedLink(target, hosts) {
					b.WriteString("[" + text + "](" + target + ")")
				} else {
					b.WriteString(text + " (link removed)")
				}
				i += n
				continue
			}
		case c == '<':
			if i+1 < len(s) && (isASCIILetter(s[i+1]) || s[i+1] == '/' || s[i+1] == '!' || s[i+1] == '?') {
				b.WriteString("&lt;")
				i++
				continue
			}
		}
		if (i == 0 || !isWordByte(s[i-1])) && isASCIILetter(c) {
			if loc := urlRe.FindStringIndex(s[i:]); loc != nil {
				u := s[i : i+loc[1]]
				if allowedLink(u, hosts) {
					b.WriteString(u)
				} else {
					b.WriteString(codeSpan(u))
				}
				i += loc[1]
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	return mentionRe.ReplaceAllStringFunc(b.String(), func(m string) string {
		sub := mentionRe.FindStringSubmatch(m)
		return sub[1] + "`" + sub[2] + "`"
	})
}

// parseLink reads "[text](target)" at the start of s (a title after the
// target is kept in it) and returns the text, the target and the length.
func parseLink(s string) (text, target string, n int, ok bool) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				if i+1 >= len(s) || s[i+1] != '(' {
					return "", "", 0, false
				}
				end := closingParen(s[i+2:])
				if end < 0 {
					return "", "", 0, false
				}
				return s[1:i], strings.TrimSpace(s[i+2 : i+2+end]), i + 3 + end, true
			}
		}
	}
	return "", "", 0, false
}

// closingParen finds the ")" that closes a link target, counting nested
// parentheses as Markdown does ("javascript:alert(1)").
func closingParen(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '(':
			depth++
		case ')':
			if depth == 0 {
				return i
			}
			depth--
		}
	}
	return -1
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

func escapeBrackets(s string) string {
	return strings.NewReplacer("[", `\[`, "]", `\]`).Replace(s)
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isWordByte(c byte) bool { return isASCIILetter(c) || c >= '0' && c <= '9' || c == '_' }
