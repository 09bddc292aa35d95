package diff

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/prscout/prscout/pipeline"
)

// Window keeps a file diff's header and as many of its hunks, in order, as
// fit in limit characters (runes): the first hunk that does not fit is cut
// after the last line that does, under a recounted header so the diff stays
// valid, and every new-side line range left out is returned, merged where
// they touch. A diff within limit comes back whole with no ranges. A line
// starting "@@ " that is no hunk header is left out with its lines.
func Window(diff string, limit int) (string, []pipeline.LineRange) {
	if utf8.RuneCountInString(diff) <= limit {
		return diff, nil
	}
	lines := strings.SplitAfter(diff, "\n")
	var b strings.Builder
	used := 0
	i := 0
	for ; i < len(lines) && !strings.HasPrefix(lines[i], "@@ "); i++ {
		b.WriteString(lines[i])
		used += utf8.RuneCountInString(lines[i])
	}
	var omitted []pipeline.LineRange
	leave := func(r pipeline.LineRange) {
		if n := len(omitted); n > 0 && r.From <= omitted[n-1].To+1 {
			omitted[n-1].To = max(omitted[n-1].To, r.To)
			return
		}
		omitted = append(omitted, r)
	}
	for i < len(lines) {
		head := lines[i]
		j := i + 1
		for j < len(lines) && !strings.HasPrefix(lines[j], "@@ ") {
			j++
		}
		body := lines[i+1 : j]
		i = j
		h, ok := parseHeader(head)
		if !ok {
			continue // not a hunk header git writes: its lines are unknown
		}
		size := utf8.RuneCountInString(head)
		for _, l := range body {
			size += utf8.RuneCountInString(l)
		}
		if used+size <= limit {
			b.WriteString(head)
			for _, l := range body {
				b.WriteString(l)
			}
			used += size
			continue
		}
		cut, newN := keepLines(h, body, limit-used-utf8.RuneCountInString(head)-8) // a recounted header may be a few characters longer
		b.WriteString(cut)
		used += utf8.RuneCountInString(cut)
		from := h.newStart + newN
		to := h.newStart + h.newLines - 1
		if to < from {
			to = from // a pure deletion: git names the line before the removed ones
		}
		leave(pipeline.LineRange{From: max(1, from), To: max(1, to)})
	}
	return b.String(), omitted
}

// keepLines keeps the lines of a hunk's body that fit in room characters
// under a recounted header. It returns the kept text ("" when the kept
// lines change nothing) and the new-side lines it kept.
func keepLines(h header, body []string, room int) (string, int) {
	k, oldN, newN, kept := 0, 0, 0, 0
	hasChange := false
	for k < len(body) {
		l := body[k]
		c := utf8.RuneCountInString(l)
		if kept+c > room {
			break
		}
		kept += c
		switch {
		case strings.HasPrefix(l, "+"):
			newN++
			hasChange = true
		case strings.HasPrefix(l, "-"):
			oldN++
			hasChange = true
		case strings.HasPrefix(l, `\`):
		default:
			oldN++
			newN++
		}
		k++
	}
	if !hasChange {
		return "", 0
	}
	var b strings.Builder
	fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@%s\n", h.oldStart, oldN, h.newStart, newN, h.rest)
	for _, l := range body[:k] {
		b.WriteString(l)
	}
	return b.String(), newN
}

// Signature is what a file section changes: its header lines but the index
// line, and its removed and added lines in order, without context lines or
// hunk positions. Two sections with the same signature make the same change
// wherever their hunks sit.
func Signature(section string) string {
	var b strings.Builder
	inHunk := false
	for _, l := range strings.Split(section, "\n") {
		switch {
		case strings.HasPrefix(l, "@@"):
			inHunk = true
		case !inHunk:
			if !strings.HasPrefix(l, "index ") {
				b.WriteString(l)
				b.WriteByte('\n')
			}
		case strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-"):
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
