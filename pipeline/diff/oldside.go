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
	r := &rebuild{newSrc: newSrc, out: make([]byte, 0, len(newSrc)+len(body)/2)}
	rest := body
	for rest != "" {
		var line string
		line, rest = cutLine(rest)
		h, ok := parseHeader(line)
		if !ok || !r.upTo(h) {
			return nil, false
		}
		if rest, ok = r.hunk(h, rest); !ok {
			return nil, false
		}
	}
	// The lines after the last hunk are the same on both sides.
	r.out = append(r.out, newSrc[r.newPos:]...)
	return r.out, true
}

// rebuild is OldSide's progress: the old side written so far, and how much
// of the new source and of the old side the hunks have consumed.
type rebuild struct {
	newSrc   []byte
	out      []byte
	newPos   int // bytes of newSrc consumed
	newLine  int // new lines consumed
	oldLines int // old lines written
}

// nextNew consumes the new source's next line, without its newline.
func (r *rebuild) nextNew() ([]byte, bool) {
	if r.newPos >= len(r.newSrc) {
		return nil, false
	}
	var l []byte
	if end := bytes.IndexByte(r.newSrc[r.newPos:], '\n'); end < 0 {
		l, r.newPos = r.newSrc[r.newPos:], len(r.newSrc)
	} else {
		l, r.newPos = r.newSrc[r.newPos:r.newPos+end], r.newPos+end+1
	}
	return l, true
}

// upTo copies the lines before hunk h, the same on both sides.
func (r *rebuild) upTo(h header) bool {
	// A range of no lines starts after the line it names.
	oldFrom, newFrom := h.oldStart-1, h.newStart-1
	if h.oldLines == 0 {
		oldFrom = h.oldStart
	}
	if h.newLines == 0 {
		newFrom = h.newStart
	}
	if oldFrom < r.oldLines || newFrom < r.newLine || oldFrom-r.oldLines != newFrom-r.newLine {
		return false
	}
	for r.newLine < newFrom {
		start := r.newPos
		if _, ok := r.nextNew(); !ok {
			return false
		}
		r.out = append(r.out, r.newSrc[start:r.newPos]...)
		if r.newPos == len(r.newSrc) && (r.newPos == 0 || r.newSrc[r.newPos-1] != '\n') {
			return false // a line without its end is the last line
		}
		r.newLine++
		r.oldLines++
	}
	return true
}

// hunk writes the old side of hunk h, whose lines start rest, checking its
// new side against the new source; it answers what follows the hunk.
func (r *rebuild) hunk(h header, rest string) (string, bool) {
	leftOld, leftNew := h.oldLines, h.newLines
	var last byte // the op of the previous hunk line
	// takeNew consumes the hunk's next new-side line, which must be the
	// new source's next line, text.
	takeNew := func(text string) bool {
		if leftNew == 0 {
			return false
		}
		nl, ok := r.nextNew()
		if !ok || string(nl) != text {
			return false
		}
		leftNew--
		r.newLine++
		return true
	}
	for leftOld > 0 || leftNew > 0 || strings.HasPrefix(rest, "\\") {
		if rest == "" {
			return "", false
		}
		var line string
		line, rest = cutLine(rest)
		l := strings.TrimSuffix(line, "\n")
		if l == "" {
			return "", false
		}
		switch l[0] {
		case ' ', '-':
			if leftOld == 0 || (l[0] == ' ' && !takeNew(l[1:])) {
				return "", false
			}
			leftOld--
			r.oldLines++
			r.out = append(r.out, l[1:]...)
			r.out = append(r.out, '\n')
		case '+':
			if !takeNew(l[1:]) {
				return "", false
			}
		case '\\':
			// "\ No newline at end of file": the line before ends its
			// side(s) without a newline.
			switch last {
			case ' ', '-':
				r.out = r.out[:len(r.out)-1]
			case '+':
			default:
				return "", false
			}
		default:
			return "", false
		}
		last = l[0]
	}
	return rest, true
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
