package groups

import (
	"path"
	"sort"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/ident"
)

// Plan partitions files (by index) into groups of at most room cost,
// related files together:
//
//  1. a file over room is a group alone (windowed later);
//  2. each directory (package) is one piece when it fits; a larger one is
//     cut into as few pieces as it can: its files (a file and its test
//     together) joined along the change's own names first, then packed by
//     size;
//  3. pieces of different directories joined along the change's own names
//     (strongest links first) while they fit;
//  4. the rest packed by size, largest first, each into the group sharing
//     the most of its directory that still has room (the fullest on a tie).
//
// Groups and their files come in path order.
func Plan(files []pipeline.ChangedFile, costs []int, room int) [][]pipeline.ChangedFile {
	return PlanLinked(files, costs, room, NameLinks(files))
}

// Links are the names that tie a change's files together (NameLinks).
type Links [][2]int

// PlanLinked is Plan with the files' NameLinks already made.
func PlanLinked(files []pipeline.ChangedFile, costs []int, room int, links Links) [][]pipeline.ChangedFile {
	byDir := map[string][]int{}
	var dirs []string
	var out [][]pipeline.ChangedFile
	emit := func(idx []int) {
		sort.Slice(idx, func(a, b int) bool { return files[idx[a]].Path < files[idx[b]].Path })
		g := make([]pipeline.ChangedFile, len(idx))
		for k, i := range idx {
			g[k] = files[i]
		}
		out = append(out, g)
	}
	for i, f := range files {
		if costs[i] > room {
			emit([]int{i})
			continue
		}
		d := path.Dir(f.Path)
		if _, ok := byDir[d]; !ok {
			dirs = append(dirs, d)
		}
		byDir[d] = append(byDir[d], i)
	}
	sort.Strings(dirs)

	var pieces []piece
	for _, d := range dirs {
		idx := byDir[d]
		sort.Slice(idx, func(a, b int) bool { return files[idx[a]].Path < files[idx[b]].Path })
		total := 0
		for _, i := range idx {
			total += costs[i]
		}
		if total <= room {
			pieces = append(pieces, piece{members: idx, cost: total, dir: d})
			continue
		}
		var parts []piece
		for _, i := range idx {
			st := stem(files[i].Path)
			if n := len(parts); n > 0 && stem(files[parts[n-1].members[0]].Path) == st && parts[n-1].cost+costs[i] <= room {
				parts[n-1].members = append(parts[n-1].members, i)
				parts[n-1].cost += costs[i]
				continue
			}
			parts = append(parts, piece{members: []int{i}, cost: costs[i], dir: d})
		}
		pieces = append(pieces, packPieces(joinLinked(parts, links, room), room)...)
	}
	for _, b := range packPieces(joinLinked(pieces, links, room), room) {
		emit(b.members)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i][0].Path < out[j][0].Path })
	return out
}

// piece is a set of files (by index) planned to share a group.
type piece struct {
	members []int
	cost    int
	dir     string // the directory of its first file
	dirs    map[string]bool
}

// joinLinked joins pieces along the name links (file index pairs), the
// pairs of pieces with the most links first, while the joined cost fits in
// room.
func joinLinked(ps []piece, links [][2]int, room int) []piece {
	of := map[int]int{}
	for pi, p := range ps {
		for _, i := range p.members {
			of[i] = pi
		}
	}
	weights := map[[2]int]int{}
	for _, l := range links {
		a, okA := of[l[0]]
		b, okB := of[l[1]]
		if !okA || !okB || a == b {
			continue
		}
		weights[[2]int{min(a, b), max(a, b)}]++
	}
	type pair struct{ a, b, w int }
	pairs := make([]pair, 0, len(weights))
	for k, w := range weights {
		pairs = append(pairs, pair{k[0], k[1], w})
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].w != pairs[j].w {
			return pairs[i].w > pairs[j].w
		}
		if pairs[i].a != pairs[j].a {
			return pairs[i].a < pairs[j].a
		}
		return pairs[i].b < pairs[j].b
	})
	parent := make([]int, len(ps))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	for _, p := range pairs {
		ra, rb := find(p.a), find(p.b)
		if ra == rb || ps[ra].cost+ps[rb].cost > room {
			continue
		}
		if rb < ra {
			ra, rb = rb, ra
		}
		parent[rb] = ra
		ps[ra].members = append(ps[ra].members, ps[rb].members...)
		ps[ra].cost += ps[rb].cost
	}
	var out []piece
	for i := range ps {
		if find(i) == i {
			out = append(out, ps[i])
		}
	}
	return out
}

