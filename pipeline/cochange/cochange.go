// Package cochange keeps the co-change history of a branch: which files
// changed together in the commits of its first-parent history, within
// bounds (the last MaxCommits commits and no older than MaxAge before the
// newest; commits over MaxFiles files count but say nothing), and answers
// for given paths the files that changed with them and how often, as
// association-rule mining counts them: support (commits that changed both)
// and confidence (the share of the commits changing a path that also
// changed the other).
//
// A Window is the bounded history as of one commit, built newest first
// from the commits a reader streams (a Builder). A Cache keeps the windows
// of recent commits; a window of a later commit is built from the new
// commits only, joined to a kept window the history reaches, and equals
// the window built from the whole history.
package cochange

import (
	"sort"
	"time"
)

// Bounds limit what a Window holds.
type Bounds struct {
	// MaxCommits is the number of commits a window holds at most.
	MaxCommits int
	// MaxAge drops commits older than the window's newest by more.
	MaxAge time.Duration
	// MaxFiles: a commit changing more files (a reformat, a vendored
	// update, a merge of a long branch) ties nothing together.
	MaxFiles int
}

// DefaultBounds are the last 2,000 commits or two years, whichever is less,
// commits over 50 files skipped.
var DefaultBounds = Bounds{MaxCommits: 2000, MaxAge: 2 * 365 * 24 * time.Hour, MaxFiles: 50}

// MinSupport is the number of commits two files must have changed together
// in before one is said to go with the other: once is a coincidence.
const MinSupport = 2

// Commit is one commit of a first-parent history.
type Commit struct {
	ID string
	// Time is the committer time, in Unix seconds.
	Time int64
	// Paths are the files the commit changed against its first parent.
	Paths []string
}

// end says why a window stops where it does.
type end int

const (
	endRoot  end = iota // the history has no older commit
	endAge              // the next commit (at Window.next) is older than the bound
	endCount            // MaxCommits reached: what follows is unknown
)

// Window is the bounded first-parent history as of its newest commit. It
// is not changed once built and is safe for concurrent use.
type Window struct {
	bounds  Bounds
	commits []Commit // newest first; a commit over MaxFiles has no Paths
	end     end
	next    int64 // the time of the commit after the last, with endAge

	pos     map[string]int   // commit id -> index in commits
	touches map[string][]int // path -> indices of the commits that changed it
}

// Len is the number of commits the window holds.
func (w *Window) Len() int { return len(w.commits) }

// Head is the id of the window's newest commit ("" for an empty history).
func (w *Window) Head() string {
	if len(w.commits) == 0 {
		return ""
	}
	return w.commits[0].ID
}

// index fills pos and touches.
func (w *Window) index() {
	w.pos = make(map[string]int, len(w.commits))
	w.touches = map[string][]int{}
	for i, c := range w.commits {
		w.pos[c.ID] = i
		for _, p := range c.Paths {
			w.touches[p] = append(w.touches[p], i)
		}
	}
}

// Pair says how often With changed together with Path in a window.
type Pair struct {
	// Path is one of the paths asked about.
	Path string
	// With is a file that changed in some of the commits changing Path.
	With string
	// Together is the number of commits that changed both (the support).
	Together int
	// Touching is the number of commits that changed Path.
	Touching int
}

// Confidence is the share of the commits changing Path that changed With.
func (p Pair) Confidence() float64 {
	if p.Touching == 0 {
		return 0
	}
	return float64(p.Together) / float64(p.Touching)
}

// Shrunk is the confidence with one more commit counted that changed Path
// without With: a pair seen in few commits counts for less (2 of 2 is
// 0.67, 7 of 9 is 0.7), a pair seen in many keeps its share.
func (p Pair) Shrunk() float64 {
	return float64(p.Together) / float64(p.Touching+1)
}

