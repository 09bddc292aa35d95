// Package typescript is the candidates engine for TypeScript and
// JavaScript: files read as tokens by the shared lexer (names in strings
// and comments do not count, those in a template's ${...} do),
// declarations found by token patterns
// (js.go), imports, re-exports, path aliases and workspace packages
// resolved to files (jsimports.go, jsmodules.go, package modpaths), members
// followed through the declared-type model (jsmembers.go, package
// modtypes), class hierarchies (search.go) and the values a changed
// function makes (madeby.go).
package typescript

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/candidates/typescript/modpaths"
	"github.com/prscout/prscout/pipeline/candidates/typescript/modtypes"
)

// find lists the candidates of the TypeScript/JavaScript changes of cs into
// ev (other files of cs are left to their engines). The changes share one
// search: the union of their words is looked up once, and each change keeps
// the files that hold one of its own words as an identifier.
func find(ctx context.Context, tree engine.Tree, _, cs []*engine.Change, ev *engine.Evidence) error {
	var group []*tokSearch
	var aliases *modpaths.Aliases
	var world *modtypes.World
	mods := newJSModules(ev.Cache)
	for _, c := range cs {
		if lexed.LangOf(c.Path) != lexed.LangJS {
			continue
		}
		if world == nil {
			// The reading of types across modules resolves imports
			// through the same aliases and workspace packages.
			aliases = modpaths.Load(ctx, tree)
			world = newTypeWorld(ctx, tree, aliases, ev.Cache)
		}
		if s := prepareSearch(c, aliases, mods, world); s != nil {
			s.shared = true
			group = append(group, s)
		}
	}
	if len(group) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	newGroupWords(group)
	paths, err := groupPaths(ctx, tree, ev, group, aliases, mods)
	if err != nil {
		return err
	}
	var touched []*lexed.Sym
	for _, s := range group {
		for _, ss := range s.impactNames {
			touched = append(touched, ss...)
		}
	}
	overrides, below, belowFiles := lexed.FindOverrides(ctx, tree, ev, lexed.LangJS, touched, func(p string, src []byte) (*jsFile, map[string][]string) {
		f := cachedJS(ev.Cache, p, src, aliases)
		return f, f.Types.SupersOf()
	})
	for i, p := range below {
		paths = engine.AppendNew(paths, p)
		// Read by their search: the changes' searches share them.
		if f := belowFiles[i]; mods.lexed[p] == nil && len(f.Toks) <= maxSharedTokens {
			mods.lexed[p] = f
		}
	}
	for _, s := range group {
		s.overrides = overrides
		for _, o := range group {
			if o != s && o.nf != nil && lexed.LangOf(o.c.Path) == lexed.LangJS {
				s.peers = append(s.peers, o.nf)
			}
		}
		if err := s.run(ctx, tree, paths, aliases, mods, ev); err != nil {
			return err
		}
	}
	return nil
}

