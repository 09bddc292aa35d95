package treesit

import (
	"cmp"
	"maps"
	"slices"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// maxUsesOnly bounds the files of a C or C++ search listed only for
// declaring names the added lines use. Such a file is never among the
// references of what the change touched, and a change's lines use
// dozens of names that headers declare (a class's members, its
// container types, the project's string helpers): listed all, they crowd
// out the files that refer to the change.
const maxUsesOnly = 2

// usesScale scales a C or C++ file's scores for declaring names the
// added lines use: below a reference to a touched declaration of the same
// sight (impactScore), which is also the reason such a file is shown with.
const usesScale = 0.5

// usesOnly gathers the items of the files a C or C++ search found only
// through the names the added lines use, and lists the best of them.
type usesOnly struct {
	ev     *engine.Evidence
	byFile map[string][]engine.Item
}

// add lists the maxUsesOnly files declaring the most of the used names
// (then of the best score).
func (u *usesOnly) add() {
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
	for _, p := range paths[:min(len(paths), maxUsesOnly)] {
		for _, it := range u.byFile[p] {
			u.ev.Add(p, it)
		}
	}
}
