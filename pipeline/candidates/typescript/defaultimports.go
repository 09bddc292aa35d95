package typescript

import (
	"context"
	"maps"
	"path"
	"slices"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/candidates/typescript/modpaths"
	"github.com/prscout/prscout/pipeline/candidates/typescript/modtypes"
)

// maxDefaultImporters bounds the files read for the importers of a changed
// default export or keyword-named declaration (importersIn).
const maxDefaultImporters = 64

// importersIn records the files importing the changed file's default
// export under a name of their own (import N from './names', with names.ts
// holding const names = {...}; export default names) and using it, and
// those importing a touched top-level name that is a contextual keyword
// (export let string = {...} of a locale module, import {string as
// locale}): the references carry the importer's name, or a word nearly
// every file holds, which no search of the declaration's name finds. The
// importers are found by the module's name, which their import specifiers
// hold.
func (s *tokSearch) importersIn(ctx context.Context, tree engine.Tree, aliases *modpaths.Aliases, ev *engine.Evidence) error {
	nf := s.nf
	if nf == nil || nf.Lang != lexed.LangJS {
		return nil
	}
	def := modtypes.DefaultName(nf.File)
	var sym *lexed.Sym
	for _, x := range s.impactNames[def] {
		if topLevel(x) && !x.Ctor {
			sym = x
			break
		}
	}
	if sym == nil && len(s.keywords) == 0 {
		return nil
	}
	words := []string{moduleWord(s.c.Path)}
	if len(s.keywords) > 0 && s.re != nil {
		// import * as t from '../src', src/index.ts re-exporting it.
		for _, p := range slices.Sorted(maps.Keys(s.re.reach(s.c.Path))) {
			words = engine.AppendNew(words, moduleWord(p))
		}
	}
	paths, err := engine.Found(ctx, tree, ev, lexed.Query(lexed.LangJS, words))
	if err != nil {
		return err
	}
	m := madeValue{file: nf, name: def, def: true}
	skip := func(p string) bool { return p == nf.Path || ev.Changed[p] }
	return s.eachSearched(ctx, tree, aliases, ev, paths, maxDefaultImporters, skip, func(p string, h *jsFile) {
		if sym != nil && importsValue(h, m) {
			addRef(ev, p, sym, lexed.ScoreImported, false, false)
		}
		var namespaces []string
		if len(s.keywords) > 0 {
			_, _, namespaces, _ = s.reachOf(h)
		}
		for _, kw := range s.keywords {
			if namesImport(h, nf.Path, kw.Decl.Name) {
				addRef(ev, p, kw, lexed.ScoreImported, false, false)
			} else if call, ok := namespaceMemberUse(h, namespaces, kw.Decl.Name); ok {
				addRef(ev, p, kw, lexed.ScoreImported, call, false)
			}
		}
	})
}

// namesImport reports whether an import clause of h that resolves to
// target names name itself ({string}, {string as locale}); export * from
// target holds no reference to it.
func namesImport(h *jsFile, target, name string) bool {
	for i, im := range h.Imports {
		if resolves(h, i, target) && (slices.Contains(im.Names, name) || slices.Contains(slices.Collect(maps.Values(im.Renamed)), name)) {
			return true
		}
	}
	return false
}

// moduleWord is the word an import specifier naming the module at p holds:
// its file's stem, or its directory's name for an index (import N from
// './names' of names/index.ts).
func moduleWord(p string) string {
	if w := lexed.Stem(p); w != "index" {
		return w
	}
	return path.Base(engine.DirOf(p))
}

// namespaceMemberUse reports whether h names name as a member of one of
// namespaces (t.type), and whether it calls it.
func namespaceMemberUse(h *jsFile, namespaces []string, name string) (call, ok bool) {
	toks := h.Toks
	for i := 2; i < len(toks) && len(namespaces) > 0; i++ {
		if toks[i].Kind != lexed.TkIdent || toks[i].Text != name || toks[i-1].Text != "." || !slices.Contains(namespaces, toks[i-2].Text) {
			continue
		}
		if i >= 3 && toks[i-3].Text == "." {
			continue // a.t.type: another object's t
		}
		call = i+1 < len(toks) && toks[i+1].Text == "("
		ok = true
		if call {
			break
		}
	}
	return call, ok
}
