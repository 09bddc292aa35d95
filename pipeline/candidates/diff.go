package candidates

import (
	"fmt"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// ChangesFromDiff reads a git unified diff into Changes with their paths,
// statuses and changed line numbers on both sides; Old and New are left for
// the caller to fill (or New to be read from the Tree). Binary files are
// skipped; a copy counts as an added file.
func ChangesFromDiff(diff string) ([]Change, error) {
	files, _, err := gitdiff.Parse(strings.NewReader(diff))
	if err != nil {
		return nil, fmt.Errorf("candidates: parse diff: %w", err)
	}
	out := make([]Change, 0, len(files))
	for _, f := range files {
		if f.IsBinary {
			continue
		}
		c := Change{Status: StatusModified, Path: f.NewName}
		switch {
		case f.IsDelete:
			c.Status, c.Path = StatusDeleted, f.OldName
		case f.IsNew || f.IsCopy:
			c.Status = StatusAdded
		case f.IsRename:
			c.Status, c.OldPath = StatusRenamed, f.OldName
		}
		if c.Path == "" {
			c.Path = f.OldName
		}
		for _, frag := range f.TextFragments {
			oldLine, newLine := int(frag.OldPosition), int(frag.NewPosition)
			for _, l := range frag.Lines {
				switch l.Op {
				case gitdiff.OpContext:
					oldLine++
					newLine++
				case gitdiff.OpAdd:
					c.AddedLines = append(c.AddedLines, newLine)
					newLine++
				case gitdiff.OpDelete:
					c.RemovedLines = append(c.RemovedLines, oldLine)
					oldLine++
				}
			}
		}
		out = append(out, c)
	}
	return out, nil
}
