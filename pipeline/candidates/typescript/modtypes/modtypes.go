// Package modtypes resolves TypeScript/JavaScript types across modules
// for the TypeScript engine: what an expression of a file evaluates to
// when its names are declared in the files it imports (and theirs in
// turn), and which type in a hierarchy declares a member.
package modtypes

import (
	"context"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

// Types across JS modules. A member used on an added line is often reached
// through a value another module declares: ky.get(u).json() calls get on
// the default export of the package's index (const ky = createInstance(),
// whose return type KyInstance a third file declares), and json on what
// KyInstance's get property returns. The files a changed file imports, and
// theirs in turn, are read as far as such a chain needs: an imported name
// is looked up in the file declaring it (through re-exporting indexes), a
// type's members and supertypes in the file declaring the type.

// Bounds of the reading, so a chain through a large monorepo costs a few
// files: the files read per Find, the nesting of one lookup (each call,
// member and variable of a chain is a level: a test's
// extended(url).text(), with const extended = ky.create().extend() and ky
// an index's createInstance(), is about ten) and the steps of all.
const (
	maxTypeFiles = 64
	maxTypeDepth = 16
	maxTypeSteps = 20000
)

// Type is a type name and the file declaring it (nil when no file of
// the repository does, as for the standard library's Promise).
type Type struct {
	Name string
	File *lexed.File
}

// World reads and remembers the files the lookups of one Find need.
type World struct {
	ctx     context.Context
	tree    engine.Tree
	host    Host
	files   map[string]*lexed.File // the files read, by path
	missing map[string]bool        // paths that are no file
	listing *engine.Listing
	reads   int
	// spare are the reads granted beyond maxTypeFiles, a few for each
	// namespace member followed (NamespaceMemberFile).
	spare   int
	steps   int
	renames map[*lexed.File]map[string]string // renamesOf, by file
	// imports memoizes importFile by the importing file's directory and
	// the specifier: a chain's lookups resolve the same imports again and
	// again, and each resolution joins paths and tries every extension.
	imports map[importAt]*lexed.File
	// bindings memoizes bindingsOf by file.
	bindings map[*lexed.File]map[string][]binding
	// exprs and decls memoize exprTypes and declOf (memo.go); cuts counts
	// the lookups a bound stopped, deepest the deepest nesting a lookup
	// reached, which tell when an answer may be kept.
	exprs   map[exprAt]exprMemo
	decls   map[declAt]declMemo
	cuts    int
	deepest int
	lookups int // exprTypesAt's, for Lookups
}

// importAt is an import specifier as written in a file of dir.
type importAt struct{ dir, spec string }

// Host is what the reading takes from the TypeScript engine: its lexing,
// its import resolution and its parameter scopes.
type Host interface {
	// Lex reads the declarations, types and imports of the JS file at p.
	Lex(p string, src []byte) *lexed.File
	// Aliases returns the repository paths (with or without extensions) a
	// bare specifier names through path aliases and workspace packages.
	Aliases(spec string) []string
	// External reports whether import im of f can name no file of the
	// repository.
	External(f *lexed.File, im lexed.Import) bool
	// Scopes returns the parameter scopes of f by name.
	Scopes(f *lexed.File) map[string][]Scope
}

// Scope is a parameter: its name, its position in its parameter list, and
// the tokens of the function it binds in, from its parameter list's '('
// (or the lone parameter of x => ...) to the end of the body.
type Scope struct {
	Name     string
	Pos      int
	From, To int
	// Reach is the largest To of the scopes of the name up to this one,
	// the scopes listed in the order of their From (as ParamScopes lists
	// them): whether one holds a token is a binary search (InScope).
	Reach int
}

// New returns the reading of one Find over tree.
func New(ctx context.Context, tree engine.Tree, host Host) *World {
	return &World{ctx: ctx, tree: tree, host: host, files: map[string]*lexed.File{}, missing: map[string]bool{}, listing: engine.NewListing(ctx, tree),
		imports: map[importAt]*lexed.File{}}
}

// file returns the lexed JS file at p, nil when there is none or the
// reading budget is spent.
func (w *World) file(p string) *lexed.File {
	if f := w.files[p]; f != nil {
		return f
	}
	if w.missing[p] || lexed.LangOf(p) != lexed.LangJS || engine.SkippedPath(p) {
		return nil
	}
	if w.reads >= maxTypeFiles+w.spare || w.ctx.Err() != nil {
		w.cuts++
		return nil
	}
	w.reads++
	src, err := w.tree.ReadFile(w.ctx, p)
	if err != nil {
		w.missing[p] = true
		return nil
	}
	f := w.host.Lex(p, src)
	w.files[p] = f
	return f
}

var jsSourceExts = []string{".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"}

// importFile returns the file an import specifier of f names: a relative
// path or a path alias (workspace packages included), with TypeScript's
// extension and index rules; nil for an external package. The answer is
// kept for the next import of spec from f's directory: it cannot change
// within the World (a file read stays read, and a file not found is not
// found later either: the reading's budget and context only run down).
func (w *World) importFile(f *lexed.File, spec string) *lexed.File {
	at := importAt{engine.DirOf(f.Path), spec}
	if g, ok := w.imports[at]; ok {
		return g
	}
	g := w.resolveImport(at)
	if g != nil || w.reads < maxTypeFiles+w.spare {
		w.imports[at] = g // not when the budget ran out: spare reads may find it
	}
	return g
}

// resolveImport is importFile without the memo.
func (w *World) resolveImport(at importAt) *lexed.File {
	spec := at.spec
	var bases []string
	if strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") || spec == "." || spec == ".." {
		b := path.Join(at.dir, spec)
		if strings.HasPrefix(b, "..") {
			return nil
		}
		bases = []string{b}
	} else {
		bases = w.host.Aliases(spec)
	}
	for _, b := range bases {
		ext := path.Ext(b)
		var cands []string
		switch ext {
		case ".js", ".jsx", ".mjs", ".cjs":
			s := strings.TrimSuffix(b, ext)
			for _, e := range jsSourceExts {
				cands = append(cands, s+e)
			}
		case ".ts", ".tsx", ".mts", ".cts":
			cands = []string{b}
		default:
			for _, e := range jsSourceExts {
				cands = append(cands, b+e)
			}
			for _, e := range jsSourceExts {
				cands = append(cands, b+"/index"+e)
			}
		}
		for _, p := range cands {
			if w.files[p] == nil && !w.Exists(p) {
				continue
			}
			if g := w.file(p); g != nil {
				return g
			}
		}
	}
	return nil
}

