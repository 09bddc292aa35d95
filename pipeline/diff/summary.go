package diff

import "github.com/prscout/prscout/pipeline"

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

// Summarize returns the summary of ParseSection(section).
func Summarize(section string) Summary {
	f := ParseSection(section)
	return Summary{
		Path: f.Path, OldPath: f.OldPath, Status: f.Status,
		Binary: f.Binary, Symlink: f.Symlink, Submodule: f.Submodule, Lenient: f.Lenient,
		NewRanges: f.NewRanges(), Added: f.AddedLines(), Removed: f.RemovedLines(),
	}
}
