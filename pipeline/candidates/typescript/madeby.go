package typescript

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/candidates/typescript/modpaths"
	"github.com/prscout/prscout/pipeline/candidates/typescript/modtypes"
)

// Values a changed function makes. got's index holds const got =
// create(defaults): with create's body changed, every got(...) of the
// repository runs the new body, so the files that import got reach the
// change as surely as the index does. The module-level values of the
// searched files that are initialized by a call (or new) of a touched
// function are looked up in the files importing them.

// maxMadeValues bounds the values followed per change, each one search.
const maxMadeValues = 4

// scoreMade ranks a user of a made value after the direct evidence: the
// change reaches it one step further.
const scoreMade = 0.5

// madeValue is a module-level value of another file made by a touched
// function.
type madeValue struct {
	file *jsFile
	name string     // the value's name in file
	def  bool       // file exports it by default
	by   *lexed.Sym // the touched function
}

// madeValues returns the values of the searched files that touched
// module-level functions make: const x = f(...) or new F(...) where the
// file imports f from the changed file.
func (s *tokSearch) madeValues() []madeValue {
	if !slices.ContainsFunc(s.words, func(w string) bool { return s.touchedTop(w) != nil }) {
		return nil
	}
	var out []madeValue
	// The change's other files count too: got's index changed with create
	// still makes got.
	for k, g := range append(slices.Clip(s.files), s.peers...) {
		if len(g.Toks) == 0 || g.Types == nil || k >= len(s.files) && !s.mentionsTouched(g) {
			continue // no touched name in it
		}
		def := "" // g's default export's name, read when a value is found
		for _, d := range g.Decls {
			if d.Container != "" || d.Kind != "variable" || len(out) == maxMadeValues {
				continue
			}
			for _, makers := range [][]string{g.Types.Calls[d.Name], g.Types.Vars[d.Name]} { // f(...), new C(...)
				sym := s.madeBy(g, makers)
				if sym == nil {
					continue
				}
				if def == "" {
					def = cmp.Or(modtypes.DefaultName(g.File), " ")
				}
				out = append(out, madeValue{file: g, name: d.Name, def: def == d.Name, by: sym})
				break
			}
		}
	}
	return out
}

// madeBy returns the touched module-level function or class among the
// makers of a value of g (the functions it was assigned a call of, or the
// classes of a new) that g imports from the changed file; nil for none.
func (s *tokSearch) madeBy(g *jsFile, makers []string) *lexed.Sym {
	for _, fn := range makers {
		if sym := s.touchedTop(fn); sym != nil && (importsName(g, s.c.Path, fn) || s.re != nil && s.re.importsVia(g, s.c.Path, fn)) {
			return sym
		}
	}
	return nil
}

// touchedTop returns the touched module-level function or class named
// name, nil for none.
func (s *tokSearch) touchedTop(name string) *lexed.Sym {
	for _, sym := range s.impactNames[name] {
		if sym.Decl.Container == "" && sym.Via == "" && (sym.Decl.Kind == "function" || sym.Decl.Kind == "class" || sym.Ctor) {
			return sym
		}
	}
	return nil
}

// madeUsesIn records the files importing the values of made, found by a
// search of their names: each uses what the changed function made.
func (s *tokSearch) madeUsesIn(ctx context.Context, tree engine.Tree, aliases *modpaths.Aliases, made []madeValue, ev *engine.Evidence) error {
	var words []string
	for _, m := range made {
		words = engine.AppendNew(words, m.name)
	}
	paths, err := engine.Found(ctx, tree, ev, lexed.Query(lexed.LangJS, words))
	if err != nil {
		return err
	}
	for _, p := range paths {
		h, err := s.searchedFile(ctx, tree, p, aliases)
		if h == nil {
			if err != nil {
				return err
			}
			continue
		}
		for _, m := range made {
			if p == m.file.Path || !importsValue(h, m) {
				continue
			}
			fn := lexed.Display(m.by.Decl)
			ev.Add(p, engine.Item{Kind: engine.KindImpact, Symbol: m.name, Method: engine.MethodTokens, Score: scoreMade, Change: m.by.Change,
				Reason: fmt.Sprintf("uses `%s`, which `%s` makes in %s, %s", m.name, fn, engine.PathBase(m.file.Path), m.by.Change.Phrase())})
		}
	}
	return nil
}

// importsValue reports whether h imports m's value (by name, or as the
// default export) and uses it beyond the import.
func importsValue(h *jsFile, m madeValue) bool {
	for i, im := range h.Imports {
		// Only an import that names the file for sure: a relative path, an
		// alias or a workspace package (a bare name compared by its tail
		// could be another package's utils/trpc).
		if im.Export || !h.forms[i].rel && len(h.forms[i].aliased) == 0 || !resolves(h, i, m.file.Path) {
			continue
		}
		local := ""
		switch {
		case m.def && im.Default != "":
			local = im.Default
		case slices.Contains(im.Names, m.name):
			local = m.name
		default:
			continue
		}
		n := 0
		for _, t := range h.Toks {
			if t.Text == local && t.Kind == lexed.TkIdent {
				if n++; n > 1 {
					return true
				}
			}
		}
	}
	return false
}