// Exists reports whether the tree holds a file at p, by the listing of its
// directory (read once: cheaper than failed reads of every extension).
func (w *World) Exists(p string) bool { return w.listing.Has(p) }

// Shadowed reports whether p is a declaration file (x.d.ts) beside a
// TypeScript source of the same name (x.ts, x.tsx): the compiler resolves
// an import of x to the source, so the declaration file is no module of
// the program, whatever its names.
func (w *World) Shadowed(p string) bool {
	stem, ok := strings.CutSuffix(p, ".d.ts")
	return ok && (w.Exists(stem+".ts") || w.Exists(stem+".tsx"))
}

// declOfAt returns the file declaring the top-level name as f sees it, and
// the name it has there: f when it declares name, else the file an import
// binding name leads to, through re-exporting indexes (export {x} from,
// export * from, import {x}; export {x}). A default export of a declared
// name (export default ky) answers that name.
func (w *World) declOfAt(f *lexed.File, name string, depth int) (*lexed.File, string) {
	if f == nil || name == "" || depth > maxTypeDepth {
		return nil, ""
	}
	if name == "default" {
		// export default class X declares X; export default <expression>
		// declares "default" itself.
		if x := DefaultName(f); x != "" && declaresTop(f, x) {
			return f, x
		}
	}
	if declaresTop(f, name) {
		return f, name
	}
	// export {Hono as HonoBase}, import {a as b}: the name it renames.
	// An import's renaming (import {ky as KyInterface}) names another
	// file's declaration, even when f declares a name like it too.
	orig := w.renamedFrom(f, name)
	// {default as Options} names another module's default export, never
	// the file's own (export default got).
	if orig != "" && orig != "default" && declaresTop(f, orig) && !slices.ContainsFunc(f.Imports, func(im lexed.Import) bool { return !im.Export && im.Renamed[name] != "" }) {
		return f, orig
	}
	for _, im := range f.Imports {
		target := ""
		switch {
		case im.Call:
			continue
		case im.Default == name && !im.Export:
			target = "default"
		case slices.Contains(im.Names, name) || orig != "" && !im.Export && slices.Contains(im.Names, orig):
			// import {create as stringCreate}; export {stringCreate as
			// string}: string is create, renamed twice.
			target = name
			if orig != "" && slices.Contains(im.Names, orig) {
				target = orig
			}
			if r := im.Renamed[name]; r != "" {
				target = r
			} else if r := im.Renamed[target]; r != "" {
				target = r
			}
		case im.Export && im.Wildcard:
			target = name
		default:
			continue
		}
		if w.host.External(f, im) {
			continue
		}
		g := w.importFile(f, im.Spec)
		if g == nil || g == f {
			continue
		}
		if h, n := w.declOfAt(g, target, depth+1); h != nil {
			return h, n
		}
	}
	return nil, ""
}

