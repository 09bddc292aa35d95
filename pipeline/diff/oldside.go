package diff

import (
	"bytes"
	"strings"
)

// OldSide rebuilds the old content of a file from its git diff section and
// its new content (nil for a deleted file): the lines outside the hunks are
// the new content's, the hunks give the removed and context lines. It
// answers false when the section cannot say: no hunks of text (a binary
// file, or only a rename or mode change, whose old content is the new one
// but not said here), a symbolic link or submodule on either side, or hunks
// that do not match newSrc. A text diff that git printed from the two
// contents always rebuilds the exact old bytes, final newline included.
func OldSide(section string, newSrc []byte) ([]byte, bool) {
	head, body, ok := cutHunks(section)
	if !ok || !plainFile(head) {
		return nil, false
	}
	out := make([]byte, 0, len(newSrc)+len(body)/2)
	newPos, oldLines := 0, 0 // bytes of newSrc consumed, old lines written
	nextNew := func() ([]byte, bool) {
		if newPos >= len(newSrc) {
			return nil, false
		}
		end := bytes.IndexByte(newSrc[newPos:], '\n')
		var l []byte
		if end < 0 {
			l, newPos = newSrc[newPos:], len(newSrc)
		} else {
			l, newPos = newSrc[newPos:newPos+end], newPos+end+1
		}
		return l, true
	}
	newLine := 0 // new lines consumed
	rest := body
	for rest != "" {
		var line string
		line, rest = cutLine(rest)
		h, ok := parseHeader(line)
		if !ok {
			return nil, false
		}
		// A range of no lines starts after the line it names.
		oldFrom, newFrom := h.oldStart-1, h.newStart-1
		if h.oldLines == 0 {
			oldFrom = h.oldStart
		}
		if h.newLines == 0 {
			newFrom = h.newStart
		}
		if oldFrom < oldLines || newFrom < newLine || oldFrom-oldLines != newFrom-newLine {
			return nil, false
		}
		// The lines before the hunk are the same on both sides.
		for newLine < newFrom {
			start := newPos
			if _, ok := nextNew(); !ok {
				return nil, false
			}
			out = append(out, newSrc[start:newPos]...)
			if newPos == len(newSrc) && (newPos == 0 || newSrc[newPos-1] != '\n') {
				return nil, false // a line without its end is the last line
			}
			newLine++
			oldLines++
		}
		leftOld, leftNew := h.oldLines, h.newLines
		var last byte // the op of the previous hunk line
		// takeNew consumes the hunk's next new-side line, which must be
		// the new source's next line, text.
		takeNew := func(text string) bool {
			if leftNew == 0 {
				return false
			}
			nl, ok := nextNew()
			if !ok || string(nl) != text {
				return false
			}
			leftNew--
			newLine++
			return true
		}
		for leftOld > 0 || leftNew > 0 || strings.HasPrefix(rest, "\\") {
			if rest == "" {
				return nil, false
			}
			line, rest = cutLine(rest)
			l := strings.TrimSuffix(line, "\n")
			if l == "" {
				return nil, false
			}
			switch l[0] {
			case ' ', '-':
				if leftOld == 0 {
					return nil, false
				}
				if l[0] == ' ' && !takeNew(l[1:]) {
					return nil, false
				}
				leftOld--
				oldLines++
				out = append(out, l[1:]...)
				out = append(out, '\n')
			case '+':
				if !takeNew(l[1:]) {
					return nil, false
				}
			case '\\':
				// "\ No newline at end of file": the line before ends its
				// side(s) without a newline.
				switch last {
				case ' ', '-':
					out = out[:len(out)-1]
				case '+':
				default:
					return nil, false
				}
			default:
				return nil, false
			}
			last = l[0]
		}
	}
	// The lines after the last hunk are the same on both sides.
	out = append(out, newSrc[newPos:]...)
	return out, true
}

// cutHunks splits a section into its header and its hunks, from the first
// "@@ " line; false when it has none.
func cutHunks(section string) (head, body string, ok bool) {
	if strings.HasPrefix(section, "@@ ") {
		return "", section, true
	}
	i := strings.Index(section, "\n@@ ")
	if i < 0 {
		return "", "", false
	}
	return section[:i+1], section[i+1:], true
}

// plainFile reports whether a section's header names regular files only: a
// symbolic link (mode 120000) or a submodule (160000) on either side is not
// rebuilt.
func plainFile(head string) bool {
	for head != "" {
		var line string
		line, head = cutLine(head)
		line = strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(line, "Binary files ") || strings.HasPrefix(line, "GIT binary patch") {
			return false
		}
		if strings.HasPrefix(line, "old mode ") || strings.HasPrefix(line, "new mode ") ||
			strings.HasPrefix(line, "deleted file mode ") || strings.HasPrefix(line, "new file mode ") ||
			strings.HasPrefix(line, "index ") {
			if strings.HasSuffix(line, " 120000") || strings.HasSuffix(line, " 160000") {
				return false
			}
		}
	}
	return true
}
