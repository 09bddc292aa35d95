package golang

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"

	"github.com/prscout/prscout/pipeline/candidates/golang/goscan"
)

// Most of a Go file is function bodies, and the engine reads few of them:
// lookups need declarations and signatures only, and a walk skips every
// declaration that holds no added line or changed name. So a file is parsed
// with the bodies it does not need blanked out: each byte between the braces
// turned into a space (newlines kept), which leaves every offset and line of
// the rest as they were and gives the parser an empty block to read.

// parseKeep returns Go source of path p parsed with the bodies keep asks
// for (keep nil: none) and the others blanked. When the blanked source
// does not parse cleanly into the same functions (source gofmt did not
// write, a raw string holding a line "}"), the whole source is parsed
// instead.
func parseKeep(p string, src []byte, keep func(goscan.Body) bool) *goFile {
	return parseIn(p, src, goscan.Bodies(src), keep)
}

// parseIn is parseKeep for src whose function bodies are bodies
// (goscan.Bodies).
func parseIn(p string, src []byte, bodies []goscan.Body, keep func(goscan.Body) bool) *goFile {
	var blank []goscan.Body
	for _, b := range bodies {
		if keep == nil || !keep(b) {
			blank = append(blank, b)
		}
	}
	return parseBlanked(p, src, blank)
}

// parseBlanked parses src with the bodies blank blanked, or whole when
// they do not blank cleanly.
func parseBlanked(p string, src []byte, blank []goscan.Body) *goFile {
	if len(blank) == 0 {
		return parseSrc(p, src)
	}
	buf := bytes.Clone(src)
	for _, b := range blank {
		for i := b.Open + 1; i < b.Close; i++ {
			if buf[i] != '\n' {
				buf[i] = ' '
			}
		}
	}
	fset := token.NewFileSet()
	a, err := parser.ParseFile(fset, p, buf, parser.SkipObjectResolution)
	if err != nil || a == nil || !blankedAsFound(fset, a, blank) {
		return parseSrc(p, src)
	}
	f := fileOf(fset, p, src, a)
	if f != nil {
		f.blanked = make(map[int]goscan.Body, len(blank))
		for _, b := range blank {
			f.blanked[b.Start] = b
		}
	}
	return f
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

// parsedFor returns head file p parsed with at least the bodies keep asks
// for (nil: none): the request's parse of p when it has them, otherwise
// made (a parse of p's head content with keep already made; nil: none) or
// a new one, which replaces it. nil when p cannot be read or is no Go.
// Once the search for references is planned, a new parse also keeps the
// bodies that search walks in p, which then takes this parse as its own.
func (e *goEngine) parsedFor(p string, keep func(goscan.Body) bool, made *goFile) *goFile {
	return e.files.parsed(p, keep, func() *goFile {
		if made != nil {
			return made
		}
		src := e.read(p)
		if src == nil {
			return nil
		}
		k := keep
		if k == nil && e.plan != nil {
			if c := e.plan.filter(p, src); c != nil {
				k = walkKeep(c.at)
			}
		}
		return parseIn(p, src, e.bodiesOf(src), k)
	})
}

// walkKeep returns the bodies the walk for names read at offsets at
// reads: those that hold one.
func walkKeep(at []int) func(goscan.Body) bool {
	return func(b goscan.Body) bool { return namedIn(at, b.Start, b.Close+1) }
}