// CoChanged answers, for each of paths, the other files that changed
// together with it in at least MinSupport commits, the paths asked about
// left out; by shrunk confidence, then support, then path.
func (w *Window) CoChanged(paths []string) []Pair {
	asked := map[string]bool{}
	for _, p := range paths {
		asked[p] = true
	}
	var out []Pair
	for _, p := range dedupe(paths) {
		idx := w.touches[p]
		counts := map[string]int{}
		for _, i := range idx {
			for _, q := range w.commits[i].Paths {
				if !asked[q] {
					counts[q]++
				}
			}
		}
		for q, n := range counts {
			if n >= MinSupport {
				out = append(out, Pair{Path: p, With: q, Together: n, Touching: len(idx)})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if ca, cb := a.Shrunk(), b.Shrunk(); ca != cb {
			return ca > cb
		}
		if a.Together != b.Together {
			return a.Together > b.Together
		}
		if a.With != b.With {
			return a.With < b.With
		}
		return a.Path < b.Path
	})
	return out
}

// dedupe returns the distinct strings of ss, in order.
func dedupe(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// Builder builds a Window from a first-parent history read newest first:
// Add each commit until it answers false, then Window.
type Builder struct {
	bounds  Bounds
	known   func(id string) (*Window, int) // a kept window holding id, and where
	commits []Commit
	cutoff  int64
	end     end
	next    int64
	done    bool
	paths   map[string]string // each path once: commits share their strings
}

// NewBuilder starts a window with bounds b. known, when not nil, finds a
// kept window holding a commit: the builder then joins that window's
// older commits instead of reading them, when they are exactly those it
// would read.
func NewBuilder(b Bounds, known func(id string) (*Window, int)) *Builder {
	return &Builder{bounds: b, known: known}
}

// Add takes the next older commit and reports whether the builder wants
// more.
func (b *Builder) Add(c Commit) bool {
	if b.done {
		return false
	}
	if len(b.commits) == 0 {
		b.cutoff = c.Time - int64(b.bounds.MaxAge/time.Second)
	}
	if !b.take(c, true) {
		return false
	}
	if b.known != nil {
		if w, i := b.known(c.ID); w != nil && b.join(w, i) {
			return false
		}
	}
	return true
}

// take appends c when it fits the bounds, and ends the window when not;
// a fresh commit's paths are made distinct and shared (intern), a kept
// window's already are.
func (b *Builder) take(c Commit, fresh bool) bool {
	switch {
	case len(b.commits) >= b.bounds.MaxCommits:
		b.end, b.done = endCount, true
		return false
	case c.Time < b.cutoff:
		b.end, b.next, b.done = endAge, c.Time, true
		return false
	}
	if len(c.Paths) > b.bounds.MaxFiles {
		c.Paths = nil
	} else if fresh {
		c.Paths = dedupe(c.Paths)
		b.intern(c.Paths)
	}
	b.commits = append(b.commits, c)
	return true
}

// intern replaces each of paths by the copy the builder keeps.
func (b *Builder) intern(paths []string) {
	if b.paths == nil {
		b.paths = map[string]string{}
	}
	for i, p := range paths {
		if q, ok := b.paths[p]; ok {
			paths[i] = q
		} else {
			b.paths[p] = p
		}
	}
}

// join completes the window with w's commits after index i (the commit
// just taken) when they are exactly what reading on would take; otherwise
// it leaves the builder as it was.
func (b *Builder) join(w *Window, i int) bool {
	if w.bounds != b.bounds {
		return false
	}
	mark := len(b.commits)
	if b.extend(w, i+1) {
		return true
	}
	b.commits = b.commits[:mark]
	return false
}

// resume starts an empty builder with w's commits from index i on (the
// first-parent history from w's commit i is the same whichever window
// holds it) and returns the id of the last commit taken; ok is false,
// nothing taken, when w was built with other bounds or the builder has
// commits. When the window is not complete then, the history is to be
// read on after that last commit.
func (b *Builder) resume(w *Window, i int) (last string, ok bool) {
	if w.bounds != b.bounds || len(b.commits) > 0 || i >= len(w.commits) {
		return "", false
	}
	b.cutoff = w.commits[i].Time - int64(b.bounds.MaxAge/time.Second)
	if b.extend(w, i); len(b.commits) == 0 {
		return "", false // MaxCommits 0: the window is empty and done
	}
	return b.commits[len(b.commits)-1].ID, true
}

// extend takes w's commits from index from on and reports whether the
// window is complete: ended inside w, or where w ends for a reason that
// ends it too (decided as take would decide on the commit that follows).
func (b *Builder) extend(w *Window, from int) bool {
	for _, c := range w.commits[from:] {
		if !b.take(c, false) {
			return true // ended inside w: what follows in w is past the bounds
		}
	}
	switch {
	case w.end == endRoot:
		b.end, b.done = endRoot, true
	case len(b.commits) >= b.bounds.MaxCommits:
		b.end, b.done = endCount, true
	case w.end == endAge && w.next < b.cutoff:
		b.end, b.next, b.done = endAge, w.next, true
	default:
		return false
	}
	return true
}

// Window returns the window built; a history that ran out before the
// builder asked to stop ends at its root.
func (b *Builder) Window() *Window {
	w := &Window{bounds: b.bounds, commits: b.commits, end: endRoot}
	if b.done {
		w.end, w.next = b.end, b.next
	}
	w.index()
	return w
}
