package treesit

import (
	"cmp"
	"context"
	"path"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/candidates/treesit/ctext"
)

// A common C name (an error helper, a buffer type) is named by hundreds of
// files, and parsing each was most of a search's work. A C or C++ file can
// only use what a header declares if it includes that header, directly or
// through the headers it includes, or is the header's own unit: the
// search scans its hits' #include lines and words (ctext.Scan, no parse),
// builds the include graph from them and parses only the hits that can
// take part in the evidence (gate).

// gateIncludes turns the gate on (a test compares the search without it).
var gateIncludes = true

// maxHeldBytes bounds the hits' contents a search holds from their scan
// to their parse; those past it are read again.
const maxHeldBytes = 32 << 20

// maxPerWord bounds the hits parsed for one name of a search (gate.pick).
var maxPerWord = 24

// includeGraph is the part of a tree's include graph a search walks: each
// file's includes resolved to the tree's files.
type includeGraph struct {
	s      *search
	direct map[string][]string
	// users are the reverse edges: the files including each.
	users map[string][]string
	// unresolved are, by file, the parts of its includes that resolve to
	// no file of the tree (importParts).
	unresolved map[string][][]string
}

func newIncludeGraph(s *search) *includeGraph {
	return &includeGraph{s: s, direct: map[string][]string{}, users: map[string][]string{}, unresolved: map[string][][]string{}}
}

// add records p's includes, as its scan names them.
func (g *includeGraph) add(p string, incs []string) {
	if _, ok := g.direct[p]; ok {
		return
	}
	var out []string
	for _, inc := range incs {
		if q, ok := g.s.includes.Resolve(p, inc); !ok {
			g.unresolved[p] = append(g.unresolved[p], importParts(inc, ""))
		} else if q != p {
			out = append(out, q)
			g.users[q] = append(g.users[q], p)
		}
	}
	g.direct[p] = out
}

// load reads the files of ps not in the graph yet (engine.ReadFiles: on
// every core, while the time for reading lasts) and adds their includes.
func (g *includeGraph) load(ctx context.Context, ps []string) {
	var todo []string
	for _, p := range ps {
		if _, ok := g.direct[p]; !ok {
			todo = append(todo, p)
		}
	}
	scans := engine.ReadFiles(ctx, g.s.tree, g.s.ev, g.s.family, todo, func(_ string, src []byte) ([]string, int, bool) {
		return ctext.Scan(src, nil).Includes, 0, len(src) <= maxParseBytes
	})
	for i, p := range todo {
		g.add(p, scans[i])
	}
}

// closeOver adds to the graph every file the files of roots include,
// directly or not, and answers them with the roots.
func (g *includeGraph) closeOver(ctx context.Context, roots []string) map[string]bool {
	seen := map[string]bool{}
	frontier := roots
	for len(frontier) > 0 && ctx.Err() == nil {
		g.load(ctx, frontier)
		var next []string
		for _, p := range frontier {
			if seen[p] {
				continue
			}
			seen[p] = true
			for _, q := range g.direct[p] {
				if !seen[q] {
					next = append(next, q)
				}
			}
		}
		frontier = next
	}
	return seen
}

// reachable are the files of the graph p includes, directly or not, as
// far as the graph has read them.
func (g *includeGraph) reachable(p string) map[string]bool {
	seen := map[string]bool{}
	for frontier := g.direct[p]; len(frontier) > 0; {
		var next []string
		for _, q := range frontier {
			if !seen[q] {
				seen[q] = true
				next = append(next, g.direct[q]...)
			}
		}
		frontier = next
	}
	return seen
}

// includers are the files of the graph that include one of targets,
// directly or not, with the targets.
func (g *includeGraph) includers(targets []string) map[string]bool {
	seen := map[string]bool{}
	for len(targets) > 0 {
		var next []string
		for _, p := range targets {
			if seen[p] {
				continue
			}
			seen[p] = true
			next = append(next, g.users[p]...)
		}
		targets = next
	}
	return seen
}

