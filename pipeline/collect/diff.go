package collect

import (
	"fmt"

	"github.com/prscout/prscout/pipeline/diff"
)

// diffFile is what the context stage keeps of one file section of a raw git
// diff: its summary (names, status, the new-side range of each hunk and the
// numbers of the changed lines, which the candidates are handed) and the
// verbatim "diff --git" section. The hunks' lines are not kept, so a large
// diff costs its text and little more.
type diffFile struct {
	diff.Summary
	Section string
}

// parseSection reads one section with pipeline/diff. The diff comes from
// git, so a section go-gitdiff refuses is an error, not a lenient read.
func parseSection(section string) (diffFile, error) {
	f := diff.Summarize(section)
	if f.Lenient != nil {
		return diffFile{}, fmt.Errorf("parse diff section: %w", f.Lenient)
	}
	return diffFile{Summary: f, Section: section}, nil
}
