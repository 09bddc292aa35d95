package groups

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/prscout/prscout/pipeline"
)

// WindowDiff keeps the diff's header and as many of its hunks as fit in
// limit characters (see collect's windowFile) and returns the new-file line ranges of
// what it left out, merged where they touch.
func WindowDiff(diff string, limit int) (string, []pipeline.LineRange) {
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
		h, ok := parseHunkHeader(head)
		if !ok {
			continue // not a hunk header git writes: leave it out, its lines are unknown
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
		// Cut: keep the lines that fit under a recounted header.
		room := limit - used - utf8.RuneCountInString(head) - 8 // a recounted header may be a few characters longer
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
		if hasChange {
			cut := fmt.Sprintf("@@ -%d,%d +%d,%d @@%s", h.oldStart, oldN, h.newStart, newN, h.rest)
			b.WriteString(cut)
			for _, l := range body[:k] {
				b.WriteString(l)
			}
			used += utf8.RuneCountInString(cut) + kept
		} else {
			newN = 0
		}
		from := h.newStart + newN
		to := h.newStart + h.newLines - 1
		if to < from {
			to = from // a pure deletion: git names the line before the removed ones
		}
		leave(pipeline.LineRange{From: max(1, from), To: max(1, to)})
	}
	return b.String(), omitted
}

// hunkHeader is a parsed "@@ -a,b +c,d @@ rest" line.
type hunkHeader struct {
	oldStart, oldLines, newStart, newLines int
	rest                                   string // after the closing "@@", newline included
}

func parseHunkHeader(line string) (hunkHeader, bool) {
	var h hunkHeader
	body, ok := strings.CutPrefix(line, "@@ -")
	if !ok {
		return h, false
	}
	ranges, rest, ok := strings.Cut(body, " @@")
	if !ok {
		return h, false
	}
	oldR, newR, ok := strings.Cut(ranges, " +")
	if !ok {
		return h, false
	}
	num := func(s string) (int, int, bool) {
		a, b, has := strings.Cut(s, ",")
		x, err := strconv.Atoi(a)
		if err != nil {
			return 0, 0, false
		}
		if !has {
			return x, 1, true
		}
		y, err := strconv.Atoi(b)
		return x, y, err == nil
	}
	var okOld, okNew bool
	h.oldStart, h.oldLines, okOld = num(oldR)
	h.newStart, h.newLines, okNew = num(newR)
	h.rest = rest
	if !strings.HasSuffix(h.rest, "\n") {
		h.rest += "\n"
	}
	return h, okOld && okNew
}
