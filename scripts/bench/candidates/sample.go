package main

import (
	"fmt"
	"sort"
	"strings"
)

// sampling says which commits of a clone the recall benchmark scores.
// The default is the newest qualifying commits; with since set, it is a
// uniform sample of the qualifying commits since that date: the commits
// taken in the order of their ids, which are hashes and so spread
// uniformly over the history, not clustered at its tip.
type sampling struct {
	since string // a date git understands (2020-01-01); "" the newest
	set   string // "all", "tuned" or "held-out": which repositories run
}

var sample = sampling{set: "all"}

// commitsToTry lists the non-merge commits reachable from head that touch
// one of globs, in the order the benchmark tries them.
func (s sampling) commitsToTry(dir, head string, globs ...string) ([]string, error) {
	args := []string{"rev-list", "--no-merges"}
	if s.since != "" {
		args = append(args, "--since="+s.since)
	}
	args = append(args, head, "--")
	out, err := git(dir, append(args, globs...)...)
	if err != nil {
		return nil, err
	}
	shas := strings.Fields(out)
	if s.since != "" {
		sort.Strings(shas)
	}
	return shas, nil
}

// runs reports whether a repository (held out or not) is in the set.
func (s sampling) runs(heldOut bool) bool {
	switch s.set {
	case "tuned":
		return !heldOut
	case "held-out":
		return heldOut
	}
	return true
}

// The targets on repositories held out from tuning, every language alike.
const (
	heldOutRecall12  = 0.90
	heldOutRecall5   = 0.80
	heldOutPrecision = 0.50
	heldOutEmptyAvg  = 2.0
)

// judgeHeldOut prints the held-out figures against their targets and
// answers the exit code: 0 met, 1 missed.
func judgeHeldOut(e score) int {
	r5, r12, p12, empty := e.figures()
	fmt.Printf("held-out targets: recall@12 %.3f (>= %.2f), recall@5 %.3f (>= %.2f), precision@12 %.3f (>= %.2f), empty %.1f (<= %.1f)\n",
		r12, heldOutRecall12, r5, heldOutRecall5, p12, heldOutPrecision, empty, heldOutEmptyAvg)
	if r12 < heldOutRecall12 || r5 < heldOutRecall5 || p12 < heldOutPrecision || empty > heldOutEmptyAvg {
		fmt.Println("MISS")
		return 1
	}
	fmt.Println("PASS")
	return 0
}