// gate chooses which of a search's hits are parsed. Each name searched
// ranks the hits holding it by how they can see the file it is evidence
// for, as the include graph tells:
//
//   - seen: for a touched declaration, a hit that includes its file, a
//     header standing for it (cinclude.Includes.Reaches) or one naming it (its
//     prototype), directly or not, or shares its stem (calc.h for calc.c);
//     for a name an added line uses, a header the changed file includes,
//     directly or not, that declares the name, and that header's units
//     (second);
//   - near: a hit in the same directory;
//   - the rest, which the evidence lists only when at most maxUnseen hold
//     the name.
//
// Only the hits of a name's best rank are parsed (the evidence lists no
// others), and of those at most maxPerWord: the ones holding the most of
// the searched names, as they rank first.
type gate struct {
	s       *search
	paths   []string
	scans   []*cscan
	graph   *includeGraph
	holding map[string][]int // by name, the hits holding it
	keep    []bool
	at      map[string]int // a hit's index in paths
	// pending are the uses whose headers are parsed first: their units
	// are parsed only for the headers that declare the name.
	pending []pendingUse
}

// cscan is a hit's scan, with its content while the search holds it.
type cscan struct {
	ctext.Scanned
	src []byte
}

type pendingUse struct {
	u       use
	headers []int // the hits the changed file includes that hold the name
}

// newGate scans the hits at paths for words and their includes, and builds
// the include graph over them and the headers they include.
func (s *search) newGate(ctx context.Context, paths, words []string, ts []touched) *gate {
	want := make(map[string]bool, len(words))
	for _, w := range words {
		want[w] = true
	}
	for _, t := range ts {
		want[t.other()] = true
	}
	var held atomic.Int64
	scans := engine.ReadFiles(ctx, s.tree, s.ev, s.family, paths, func(_ string, src []byte) (*cscan, int, bool) {
		if len(src) > maxParseBytes {
			return nil, 0, false
		}
		sc := cscan{Scanned: ctext.Scan(src, want)}
		if held.Add(int64(len(src))) <= maxHeldBytes {
			sc.src = src
		}
		return &sc, 0, true
	})
	gt := &gate{s: s, paths: paths, scans: scans, graph: newIncludeGraph(s), holding: map[string][]int{}, keep: make([]bool, len(paths)),
		at: make(map[string]int, len(paths))}
	for i, p := range paths {
		gt.at[p] = i
	}
	var roots []string
	for i, sc := range scans {
		if sc == nil {
			continue
		}
		gt.graph.add(paths[i], sc.Includes)
		roots = append(roots, paths[i])
		for _, w := range sc.Words {
			gt.holding[w] = append(gt.holding[w], i)
		}
	}
	gt.graph.closeOver(ctx, roots)
	return gt
}

// pick keeps, of the hits is, those of the best rank (gate); seen says
// which are seen, from is the file they would be evidence for. With
// onlySeen, hits not seen are not kept.
func (gt *gate) pick(is []int, seen func(p string) bool, from string, onlySeen bool) []string {
	return gt.pickFirst(is, seen, from, onlySeen, "")
}

// pickFirst is pick that, past maxPerWord, keeps first the hits holding
// the name first (touched.other).
func (gt *gate) pickFirst(is []int, seen func(p string) bool, from string, onlySeen bool, first string) []string {
	var best []int
	bestRank := 0
	for _, i := range is {
		r := 0
		if seen(gt.paths[i]) {
			r = 2
		} else if engine.DirOf(gt.paths[i]) == engine.DirOf(from) {
			r = 1
		}
		if r > bestRank {
			best, bestRank = best[:0], r
		}
		if r == bestRank {
			best = append(best, i)
		}
	}
	if bestRank == 0 && len(best) > maxUnseen || onlySeen && bestRank < 2 {
		return nil
	}
	if len(best) > maxPerWord {
		slices.SortStableFunc(best, func(a, b int) int {
			if fa, fb := slices.Contains(gt.scans[a].Words, first), slices.Contains(gt.scans[b].Words, first); fa != fb {
				return cmp.Compare(b2i(fb), b2i(fa))
			}
			return len(gt.scans[b].Words) - len(gt.scans[a].Words)
		})
		best = best[:maxPerWord]
	}
	var out []string
	for _, i := range best {
		if !gt.keep[i] {
			gt.keep[i] = true
			out = append(out, gt.paths[i])
		}
	}
	return out
}