// DeclaredIn returns the path of the file declaring the top-level name as
// f sees it: f itself, or the file its imports lead to through
// re-exporting modules whatever their names (export * from './x' in a
// decorators.ts that no index names); "" when the files read do not tell.
func (w *World) DeclaredIn(f *lexed.File, name string) string {
	g, _ := w.declOf(f, name, 0)
	if g == nil {
		return ""
	}
	return g.Path
}

// ImportPath returns the path of the repository file the import specifier
// spec of f names, "" when none is found within the reading's budget.
func (w *World) ImportPath(f *lexed.File, spec string) string {
	if g := w.importFile(f, spec); g != nil {
		return g.Path
	}
	return ""
}

// NamespaceFile returns the path of the repository module the name binds
// as a namespace in f: import * as name from './m' (or export * as name),
// followed through the imports and renaming exports that pass it on
// (import {z} from '..' where the index has import * as mod from
// './external' and export {mod as z}); "" when name binds none.
func (w *World) NamespaceFile(f *lexed.File, name string) string {
	if g := w.namespaceOf(f, name, 0); g != nil {
		return g.Path
	}
	return ""
}

// NamespaceMemberFile returns the path of the file declaring member as the
// module that name binds as a namespace in f exports it (Type.String() with
// Type the module typebox.ts, whose export {String} from './types/string.ts'
// leads to string.ts); "" when name binds no module, the module declares
// member itself or the files read do not tell.
func (w *World) NamespaceMemberFile(f *lexed.File, name, member string) string {
	// The few files from a namespace to its member are read even when the
	// lookups of receivers spent the budget.
	w.spare += spareMemberReads
	g := w.namespaceOf(f, name, 0)
	if g == nil {
		return ""
	}
	if h, _ := w.declOf(g, member, 0); h != nil && h != g {
		return h.Path
	}
	return ""
}

