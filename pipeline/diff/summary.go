package diff

import (
	"hash/maphash"
	"math"
	"slices"
	"strings"

	"github.com/maypok86/otter/v2"

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

// A pull request's update diffs mostly the same files the same way, and a
// section is parsed once for the shown files and once for the candidates.
// Summarize keeps each section's summary by its text (kept with it and
// compared on each hit), within summaryBytes.
const summaryBytes = 32 << 20

type summaryKey struct {
	sum uint64
	n   int
}

type keptSummary struct {
	section string
	s       Summary
}

var (
	summarySeed = maphash.MakeSeed()
	summaries   = otter.Must(&otter.Options[summaryKey, keptSummary]{
		MaximumWeight: summaryBytes,
		Weigher: func(_ summaryKey, k keptSummary) uint32 {
			w := len(k.section) + 128 + len(k.s.Path) + len(k.s.OldPath) +
				16*len(k.s.NewRanges) + 8*(len(k.s.Added)+len(k.s.Removed))
			return uint32(min(w, math.MaxUint32))
		},
	})
)

// Summarize returns the summary of ParseSection(section). Its slices are
// the caller's own.
func Summarize(section string) Summary {
	k := summaryKey{maphash.String(summarySeed, section), len(section)}
	if kept, ok := summaries.GetIfPresent(k); ok && kept.section == section {
		return kept.s.clone()
	}
	f := ParseSection(section)
	s := Summary{
		Path: f.Path, OldPath: f.OldPath, Status: f.Status,
		Binary: f.Binary, Symlink: f.Symlink, Submodule: f.Submodule, Lenient: f.Lenient,
		NewRanges: f.NewRanges(), Added: f.AddedLines(), Removed: f.RemovedLines(),
	}
	if len(section) <= summaryBytes/16 {
		summaries.Set(k, keptSummary{section: strings.Clone(section), s: s.clone()})
	}
	return s
}

func (s Summary) clone() Summary {
	s.NewRanges = slices.Clone(s.NewRanges)
	s.Added = slices.Clone(s.Added)
	s.Removed = slices.Clone(s.Removed)
	return s
}
