package typescript

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/candidates/typescript/jsdecl"
	"github.com/prscout/prscout/pipeline/candidates/typescript/modtypes"
)

// impactIn records g's references to the changed declarations.
func (s *tokSearch) impactIn(g *jsFile, ev *engine.Evidence) {
	gImportsC, viaIndex, namespaces, gReaches := s.reachOf(g)
	renamed, exporters := s.exportedAsRenames(g, viaIndex, s.renamedIn(g, viaIndex))
	global := func(name string) bool { // a global name g neither declares nor imports
		if !s.globals[name] || slices.ContainsFunc(g.Decls, func(d lexed.Decl) bool { return d.Container == "" && d.Name == name }) {
			return false
		}
		bound, _ := bindingImports(g, name)
		return !bound
	}
	maybe := s.namesFilter(renamed)
	if len(exporters) > 0 {
		for n := range s.exportedAs {
			maybe.add(n)
		}
	}
	for i, t := range g.Toks {
		if t.Kind != lexed.TkIdent || !maybe.has(t.Text) {
			continue
		}
		member := i > 0 && g.Toks[i-1].Text == "."
		name, aliasNS := t.Text, false
		if orig := renamed[name]; orig != "" && !member {
			name = orig // import {run as start}: start(...) calls run
		} else if orig := s.exportedAs[name]; orig != "" && member && slices.Contains(exporters, g.Toks[i-2].Text) {
			name, aliasNS = orig, true // yup.string(): the index's string is create
		}
		ss := s.impactNames[name]
		if len(ss) == 0 {
			continue
		}
		call := i+1 < len(g.Toks) && g.Toks[i+1].Text == "("
		from := "" // const {m} = C: C, when a static C.m changed
		if !member && slices.ContainsFunc(ss, func(x *lexed.Sym) bool { return x.Decl.Static }) {
			from = destructuredFrom(g, i)
		}
		if from == "" && (lexed.DeclaresAt(g.File, t) || !member && shadowedAt(g, i)) {
			continue
		}
		for _, sym := range ss {
			key := false
			// A static member is reached through its class's name:
			// x.create is not a call of the static Ky.create.
			// super.create inside a subclass of Ky reaches it too.
			if sym.Decl.Static && member && (i < 2 || g.Toks[i-2].Text != sym.Decl.Container && (g.Toks[i-2].Text != "super" || !gReaches)) {
				continue
			}
			score := 0.0
			switch {
			case s.namespaceMember(sym.Decl) && (!member || g.Toks[i-2].Text != sym.Decl.Container):
				// Visit(...) of another file is its own: a namespace's
				// member is reached as IndexedAccessor.Visit only.
			case (sym.Ctor || sym.Decl.Container == "") && !member && ownsTop(g, t.Text):
				// export const record = C.record; {record}: g's own.
			case sym.Ctor:
				if i > 0 && g.Toks[i-1].Text == "new" && (gImportsC || viaIndex[sym.Decl.Name] || global(sym.Decl.Name)) {
					score = lexed.ScoreImported
				}
			case sym.Decl.Container == "" && !member && (gImportsC || viaIndex[sym.Decl.Name] || global(sym.Decl.Name)):
				score = lexed.ScoreImported
			case sym.Decl.Container == "" && member && i >= 2 && (aliasNS || slices.Contains(namespaces, g.Toks[i-2].Text)):
				score = lexed.ScoreImported
			case sym.Decl.Container != "" && member && s.receiverKind(g, i, sym) == recvOther:
				// res.url of a Response: another type's member of the name.
			case sym.Decl.Container != "" && member && (gReaches || lexed.RefersTo(g.File, sym.Decl.Container)):
				score = lexed.ScoreMember
			case sym.Decl.Container != "" && member && s.receiverIs(g, i, sym):
				// app.get('/', (c) => c.json(...)): the callback's
				// parameter takes Context from the handler type of a file
				// g imports, not from an import of Context's file.
				score = lexed.ScoreMember
			case sym.Decl.Container != "" && member && !s.declares(sym.Decl.Name) && len(sym.Decl.Name) >= 6:
				score = lexed.ScoreUnrelated
			case sym.Decl.Container != "" && !member && !sym.Decl.Static && (sym.Decl.Kind == "field" || sym.Decl.Kind == "method") &&
				s.literalOf(g, i, sym.Decl.Container):
				// An object literal's key names the member of the type
				// the literal is passed as or declared as: got('u',
				// {retry: 2}) sets the retry of got's options.
				score, key = lexed.ScoreMember, true
			case sym.Decl.Static && from == sym.Decl.Container && gReaches:
				// const {normalize} = Request: the static member, called
				// by its own name afterwards.
				score = lexed.ScoreImported
			case sym.Decl.Container != "" && !member && sym.Decl.Kind != "method" && sym.Decl.Kind != "field" && gImportsC:
				score = lexed.ScoreImported
			}
			if score > 0 {
				addRef(ev, g.Path, sym, score, call, key)
			}
		}
	}
}