func (w *World) namespaceOf(f *lexed.File, name string, depth int) *lexed.File {
	if f == nil || depth > maxNamespaceHops || !w.step() {
		return nil
	}
	for _, im := range f.Imports {
		if im.Namespace == name && !im.Call && !w.host.External(f, im) {
			return w.importFile(f, im.Spec)
		}
	}
	for _, im := range f.Imports {
		if im.Call || im.Namespace != "" || !slices.Contains(im.Names, name) || w.host.External(f, im) {
			continue
		}
		target := name
		if r := im.Renamed[name]; r != "" {
			target = r
		}
		if g := w.importFile(f, im.Spec); g != nil && g != f {
			return w.namespaceOf(g, target, depth+1)
		}
	}
	if orig := w.renamedFrom(f, name); orig != "" && orig != name {
		return w.namespaceOf(f, orig, depth+1)
	}
	return nil
}

// spareMemberReads are the reads one namespace member may add to the
// budget: the module, an index between, the declaring file.
const spareMemberReads = 3

// maxNamespaceHops bounds the files a namespace is followed through.
const maxNamespaceHops = 6

// renamedFrom returns X of "X as name" in an import or export clause of
// f ({X as name}), "" for none, each file's renames read once (renamesOf):
// a lookup per member access of a file would otherwise rescan the file.
func (w *World) renamedFrom(f *lexed.File, name string) string {
	r, ok := w.renames[f]
	if !ok {
		if w.renames == nil {
			w.renames = map[*lexed.File]map[string]string{}
		}
		r = renamesOf(f)
		w.renames[f] = r
	}
	return r[name]
}

// renamesOf maps each name of f's import and export clauses bound by
// "X as name" ({X as name}) to X, the first clause binding it winning.
func renamesOf(f *lexed.File) map[string]string {
	toks := f.Toks
	var out map[string]string
	for i := 2; i < len(toks); i++ {
		if toks[i-1].Text != "as" || toks[i-2].Kind != lexed.TkIdent || toks[i].Kind != lexed.TkIdent {
			continue
		}
		if _, seen := out[toks[i].Text]; seen {
			continue
		}
		// Inside braces opened after import or export.
		for j := i - 3; j >= 0 && j > i-200; j-- {
			if t := toks[j].Text; t == ";" || t == "}" {
				break
			} else if t == "{" {
				if p := lexed.TextAt(toks, j-1); p == "export" || p == "import" || p == "type" {
					if out == nil {
						out = map[string]string{}
					}
					out[toks[i].Text] = toks[i-2].Text
				}
				break
			}
		}
	}
	return out
}

// declaresTop reports whether f declares name at module level.
func declaresTop(f *lexed.File, name string) bool {
	return slices.ContainsFunc(f.Decls, func(d lexed.Decl) bool { return d.Container == "" && d.Name == name })
}

// DefaultName returns the name f's default export binds: X of export
// default X, export default (abstract) class X, export default function X;
// "" for an expression.
func DefaultName(f *lexed.File) string {
	toks := f.Toks
	for i := 0; i+2 < len(toks); i++ {
		if toks[i].Text != "export" || toks[i+1].Text != "default" {
			continue
		}
		j := i + 2
		if toks[j].Text == "async" || toks[j].Text == "abstract" {
			j++
		}
		if j < len(toks) && (toks[j].Text == "class" || toks[j].Text == "function") {
			j++
			if j < len(toks) && toks[j].Text == "*" {
				j++
			}
		}
		if j < len(toks) && toks[j].Kind == lexed.TkIdent && (j+1 == len(toks) || toks[j+1].Text == ";" || toks[j+1].Line > toks[j].Line ||
			toks[j+1].Text == "{" || toks[j+1].Text == "(" || toks[j+1].Text == "<" || toks[j+1].Text == "extends") {
			return toks[j].Text
		}
		return ""
	}
	return ""
}

// LiteralSuffix ends the name the declared-type model gives the object
// type a function or method's return annotation spells out ("C.m{}" for
// C.m(): {ctx: Ctx}): its members are fields of that name, and the type is
// declared by the file writing it.
const LiteralSuffix = "{}"

