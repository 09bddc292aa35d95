package typescript

import (
	"context"
	"maps"
	"slices"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/candidates/typescript/modpaths"
)

// Functions exported under another name. An index may export a module's
// function under a name of its own (import {create as stringCreate} from
// './string' and export {stringCreate as string}, or export {create as
// string} from './string'): the callers of string() call the changed
// create, though their files hold neither create nor an import of its
// module.

// maxExportedAsFiles bounds the files read for the callers of the names a
// changed function is exported as (exportedAsIn).
const maxExportedAsFiles = 256

// readExportedAs fills s.exportedAs: the names the files re-exporting the
// changed file give its touched top-level names, each mapped to the name
// it renames.
func (s *tokSearch) readExportedAs() {
	if s.world == nil || s.re == nil || s.nf == nil {
		return
	}
	reach := s.re.reach(s.c.Path)
	for _, p := range slices.Sorted(maps.Keys(reach)) {
		f := s.re.file(p)
		if f == nil {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(s.world.Renamed(f.File))) {
			at, orig := s.world.DeclaredAs(f.File, name)
			if orig == name || (at != s.c.Path && (s.c.OldPath == "" || at != s.c.OldPath)) || !slices.ContainsFunc(s.impactNames[orig], topLevel) {
				continue
			}
			if s.exportedAs == nil {
				s.exportedAs = map[string]string{}
			}
			s.exportedAs[name] = orig
		}
	}
}

// exportedAsRenames adds to renamed the local names g binds, by an import
// of a file re-exporting the changed file, to a name s.exportedAs maps,
// each mapped to the changed file's name, and marks that name reached
// through an index (viaIndex). It returns the names of g's namespace
// imports of those files too (import * as yup: yup.string()).
func (s *tokSearch) exportedAsRenames(g *jsFile, viaIndex map[string]bool, renamed map[string]string) (map[string]string, []string) {
	if len(s.exportedAs) == 0 || g.Lang != lexed.LangJS {
		return renamed, nil
	}
	reach := s.re.reach(s.c.Path)
	var namespaces []string
	for i, im := range g.Imports {
		if im.Export || im.Call || !s.importsReexporter(g, i, reach) {
			continue
		}
		if im.Namespace != "" {
			namespaces = append(namespaces, im.Namespace)
		}
		for _, local := range im.Names {
			exported := local
			if r := im.Renamed[local]; r != "" {
				exported = r
			}
			orig := s.exportedAs[exported]
			if orig == "" {
				continue
			}
			if renamed == nil {
				renamed = map[string]string{}
			}
			renamed[local], viaIndex[orig] = orig, true
		}
	}
	return renamed, namespaces
}

// importsReexporter reports whether import i of g names one of the files
// of reach other than g.
func (s *tokSearch) importsReexporter(g *jsFile, i int, reach map[string]map[string]bool) bool {
	for p := range reach {
		if p != g.Path && resolves(g, i, p) {
			return true
		}
	}
	return false
}

// exportedAsIn records the references of the files holding a name of
// s.exportedAs the search by the touched names did not read.
func (s *tokSearch) exportedAsIn(ctx context.Context, tree engine.Tree, aliases *modpaths.Aliases, ev *engine.Evidence) error {
	var words []string
	for _, w := range slices.Sorted(maps.Keys(s.exportedAs)) {
		if len(s.impactNames[w]) == 0 {
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return nil
	}
	paths, err := engine.Found(ctx, tree, ev, lexed.Query(lexed.LangJS, words))
	if err != nil {
		return err
	}
	searched := map[string]bool{}
	for _, g := range s.files {
		searched[g.Path] = true
	}
	skip := func(p string) bool {
		return searched[p] || ev.Changed[p] || engine.SkippedPath(p) || s.world.Shadowed(p)
	}
	return s.eachSearched(ctx, tree, aliases, ev, paths, maxExportedAsFiles, skip, func(_ string, h *jsFile) { s.impactIn(h, ev) })
}