// ownsTop reports whether name, bare, is g's own module-level declaration:
// g declares it and no import binds it (import * as D binds D only).
func ownsTop(g *jsFile, name string) bool {
	if !slices.ContainsFunc(g.Decls, func(d lexed.Decl) bool { return d.Container == "" && d.Name == name }) {
		return false
	}
	bound, _ := bindingImports(g, name)
	return !bound
}

// nameFilter tells the names that cannot be one of a set of names by
// their lengths and first bytes, without hashing them: the impact walk
// asks it of every identifier of the files it walks, most of them none of
// the touched names.
type nameFilter struct {
	lens   uint64    // lengths, modulo 64
	firsts [4]uint64 // first bytes
}

func (f *nameFilter) add(n string) {
	if n != "" {
		f.lens |= 1 << (len(n) % 64)
		f.firsts[n[0]/64] |= 1 << (n[0] % 64)
	}
}

// has reports whether n may be one of the names added.
func (f *nameFilter) has(n string) bool {
	return n != "" && f.lens&(1<<(len(n)%64)) != 0 && f.firsts[n[0]/64]&(1<<(n[0]%64)) != 0
}

// namesFilter is the filter of the touched names and of the local names
// renamed maps to them.
func (s *tokSearch) namesFilter(renamed map[string]string) nameFilter {
	var f nameFilter
	for n := range s.impactNames {
		f.add(n)
	}
	for n := range renamed {
		f.add(n)
	}
	return f
}

// reachOf tells how g reaches the changed file: whether it imports it,
// the top-level names it imports from a file re-exporting them
// (viaIndex), the names binding the file as a namespace (import * as
// ns, or a name an index re-exports it as), and whether it reaches it
// any of those ways.
func (s *tokSearch) reachOf(g *jsFile) (importsC bool, viaIndex map[string]bool, namespaces []string, reaches bool) {
	c := s.c
	importsC = importsFile(g, c.Path) || (c.OldPath != "" && importsFile(g, c.OldPath))
	viaIndex = map[string]bool{}
	reaches = importsC
	if s.re != nil {
		if !importsC {
			for name, ss := range s.impactNames {
				if slices.ContainsFunc(ss, topLevel) && s.re.importsVia(g, c.Path, name) {
					viaIndex[name] = true
				}
			}
			reaches = len(viaIndex) > 0 || s.re.importsAnyVia(g, c.Path)
		}
		namespaces = s.re.namespaceOf(g, c.Path)
	}
	namespaces = append(namespaces, s.namedNamespaces(g)...)
	if !importsC && s.reexportedTo(g, viaIndex) {
		reaches = true
	}
	return importsC, viaIndex, namespaces, reaches
}

// reexportedTo adds to viaIndex the changed file's top-level names that g
// imports from a module re-exporting them, whatever that module's name
// (a barrel decorators.ts with export * from './common/IsIn' is no index
// the lookup by place reads): the types' reading follows the import to the
// declaring file. It reports whether it added one.
func (s *tokSearch) reexportedTo(g *jsFile, viaIndex map[string]bool) bool {
	if s.world == nil || g.Lang != lexed.LangJS {
		return false
	}
	added := false
	for name, ss := range s.impactNames {
		if viaIndex[name] || !slices.ContainsFunc(ss, topLevel) {
			continue
		}
		if bound, external := bindingImports(g, name); !bound || external || !g.Index().Idents[name] {
			continue
		}
		if p := s.world.DeclaredIn(g.File, name); p != "" && (p == s.c.Path || s.c.OldPath != "" && p == s.c.OldPath) {
			viaIndex[name], added = true, true
		}
	}
	return added
}