// named resolves the type names f writes to the files declaring them.
func (w *World) named(f *lexed.File, names []string) []Type {
	var out []Type
	for _, n := range names {
		if strings.HasSuffix(n, LiteralSuffix) {
			out = engine.AppendNew(out, Type{Name: n, File: f})
			continue
		}
		g, m := w.declOf(f, n, 0)
		if g == nil {
			m = n
		}
		t := Type{Name: m, File: g}
		out = engine.AppendNew(out, t)
	}
	return out
}

// valueTypes returns the types of the module-level value name as f sees
// it: a class or interface used as a value is itself (Ky.create), a
// variable has the types its declaring file gives it.
func (w *World) valueTypes(f *lexed.File, name string, depth int) []Type {
	g, n := w.declOf(f, name, 0)
	if g == nil || w.tooDeep(depth) {
		return nil
	}
	for _, d := range g.Decls {
		if d.Container == "" && d.Name == n && (d.Kind == "class" || d.Kind == "interface" || d.Kind == "enum") {
			return []Type{{Name: n, File: g}}
		}
	}
	return w.nameTypes(g, n, depth+1)
}

// nameTypes returns the types f gives name: its annotations and new C(),
// and the types of the expressions assigned to it (x = a.f().g).
func (w *World) nameTypes(f *lexed.File, name string, depth int) []Type {
	if w.tooDeep(depth) || !w.step() {
		return nil
	}
	out := w.named(f, f.Types.Vars[name])
	for _, k := range f.Types.Inits[name] {
		out = engine.AppendNew(out, w.exprTypes(f, chainEnd(f, k), depth+1)...)
	}
	return engine.AppendNew(out, w.patternTypes(f, name, depth)...)
}

// step counts one lookup against the budget of a Find, so cyclic or
// deeply branching chains end.
func (w *World) step() bool {
	w.steps++
	if w.steps > maxTypeSteps {
		w.cuts++
		return false
	}
	return true
}

// callTypes returns what calling the module-level function fn of f
// returns: its declared return type, or the call signature of the type of
// a variable (const ky: KyInstance, ky(url)).
func (w *World) callTypes(f *lexed.File, fn string, depth int) []Type {
	if w.tooDeep(depth) {
		return nil
	}
	if rs := f.Types.Returns[fn]; len(rs) > 0 {
		return w.named(f, rs)
	}
	g, n := w.declOf(f, fn, 0)
	var values []Type
	switch {
	case g == nil:
		// A local bound to a callable value (const extended =
		// ky.extend(...) in a test's body): the types of what it was
		// given.
		values = w.nameTypes(f, fn, depth+1)
	case len(g.Types.Returns[n]) > 0:
		return w.named(g, g.Types.Returns[n])
	default:
		values = w.valueTypes(g, n, depth+1)
	}
	var out []Type
	for _, t := range values {
		if t.File != nil {
			out = engine.AppendNew(out, w.named(t.File, t.File.Types.Returns[t.Name+"()"])...)
		}
	}
	return out
}

// memberTypes returns the types of member m of t (what a call of it
// returns when call is set), looked up in t's declaring file and then in
// its supertypes'.
func (w *World) memberTypes(t Type, m string, call bool, depth int) []Type {
	if t.File == nil || w.tooDeep(depth) {
		return nil
	}
	key := t.Name + "." + m
	var names []string
	if call {
		names = t.File.Types.Returns[key]
	} else {
		names = t.File.Types.Fields[key]
	}
	if len(names) > 0 {
		return w.named(t.File, names)
	}
	var out []Type
	for _, s := range w.named(t.File, t.File.Types.Supers[t.Name]) {
		out = engine.AppendNew(out, w.memberTypes(s, m, call, depth+1)...)
	}
	return out
}

