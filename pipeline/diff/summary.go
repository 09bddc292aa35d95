package diff

import (
	"strings"

	"github.com/prscout/prscout/pipeline"
)

// Summary is what a file section says without its lines: its paths,
// status and kind, how it was read, the new-side range of each hunk, and
// the numbers of the lines it adds and removes.
type Summary struct {
	Path, OldPath              string
	Status                     Status
	Binary, Symlink, Submodule bool
	Lenient                    error
	NewRanges                  []pipeline.LineRange
	Added, Removed             []int // File.AddedLines, File.RemovedLines
}

// Summarize returns the summary of ParseSection(section). A section
// go-gitdiff reads is summarized from its hunks without building their
// lines; the summary's strings share nothing with section.
func Summarize(section string) Summary {
	f, frags, err := strictRead(section)
	if err != nil {
		f = lenientFile(section)
		f.Lenient = err
	} else {
		adds, dels := 0, 0
		for _, frag := range frags {
			f.Hunks = append(f.Hunks, Hunk{NewStart: int(frag.NewPosition), NewLines: int(frag.NewLines)})
			adds, dels = adds+int(frag.LinesAdded), dels+int(frag.LinesDeleted)
		}
		s := summaryOf(f)
		if adds > 0 {
			s.Added = make([]int, 0, adds)
		}
		if dels > 0 {
			s.Removed = make([]int, 0, dels)
		}
		for _, frag := range frags {
			eachLine(frag, func(l Line) {
				switch l.Op {
				case Add:
					s.Added = append(s.Added, l.New)
				case Delete:
					s.Removed = append(s.Removed, l.Old)
				}
			})
		}
		return s
	}
	s := summaryOf(f)
	s.Added, s.Removed = f.AddedLines(), f.RemovedLines()
	return s
}

// summaryOf is f's summary but for its added and removed lines.
func summaryOf(f File) Summary {
	return Summary{
		Path: strings.Clone(f.Path), OldPath: strings.Clone(f.OldPath), Status: f.Status,
		Binary: f.Binary, Symlink: f.Symlink, Submodule: f.Submodule, Lenient: f.Lenient,
		NewRanges: f.NewRanges(),
	}
}
