// Package usesonly keeps, for a C or C++ search, the files found only
// through the names a change's added lines use, and lists the few that
// declare the most of them.
package usesonly

import (
	"cmp"
	"maps"
	"slices"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// Max bounds the files of a C or C++ search listed only for
// declaring names the added lines use. Such a file is never among the
// references of what the change touched, and a change's lines use
// dozens of names that headers declare (a class's members, its
// container types, the project's string helpers): listed all, they crowd
// out the files that refer to the change.
const Max = 2

// Scale scales a C or C++ file's scores for declaring names the
// added lines use: below a reference to a touched declaration of the same
// sight (impactScore), which is also the reason such a file is shown with.
const Scale = 0.5

// Files gathers the items of the files a C or C++ search found only
// through the names the added lines use, and lists the best of them.
type Files struct {
	ev     *engine.Evidence
	byFile map[string][]engine.Item
}

// New gathers files for ev.
func New(ev *engine.Evidence) *Files {
	return &Files{ev: ev, byFile: map[string][]engine.Item{}}
}

// Hold keeps it, an item of the file p, until Add.
func (u *Files) Hold(p string, it engine.Item) { u.byFile[p] = append(u.byFile[p], it) }

// Add lists the Max files declaring the most of the used names (then of
// the best score).
func (u *Files) Add() {
	paths := slices.Collect(maps.Keys(u.byFile))
	names := make(map[string]int, len(paths))
	for _, p := range paths {
		seen := map[string]bool{}
		for _, it := range u.byFile[p] {
			seen[it.Symbol] = true
		}
		names[p] = len(seen)
	}
	best := func(p string) float64 {
		b := 0.0
		for _, it := range u.byFile[p] {
			b = max(b, it.Score)
		}
		return b
	}
	slices.SortFunc(paths, func(a, b string) int {
		if c := cmp.Compare(names[b], names[a]); c != 0 {
			return c
		}
		if c := cmp.Compare(best(b), best(a)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	for _, p := range paths[:min(len(paths), Max)] {
		for _, it := range u.byFile[p] {
			u.ev.Add(p, it)
		}
	}
}