// declaring returns the nearest types among t and its supertypes whose
// declaring files declare member m.
func (w *World) declaring(t Type, m string, depth int) []Type {
	if t.File == nil || depth > maxTypeDepth {
		return nil
	}
	if slices.ContainsFunc(t.File.Decls, func(d lexed.Decl) bool { return d.Container == t.Name && d.Name == m }) {
		return []Type{t}
	}
	var out []Type
	for _, s := range w.named(t.File, t.File.Types.Supers[t.Name]) {
		out = engine.AppendNew(out, w.declaring(s, m, depth+1)...)
	}
	return out
}

// chainEnd returns the index of the last token of the member chain
// starting at toks[k]: a name followed by .name, ?.name, !, (args) and
// <type args>.
func chainEnd(f *lexed.File, k int) int {
	toks := f.Toks
	if k >= len(toks) {
		return len(toks) - 1
	}
	if toks[k].Text == "await" || toks[k].Text == "new" {
		k++
	}
	j := k
	for j+1 < len(toks) {
		n := toks[j+1]
		switch {
		case n.Text == "." && j+2 < len(toks) && toks[j+2].Kind == lexed.TkIdent:
			j += 2
		case n.Text == "?" && j+3 < len(toks) && toks[j+2].Text == "." && toks[j+3].Kind == lexed.TkIdent:
			j += 3
		case n.Text == "!" && (j+2 >= len(toks) || toks[j+2].Text != "="):
			j++
		case n.Text == "(" || n.Text == "<" && n.Line == toks[j].Line && int(n.Col) == int(toks[j].Col)+len(toks[j].Text):
			e := closeOf(f, j+1)
			if e < 0 {
				return j
			}
			j = e
		default:
			return j
		}
	}
	return j
}

// shadowedAt reports whether the name token f.Toks[i] is a parameter of a
// function enclosing it.
func (w *World) shadowedAt(f *lexed.File, i int) bool {
	return InScope(w.host.Scopes(f)[f.Toks[i].Text], i)
}

// InScope reports whether token index i lies in one of scopes, listed in
// the order of their From with their Reach: a parameter named like an
// import (c of a thousand handlers) has as many scopes as functions.
func InScope(scopes []Scope, i int) bool {
	p := sort.Search(len(scopes), func(k int) bool { return scopes[k].From > i })
	return p > 0 && scopes[p-1].Reach >= i
}

// closeOf returns the index of the bracket closing f.Toks[i] ('(' or '<'),
// -1 when it does not close.
func closeOf(f *lexed.File, i int) int {
	if f.Toks[i].Text == "<" {
		return angle(f.Toks, i, 1)
	}
	return f.Brackets.Close(i)
}

// angle is the angle bracket matching toks[i] (lexed.MatchAngle), looking
// forward (step 1) or backward (step -1): type arguments hold no ';', '{'
// or '}', so one of those first means a comparison (-1), as does no match
// within 4096 tokens.
func angle(toks []lexed.Tok, i, step int) int {
	if j, ok := lexed.MatchAngle(toks, i, step, 4096, ";{}"); ok {
		return j
	}
	return -1
}

// openOf returns the index of the bracket opening the one closing at
// f.Toks[i] (')' or '>'), -1 when there is none.
func openOf(f *lexed.File, i int) int {
	if f.Toks[i].Text == ">" {
		return angle(f.Toks, i, -1)
	}
	return f.Brackets.Open(i)
}