// topLevel reports whether sym is a module-level declaration of the
// changed file: a file may declare a function and a class's method of one
// name (assert(v, s) and Struct.assert(v)), both touched.
func topLevel(sym *lexed.Sym) bool { return sym.Decl.Container == "" && sym.Via == "" }

// addRef records a reference of the file at p to sym: a call, a key
// setting it in an object literal (key), or another use.
func addRef(ev *engine.Evidence, p string, sym *lexed.Sym, score float64, call, key bool) {
	verb := engine.Verb(call)
	if key {
		verb, call = "sets", false
	}
	// A member name no import or type ties to the class is text
	// evidence: labelled textual, few of them listed.
	method := engine.MethodTokens
	if score == lexed.ScoreUnrelated {
		method = engine.MethodTextual
	}
	name := lexed.Display(sym.Decl)
	it := engine.ImpactItem(verb, name, sym.Change, score, method, call)
	if sym.Via != "" {
		it.Reason = fmt.Sprintf("%s `%s`, %s", verb, name, sym.Via)
	}
	ev.Add(p, it)
}

// renamedIn maps the local names g's imports give the changed file's
// top-level names (import {run as start} from it, or from a file
// re-exporting it: viaIndex) to those names.
func (s *tokSearch) renamedIn(g *jsFile, viaIndex map[string]bool) map[string]string {
	var out map[string]string
	for i, im := range g.Imports {
		if im.Export || len(im.Renamed) == 0 {
			continue
		}
		direct := resolves(g, i, s.c.Path) || s.c.OldPath != "" && resolves(g, i, s.c.OldPath)
		for local, orig := range im.Renamed {
			ss := s.impactNames[orig]
			if !slices.ContainsFunc(ss, topLevel) || !direct && !viaIndex[orig] {
				continue
			}
			if out == nil {
				out = map[string]string{}
			}
			out[local] = orig
		}
	}
	return out
}

// maxPatternTokens bounds the walk back to a destructuring pattern's '{'.
const maxPatternTokens = 64

// destructuredFrom returns X when g.Toks[i] is a name of a destructuring
// pattern {a, b} = X (const {a, b} = X), "" otherwise.
func destructuredFrom(g *jsFile, i int) string {
	toks := g.Toks
	if i == 0 || toks[i-1].Text != "{" && toks[i-1].Text != "," {
		return ""
	}
	open := -1
	for k := i - 1; k > 0 && i-k < maxPatternTokens; k-- {
		if t := toks[k].Text; t == "{" {
			open = k
			break
		} else if t != "," && t != ":" && toks[k].Kind != lexed.TkIdent {
			return ""
		}
	}
	if open < 1 {
		return ""
	}
	switch toks[open-1].Text {
	case "const", "let", "var":
	default:
		return ""
	}
	c := g.Brackets.Close(open)
	if c < 0 || c+2 >= len(toks) || toks[c+1].Text != "=" || toks[c+2].Kind != lexed.TkIdent {
		return ""
	}
	if c+3 < len(toks) && (toks[c+3].Text == "." || toks[c+3].Text == "(") {
		return "" // = X.y or = X(): not X's own members
	}
	return toks[c+2].Text
}

// literalOf reports whether g.Toks[i] is a key of an object literal typed
// by the type named container: passed as an argument whose parameter has
// that type (as far as the files read tell), or the value of a variable
// annotated with it (const o: Options = {...}).
func (s *tokSearch) literalOf(g *jsFile, i int, container string) bool {
	b := jsdecl.ObjectKeyAt(g.File, i)
	if b < 0 {
		return false
	}
	toks := g.Toks
	switch toks[b-1].Text {
	case "=":
		return b >= 3 && toks[b-2].Text == container && toks[b-3].Text == ":"
	case "(", ",":
		if s.world == nil {
			return false
		}
		for _, t := range s.world.ArgumentTypes(g.File, b) {
			if t.Name == container {
				return true
			}
		}
	}
	return false
}