// first answers the hits parsed first: those the touched declarations ts
// rank best, and for the names us use, the headers holding them that the
// changed file includes (else the hits they rank best).
func (gt *gate) first(ctx context.Context, ts []touched, us []use) []string {
	s, g := gt.s, gt.graph
	byStem := map[string][]string{}
	for p := range g.direct {
		byStem[lexed.Stem(p)] = append(byStem[lexed.Stem(p)], p)
	}
	var out []string
	type target struct{ path, word string }
	done := map[target]bool{}
	for _, t := range ts {
		w := t.word()
		if done[target{t.f.path, w}] || len(gt.holding[w]) == 0 {
			continue
		}
		done[target{t.f.path, w}] = true
		targets := []string{t.f.path}
		for _, p := range byStem[lexed.Stem(t.f.path)] {
			if s.includes.Reaches(p, t.f.path) {
				targets = append(targets, p)
			}
		}
		for _, i := range gt.holding[w] {
			if !sourceExts[extOf(gt.paths[i])] {
				targets = append(targets, gt.paths[i])
			}
		}
		users := g.includers(targets)
		tp := modulePath(t.f.path)
		out = append(out, gt.pickFirst(gt.holding[w], func(p string) bool {
			return users[p] || slices.ContainsFunc(g.unresolved[p], func(ip []string) bool { return lastPartsReach(ip, tp) })
		}, t.f.path, false, t.other())...)
	}
	closures := map[*file]map[string]bool{}
	for _, u := range us {
		is := gt.holding[u.name]
		if len(is) == 0 || done[target{u.f.path, "\x00" + u.name}] {
			continue
		}
		done[target{u.f.path, "\x00" + u.name}] = true
		vis := closures[u.f]
		if vis == nil {
			vis = gt.closureOf(ctx, u.f)
			closures[u.f] = vis
		}
		var headers []int
		for _, i := range is {
			if vis[gt.paths[i]] && !sourceExts[extOf(gt.paths[i])] {
				headers = append(headers, i)
			}
		}
		if len(headers) == 0 {
			out = append(out, gt.pick(is, func(string) bool { return false }, u.f.path, false)...)
			continue
		}
		gt.pending = append(gt.pending, pendingUse{u, headers})
		out = append(out, gt.pick(headers, func(string) bool { return true }, u.f.path, false)...)
	}
	return out
}

// second answers the hits parsed next, parsed being the readings of the
// first (by path): the units of the headers that declare a used name, or
// when none does, the hits the name ranks best.
func (gt *gate) second(parsed map[string]*file) []string {
	var out []string
	for _, pu := range gt.pending {
		var declaring []string
		var others []int
		for _, i := range pu.headers {
			if f := parsed[gt.paths[i]]; f != nil && f.declares[pu.u.name] {
				declaring = append(declaring, gt.paths[i])
			}
		}
		for _, i := range gt.holding[pu.u.name] {
			if !slices.Contains(pu.headers, i) {
				others = append(others, i)
			}
		}
		if len(declaring) == 0 {
			out = append(out, gt.pick(others, func(string) bool { return false }, pu.u.f.path, false)...)
			continue
		}
		out = append(out, gt.pick(others, func(p string) bool {
			for _, h := range declaring {
				if gt.s.includes.Reaches(h, p) {
					return true
				}
			}
			return false
		}, pu.u.f.path, true)...)
	}
	return out
}

// held is the content of the hit at p its scan read, if it is held.
func (gt *gate) held(p string) []byte {
	if i, ok := gt.at[p]; ok && gt.scans[i] != nil {
		return gt.scans[i].src
	}
	return nil
}

// inOrder sorts files, readings of the hits, in the hits' order.
func (gt *gate) inOrder(files []*file) {
	slices.SortFunc(files, func(a, b *file) int { return gt.at[a.path] - gt.at[b.path] })
}

// other is the name of t's declaration besides the one searched: a
// member's type when its own name is searched, its own when its type's is
// ("" for none). A hit naming both refers to it the most surely
// (refersTo), and is parsed first.
func (t touched) other() string {
	if w := t.word(); w != t.d.name {
		return t.d.name
	}
	return t.d.container
}

// closureOf are the files f includes, directly or not. An include that
// resolves to no file of the tree stands for the hits whose last parts
// are its own (seesPath).
func (gt *gate) closureOf(ctx context.Context, f *file) map[string]bool {
	var roots []string
	for i, imp := range f.imports {
		if q, ok := gt.s.includes.Resolve(f.path, imp); ok {
			roots = append(roots, q)
			continue
		}
		for _, p := range gt.paths {
			if lastPartsReach(f.importParts[i], modulePath(p)) {
				roots = append(roots, p)
			}
		}
	}
	return gt.graph.closeOver(ctx, roots)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// extOf is p's extension in lower case.
func extOf(p string) string { return strings.ToLower(path.Ext(p)) }