// groupPaths searches the files that may hold the words of a group of
// searches. A JS member name used after a receiver that is no module
// (res.status, items.push) can only be evidence in a file the changed file
// imports, directly or through re-exporting indexes: the files found for
// those names alone are kept only then.
func groupPaths(ctx context.Context, tree engine.Tree, ev *engine.Evidence, group []*tokSearch, aliases *modpaths.Aliases, mods *jsModules) ([]string, error) {
	var words, members []string
	seen := map[string]bool{}
	js := lexed.LangOf(group[0].c.Path) == lexed.LangJS
	for _, s := range group {
		for _, w := range s.words {
			if js && len(s.impactNames[w]) == 0 && (s.memberOnly[w] || s.importedOnly[w]) {
				continue
			}
			if !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
	}
	for _, s := range group {
		for _, w := range s.words {
			if js && !seen[w] {
				seen[w] = true
				members = append(members, w)
			}
		}
	}
	q := lexed.Query(lexed.LangJS, words)
	q.Limit *= len(group)
	paths, err := engine.Found(ctx, tree, ev, q)
	if err != nil {
		return nil, err
	}
	// The files declaring the types of members' receivers are searched
	// whether or not an import ties them to the change.
	have := map[string]bool{}
	for _, p := range paths {
		have[p] = true
	}
	for _, s := range group {
		for _, rc := range s.recv {
			for _, p := range rc.files {
				if !have[p] && !ev.Changed[p] && !engine.SkippedPath(p) && lexed.LangOf(p) == lexed.LangJS {
					have[p] = true
					paths = append(paths, p)
				}
			}
		}
	}
	if len(members) == 0 {
		return paths, nil
	}
	q.Words = members
	more, err := engine.Found(ctx, tree, ev, q)
	if err != nil {
		return nil, err
	}
	for _, s := range group {
		s.lookUp(ctx, tree, aliases, mods)
	}
	found := map[string]bool{}
	for _, p := range paths {
		found[p] = true
	}
	for _, p := range more {
		if found[p] {
			continue
		}
		if slices.ContainsFunc(group, func(s *tokSearch) bool {
			return s.nf != nil && (importsFile(s.nf, p) || mods.re.importsAnyVia(s.nf, p))
		}) {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// lookUp reads the JS indexes that may re-export the changed file or the
// modules it imports.
func (s *tokSearch) lookUp(ctx context.Context, tree engine.Tree, aliases *modpaths.Aliases, mods *jsModules) {
	c := s.c
	look := []string{c.Path}
	if c.OldPath != "" {
		look = append(look, c.OldPath)
	}
	if s.nf != nil {
		look = append(look, importDirs(s.nf)...)
	}
	mods.lookUp(ctx, tree, look, aliases)
}

// prepareSearch lexes one changed file and returns the search of the names
// its change touches and uses; nil when there are none.
func prepareSearch(c *engine.Change, aliases *modpaths.Aliases, mods *jsModules, world *modtypes.World) *tokSearch {
	nf, of := engine.Sides(c, func(p string, src []byte) *jsFile { return cachedJS(mods.cache, p, src, aliases) })
	c = lexed.CodeChange(c, nf, of)
	useNames, memberOnly, importedOnly := usedNames(c, nf)
	if nf != nil && nf.Lang == lexed.LangJS {
		// A used default import binds the default export of its module,
		// searched as the member-like word "default" of imported files.
		for _, im := range nf.Imports {
			if im.Default != "" && useNames[im.Default] && !useNames["default"] {
				useNames["default"], memberOnly["default"] = true, true
			}
		}
	}
	var words []string
	impactNames := map[string][]*lexed.Sym{}
	commons := map[string][]*lexed.Sym{} // touched members with common names (commonIn)
	var keywords []*lexed.Sym            // touched top-level names that are contextual keywords
	for _, s := range lexed.Touched(c, nf, of) {
		if s.Decl.Name == "constructor" && s.Decl.Container != "" && nf != nil && lexed.LangOf(c.Path) == lexed.LangJS {
			// A changed constructor reaches its class's new C(...).
			s = &lexed.Sym{Decl: lexed.Decl{Name: s.Decl.Container, Kind: "class"}, Change: s.Change, Ctor: true}
		}
		// A JS module-level function is imported by name: a common member
		// name (run, get) is no noise there.
		// A member named like a contextual keyword (readonly type: 'x')
		// is looked up by its receivers' types as a common one is.
		common := (lexed.CommonMember[s.Decl.Name] || contextualKeywords[s.Decl.Name]) && (s.Decl.Container != "" || lexed.LangOf(c.Path) != lexed.LangJS)
		if common && commonMember(c.Path, s.Decl) {
			commons[s.Decl.Name] = append(commons[s.Decl.Name], s)
		}
		if s.Decl.Container == "" && contextualKeywords[s.Decl.Name] && lexed.LangOf(c.Path) == lexed.LangJS {
			keywords = append(keywords, s) // found through their importers (importersIn)
			continue
		}
		if len(s.Decl.Name) < 2 || lexed.IsKeyword(lexed.LangOf(c.Path), s.Decl.Name) || common {
			continue
		}
		if _, ok := impactNames[s.Decl.Name]; !ok {
			words = append(words, s.Decl.Name)
		}
		impactNames[s.Decl.Name] = append(impactNames[s.Decl.Name], s)
	}
	supers := implementedMembers(nf, world, impactNames)
	supers = append(supers, implementedMembers(nf, world, commons)...)
	recv := memberReceivers(c, nf, world)
	typedMembers(recv, useNames, memberOnly)
	for n := range useNames {
		if _, ok := impactNames[n]; !ok {
			words = append(words, n)
		}
	}
	if len(words) == 0 && len(commons) == 0 && len(keywords) == 0 {
		return nil
	}
	slices.Sort(words[len(impactNames):])
	// The supertypes' names find the classes implementing them too.
	for _, im := range supers {
		words = engine.AppendNew(words, im.sym.Decl.Container)
	}
	return &tokSearch{c: c, nf: nf, words: words, globals: globalNames(nf, of), impactNames: impactNames, useNames: useNames, memberOnly: memberOnly, importedOnly: importedOnly,
		recv: recv, lexed: mods.lexed, cache: mods.cache, supers: supers, world: world, common: commons, keywords: keywords}
}

// implemented is a member of a supertype that a touched member implements
// or overrides: sym is the supertype's member, path the file declaring it.
type implemented struct {
	sym    *lexed.Sym
	path   string
	member string // the touched member, "C.m"
}

// implementedMembers adds to impactNames, for each touched instance member
// of a JS class, the members of its supertypes it implements or overrides
// (Router.add for LinearRouter.add when LinearRouter implements Router):
// code calling add on a Router reaches the change. It returns them with
// the files declaring them.
func implementedMembers(nf *jsFile, world *modtypes.World, impactNames map[string][]*lexed.Sym) []implemented {
	if world == nil || nf == nil || nf.Lang != lexed.LangJS || nf.Types == nil {
		return nil
	}
	var out []implemented
	for _, ss := range impactNames {
		for _, s := range ss {
			d := s.Decl
			if d.Container == "" || d.Static || s.Ctor || s.Via != "" || (d.Kind != "method" && d.Kind != "field") {
				continue
			}
			for _, t := range world.Implemented(nf.File, d.Container, d.Name) {
				if t.File == nil || t.Name == d.Container {
					continue
				}
				up := &lexed.Sym{Decl: lexed.Decl{Name: d.Name, Container: t.Name, Kind: d.Kind}, Change: s.Change,
					Via: "implemented by `" + lexed.Display(d) + "`"}
				out = append(out, implemented{sym: up, path: t.File.Path, member: lexed.Display(d)})
			}
		}
	}
	slices.SortFunc(out, func(a, b implemented) int {
		return strings.Compare(a.path+" "+lexed.Display(a.sym.Decl), b.path+" "+lexed.Display(b.sym.Decl))
	})
	for _, im := range out {
		impactNames[im.sym.Decl.Name] = append(impactNames[im.sym.Decl.Name], im.sym)
	}
	return out
}

// hierarchyIn records the files declaring the supertype members the
// change's members implement, and the searched files' classes and
// interfaces that implement the same members (siblings), whose own
// references then reach the change as well: a caller of TrieRouter.add
// runs the contract that LinearRouter.add changed.
func (s *tokSearch) hierarchyIn(ev *engine.Evidence) {
	for _, im := range s.supers {
		if ev.Changed[im.path] {
			continue
		}
		name := lexed.Display(im.sym.Decl)
		ev.Add(im.path, engine.Item{Kind: engine.KindImpact, Symbol: name, Method: engine.MethodTokens, Score: lexed.ScoreImported, Change: im.sym.Change,
			Reason: fmt.Sprintf("declares `%s`, which the changed `%s` implements", name, im.member)})
	}
	for _, g := range s.files {
		for _, d := range g.Decls {
			if d.Kind != "class" && d.Kind != "interface" || g.Types == nil {
				continue
			}
			for _, im := range s.supers {
				up := im.sym.Decl
				if !s.siblingOf(g, d.Name, im) {
					continue
				}
				sib := lexed.Decl{Name: up.Name, Container: d.Name, Kind: up.Kind}
				name := lexed.Display(sib)
				ev.Add(g.Path, engine.Item{Kind: engine.KindImpact, Symbol: name, Method: engine.MethodTokens, Score: lexed.ScoreMember, Change: im.sym.Change,
					Reason: fmt.Sprintf("declares `%s`, which implements `%s` as the changed `%s` does", name, lexed.Display(up), im.member)})
				names := s.impactNames
				if _, ok := s.common[up.Name]; ok {
					names = s.common // reached by its receivers' types (commonIn)
				}
				if len(names[up.Name]) < maxSiblingSyms && !slices.ContainsFunc(names[up.Name], func(x *lexed.Sym) bool { return x.Decl.Container == d.Name }) {
					names[up.Name] = append(names[up.Name], &lexed.Sym{Decl: sib, Change: im.sym.Change,
						Via: "which implements `" + lexed.Display(up) + "` as the changed `" + im.member + "` does"})
				}
			}
		}
	}
}

// maxSiblingSyms bounds the touched names' declarations, siblings
// included, whose references are followed: a base's member that hundreds
// of interfaces declare (readonly type) lists those files, but the
// references of a few of them only.
const maxSiblingSyms = 16

// siblingOf reports whether class (or interface) class of g implements
// the supertype member of im as the changed member does: it declares the
// member and extends the supertype, directly or through classes between
// them (PredicateNode extends BaseConstraint extends BaseNode).
func (s *tokSearch) siblingOf(g *jsFile, class string, im implemented) bool {
	up := im.sym.Decl
	if class == up.Container || class+"."+up.Name == im.member ||
		!slices.ContainsFunc(g.Decls, func(m lexed.Decl) bool { return m.Container == class && m.Name == up.Name && !m.Static }) {
		return false
	}
	if slices.Contains(g.Types.Supers[class], up.Container) {
		return true
	}
	if s.world == nil || len(g.Types.Supers[class]) == 0 {
		return false
	}
	return slices.ContainsFunc(s.world.Implemented(g.File, class, up.Name), func(t modtypes.Type) bool {
		return t.Name == up.Container && t.File != nil && t.File.Path == im.path
	})
}

// run searches the files of paths (a search's answer for the words of
// several changes) for the evidence of s's change.
func (s *tokSearch) run(ctx context.Context, tree engine.Tree, paths []string, aliases *modpaths.Aliases, mods *jsModules, ev *engine.Evidence) error {
	c, nf := s.c, s.nf
	if err := s.read(ctx, tree, paths, aliases, ev); err != nil {
		return err
	}
	if lexed.LangOf(c.Path) == lexed.LangJS {
		s.lookUp(ctx, tree, aliases, mods)
		mods.lookUp(ctx, tree, s.declaringBelowImports(), aliases)
		for _, f := range s.indexes {
			mods.re.add(f)
		}
		s.barrelsIn(ctx, tree, aliases, mods)
		s.re = mods.re
		s.readExportedAs()
	}
	s.hierarchyIn(ev)
	lexed.Record(s.overrides, s.files, ev)
	for _, g := range s.files {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.impactIn(g, ev)
		if nf != nil {
			s.usesIn(g, ev)
		}
	}
	s.receiverTypesIn(ev)
	s.renamedUsesIn(ev)
	s.namespaceUsesIn(ev)
	s.namespaceMembersIn(ev)
	if err := s.commonIn(ctx, tree, aliases, ev); err != nil {
		return err
	}
	if err := s.importersIn(ctx, tree, aliases, ev); err != nil {
		return err
	}
	if err := s.exportedAsIn(ctx, tree, aliases, ev); err != nil {
		return err
	}
	if made := s.madeValues(); len(made) > 0 {
		return s.madeUsesIn(ctx, tree, aliases, made, ev)
	}
	return nil
}

// declaringBelowImports returns the searched files that declare a name
// the change uses, below a directory the changed file imports from but
// not imported themselves: the indexes between them and that import
// (@trpc/client's src/index.ts re-exporting links/index.ts re-exporting
// links/wsLink.ts) name no searched word, so they are read by path.
func (s *tokSearch) declaringBelowImports() []string {
	if s.nf == nil {
		return nil
	}
	var dirs []string
	for _, d := range importDirs(s.nf) {
		d = specStem(d) // ../type/index.ts names the module ../type/index
		switch {
		case strings.HasSuffix(d, "/x"):
		case path.Base(d) == "index":
			dirs = append(dirs, engine.DirOf(d)+"/") // a package's entry: its directory
		default:
			dirs = append(dirs, d+"/")
		}
	}
	var out []string
	for _, g := range s.files {
		if !slices.ContainsFunc(dirs, func(d string) bool { return strings.HasPrefix(g.Path, d) }) || importsFile(s.nf, g.Path) {
			continue
		}
		if slices.ContainsFunc(g.Decls, func(d lexed.Decl) bool { return d.Container == "" && s.useNames[d.Name] && !s.memberOnly[d.Name] }) {
			out = append(out, g.Path)
		}
	}
	return out
}

// tokSearch is the search of one changed file's names in the files that
// mention them.
type tokSearch struct {
	c            *engine.Change
	overrides    *lexed.Overrides // the classes below the touched methods' classes
	cache        *engine.Cache    // readings kept across requests
	nf           *jsFile          // the changed file's new side; nil when deleted
	words        []string         // the names searched: the touched declarations', then those used
	shared       bool             // the search's files were found for several changes' words
	impactNames  map[string][]*lexed.Sym
	useNames     map[string]bool
	memberOnly   map[string]bool
	importedOnly map[string]bool         // searched in the files the changed file imports only (usedNames)
	files        []*jsFile               // the searched files
	declared     map[string]bool         // whether a searched file declares the name (declares), by name
	indexes      []*jsFile               // the searched files that re-export other files' names
	re           *reexports              // JS re-exports, followed transitively
	recv         map[string]*receivers   // JS members used on added lines: their receivers' types
	lexed        map[string]*jsFile      // the files lexed by this Find, shared by its changes
	supers       []implemented           // supertype members the touched members implement
	world        *modtypes.World         // types across modules; nil for other languages
	globals      map[string]bool         // the changed file's global declarations: no import names them
	common       map[string][]*lexed.Sym // touched members with common names, by name (commonIn)
	keywords     []*lexed.Sym            // touched top-level names that are contextual keywords (importersIn)
	peers        []*jsFile               // the new sides of the other changed JS files of the Find
	tops         []string                // the names of impactNames with a module-level declaration (topNames)
	group        *groupWords             // the words of the Find's searches; nil when searched alone
	wordBits     []uint64                // the search's words among group's
	exportedAs   map[string]string       // names indexes export touched top-level names as, to those names (readExportedAs)
}

// read lexes the searched TypeScript/JavaScript files on every core
// (engine.ReadFiles: its bounds and its cuts), those the changes' searches
// share (s.lexed) from memory, and keeps, in paths' order, the search's
// own copy of each that holds one of its words (own).
func (s *tokSearch) read(ctx context.Context, tree engine.Tree, paths []string, aliases *modpaths.Aliases, ev *engine.Evidence) error {
	var todo []string
	for _, p := range paths {
		if s.lexed[p] == nil {
			todo = engine.AppendNew(todo, p)
		}
	}
	var mu sync.Mutex
	got := engine.ReadFiles(ctx, tree, ev, lexed.LangJS.String(), todo, func(p string, src []byte) (ownFile, int, bool) {
		rf := cachedJS(s.cache, p, src, aliases)
		if mu.Lock(); s.lexed != nil && len(rf.Toks) <= maxSharedTokens {
			s.lexed[p] = rf
		}
		mu.Unlock()
		return s.own(p, rf)
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, p := range paths {
		i := slices.Index(todo, p)
		if i < 0 {
			rf := s.lexed[p]
			o, n, _ := s.own(p, rf)
			if n > 0 && !ev.Keep(n) {
				o.File = rf.Clone(true)
			}
			got, i = append(got, o), len(got)
		}
		if f := got[i]; f.keep {
			s.add(f.jsFile)
		}
	}
	return nil
}

// ownFile is a search's own copy of a file it read; keep says whether the
// search keeps it.
type ownFile struct {
	*jsFile
	keep bool
}

// own is the search's copy of rf, the shared reading of the file at p, and
// the tokens it keeps: it may drop them. A file holding none of the
// search's words (found for another change's) is not kept; with no
// changed name in it, a file's tokens can give no impact evidence: only
// its declarations and imports are kept.
func (s *tokSearch) own(p string, rf *jsFile) (ownFile, int, bool) {
	keep := (s.world == nil || !s.world.Shadowed(p)) && (!s.shared || s.mentions(rf))
	impact := keep && s.mentionsTouched(rf)
	lf := rf.File // shared: the lookups of types remember their answers by file
	if !impact {
		lf = rf.Clone(true)
	}
	f := &jsFile{File: lf, aliases: rf.aliases, forms: rf.forms, cache: rf.cache}
	return ownFile{f, keep}, len(f.Toks), true
}

// add keeps f among the searched files.
func (s *tokSearch) add(f *jsFile) {
	s.files = append(s.files, f)
	if slices.ContainsFunc(f.Imports, func(im lexed.Import) bool { return im.Export }) {
		s.indexes = append(s.indexes, f)
	}
}

// declares reports whether one of the searched files declares name,
// looked up once per name: the impact walk asks it of the few names it
// meets as members, not of every declaration of every file read.
func (s *tokSearch) declares(name string) bool {
	d, ok := s.declared[name]
	if !ok {
		d = slices.ContainsFunc(s.files, func(f *jsFile) bool {
			return slices.ContainsFunc(f.Decls, func(d lexed.Decl) bool { return d.Name == name })
		})
		if s.declared == nil {
			s.declared = map[string]bool{}
		}
		s.declared[name] = d
	}
	return d
}

// maxSharedTokens bounds the files the changes' searches share (s.lexed):
// a larger one is read again by each search that needs it, rather than
// kept for the whole Find.
const maxSharedTokens = 1 << 16

// searchedFile returns the lexed file at p, read once per Find (the
// changes' searches share s.lexed); nil when it cannot be read, with the
// context's error when that is why.
func (s *tokSearch) searchedFile(ctx context.Context, tree engine.Tree, p string, aliases *modpaths.Aliases) (*jsFile, error) {
	if f := s.lexed[p]; f != nil {
		return f, nil
	}
	src, err := tree.ReadFile(ctx, p)
	if err != nil {
		return nil, ctx.Err()
	}
	f := cachedJS(s.cache, p, src, aliases)
	if s.lexed != nil && len(f.Toks) <= maxSharedTokens {
		s.lexed[p] = f
	}
	return f, nil
}

// eachSearched reads the first max of paths (searchedFile) that skip
// does not leave out (nil: none), while ev has room, and hands each
// reading to do; it stops when the context ends.
func (s *tokSearch) eachSearched(ctx context.Context, tree engine.Tree, aliases *modpaths.Aliases, ev *engine.Evidence,
	paths []string, max int, skip func(p string) bool, do func(p string, f *jsFile)) error {
	for k, p := range paths {
		if k >= max || !ev.Keep(0) {
			break
		}
		if skip != nil && skip(p) {
			continue
		}
		f, err := s.searchedFile(ctx, tree, p, aliases)
		if f == nil {
			if err != nil {
				return err
			}
			continue
		}
		do(p, f)
	}
	return nil
}

// mentions reports whether f holds one of the search's words as an
// identifier: by the words its group of searches found f holds, when it
// has one.
func (s *tokSearch) mentions(f *jsFile) bool {
	if s.group != nil {
		return overlaps(s.wordBits, s.group.heldBy(f.File))
	}
	idents := f.Index().Idents
	for _, w := range s.words {
		if idents[w] {
			return true
		}
	}
	return false
}

// mentionsTouched reports whether f holds the name of a touched
// declaration as an identifier: a lookup of each touched name in f's
// index, not a scan of its tokens.
func (s *tokSearch) mentionsTouched(f *jsFile) bool {
	idents := f.Index().Idents
	for n, syms := range s.impactNames {
		if len(syms) > 0 && idents[n] {
			return true
		}
	}
	return false
}

// usesIn records g's declarations of names used on added lines.
func (s *tokSearch) usesIn(g *jsFile, ev *engine.Evidence) {
	nf := s.nf
	cImportsG := importsFile(nf, g.Path)
	for _, d := range g.Decls {
		if d.Name == "default" && d.Container == "" && s.useNames["default"] {
			for i, im := range nf.Imports {
				if im.Default != "" && s.useNames[im.Default] && resolves(nf, i, g.Path) {
					ev.Add(g.Path, engine.Item{Kind: engine.KindUses, Symbol: im.Default, Method: engine.MethodTokens, Score: lexed.ScoreImported,
						Reason: fmt.Sprintf("exports `%s` by default, used by the change in %s", im.Default, engine.PathBase(s.c.Path))})
					break
				}
			}
			continue
		}
		if !s.useNames[d.Name] || (d.Container == "" && s.memberOnly[d.Name]) {
			continue
		}
		score := 0.0
		if rc := s.recv[d.Name]; rc != nil && d.Container != "" {
			// A member's receivers of known types name its class.
			files, across := rc.classFiles[d.Container]
			switch {
			case across && !slices.Contains(files, g.Path):
				continue // a class named like the one found across modules
			case rc.classes[d.Container]:
				score = lexed.ScoreImported
			case !rc.unknown:
				continue
			}
		}
		switch {
		case score > 0:
		case d.Container == "" && (cImportsG && importsName(nf, g.Path, d.Name)):
			score = lexed.ScoreImported
		case d.Container == "" && s.re.importsVia(nf, g.Path, d.Name):
			score = lexed.ScoreImported
		case d.Container == "" && cImportsG:
			score = lexed.ScoreMember
		case d.Container != "" && cImportsG:
			score = lexed.ScoreMember
		}
		if score == 0 {
			continue
		}
		name := lexed.Display(d)
		ev.Add(g.Path, engine.UseItem(name, s.c.Path, score, engine.MethodTokens))
	}
}

// moduleReceiver reports whether the member token toks[i] of JS file f
// follows a name bound to a module: a namespace or default import,
// x = require(...), x = import(...) or x = await import(...).
func moduleReceiver(f *jsFile, i int) bool {
	if i < 2 || f.Toks[i-2].Kind != lexed.TkIdent || (i >= 3 && f.Toks[i-3].Text == ".") {
		return false
	}
	r := f.Toks[i-2].Text
	if shadowedAt(f, i-2) {
		return false // a parameter named like a module
	}
	for _, im := range f.Imports {
		if slices.Contains(im.Names, r) {
			return true
		}
	}
	return f.Index().ModVars[r]
}

// receiverTypesIn records the files declaring the types of receivers whose
// member no declaration of that type names (a type made by ReturnType<>,
// a mapped type): the type's file is what the member comes from.
func (s *tokSearch) receiverTypesIn(ev *engine.Evidence) {
	for _, m := range slices.Sorted(maps.Keys(s.recv)) {
		for _, t := range s.recv[m].typed {
			if ev.Changed[t.File.Path] || engine.SkippedPath(t.File.Path) {
				continue
			}
			ev.Add(t.File.Path, engine.Item{Kind: engine.KindUses, Symbol: t.Name, Method: engine.MethodTokens, Score: lexed.ScoreMember,
				Reason: fmt.Sprintf("declares `%s`, the type whose `%s` the change in %s uses", t.Name, m, engine.PathBase(s.c.Path))})
		}
	}
}

// Reader reads TypeScript and JavaScript changes.
var Reader = lexed.ReaderOf(lexed.LangJS, find)
