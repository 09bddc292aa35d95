// Package diff reads unified diffs, as git writes them and as a model or a
// user may have cut them, into files, hunks and lines.
//
// A diff is split into one section per file (Split); each section is read by
// github.com/bluekeyes/go-gitdiff (names, statuses, renames, copies, modes,
// binary markers, quoted names), and when go-gitdiff refuses it (a hunk whose
// counts do not add up because the text was cut, bare hunks without a file
// header) by a lenient walker that keeps what it can read and says why in
// File.Lenient. No input makes the reader panic. Window cuts a large file's
// diff to a size and names the new-side lines it left out.
package diff

import (
	"path"
	"strings"

	"github.com/prscout/prscout/pipeline"
)

// Status is a changed file's status.
type Status string

// The statuses of a changed file. A copy is an added file.
const (
	Added    Status = "added"
	Modified Status = "modified"
	Renamed  Status = "renamed"
	Deleted  Status = "deleted"
)

// Op is what a hunk line does.
type Op byte

// The operations of a hunk line, by their marker.
const (
	Context Op = ' '
	Add     Op = '+'
	Delete  Op = '-'
)

// maxLine bounds the line numbers a hunk header may name; a header beyond
// it is not read (its numbers would overflow when counted on).
const maxLine = 1 << 30

// Line is one line of a hunk.
type Line struct {
	Op Op
	// Old and New are the line's numbers on each side (1-based); 0 on the
	// side it is not on (Old of an added line, New of a removed one).
	Old, New int
	// Text is the line without its marker and line end.
	Text string
}

// Hunk is one "@@ -a,b +c,d @@" hunk.
type Hunk struct {
	// The header's start lines and counts; for a hunk read leniently, the
	// counts are those of the lines read.
	OldStart, OldLines, NewStart, NewLines int
	// Comment is the header's text after the closing "@@" (a function name).
	Comment string
	Lines   []Line
}

// File is one file section of a diff.
type File struct {
	// Path is the file's path on the new side, or on the old side when it
	// is deleted; "" for bare hunks without a file header.
	Path string
	// OldPath is the path on the old side of a rename.
	OldPath string
	Status  Status
	Binary  bool
	// Symlink: the new side is a symbolic link. Submodule: either side is a
	// submodule (gitlink).
	Symlink, Submodule bool
	// Section is the file's verbatim text in the diff (a substring of it).
	Section string
	Hunks   []Hunk
	// Lenient is why go-gitdiff refused the section, when the lenient walker
	// read it instead; nil otherwise.
	Lenient error
}

// Diff is a parsed diff.
type Diff struct {
	// Preamble is the text before the first file (none from git diff).
	Preamble string
	Files    []File
}

// Parse reads a whole diff: its git sections ("diff --git" lines), else its
// traditional ones ("---", "+++", "@@" lines), else bare hunks as one file
// without a path. Files come in the diff's order.
func Parse(raw string) Diff {
	pre, sections := Split(raw)
	d := Diff{Preamble: pre, Files: make([]File, 0, len(sections))}
	for _, s := range sections {
		d.Files = append(d.Files, ParseSection(s))
	}
	return d
}

// ParseSection reads one file section (as Split returns them, or a file's
// diff on its own: a section or bare hunks). It is safe for concurrent use.
func ParseSection(section string) File {
	f, err := strictFile(section)
	if err == nil {
		return f
	}
	f = lenientFile(section)
	f.Lenient = err
	return f
}

// NewRanges returns the new-side line range of each hunk: a pure deletion
// names the line before the removed ones, as git does; lines start at 1.
func (f File) NewRanges() []pipeline.LineRange {
	out := make([]pipeline.LineRange, 0, len(f.Hunks))
	for _, h := range f.Hunks {
		from := h.NewStart
		to := from + h.NewLines - 1
		if h.NewLines == 0 {
			to = from
		}
		from = max(from, 1)
		to = max(to, from)
		out = append(out, pipeline.LineRange{From: from, To: to})
	}
	return out
}

// AddedLines returns the new-side numbers of the added lines, in order.
func (f File) AddedLines() []int { return f.linesOf(Add) }

// RemovedLines returns the old-side numbers of the removed lines, in order.
func (f File) RemovedLines() []int { return f.linesOf(Delete) }

func (f File) linesOf(op Op) []int {
	var out []int
	for _, h := range f.Hunks {
		for _, l := range h.Lines {
			switch {
			case l.Op != op:
			case op == Add:
				out = append(out, l.New)
			default:
				out = append(out, l.Old)
			}
		}
	}
	return out
}

// Additions and Deletions count the added and the removed lines.
func (f File) Additions() int { return f.count(Add) }

// Deletions counts the removed lines.
func (f File) Deletions() int { return f.count(Delete) }

func (f File) count(op Op) int {
	n := 0
	for _, h := range f.Hunks {
		for _, l := range h.Lines {
			if l.Op == op {
				n++
			}
		}
	}
	return n
}

const gitMarker = "diff --git "

// Split cuts a diff into its per-file sections without copying: git
// sections start at a line beginning with "diff --git " and run to the next
// one (hunk lines start with ' ', '+', '-' or '\', so file content cannot
// fake a start). A diff without them is cut at traditional headers ("--- "
// and "+++ " lines followed by an "@@ -" line); a diff without those either
// is one section from its first "@@ -" line. The text before the first
// section is the preamble.
func Split(raw string) (preamble string, sections []string) {
	starts := gitStarts(raw)
	if len(starts) == 0 {
		starts = traditionalStarts(raw)
	}
	if len(starts) == 0 {
		if i := firstLine(raw, "@@ -"); i >= 0 {
			starts = []int{i}
		}
	}
	if len(starts) == 0 {
		return raw, nil
	}
	sections = make([]string, 0, len(starts))
	for k, s := range starts {
		end := len(raw)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		sections = append(sections, raw[s:end])
	}
	return raw[:starts[0]], sections
}

// gitStarts returns the offsets of the lines starting with "diff --git ".
func gitStarts(raw string) []int {
	var out []int
	if strings.HasPrefix(raw, gitMarker) {
		out = append(out, 0)
	}
	for off := 0; ; {
		i := strings.Index(raw[off:], "\n"+gitMarker)
		if i < 0 {
			return out
		}
		off += i + 1
		out = append(out, off)
	}
}

// traditionalStarts returns the offsets of the "--- " lines followed by a
// "+++ " line and an "@@ -" line.
func traditionalStarts(raw string) []int {
	var out []int
	for off := 0; off < len(raw); {
		line, rest := cutLine(raw[off:])
		if strings.HasPrefix(line, "--- ") {
			next, rest2 := cutLine(rest)
			third, _ := cutLine(rest2)
			if strings.HasPrefix(next, "+++ ") && strings.HasPrefix(third, "@@ -") {
				out = append(out, off)
			}
		}
		off += len(line) + 1
	}
	return out
}

// firstLine returns the offset of the first line starting with prefix, -1
// when none does.
func firstLine(raw, prefix string) int {
	if strings.HasPrefix(raw, prefix) {
		return 0
	}
	if i := strings.Index(raw, "\n"+prefix); i >= 0 {
		return i + 1
	}
	return -1
}

// cutLine returns s's first line without its '\n', and the rest after it.
func cutLine(s string) (line, rest string) {
	line, rest, _ = strings.Cut(s, "\n")
	return line, rest
}

// cleanPath cleans a non-empty slash path.
func cleanPath(p string) string {
	if p == "" {
		return ""
	}
	return path.Clean(p)
}
