package bitbuckettest

import (
	"fmt"
	"strconv"
	"strings"
)

// checkMultiLine checks a multi-line inline anchor (start_to..to on the new
// side, start_from..from on the old one) against the pull request's diff
// (the diff stored from its destination to its source commit): both ends
// must be lines of that side of the same hunk of the file, and the start
// must not come after the end. It answers why the anchor is refused, or ""
// (also for a one-line anchor, which the fake accepts anywhere, as before).
// Bitbucket's exact rule is not documented; this is the strict reading: a
// range the diff view cannot show is refused.
func (s *Server) checkMultiLine(c *call, prID int, path string, startTo, to, startFrom, from *int) string {
	switch {
	case startTo == nil && startFrom == nil:
		return ""
	case startTo != nil && to == nil:
		return "inline.start_to needs inline.to"
	case startFrom != nil && from == nil:
		return "inline.start_from needs inline.from"
	case startTo != nil && *startTo > *to:
		return fmt.Sprintf("inline.start_to %d is after inline.to %d", *startTo, *to)
	case startFrom != nil && *startFrom > *from:
		return fmt.Sprintf("inline.start_from %d is after inline.from %d", *startFrom, *from)
	}
	pr := c.rd.prs[prID]
	d, ok := c.rd.diffs[[2]string{pr.SourceCommit, pr.DestinationCommit}]
	if !ok {
		return "the pull request has no diff to place a multi-line comment on"
	}
	newSide := startTo != nil
	first, last := 0, 0
	if newSide {
		first, last = *startTo, *to
	} else {
		first, last = *startFrom, *from
	}
	for _, h := range hunksOf(d, path) {
		lines := h.old
		if newSide {
			lines = h.new
		}
		if lines[first] && lines[last] {
			return ""
		}
	}
	return fmt.Sprintf("lines %d-%d of %s are not in one hunk of the diff", first, last, path)
}

// fakeHunk is the line numbers one hunk shows, per side.
type fakeHunk struct{ old, new map[int]bool }

// hunksOf reads the hunks of path in a unified git diff: its own small
// reader, independent of the adapter's and the pipeline's.
func hunksOf(d, path string) []fakeHunk {
	var out []fakeHunk
	var cur *fakeHunk
	in, header := false, false
	oldN, newN := 0, 0
	for _, l := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			in, header, cur = false, true, nil
		case header && strings.HasPrefix(l, "+++ "):
			p := strings.TrimPrefix(strings.TrimPrefix(l, "+++ "), "b/")
			in = p == path
		case !in:
		case strings.HasPrefix(l, "@@ "):
			header = false
			o, n, ok := hunkStarts(l)
			if !ok {
				cur = nil
				continue
			}
			out = append(out, fakeHunk{old: map[int]bool{}, new: map[int]bool{}})
			cur, oldN, newN = &out[len(out)-1], o, n
		case cur == nil:
		case strings.HasPrefix(l, "+"):
			cur.new[newN] = true
			newN++
		case strings.HasPrefix(l, "-"):
			cur.old[oldN] = true
			oldN++
		case strings.HasPrefix(l, " "):
			cur.old[oldN], cur.new[newN] = true, true
			oldN++
			newN++
		}
	}
	return out
}

// hunkStarts reads "@@ -a,b +c,d @@" into a and c.
func hunkStarts(l string) (oldStart, newStart int, ok bool) {
	f := strings.Fields(l)
	if len(f) < 3 {
		return 0, 0, false
	}
	num := func(s, sign string) (int, bool) {
		s, found := strings.CutPrefix(s, sign)
		s, _, _ = strings.Cut(s, ",")
		n, err := strconv.Atoi(s)
		return n, found && err == nil
	}
	o, ok1 := num(f[1], "-")
	n, ok2 := num(f[2], "+")
	return o, n, ok1 && ok2
}
