package diff

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// Git file modes the reader tells apart.
const (
	modeSymlink   = 0o120000
	modeSubmodule = 0o160000
	modeTypeMask  = 0o170000
)

// bareHeader stands in for the file header of bare hunks, which go-gitdiff
// needs; the file's path stays "".
const bareHeader = "--- a/file\n+++ b/file\n"

// strictFile reads a section with go-gitdiff, or says why it cannot.
func strictFile(section string) (File, error) {
	f, frags, err := strictRead(section)
	if err != nil {
		return File{}, err
	}
	for _, frag := range frags {
		h := Hunk{OldStart: int(frag.OldPosition), OldLines: int(frag.OldLines), NewStart: int(frag.NewPosition), NewLines: int(frag.NewLines), Comment: frag.Comment}
		h.Lines = make([]Line, 0, len(frag.Lines))
		eachLine(frag, func(l Line) { h.Lines = append(h.Lines, l) })
		f.Hunks = append(f.Hunks, h)
	}
	return f, nil
}

// strictRead reads a section's file header with go-gitdiff and returns its
// hunks as go-gitdiff read them, or says why it cannot. The lines' text
// are substrings of section.
func strictRead(section string) (File, []*gitdiff.TextFragment, error) {
	if strings.TrimSpace(section) == "" {
		return File{Status: Modified, Section: section}, nil, nil
	}
	text, bare := section, false
	if i := firstLine(section, "@@ -"); i >= 0 && !hasHeader(section[:i]) {
		text, bare = bareHeader+section[i:], true
	}
	files, _, err := gitdiff.Parse(&lineReader{text})
	if err != nil {
		return File{}, nil, err
	}
	if len(files) != 1 {
		return File{}, nil, fmt.Errorf("%d files in one section", len(files))
	}
	f := fromGitdiff(files[0], section)
	if !bare && !strings.HasPrefix(section, gitMarker) {
		// go-gitdiff keeps the b/ of a traditional header's names.
		head := section
		if i := firstLine(section, "@@ -"); i >= 0 {
			head = section[:i]
		}
		h := headerLines(head, section)
		f.Path, f.OldPath, f.Status = h.Path, h.OldPath, h.Status
	}
	if bare {
		f.Path, f.OldPath, f.Status = "", "", Modified
	}
	for _, frag := range files[0].TextFragments {
		if frag.OldPosition > maxLine || frag.NewPosition > maxLine || frag.OldLines > maxLine || frag.NewLines > maxLine ||
			frag.OldPosition < 0 || frag.NewPosition < 0 {
			return File{}, nil, fmt.Errorf("hunk header names a line beyond %d", maxLine)
		}
	}
	return f, files[0].TextFragments, nil
}

// eachLine calls fn with each line of frag, numbered on each side from
// the hunk's header.
func eachLine(frag *gitdiff.TextFragment, fn func(Line)) {
	o, n := int(frag.OldPosition), int(frag.NewPosition)
	for _, l := range frag.Lines {
		text := strings.TrimRight(l.Line, "\r\n")
		switch l.Op {
		case gitdiff.OpContext:
			fn(Line{Op: Context, Old: o, New: n, Text: text})
			o++
			n++
		case gitdiff.OpAdd:
			fn(Line{Op: Add, New: n, Text: text})
			n++
		case gitdiff.OpDelete:
			fn(Line{Op: Delete, Old: o, Text: text})
			o++
		}
	}
}

// lineReader hands go-gitdiff a string's lines as substrings of it
// (bufio.Reader's ReadString copies each line): the parse copies no text.
// go-gitdiff reads by ReadString alone when its reader has it.
type lineReader struct{ rest string }

func (r *lineReader) Read(p []byte) (int, error) {
	if r.rest == "" {
		return 0, io.EOF
	}
	n := copy(p, r.rest)
	r.rest = r.rest[n:]
	return n, nil
}

func (r *lineReader) ReadString(delim byte) (string, error) {
	i := strings.IndexByte(r.rest, delim)
	if i < 0 {
		line := r.rest
		r.rest = ""
		return line, io.EOF
	}
	line := r.rest[:i+1]
	r.rest = r.rest[i+1:]
	return line, nil
}

