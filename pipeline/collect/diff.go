package collect

import (
	"fmt"
	"path"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"

	"github.com/prscout/prscout/pipeline"
)

// Git file modes the context stage cares about.
const (
	modeSymlink   = 0o120000
	modeSubmodule = 0o160000
	modeTypeMask  = 0o170000
)

// diffFile is one file section of a raw git diff, parsed.
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

// splitDiff cuts a raw git diff into its per-file sections: each starts at a
// line beginning with "diff --git " and runs to the next one. Hunk lines
// always start with ' ', '+', '-' or '\', so a file's content can never fake a
// section start. Text before the first section (none from git diff) is
// returned as preamble.
func splitDiff(raw string) (preamble string, sections []string) {
	const marker = "diff --git "
	start := -1
	if strings.HasPrefix(raw, marker) {
		start = 0
	} else if i := strings.Index(raw, "\n"+marker); i >= 0 {
		start = i + 1
	}
	if start < 0 {
		return raw, nil
	}
	preamble = raw[:start]
	rest := raw[start:]
	for rest != "" {
		next := strings.Index(rest[len(marker):], "\n"+marker)
		if next < 0 {
			sections = append(sections, rest)
			break
		}
		cut := len(marker) + next + 1
		sections = append(sections, rest[:cut])
		rest = rest[cut:]
	}
	return preamble, sections
}

// parseSection parses one file section with github.com/bluekeyes/go-gitdiff,
// which understands renames, copies, mode changes, binary markers and quoted
// names. It keeps only what the context stage needs: names, status, the
// new-side line range of each hunk and the added/deleted line counts.
func parseSection(section string) (diffFile, error) {
	files, _, err := gitdiff.Parse(strings.NewReader(section))
	if err != nil {
		return diffFile{}, fmt.Errorf("parse diff section: %w", err)
	}
	if len(files) != 1 {
		return diffFile{}, fmt.Errorf("parse diff section: %d files in one section", len(files))
	}
	f := files[0]
	d := diffFile{Section: section, Binary: f.IsBinary}
	switch {
	case f.IsDelete:
		d.Status, d.Path = "deleted", f.OldName
	case f.IsNew:
		d.Status, d.Path = "added", f.NewName
	case f.IsCopy:
		// A copy is a new file whose content came from elsewhere.
		d.Status, d.Path = "added", f.NewName
	case f.IsRename:
		d.Status, d.Path, d.OldPath = "renamed", f.NewName, f.OldName
	default:
		d.Status, d.Path = "modified", f.NewName
		if d.Path == "" {
			d.Path = f.OldName
		}
	}
	d.Path = path.Clean(d.Path)
	if d.OldPath != "" {
		d.OldPath = path.Clean(d.OldPath)
	}
	// git prints an unchanged mode once, on the index line, which go-gitdiff
	// stores as OldMode only.
	newMode, oldMode := uint32(f.NewMode)&modeTypeMask, uint32(f.OldMode)&modeTypeMask
	if newMode == 0 && !f.IsDelete {
		newMode = oldMode
	}
	d.Symlink = newMode == modeSymlink
	d.Submodule = newMode == modeSubmodule || oldMode == modeSubmodule
	for _, frag := range f.TextFragments {
		d.Additions += int(frag.LinesAdded)
		d.Deletions += int(frag.LinesDeleted)
		from := int(frag.NewPosition)
		to := from + int(frag.NewLines) - 1
		if frag.NewLines == 0 {
			// Pure deletion: git names the line before the removed ones.
			to = from
		}
		if from < 1 {
			from = 1
		}
		if to < from {
			to = from
		}
		d.Ranges = append(d.Ranges, pipeline.LineRange{From: from, To: to})
	}
	return d, nil
}