// globalNames returns the top-level names the changed file declares in the
// global scope, on either side: inside declare global {...}, or anywhere
// in a declaration file that imports and exports nothing (a script's
// declarations are global). Every file of the program sees them.
func globalNames(files ...*jsFile) map[string]bool {
	var out map[string]bool
	add := func(d lexed.Decl) {
		if out == nil {
			out = map[string]bool{}
		}
		out[d.Name] = true
	}
	for _, f := range files {
		if f == nil || f.Lang != lexed.LangJS {
			continue
		}
		toks := f.Toks
		script := strings.HasSuffix(f.Path, ".d.ts") && len(f.Imports) == 0 &&
			!slices.ContainsFunc(toks, func(t lexed.Tok) bool { return t.Kind == lexed.TkIdent && t.Text == "export" })
		for _, d := range f.Decls {
			if d.Container == "" && script {
				add(d)
			}
		}
		if script {
			continue
		}
		for i := 0; i+2 < len(toks); i++ {
			if toks[i].Text != "declare" || toks[i+1].Text != "global" || toks[i+2].Text != "{" {
				continue
			}
			c := f.Brackets.Close(i + 2)
			if c < 0 {
				continue
			}
			for _, d := range f.Decls {
				if d.Container == "" && d.From >= toks[i].Line && d.From <= toks[c].Line {
					add(d)
				}
			}
			i = c
		}
	}
	return out
}

// Receiver kinds: what the receiver of a member token resolves to, as
// far as the types read across modules tell.
const (
	recvUnknown = iota // no type, or a type whose members are not known
	recvClass          // the changed member's class, or a type inheriting the member from it
	recvOther          // only types that are not it: another class's member of that name
)

// receiverKind tells what the receiver of the member token g.Toks[i]
// resolves to, against the class (or interface) of sym: one of the
// changed file's, or, for a member the change reaches through the
// hierarchy (sym.Via), a class of that name in any file.
func (s *tokSearch) receiverKind(g *jsFile, i int, sym *lexed.Sym) int {
	container := sym.Decl.Container
	if s.world == nil || g.Types == nil {
		return recvUnknown
	}
	recv := s.world.Receiver(g.File, i)
	if len(recv) == 0 {
		return recvUnknown
	}
	other := true
	for _, r := range recv {
		found := s.world.Declaring([]modtypes.Type{r}, g.Toks[i].Text)
		if len(found) == 0 && (r.File != nil || r.Name == container) {
			other = false // a member of a type not read, or a name alone
		}
		for _, t := range found {
			if s.overridesOf(t, sym, g.Toks[i].Text, 0) {
				return recvClass
			}
		}
	}
	if other {
		return recvOther
	}
	return recvUnknown
}

// maxOverrideDepth bounds the walk up a class hierarchy from a receiver's
// class to the changed member's.
const maxOverrideDepth = 4

// overridesOf reports whether the type t declaring member is sym's class
// (in the changed file, unless sym is reached through the hierarchy) or
// a subclass overriding it: the language service counts the override's
// references as the base member's. A member the change reaches through the
// hierarchy (sym.Via) matches its own class only: its subclasses have
// their own entries.
func (s *tokSearch) overridesOf(t modtypes.Type, sym *lexed.Sym, member string, depth int) bool {
	if t.File == nil || depth > maxOverrideDepth || depth > 0 && sym.Via != "" {
		return false // a member reached through the hierarchy names its own class
	}
	if t.Name == sym.Decl.Container && (sym.Via != "" || t.File.Path == s.c.Path || t.File.Path == s.c.OldPath && s.c.OldPath != "") {
		return true
	}
	for _, up := range s.world.Implemented(t.File, t.Name, member) {
		if s.overridesOf(up, sym, member, depth+1) {
			return true
		}
	}
	return false
}

// receiverIs reports whether the receiver of the member token g.Toks[i]
// resolves to sym's class (receiverKind).
func (s *tokSearch) receiverIs(g *jsFile, i int, sym *lexed.Sym) bool {
	return s.receiverKind(g, i, sym) == recvClass
}