// hasHeader reports whether text has a line starting a file header.
func hasHeader(text string) bool {
	return firstLine(text, gitMarker) >= 0 || firstLine(text, "--- ") >= 0
}

// fromGitdiff takes a go-gitdiff file's names, status and modes.
func fromGitdiff(g *gitdiff.File, section string) File {
	f := File{Section: section, Binary: g.IsBinary, Status: Modified, Path: g.NewName}
	switch {
	case g.IsDelete:
		f.Status, f.Path = Deleted, g.OldName
	case g.IsNew || g.IsCopy:
		f.Status = Added
	case g.IsRename:
		f.Status, f.OldPath = Renamed, g.OldName
	}
	if f.Path == "" {
		f.Path = g.OldName
	}
	f.Path, f.OldPath = cleanPath(f.Path), cleanPath(f.OldPath)
	// git prints an unchanged mode once, on the index line, which go-gitdiff
	// stores as OldMode only.
	newMode, oldMode := uint32(g.NewMode)&modeTypeMask, uint32(g.OldMode)&modeTypeMask
	if newMode == 0 && !g.IsDelete {
		newMode = oldMode
	}
	f.Symlink = newMode == modeSymlink
	f.Submodule = newMode == modeSubmodule || oldMode == modeSubmodule
	return f
}

// lenientFile reads what it can of a section go-gitdiff refused: the file
// header (by go-gitdiff alone when it reads it, else line by line) and the
// hunks by walkHunks.
func lenientFile(section string) File {
	head, body := section, ""
	if i := firstLine(section, "@@ -"); i >= 0 {
		head, body = section[:i], section[i:]
	}
	f := File{Section: section, Status: Modified}
	if strings.HasPrefix(head, gitMarker) {
		if files, _, err := gitdiff.Parse(strings.NewReader(head)); err == nil && len(files) == 1 {
			f = fromGitdiff(files[0], section)
		} else {
			f = headerLines(head, section)
		}
	} else if hasHeader(head) {
		f = headerLines(head, section)
	}
	f.Hunks = walkHunks(body)
	return f
}

// headerLines reads a file header line by line: the "---" and "+++" names
// (without a/ and b/, /dev/null for an added or deleted file), rename and
// mode lines, binary markers, and the "diff --git" names when nothing else
// names the file.
func headerLines(head, section string) File {
	f := File{Section: section, Status: Modified}
	var oldName, newName, gitOld, gitNew string
	for _, line := range strings.Split(head, "\n") {
		line = strings.TrimSuffix(line, "\r")
		switch {
		case strings.HasPrefix(line, gitMarker):
			rest := line[len(gitMarker):]
			if i := strings.LastIndex(rest, " b/"); i >= 0 {
				gitOld, gitNew = strings.TrimPrefix(rest[:i], "a/"), rest[i+3:]
			}
		case strings.HasPrefix(line, "--- "):
			oldName = headerName(line[4:], "a/")
		case strings.HasPrefix(line, "+++ "):
			newName = headerName(line[4:], "b/")
		case strings.HasPrefix(line, "rename from "):
			oldName, f.Status = line[len("rename from "):], Renamed
		case strings.HasPrefix(line, "rename to "):
			newName, f.Status = line[len("rename to "):], Renamed
		case strings.HasPrefix(line, "new file mode"):
			f.Status = Added
		case strings.HasPrefix(line, "deleted file mode"):
			f.Status = Deleted
		case strings.HasPrefix(line, "Binary files ") || line == "GIT binary patch":
			f.Binary = true
		}
	}
	if oldName == "" {
		oldName = gitOld
	}
	if newName == "" {
		newName = gitNew
	}
	switch {
	case oldName == "/dev/null":
		f.Status, oldName = Added, ""
	case newName == "/dev/null":
		f.Status, newName = Deleted, ""
	}
	f.Path = newName
	if f.Status == Deleted || f.Path == "" {
		f.Path = oldName
	}
	if f.Status == Renamed {
		f.OldPath = oldName
	}
	f.Path, f.OldPath = cleanPath(f.Path), cleanPath(f.OldPath)
	return f
}

