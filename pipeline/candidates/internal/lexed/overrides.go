package lexed

import (
	"context"
	"fmt"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// Below reports whether class sub extends or implements super, directly or
// through the classes h knows.
func (h *Hierarchy) Below(sub, super string) bool {
	seen := map[string]bool{}
	queue := append([]string(nil), h.Supers[sub]...)
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c = lastName(c); c == super {
			return true
		}
		if !seen[c] {
			seen[c] = true
			queue = append(queue, h.Supers[c]...)
		}
	}
	return false
}

// OverridesIn records that g overrides a touched method: a method g
// declares in a class below the touched method's class (h's supertypes)
// under the same name is bound to its signature and contract, as the
// override of a changed Java method is (every reader records it alike).
// touched answers the touched declarations of a name.
func OverridesIn(g *File, h *Hierarchy, touched func(name string) []*Sym, ev *engine.Evidence) {
	for _, d := range g.Decls {
		if d.Kind != "method" || d.Container == "" || d.Static {
			continue
		}
		for _, s := range touched(d.Name) {
			if s.Decl.Kind != "method" || s.Decl.Container == "" || s.Decl.Static || s.Via != "" || !h.Below(d.Container, s.Decl.Container) {
				continue
			}
			name := Display(s.Decl)
			ev.Add(g.Path, engine.Item{Kind: engine.KindImpact, Symbol: name, Method: engine.MethodTokens, Score: ScoreMember,
				Reason: fmt.Sprintf("overrides `%s`, %s", name, s.Change.Phrase())})
		}
	}
}

// subtypeHops bounds the rounds of Subtypes: a class three levels below a
// changed method's class still overrides it.
const subtypeHops = 3

// Subtypes finds the classes below classes (those extending or
// implementing one of them, directly or through each other) that a search
// by name would miss: a class two levels down does not name the changed
// method's class. Each round greps (globs) the names the round before
// found and reads the files it finds with supers (a file's classes and
// their direct supertypes). It answers the paths of the files declaring
// such classes, and the supertype edges found, for the reader's hierarchy.
func Subtypes(ctx context.Context, tree engine.Tree, ev *engine.Evidence, lang string, globs, classes []string, supers func(p string, src []byte) map[string][]string) ([]string, map[string][]string) {
	known := map[string]bool{}
	for _, c := range classes {
		known[c] = true
	}
	taken := map[string]bool{}
	edges := map[string][]string{}
	var paths []string
	for round := 0; round < subtypeHops && len(classes) > 0 && ctx.Err() == nil; round++ {
		found, err := tree.Grep(ctx, classes, globs, GrepLimit)
		if err != nil {
			return paths, edges
		}
		var todo []string
		for _, p := range found {
			if !taken[p] && !ev.Changed[p] && !engine.SkippedPath(p) {
				todo = append(todo, p)
			}
		}
		read := engine.ReadFiles(ctx, tree, ev, lang, todo, func(p string, src []byte) (map[string][]string, int, bool) {
			return supers(p, src), 0, true
		})
		classes = nil
		for i, ss := range read {
			below := false
			for c, sups := range ss {
				for _, s := range sups {
					if s = lastName(s); known[s] {
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
			}
		}
	}
	return paths, edges
}

// lastName is the last name of a dotted supertype (node.JsonNode).
func lastName(s string) string { return s[strings.LastIndexByte(s, '.')+1:] }