// packPieces packs pieces into groups of at most room cost: largest first,
// each into the group sharing the most of its directory that still has
// room, the fullest such group on a tie, a new group when none has room.
func packPieces(ps []piece, room int) []piece {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].cost != ps[j].cost {
			return ps[i].cost > ps[j].cost
		}
		return ps[i].dir < ps[j].dir
	})
	var bins []*piece
	for _, p := range ps {
		var best *piece
		bestShare, bestLeft := -1, 0
		for _, b := range bins {
			left := room - b.cost - p.cost
			if left < 0 {
				continue
			}
			share := 0
			for d := range b.dirs {
				share = max(share, sharedDirs(d, p.dir))
			}
			if share > bestShare || (share == bestShare && left < bestLeft) {
				best, bestShare, bestLeft = b, share, left
			}
		}
		if best == nil {
			best = &piece{dir: p.dir, dirs: map[string]bool{}}
			bins = append(bins, best)
		}
		best.members = append(best.members, p.members...)
		best.cost += p.cost
		best.dirs[p.dir] = true
		for d := range p.dirs {
			best.dirs[d] = true
		}
	}
	out := make([]piece, len(bins))
	for i, b := range bins {
		out[i] = *b
	}
	return out
}

// sharedDirs counts the leading directory names a and b share; the same
// directory (the root included) outranks any shared prefix.
func sharedDirs(a, b string) int {
	if a == b {
		return 1 << 20
	}
	if a == "." || b == "." {
		return 0
	}
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	n := 0
	for n < len(as) && n < len(bs) && as[n] == bs[n] {
		n++
	}
	return n
}

// stem is a file's name without its extension and test affixes, so that
// "mux.go" and "mux_test.go", "app.ts" and "app.spec.ts", "util.py" and
// "test_util.py" share one.
func stem(p string) string {
	base := path.Base(p)
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	for _, suffix := range []string{"_test", "_spec", "Tests", "Test", "Spec"} {
		base = strings.TrimSuffix(base, suffix)
	}
	return strings.TrimPrefix(base, "test_")
}

// Bounds of the name links: the part of a diff scanned, the shortest name
// that counts, and how many changed files may declare one name before it is
// too common to link anything (String, Error, New...).
const (
	maxLinkScan       = 1 << 20
	minLinkName       = 3
	maxDeclaringFiles = 4
)

// declKeywords precede a declared name in the languages prscout reviews
// (Go, JavaScript and TypeScript, Python, Rust, Kotlin, Swift, Java/C#
// types, Ruby, PHP...).
var declKeywords = map[string]bool{
	"func": true, "function": true, "def": true, "fn": true, "fun": true, "class": true, "interface": true,
	"struct": true, "enum": true, "trait": true, "type": true, "record": true, "module": true, "object": true,
	"protocol": true, "const": true, "let": true, "var": true, "val": true, "typedef": true, "macro": true,
}

// declKeywordLens turns away most identifiers that are no declaration
// keyword before declKeywords is asked: the name links ask it of every
// identifier on a change's added lines.
var declKeywordLens = func() (l ident.Lens) {
	for k := range declKeywords {
		l.Add(k)
	}
	return l
}()

// isDeclKeyword reports whether t is one of declKeywords.
func isDeclKeyword(t string) bool { return declKeywordLens.May(t) && declKeywords[t] }