// headerName is a "---" or "+++" line's name without its prefix and the
// tab-separated timestamp some tools add.
func headerName(s, prefix string) string {
	s, _, _ = strings.Cut(s, "\t")
	s = strings.TrimSpace(s)
	if s == "/dev/null" {
		return s
	}
	return strings.TrimPrefix(s, prefix)
}

// walkHunks reads @@ hunks without checking their counts: a hunk runs to the
// next header, to a "diff --git" line, to a "---" line followed by a "+++"
// line (the next file's header), or to a line that is no hunk line. An
// empty line inside a hunk is a context line whose space was lost; empty
// lines that end a hunk are not. The counts are those of the lines read. A
// header that cannot be read (or names a line beyond maxLine) is skipped
// with its lines.
func walkHunks(text string) []Hunk {
	var hunks []Hunk
	lines := strings.Split(text, "\n")
	cur := -1 // index in hunks of the hunk being read, -1 outside one
	o, n := 0, 0
	closeHunk := func() {
		if cur >= 0 {
			h := &hunks[cur]
			h.OldLines, h.NewLines = o-h.OldStart, n-h.NewStart
			cur = -1
		}
	}
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSuffix(lines[i], "\r")
		if strings.HasPrefix(line, "@@ -") {
			closeHunk()
			if h, ok := parseHeader(line); ok {
				hunks = append(hunks, Hunk{OldStart: h.oldStart, NewStart: h.newStart, Comment: strings.TrimSpace(h.rest)})
				cur, o, n = len(hunks)-1, h.oldStart, h.newStart
			}
			continue
		}
		if cur < 0 {
			continue
		}
		if line == "" {
			j := i
			for j < len(lines) && strings.TrimSuffix(lines[j], "\r") == "" {
				j++
			}
			if j == len(lines) || !isBodyLine(lines, j) {
				i = j - 1
				closeHunk()
				continue
			}
			for ; i < j; i++ {
				hunks[cur].Lines = append(hunks[cur].Lines, Line{Op: Context, Old: o, New: n})
				o++
				n++
			}
			i--
			continue
		}
		if !isBodyLine(lines, i) {
			closeHunk()
			continue
		}
		text := line[1:]
		switch line[0] {
		case '+':
			hunks[cur].Lines = append(hunks[cur].Lines, Line{Op: Add, New: n, Text: text})
			n++
		case '-':
			hunks[cur].Lines = append(hunks[cur].Lines, Line{Op: Delete, Old: o, Text: text})
			o++
		case ' ':
			hunks[cur].Lines = append(hunks[cur].Lines, Line{Op: Context, Old: o, New: n, Text: text})
			o++
			n++
		}
	}
	closeHunk()
	return hunks
}

// isBodyLine reports whether lines[i] can be a line of a hunk: it starts
// with ' ', '+', '-' or '\', and it starts no file header.
func isBodyLine(lines []string, i int) bool {
	l := lines[i]
	if l == "" {
		return false
	}
	switch l[0] {
	case ' ', '+', '\\':
		return true
	case '-':
		return !strings.HasPrefix(l, "--- ") || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "+++ ")
	}
	return false
}

// header is a parsed "@@ -a[,b] +c[,d] @@ rest" line.
type header struct {
	oldStart, oldLines, newStart, newLines int
	rest                                   string // after the closing "@@", without the line end
}

var errHeader = errors.New("not a hunk header")

// parseHeader reads a hunk header as git writes it; numbers beyond maxLine
// are refused.
func parseHeader(line string) (header, bool) {
	var h header
	body, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "@@ -")
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
	var errOld, errNew error
	h.oldStart, h.oldLines, errOld = parseRange(oldR)
	h.newStart, h.newLines, errNew = parseRange(newR)
	h.rest = rest
	return h, errOld == nil && errNew == nil
}

// parseRange reads "a,b" or "a" (b is then 1).
func parseRange(s string) (start, lines int, err error) {
	a, b, has := strings.Cut(s, ",")
	if start, err = number(a); err != nil {
		return 0, 0, err
	}
	if !has {
		return start, 1, nil
	}
	lines, err = number(b)
	return start, lines, err
}

// number reads a line number or count: digits only, at most maxLine.
func number(s string) (int, error) {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return 0, errHeader
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > maxLine {
		return 0, errHeader
	}
	return n, nil
}
