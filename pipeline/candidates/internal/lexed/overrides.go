package lexed

import (
	"context"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// Below reports whether class sub extends or implements super, directly or
// through the classes h knows, each supertype named by its last name
// (LastName).
func (h *Hierarchy) Below(sub, super string) bool {
	return h.reach(append([]string(nil), h.Supers[sub]...), super, LastName)
}

// Reaches reports whether class sub is super or extends or implements it,
// directly or through the classes h knows, each class named whole (Java's
// Outer.Inner).
func (h *Hierarchy) Reaches(sub, super string) bool {
	return h.reach([]string{sub}, super, func(c string) string { return c })
}

// reach walks the supertypes up from the classes of queue, each named by
// name, and reports whether it meets super.
func (h *Hierarchy) reach(queue []string, super string, name func(string) string) bool {
	seen := map[string]bool{}
	for len(queue) > 0 {
		c := name(queue[0])
		queue = queue[1:]
		if c == super {
			return true
		}
		if !seen[c] {
			seen[c] = true
			queue = append(queue, h.Supers[c]...)
		}
	}
	return false
}

// Overrides is what a search knows of the classes below the classes of
// its touched methods: their overrides are bound to the changed method's
// signature and contract, as a Java override is (every reader records them
// alike), yet name neither the method's class nor, a level down, it.
type Overrides struct {
	touched map[string][]*Sym   // the touched instance methods, by name
	edges   map[string][]string // supertype edges found below their classes
}

// FindOverrides follows the classes of the touched methods down
// (Subtypes) and answers the files below them, paths and readings, for the
// search to search with its other files.
func FindOverrides[F any](ctx context.Context, tree engine.Tree, ev *engine.Evidence, l Lang, touched []*Sym, read func(p string, src []byte) (F, map[string][]string)) (*Overrides, []string, []F) {
	o := &Overrides{touched: map[string][]*Sym{}}
	var classes []string
	for _, s := range touched {
		if d := s.Decl; d.Kind == "method" && d.Container != "" && !d.Static && s.Via == "" {
			o.touched[d.Name] = append(o.touched[d.Name], s)
			classes = engine.AppendNew(classes, d.Container)
		}
	}
	if len(classes) == 0 {
		return o, nil, nil
	}
	paths, files, edges := Subtypes(ctx, tree, ev, l, classes, read)
	o.edges = edges
	return o, paths, files
}

// Record records, for each method of files declared in a class below a
// touched method's class (through files' classes and the edges found)
// under the same name, that it overrides it.
func Record[R Reading](o *Overrides, readings []R, ev *engine.Evidence) {
	if o == nil || len(o.touched) == 0 {
		return
	}
	h := NewHierarchy() // supertypes only: Below needs no members
	files := make([]*File, len(readings))
	for i, r := range readings {
		files[i] = r.Lexed()
		h.Add(files[i], nil)
	}
	for c, ss := range o.edges {
		for _, x := range ss {
			AddUnique(h.Supers, c, x)
		}
	}
	for _, g := range files {
		for _, d := range g.Decls {
			if d.Kind != "method" || d.Container == "" || d.Static {
				continue
			}
			for _, s := range o.touched[d.Name] {
				if h.Below(d.Container, s.Decl.Container) {
					ev.Add(g.Path, engine.ImpactItem("overrides", Display(s.Decl), s.Change, ScoreMember, engine.MethodTokens, false))
				}
			}
		}
	}
}

// subtypeHops bounds the rounds of Subtypes: a class three levels below a
// changed method's class still overrides it.
const subtypeHops = 3

// Subtypes finds the classes below classes (those extending or
// implementing one of them, directly or through each other) that a search
// by name would miss: a class two levels down does not name the changed
// method's class. Each round searches l's files for the names the round before
// found and reads the files it finds with read (the reader's reading of a
// file, and its classes' direct supertypes). It answers the files
// declaring such classes, their paths and readings (the reader searches
// them without reading them again), and the supertype edges found, for
// the reader's hierarchy.
func Subtypes[F any](ctx context.Context, tree engine.Tree, ev *engine.Evidence, l Lang, classes []string, read func(p string, src []byte) (F, map[string][]string)) ([]string, []F, map[string][]string) {
	known := map[string]bool{}
	for _, c := range classes {
		known[c] = true
	}
	taken := map[string]bool{}
	edges := map[string][]string{}
	var paths []string
	var files []F
	type reading struct {
		f      F
		supers map[string][]string
	}
	for round := 0; round < subtypeHops && len(classes) > 0 && ctx.Err() == nil; round++ {
		q := Query(l, classes)
		q.Skip = func(p string) bool { return taken[p] }
		todo, got, err := engine.Search(ctx, tree, ev, l.String(), q, func(p string, src []byte) (reading, int, bool) {
			f, s := read(p, src)
			return reading{f, s}, 0, true
		})
		if err != nil {
			return paths, files, edges
		}
		classes = nil
		for i, r := range got {
			below := false
			for c, sups := range r.supers {
				for _, s := range sups {
					if s = LastName(s); known[s] {
						below = true
						AddUnique(edges, c, s)
						if !known[c] {
							known[c] = true
							classes = append(classes, c)
						}
					}
				}
			}
			if below {
				taken[todo[i]] = true
				paths = append(paths, todo[i])
				files = append(files, r.f)
			}
		}
	}
	return paths, files, edges
}

// LastName is the last name of a dotted name: JsonNode of node.JsonNode
// (a supertype written through its module), Inner of Outer.Inner.
func LastName(s string) string { return s[strings.LastIndexByte(s, '.')+1:] }
