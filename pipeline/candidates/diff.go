package candidates

import (
	"fmt"

	"github.com/prscout/prscout/pipeline/diff"
)

// ChangesFromDiff reads a git unified diff into Changes with their paths,
// statuses and changed line numbers on both sides; Old and New are left for
// the caller to fill (or New to be read from the Tree). Binary files and
// bare hunks without a file header are skipped; a copy counts as an added
// file. A diff that go-gitdiff refuses (see pipeline/diff) is an error.
func ChangesFromDiff(text string) ([]Change, error) {
	_, sections := diff.Split(text)
	out := make([]Change, 0, len(sections))
	for _, sec := range sections {
		f := diff.Summarize(sec)
		if f.Lenient != nil {
			return nil, fmt.Errorf("candidates: parse diff: %w", f.Lenient)
		}
		if c, ok := ChangeOf(f); ok {
			out = append(out, c)
		}
	}
	return out, nil
}

// ChangeOf is the Change one file section's summary says, its sources
// left out; ok is false for a binary file and a bare hunk without a file
// header.
func ChangeOf(f diff.Summary) (Change, bool) {
	if f.Binary || f.Path == "" {
		return Change{}, false
	}
	return Change{
		Path: f.Path, OldPath: f.OldPath, Status: Status(f.Status),
		AddedLines: f.Added, RemovedLines: f.Removed,
	}, true
}
