package typescript

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/candidates/typescript/modpaths"
)

// JS module re-exports, followed transitively: a package's index re-exports
// its modules' names (export * from, export {a} from, import {a}; export
// {a}), often through several indexes, so a file importing a name from the
// package's entry refers to the module that declares it. The indexes need
// not mention the name (export * from does not), so they are looked up by
// place: the index files (and the files named like a directory) of the
// directories above a changed file and above the modules its imports name.

// Bounds of the lookup of indexes, so a deep tree costs a few listings.
const (
	maxIndexDirs  = 24
	maxIndexFiles = 40
)

// reexports answers which files re-export which names of a target file.
type reexports struct {
	files []*jsFile                             // files with export ... from (or export {imported})
	memo  map[string]map[string]map[string]bool // target -> re-exporter -> names ("*": all)
}

func newReexports() *reexports { return &reexports{memo: map[string]map[string]map[string]bool{}} }

// add records f when it re-exports something (once per path).
func (r *reexports) add(f *jsFile) {
	if f == nil || f.Lang != lexed.LangJS || !slices.ContainsFunc(f.Imports, func(im lexed.Import) bool { return im.Export }) {
		return
	}
	if slices.ContainsFunc(r.files, func(g *jsFile) bool { return g.Path == f.Path }) {
		return
	}
	r.files = append(r.files, f)
	clear(r.memo)
}

// reach returns, for each file re-exporting names of target (directly or
// through other re-exporters), the names it re-exports ("*" for all).
func (r *reexports) reach(target string) map[string]map[string]bool {
	if m, ok := r.memo[target]; ok {
		return m
	}
	reach := map[string]map[string]bool{}
	for changed, round := true, 0; changed && round < 8; round++ {
		changed = false
		for _, f := range r.files {
			if f.Path == target {
				continue
			}
			for i, im := range f.Imports {
				if !im.Export {
					continue
				}
				var from map[string]bool
				if resolves(f, i, target) {
					from = map[string]bool{"*": true}
				} else {
					for p, names := range reach {
						if p != f.Path && resolves(f, i, p) {
							if from == nil {
								from = map[string]bool{}
							}
							for n := range names {
								from[n] = true
							}
						}
					}
				}
				if from == nil {
					continue
				}
				got := reach[f.Path]
				if got == nil {
					got = map[string]bool{}
					reach[f.Path] = got
				}
				names := im.Names
				if im.Wildcard {
					names = slices.Collect(func(yield func(string) bool) {
						for n := range from {
							if !yield(n) {
								return
							}
						}
					})
				}
				for _, n := range names {
					if (from[n] || from["*"]) && !got[n] {
						got[n] = true
						changed = true
					}
				}
			}
		}
	}
	r.memo[target] = reach
	return reach
}

// file returns the re-exporting file at p, nil when none was added.
func (r *reexports) file(p string) *jsFile {
	if i := slices.IndexFunc(r.files, func(f *jsFile) bool { return f.Path == p }); i >= 0 {
		return r.files[i]
	}
	return nil
}

// importsVia reports whether f imports name from a file that re-exports it
// from target.
func (r *reexports) importsVia(f *jsFile, target, name string) bool {
	if r == nil || f.Lang != lexed.LangJS {
		return false
	}
	for p, names := range r.reach(target) {
		if p != f.Path && (names[name] || names["*"]) && importsName(f, p, name) {
			return true
		}
	}
	return false
}

// importsAnyVia reports whether f imports from a file that re-exports
// something of target.
func (r *reexports) importsAnyVia(f *jsFile, target string) bool {
	if r == nil || f.Lang != lexed.LangJS {
		return false
	}
	for p := range r.reach(target) {
		if p != f.Path && importsFile(f, p) {
			return true
		}
	}
	return false
}

// namespaceOf returns the namespace imports of f (import * as ns) that can
// name target, directly or through a re-exporter.
func (r *reexports) namespaceOf(f *jsFile, target string) []string {
	var out []string
	for i, im := range f.Imports {
		if im.Namespace == "" {
			continue
		}
		if resolves(f, i, target) {
			out = append(out, im.Namespace)
			continue
		}
		if r != nil {
			for p, names := range r.reach(target) {
				if names["*"] && resolves(f, i, p) {
					out = append(out, im.Namespace)
					break
				}
			}
		}
	}
	return out
}

// indexCandidates returns the paths of the files that may re-export the
// modules of paths: the index files of their directories and of the
// directories above, and the files named like one of those directories.
func indexCandidates(ctx context.Context, tree engine.Tree, paths []string) []string {
	dirs := map[string]string{} // dir -> the child on the way down ("" for the file's own dir)
	var order []string
	for _, p := range paths {
		child := ""
		for d := engine.DirOf(p); len(order) < maxIndexDirs; d = engine.DirOf(d) {
			if _, ok := dirs[d]; !ok {
				order = append(order, d)
				dirs[d] = ""
			}
			if child != "" && dirs[d] == "" {
				dirs[d] = child
			}
			if d == "" {
				break
			}
			child = path.Base(d)
		}
	}
	var out []string
	for _, d := range order {
		if ctx.Err() != nil || len(out) >= maxIndexFiles {
			break
		}
		files, err := tree.ListDir(ctx, d)
		if err != nil {
			continue
		}
		for _, f := range files {
			if lexed.LangOf(f) != lexed.LangJS || engine.SkippedPath(f) {
				continue
			}
			base := lexed.Stem(f)
			if base == "index" || base == "mod" || (dirs[d] != "" && base == dirs[d]) || isDirNamed(f, paths) {
				out = append(out, f)
			}
		}
	}
	return out
}

