package golang

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"

	"github.com/prscout/prscout/pipeline/candidates/golang/goscan"
	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// Most of a Go file is function bodies, and the engine reads few of them:
// lookups need declarations and signatures only, and a walk skips every
// declaration that holds no added line or changed name. So a file is parsed
// with the bodies it does not need blanked out: each byte between the braces
// turned into a space (newlines kept), which leaves every offset and line of
// the rest as they were and gives the parser an empty block to read.

// parseKeep returns Go source of path p parsed with at least the bodies
// keep asks for (keep nil: none). A file's parses are kept across requests
// by path and content (goParses): one that holds the bodies is shared,
// else the source is parsed with the other bodies blanked. When the blanked
// source does not parse cleanly into the same functions (source gofmt did
// not write, a raw string holding a line "}"), the whole source is parsed
// instead.
func (e *goEngine) parseKeep(p string, src []byte, keep func(goscan.Body) bool) *goFile {
	k := engine.KeyAt("go", p, e.sumOf(src))
	ps, ok := engine.Get[*goParses](e.cache, k)
	if !ok {
		ps = &goParses{bodies: goscan.Bodies(src)}
	}
	var kept, blank []goscan.Body
	for _, b := range ps.bodies {
		if keep != nil && keep(b) {
			kept = append(kept, b)
		} else {
			blank = append(blank, b)
		}
	}
	if ps.none {
		return nil
	}
	for _, f := range ps.files {
		if f.holds(kept) {
			return f
		}
	}
	f := parseBlanked(p, src, blank)
	nps, w := ps.with(f, len(src))
	e.cache.Put(k, nps, w)
	return f
}

// goParses is what is kept of one Go file's content across requests: its
// function bodies and the parses made of it, each with other bodies
// blanked (newest first), or none when it is no Go. A goParses and its
// files never change once kept: a new parse makes a new goParses.
type goParses struct {
	bodies []goscan.Body
	files  []*goFile
	none   bool
	weight int64
}

// maxParses bounds the parses kept of one content.
const maxParses = 3

// with returns ps with f added (nil: the source is no Go) and the parses f
// holds every body of dropped, and the estimate of its memory.
func (ps *goParses) with(f *goFile, n int) (*goParses, int64) {
	out := &goParses{bodies: ps.bodies, none: f == nil}
	if f != nil {
		out.files = append(out.files, f)
		for _, o := range ps.files {
			if len(out.files) < maxParses && !o.holdsAllOf(f) {
				out.files = append(out.files, o)
			}
		}
	}
	out.weight = int64(n) + int64(len(out.bodies))*48
	for _, f := range out.files {
		out.weight += f.weight
	}
	return out, out.weight
}

// parseBlanked parses src with the bodies blank blanked, or whole when
// they do not blank cleanly.
func parseBlanked(p string, src []byte, blank []goscan.Body) *goFile {
	if len(blank) == 0 {
		return parseWhole(p, src)
	}
	buf := bytes.Clone(src)
	parsed := len(src)
	for _, b := range blank {
		for i := b.Open + 1; i < b.Close; i++ {
			if buf[i] != '\n' {
				buf[i] = ' '
			}
		}
		parsed -= b.Close - b.Open - 1
	}
	fset := token.NewFileSet()
	a, err := parser.ParseFile(fset, p, buf, parser.SkipObjectResolution)
	if err != nil || a == nil || !blankedAsFound(fset, a, blank) {
		return parseWhole(p, src)
	}
	f := fileOf(fset, p, src, a)
	if f != nil {
		f.blanked = make(map[int]goscan.Body, len(blank))
		for _, b := range blank {
			f.blanked[b.Start] = b
		}
		f.weight = parsedWeight(parsed)
	}
	return f
}

// parseWhole parses all of src.
func parseWhole(p string, src []byte) *goFile {
	f := parseSrc(p, src)
	if f != nil {
		f.weight = parsedWeight(len(src))
	}
	return f
}

// parsedWeight estimates the memory the syntax tree of n bytes of Go takes
// (about 6.6 bytes a byte for gofmt-formatted code).
func parsedWeight(n int) int64 { return int64(n) * 7 }

// holds reports whether f has every body of bodies.
func (f *goFile) holds(bodies []goscan.Body) bool {
	for _, b := range bodies {
		if _, ok := f.blanked[b.Start]; ok {
			return false
		}
	}
	return true
}

// holdsAllOf reports whether f has every body g has.
func (f *goFile) holdsAllOf(g *goFile) bool {
	for start := range f.blanked {
		if _, ok := g.blanked[start]; !ok {
			return false
		}
	}
	return true
}

// blankedAsFound reports whether every blanked body is the body of a
// top-level function of a, brace for brace.
func blankedAsFound(fset *token.FileSet, a *ast.File, blank []goscan.Body) bool {
	tf := fset.File(a.FileStart)
	if tf == nil {
		return false
	}
	want := make(map[int]int, len(blank))
	for _, b := range blank {
		want[b.Open] = b.Close
	}
	n := 0
	for _, d := range a.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		open := tf.Offset(fd.Body.Lbrace)
		if c, ok := want[open]; ok {
			if tf.Offset(fd.Body.Rbrace) != c || len(fd.Body.List) != 0 {
				return false
			}
			n++
		}
	}
	return n == len(blank)
}

// covers reports whether f holds every body keep asks for.
func (f *goFile) covers(keep func(goscan.Body) bool) bool {
	if keep == nil {
		return true
	}
	for _, b := range f.blanked {
		if keep(b) {
			return false
		}
	}
	return true
}

// parseFor returns head file p parsed with at least the bodies keep asks
// for (nil: none): the cached parse when it has them, otherwise a new one
// that replaces it. nil when p cannot be read or is no Go.
func (e *goEngine) parseFor(p string, keep func(goscan.Body) bool) *goFile {
	return e.parsedFor(p, keep, nil)
}

// parsedFor is parseFor with a parse of p's head content already made with
// keep (nil: none), used instead of parsing again.
func (e *goEngine) parsedFor(p string, keep func(goscan.Body) bool, made *goFile) *goFile {
	if f, ok := e.files[p]; ok && (f == nil || f.covers(keep)) {
		return f
	}
	src := e.read(p)
	if src == nil {
		e.files[p] = nil
		return nil
	}
	f := made
	if f == nil {
		f = e.parseKeep(p, src, keep)
	}
	e.files[p] = f
	return f
}