// exprTypesAt returns the types of the expression of f ending at toks[k]: a
// name, a member x.m, a call f(...) or x.m(...), a new C(...), with
// non-null assertions and parentheses ((await x.f()).m).
func (w *World) exprTypesAt(f *lexed.File, k, depth int) []Type {
	toks := f.Toks
	if k < 0 || k >= len(toks) || w.tooDeep(depth) {
		return nil
	}
	t := toks[k]
	switch {
	case t.Text == "!":
		return w.exprTypes(f, k-1, depth+1)
	case t.Text == ")":
		p := openOf(f, k)
		if p < 1 {
			return nil
		}
		c := p - 1
		if toks[c].Text == ">" {
			if q := openOf(f, c); q > 0 {
				c = q - 1
			}
		}
		if toks[c].Kind != lexed.TkIdent {
			return w.exprTypes(f, k-1, depth+1) // (expr).m
		}
		name := toks[c].Text
		r, member := memberReceiverEnd(toks, c)
		if !member && lexed.IsKeyword(lexed.LangJS, name) && !importsBinding(f, name) {
			return nil // if (...), while (...); not string() of import {string}
		}
		if member {
			var out []Type
			for _, b := range w.exprTypes(f, r, depth+1) {
				out = engine.AppendNew(out, w.selfTypes(b, name, w.memberTypes(b, name, true, depth+1), depth+1)...)
			}
			return out
		}
		if c > 0 && toks[c-1].Text == "new" {
			return w.named(f, []string{name})
		}
		return w.callTypes(f, name, depth+1)
	case t.Kind != lexed.TkIdent:
		return nil
	}
	name := t.Text
	if k >= 2 && toks[k-1].Text == "#" && toks[k-2].Text == "." {
		name = "#" + name
		k--
	}
	if r, ok := memberReceiverEnd(toks, k); ok {
		var out []Type
		for _, b := range w.exprTypes(f, r, depth+1) {
			out = engine.AppendNew(out, w.selfTypes(b, name, w.memberTypes(b, name, false, depth+1), depth+1)...)
		}
		return out
	}
	if name == "this" {
		if c := lexed.EnclosingClass(f, t.Line); c != "" {
			return []Type{{Name: c, File: f}}
		}
		return nil
	}
	if ts := w.nameTypes(f, name, depth+1); len(ts) > 0 {
		return ts
	}
	if w.shadowedAt(f, k) {
		// A parameter (named like an import or not) is not the import.
		return w.callbackTypes(f, k, depth+1)
	}
	return w.valueTypes(f, name, depth+1)
}

// memberReceiverEnd returns the index of the last token of the receiver of
// the member name at toks[k] (x in x.m, x?.m, x!.m), and whether toks[k]
// is a member at all.
func memberReceiverEnd(toks []lexed.Tok, k int) (int, bool) {
	if k < 2 || toks[k-1].Text != "." {
		return 0, false
	}
	r := k - 2
	if toks[r].Text == "?" && r > 0 {
		r--
	}
	return r, true
}

// Callback parameters. An unannotated parameter of a function passed as an
// argument (app.get('/', (c) => c.json(...))) has the type the callee's
// parameter gives it: the callee's parameter type is a function type (or
// an interface with a call signature, or a union of them) whose own
// parameter at the same position is the callback parameter's type.

// Receiver returns the types of the receiver of the member token f.Toks[i]
// (x of x.m), as far as the files read tell.
func (w *World) Receiver(f *lexed.File, i int) []Type {
	r, ok := memberReceiverEnd(f.Toks, i)
	if !ok {
		return nil
	}
	return w.exprTypes(f, r, 0)
}

// Declaring returns the nearest types declaring member among the
// receiver types recv (Receiver's answer) and their supertypes, as far as
// the files read tell; nil when none is known.
func (w *World) Declaring(recv []Type, member string) []Type {
	var found []Type
	for _, t := range recv {
		found = engine.AppendNew(found, w.declaring(t, member, 0)...)
	}
	return found
}

// Implemented returns the nearest supertypes of class (as f declares it)
// that declare member: the interface members a class's method implements
// and the base class members it overrides, as far as the files read tell.
// The class itself is not among them.
func (w *World) Implemented(f *lexed.File, class, member string) []Type {
	if f == nil || f.Types == nil {
		return nil
	}
	var found []Type
	for _, s := range w.named(f, f.Types.Supers[class]) {
		found = engine.AppendNew(found, w.declaring(s, member, 0)...)
	}
	return found
}