// isDirNamed reports whether f (dir/x.ts) is named like a directory dir/x/
// holding one of paths.
func isDirNamed(f string, paths []string) bool {
	prefix := lexed.StripExt(f) + "/"
	for _, p := range paths {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

// importDirs returns the directories the relative and aliased imports of f
// name (a module's own directory, for ./dir/x, and ./dir itself).
func importDirs(f *jsFile) []string {
	var out []string
	add := func(p string) {
		if strings.HasPrefix(p, "..") || strings.HasPrefix(p, "/") {
			return
		}
		out = append(out, p)
		if specStem(p) == p {
			out = append(out, p+"/x")
		}
	}
	for _, im := range f.Imports {
		if !strings.HasPrefix(im.Spec, "./") && !strings.HasPrefix(im.Spec, "../") {
			// A path alias or workspace package ("zustand" for src/index.ts)
			// names files the same way.
			for _, p := range f.aliases.Resolve(im.Spec) {
				add(p)
			}
			continue
		}
		add(path.Join(engine.DirOf(f.Path), im.Spec))
	}
	return out
}

// jsModules is what one Find knows of the JS modules beyond the searched
// files: the re-exporters read so far and the paths already looked up.
type jsModules struct {
	re     *reexports
	looked map[string]bool
	// lexed are the searched files read so far: the changes of one diff
	// search many of the same files.
	lexed map[string]*jsFile
	cache *engine.Cache // readings kept across requests
}

func newJSModules(cache *engine.Cache) *jsModules {
	return &jsModules{cache: cache, re: newReexports(), looked: map[string]bool{}, lexed: map[string]*jsFile{}}
}

// lookUp reads the index candidates of paths not read yet and records the
// re-exporters among them.
func (m *jsModules) lookUp(ctx context.Context, tree engine.Tree, paths []string, aliases *modpaths.Aliases) {
	for _, p := range indexCandidates(ctx, tree, paths) {
		if m.looked[p] {
			continue
		}
		m.looked[p] = true
		src, err := tree.ReadFile(ctx, p)
		if err != nil {
			continue
		}
		f := cachedJS(m.cache, p, src, aliases)
		m.re.add(f)
	}
}

// maxBarrels bounds the modules one search reads because searched files
// import the changed names from them (barrelsIn).
const maxBarrels = 16

// barrelsIn reads the modules the searched files import the changed file's
// top-level names from, when no lookup by place read them: a barrel named
// decorators.ts re-exporting a hundred modules with export * from is found
// through its importers, not by its name, and re-exporting the changed
// file it leads them to it.
func (s *tokSearch) barrelsIn(ctx context.Context, tree engine.Tree, aliases *modpaths.Aliases, mods *jsModules) {
	if s.world == nil {
		return
	}
	read := 0
	for _, g := range s.files {
		for _, im := range g.Imports {
			if im.Export || im.Call || read >= maxBarrels || externalImport(g, im) ||
				!slices.ContainsFunc(im.Names, func(n string) bool { return slices.ContainsFunc(s.impactNames[n], topLevel) }) {
				continue
			}
			p := s.world.ImportPath(g.File, im.Spec)
			if p == "" || p == s.c.Path || mods.looked[p] {
				continue
			}
			mods.looked[p] = true
			read++
			if f, _ := s.searchedFile(ctx, tree, p, aliases); f != nil {
				mods.re.add(f)
			}
		}
	}
}

// namespaceUsesIn records the modules that the receivers of members on
// added lines bind as namespaces (z of z.string(), with import * as z from
// '.' or import {z} from '..' passing on another module's namespace): the
// name stands for the module itself, whatever member it reaches.
func (s *tokSearch) namespaceUsesIn(ev *engine.Evidence) {
	nf := s.nf
	if nf == nil || s.world == nil || nf.Lang != lexed.LangJS {
		return
	}
	imported := map[string]bool{}
	for _, im := range nf.Imports {
		if !im.Call && !im.Export {
			if im.Namespace != "" {
				imported[im.Namespace] = true
			}
			for _, n := range im.Names {
				imported[n] = true
			}
		}
	}
	seen := map[string]bool{}
	for i, t := range nf.Toks {
		if t.Kind != lexed.TkIdent || !s.c.Added[t.Line] || !imported[t.Text] || seen[t.Text] || lexed.TextAt(nf.Toks, i+1) != "." ||
			i > 0 && nf.Toks[i-1].Text == "." || shadowedAt(nf, i) {
			continue
		}
		seen[t.Text] = true
		p := s.world.NamespaceFile(nf.File, t.Text)
		if p == "" || ev.Changed[p] || engine.SkippedPath(p) {
			continue
		}
		ev.Add(p, engine.Item{Kind: engine.KindUses, Symbol: t.Text, Method: engine.MethodTokens, Score: lexed.ScoreImported,
			Reason: fmt.Sprintf("is the module `%s` names, used by the change in %s", t.Text, engine.PathBase(s.c.Path))})
	}
}