// NameLinks returns the links Plan joins files along: a pair (declaring
// file, using file) for every name declared in one changed file's added
// lines and used in another changed file's added or removed lines: a
// changed function and its changed callers.
// Each file's diff is scanned twice (declarations, then uses; at most
// maxLinkScan bytes of it), and a file gets at most maxLinksPerFile links,
// to the names it uses first: thousands of files sharing names cost time
// and memory linear in the change, not in its pairs of files. They depend
// on the files alone, so a caller may make them while it waits for
// something else.
func NameLinks(files []pipeline.ChangedFile) Links {
	// Both scans run on every core, a file at a time; the declared names
	// are joined in file order between them.
	decls := make([][]string, len(files)) // first occurrences, in order
	pipeline.Parallel(len(files), func(i int) {
		seenDecl := map[string]bool{}
		eachChangedLine(files[i].Diff, func(line string, added bool) {
			if !added {
				return
			}
			for at := 0; ; {
				start, end, ok := ident.Next(line, at, ident.Dollar)
				if !ok {
					break
				}
				at = end
				if !isDeclKeyword(line[start:end]) {
					continue
				}
				if name := declaredAfter(line, start, end); name != "" && !seenDecl[name] {
					seenDecl[name] = true
					decls[i] = append(decls[i], name)
				}
			}
		})
	})
	declared := map[string][]int{}
	var lens ident.Lens // turns away the names no file declares
	for i, names := range decls {
		for _, name := range names {
			declared[name] = append(declared[name], i)
			lens.Add(name)
		}
	}
	links := make([][][2]int, len(files))
	pipeline.Parallel(len(files), func(u int) {
		var toks []string
		seen := map[string]bool{}
		n := 0
		eachChangedLine(files[u].Diff, func(line string, _ bool) {
			if n >= maxLinksPerFile {
				return
			}
			toks = ident.AppendAll(toks[:0], line, ident.Dollar)
			for _, t := range toks {
				// A name no file declares links nothing, now or later.
				if !lens.May(t) || len(t) < minLinkName || isDeclKeyword(t) || seen[t] {
					continue
				}
				seen[t] = true
				by := declared[t]
				if len(by) > maxDeclaringFiles {
					continue
				}
				for _, d := range by {
					if d != u && n < maxLinksPerFile {
						links[u] = append(links[u], [2]int{d, u})
						n++
					}
				}
			}
		})
	})
	var out [][2]int
	for _, l := range links {
		out = append(out, l...)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i][0] != out[j][0] {
			return out[i][0] < out[j][0]
		}
		return out[i][1] < out[j][1]
	})
	return out
}

// maxLinksPerFile bounds the name links of one using file.
const maxLinksPerFile = 16

// eachChangedLine calls fn with each added or removed line of the first
// maxLinkScan bytes of diff (without its +/- sign), file headers left out.
func eachChangedLine(diff string, fn func(line string, added bool)) {
	if len(diff) > maxLinkScan {
		diff = diff[:maxLinkScan]
	}
	for len(diff) > 0 {
		line, rest, _ := strings.Cut(diff, "\n")
		diff = rest
		if line == "" || strings.HasPrefix(line, "+++ ") || strings.HasPrefix(line, "--- ") {
			continue
		}
		if line[0] == '+' || line[0] == '-' {
			fn(line[1:], line[0] == '+')
		}
	}
}

// declaredAfter returns the name the declaration keyword line[start:end]
// declares: the next identifier, skipping a Go method receiver "(r *T)".
// Both are looked for within declWindow bytes of the keyword, so that a
// line of keywords costs time linear in its length.
func declaredAfter(line string, start, end int) string {
	window := line[end:min(len(line), end+declWindow)]
	if line[start:end] == "func" {
		rest := strings.TrimLeft(window, " \t")
		if strings.HasPrefix(rest, "(") {
			if j := strings.IndexByte(rest, ')'); j >= 0 {
				window = rest[j+1:]
			}
		}
	}
	if s, e, ok := ident.Next(window, 0, ident.Dollar); ok {
		return keepName(window[s:e])
	}
	return ""
}

// declWindow bounds how far after a declaration keyword its name is looked
// for.
const declWindow = 256

func keepName(n string) string {
	if len(n) < minLinkName || declKeywords[n] {
		return ""
	}
	return n
}
