package candidates

import (
	"context"
	"fmt"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/cochange"
)

// The co-change signal's rules and weight (docs/review.md, "Context
// candidates"), set on the tuning repositories of scripts/bench-cochange.sh.
const (
	// coChangeMinConfidence is the share of the commits changing a file
	// that must also have changed the other (support at least
	// cochange.MinSupport; the share shrunk by one more commit, so that
	// few commits count for less: cochange.Pair.Shrunk) for the history to
	// tie them.
	coChangeMinConfidence = 0.3
	// coChangeMax is the number of files the history alone lists at most.
	coChangeMax = 4
	// A file found by the history alone scores between these: above the
	// textual fallback (0.3) and the identifier search (0.35-0.4), below
	// what a reader resolved (0.75 and up).
	scoreCoChangeMin, scoreCoChangeMax = 0.42, 0.7
	// coChangeBoost bounds how much the history raises a file a reader
	// found that also changed together with the change: the pair's
	// confidence (from coChangeHintMin), at most this share of what its
	// score lacks to 1 (ties.raise).
	coChangeBoost = 0.3
	// coChangeChecked bounds the files whose presence at the head is
	// checked, best first.
	coChangeChecked = 40
)

// coChangeStart asks the history, when tree keeps one (engine.History)
// and at names the destination commit, about the changed code files on
// at's first-parent history, in the background while the readers search:
// the answer returned waits for it. A history that cannot be read answers
// nothing: the signal is optional.
func coChangeStart(ctx context.Context, tree Tree, code []*engine.Change, at string) func() []cochange.Pair {
	h, ok := tree.(engine.History)
	if !ok || at == "" {
		return func() []cochange.Pair { return nil }
	}
	var paths []string
	for _, c := range code {
		paths = append(paths, c.Path)
		if c.OldPath != "" {
			paths = append(paths, c.OldPath)
		}
	}
	if len(paths) == 0 {
		return func() []cochange.Pair { return nil }
	}
	done := make(chan []cochange.Pair, 1)
	go func() {
		pairs, err := h.CoChanged(ctx, at, paths)
		if err != nil {
			pairs = nil
		}
		done <- pairs
	}()
	return func() []cochange.Pair { return <-done }
}

// coChange adds the files of pairs that changed together with the change
// that no reader found: production code present at the head, each once,
// with its best pair (pairs come best first). A file a reader found is
// raised by its pair instead (ties), and counts towards the files
// checked all the same.
func coChange(ctx context.Context, tree Tree, pairs []cochange.Pair, ev *engine.Evidence) {
	seen := map[string]bool{}
	listing := engine.NewListing(ctx, tree)
	for _, p := range pairs {
		if len(seen) == coChangeChecked || ctx.Err() != nil {
			return
		}
		if seen[p.With] || ev.Changed[p.With] || p.Shrunk() < coChangeMinConfidence || !coChangeListable(p.With) {
			continue
		}
		seen[p.With] = true
		if ev.Files[p.With] == nil && listing.Has(p.With) {
			ev.Add(p.With, coChangeItem(p))
		}
	}
}

// coChangeListable reports whether the history may list p: production
// code a reader reads, neither a test, generated nor vendored.
func coChangeListable(p string) bool {
	return Reads(Change{Path: p, AddedLines: []int{1}}) && !isTestPath(p) && !isGeneratedPath(p) && !engine.SkippedPath(p)
}

// coChangeItem is the evidence of one pair, worded with its counts.
func coChangeItem(p cochange.Pair) engine.Item {
	c := p.Shrunk()
	return engine.Item{
		Kind: engine.KindImpact, Symbol: p.Path, Method: engine.MethodCoChange,
		Score:  scoreCoChangeMin + (scoreCoChangeMax-scoreCoChangeMin)*c,
		Reason: coChangeReason(p),
	}
}

// coChangeReason names a pair's evidence.
func coChangeReason(p cochange.Pair) string {
	return fmt.Sprintf("changed together in %d of the last %d commits touching %s", p.Together, p.Touching, engine.PathBase(p.Path))
}
