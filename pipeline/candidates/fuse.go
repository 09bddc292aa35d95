package candidates

import (
	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/cochange"
)

// The weights of the signals that raise a candidate besides the names a
// reader resolved (docs/review.md, "Context candidates"), set on the
// tuning repositories of scripts/bench-cochange.sh.
const (
	// coChangeHintMin is the shrunk confidence from which a pair raises a
	// file a reader found, below the bound at which the history lists a
	// file alone (coChangeMinConfidence).
	coChangeHintMin = 0.1
	// sameDirBoost raises a file in the directory of a changed file.
	sameDirBoost = 0.15
)

// ties are what ties files to the change besides the readers' names: the
// history's pairs, whatever their confidence, and the directories of the
// changed files.
type ties struct {
	pairs map[string]cochange.Pair // the best pair of each file
	dirs  map[string]string        // directory -> the base name of a changed file in it
}

// newTies keeps the best pair of each file (pairs come best first) and
// the directories of the changed code files cs.
func newTies(cs []*engine.Change, pairs []cochange.Pair) ties {
	t := ties{pairs: map[string]cochange.Pair{}, dirs: map[string]string{}}
	for _, p := range pairs {
		if _, ok := t.pairs[p.With]; !ok {
			t.pairs[p.With] = p
		}
	}
	for _, c := range cs {
		d := engine.DirOf(c.Path)
		if _, ok := t.dirs[d]; !ok {
			t.dirs[d] = engine.PathBase(c.Path)
		}
	}
	return t
}

// raise combines the further signals of a candidate with its score s, as
// a noisy-or: each raises s by its weight's share of what s lacks to 1,
// and the reason names it. byReader says a reader found the file: the
// history then raises it by the pair's confidence, at most coChangeBoost
// (a file the history found alone has its confidence in s already).
func (t ties) raise(p string, s float64, reason string, byReader bool) (float64, string) {
	if pr, ok := t.pairs[p]; ok && byReader && pr.Shrunk() >= coChangeHintMin {
		s += (1 - s) * min(pr.Shrunk(), coChangeBoost)
		reason += "; " + coChangeReason(pr)
	}
	if base, ok := t.dirs[engine.DirOf(p)]; ok {
		s += (1 - s) * sameDirBoost
		reason += "; next to " + base
	}
	return s, reason
}
