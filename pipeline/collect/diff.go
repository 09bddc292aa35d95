package collect

import (
	"fmt"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/diff"
)

// diffFile is what the context stage keeps of one file section of a raw git
// diff: names, status, the new-side range of each hunk and the line counts.
// The hunks' lines are not kept, so a large diff costs its text and little
// more.
type diffFile struct {
	Path      string
	OldPath   string // set for renames
	Status    string // added, modified, renamed, deleted
	Section   string // the verbatim "diff --git" section
	Binary    bool
	Symlink   bool // new side is a symbolic link
	Submodule bool // either side is a submodule (gitlink)
	Ranges    []pipeline.LineRange
	Additions int
	Deletions int
}

// parseSection reads one section with pipeline/diff. The diff comes from
// git, so a section go-gitdiff refuses is an error, not a lenient read.
func parseSection(section string) (diffFile, error) {
	f := diff.Summarize(section)
	if f.Lenient != nil {
		return diffFile{}, fmt.Errorf("parse diff section: %w", f.Lenient)
	}
	return diffFile{
		Path: f.Path, OldPath: f.OldPath, Status: string(f.Status), Section: section,
		Binary: f.Binary, Symlink: f.Symlink, Submodule: f.Submodule,
		Ranges: f.NewRanges, Additions: len(f.Added), Deletions: len(f.Removed),
	}, nil
}
