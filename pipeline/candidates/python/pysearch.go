package python

import (
	"context"
	"path"
	"slices"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/ident"
)

// The Python search resolves names the way Python binds them: a name is
// declared in its module or bound by an import, followed through package
// __init__.py re-exports (from ._impl import *, from .util import helper) to
// the file declaring it; a.b.c walks modules, submodules and class members;
// a member's receiver is typed by the declared-type model (x = C(),
// self.x = C(), annotations, return types, class bases).

// pyTarget is what a name resolves to: a declaration of a file, or (d nil)
// the module itself.
type pyTarget struct {
	f *pyFile
	d *lexed.Decl
	// hide marks a target behind a stub: a re-export that a use does not
	// follow (it stops at the module binding the name, and the stub's own
	// declaration), though references still reach it; only marks that
	// module, reported but not walked.
	hide, only bool
}

// pyResolver reads and resolves Python files of one tree, caching both.
type pyResolver struct {
	ctx   context.Context
	tree  engine.Tree
	files map[string]*pyFile // nil: missing
	names map[string][]pyTarget
	busy  map[string]bool // resolutions under way (import cycles)
	// over maps changed paths to their head side, read from the change.
	over map[string]*pyFile
	// receivers memoizes receiverAt by file and token: each member of a
	// chain a.m().m()... resolves its receiver from the one before.
	receivers map[pyAt][]pyTarget
	cache     *engine.Cache // readings kept across requests
}

// pyAt is a token of a file.
type pyAt struct {
	f *pyFile
	i int
}

// maxReceiverChain bounds the members and calls receiverAt follows back
// from one member: a longer chain is not resolved.
const maxReceiverChain = 64

func newPyResolver(ctx context.Context, tree engine.Tree, cache *engine.Cache) *pyResolver {
	return &pyResolver{ctx: ctx, tree: tree, cache: cache, files: map[string]*pyFile{}, names: map[string][]pyTarget{},
		busy: map[string]bool{}, over: map[string]*pyFile{}}
}

// file reads p once; nil when it is missing.
func (r *pyResolver) file(p string) *pyFile {
	if f, ok := r.over[p]; ok {
		return f
	}
	if f, ok := r.files[p]; ok {
		return f
	}
	var f *pyFile
	if r.ctx.Err() == nil {
		if src, err := r.tree.ReadFile(r.ctx, p); err == nil {
			f = cachedPython(r.cache, p, src)
		}
	}
	r.files[p] = f
	return f
}

// prefetch reads the files of paths and answers, in order, those that
// pass one of gate, lexed, and those read before: a group passes when the
// file mentions its first word and, if it has more, one of the others. The
// others are left unread by the search. The files kept take their tokens
// from ev's bound (engine.ReadFiles).
func (r *pyResolver) prefetch(paths []string, gate [][]string, ev *engine.Evidence) []*pyFile {
	var todo []string
	for _, p := range paths {
		if _, ok := r.files[p]; !ok && r.over[p] == nil {
			todo = append(todo, p)
		}
	}
	got := engine.ReadFiles(r.ctx, r.tree, ev, lexed.LangPython.String(), todo, func(p string, src []byte) (*pyFile, int, bool) {
		if !slices.ContainsFunc(gate, func(g []string) bool { return passes(src, g) }) {
			return nil, 0, false
		}
		f := cachedPython(r.cache, p, src)
		return f, len(f.Toks), true
	})
	fetched := make(map[string]*pyFile, len(todo))
	for i, p := range todo {
		fetched[p] = got[i]
		if got[i] != nil {
			r.files[p] = got[i]
		}
	}
	var files []*pyFile
	for _, p := range paths {
		f, ok := fetched[p]
		if !ok {
			f = r.file(p)
		}
		if f != nil {
			files = append(files, f)
		}
	}
	return files
}

func passes(src []byte, group []string) bool {
	if !ident.Contains(src, group[0], ident.Unicode) {
		return false
	}
	return len(group) == 1 || slices.ContainsFunc(group[1:], func(w string) bool { return ident.Contains(src, w, ident.Unicode) })
}

// gateWords are the words a file referring to declaration name of file p
// must mention: p's module name, the packages above it whose __init__.py
// re-exports name, and for a class member or constructor the class.
func (r *pyResolver) gateWords(p, name, class string) []string {
	mod := strings.TrimSuffix(strings.TrimSuffix(engine.PathBase(p), ".py"), ".pyi")
	dir := engine.DirOf(p)
	if mod == "__init__" {
		mod = engine.PathBase(dir)
		dir = engine.DirOf(dir)
	}
	out := []string{mod}
	if class != "" {
		out = append(out, class)
		name = class
	}
	for d := dir; d != ""; d = engine.DirOf(d) {
		init := r.file(engine.JoinDir(d, "__init__.py"))
		if init == nil || !slices.ContainsFunc(r.resolveName(init, name, 0), func(t pyTarget) bool { return t.f.Path == p }) {
			break
		}
		out = append(out, engine.PathBase(d))
	}
	return out
}

// moduleFile resolves module mod (".x", "..", "a.b") imported by from to
// its file: mod.py, mod.pyi or mod/__init__.py.
func (r *pyResolver) moduleFile(from *pyFile, mod string) *pyFile {
	var bases []string
	rest := mod
	if strings.HasPrefix(mod, ".") {
		dots := len(mod) - len(strings.TrimLeft(mod, "."))
		base := engine.DirOf(from.Path)
		for i := 1; i < dots; i++ {
			base = engine.DirOf(base)
		}
		bases = []string{base}
		rest = mod[dots:]
	} else {
		bases = pyRoots(from.Path, mod)
	}
	rel := strings.ReplaceAll(rest, ".", "/")
	for _, b := range bases {
		m := engine.JoinDir(b, rel)
		if rel == "" {
			m = b
		}
		var cands []string
		if rel != "" {
			cands = append(cands, m+".py", m+".pyi")
		}
		cands = append(cands, engine.JoinDir(m, "__init__.py"), engine.JoinDir(m, "__init__.pyi"))
		for _, p := range cands {
			if f := r.file(p); f != nil {
				return f
			}
		}
	}
	return nil
}

// pyRoots are the directories an absolute import of mod from file p may
// start in: where p's own path names mod's top package, the root, src/ and
// lib/.
func pyRoots(p, mod string) []string {
	first, _, _ := strings.Cut(mod, ".")
	var out []string
	seen := map[string]bool{}
	add := func(d string) {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	parts := strings.Split(engine.DirOf(p), "/")
	for k, c := range parts {
		if c == first {
			add(strings.Join(parts[:k], "/"))
		}
	}
	add("")
	add("src")
	add("lib")
	return out
}

const pyMaxDepth = 8

// resolveName answers what name means at module level in f: its own
// declaration, or what an import binding it leads to.
func (r *pyResolver) resolveName(f *pyFile, name string, depth int) []pyTarget {
	if f == nil || depth > pyMaxDepth {
		return nil
	}
	key := f.Path + "\x00" + name
	if depth > 0 {
		key += "\x00i" // reached through an import: a stub answers
	}
	if ts, ok := r.names[key]; ok {
		return ts
	}
	if r.busy[key] {
		return nil
	}
	r.busy[key] = true
	defer delete(r.busy, key)
	var out []pyTarget
	// A module reached through an import whose stub declares the name
	// answers the stub's declaration, and itself as the place that binds
	// it: the stub's types stand for the module, its re-exports are not
	// followed further.
	if st := r.stubOf(f); depth > 0 && st != nil && f.top[name] == nil {
		if len(f.binds[name]) > 0 {
			out = append(out, pyTarget{f: f, only: true})
			if d := st.top[name]; d != nil {
				out = append(out, pyTarget{f: st, d: d})
			}
			for _, t := range r.boundName(f, name, depth) {
				t.hide = true
				out = append(out, t)
			}
		} else {
			out = r.resolveName(st, name, depth+1)
		}
		r.names[key] = out
		return out
	}
	out = r.boundName(f, name, depth)
	r.names[key] = out
	return out
}

// boundName is resolveName without a stub: f's declaration of name, or
// what the imports binding it (or its star imports) lead to.
func (r *pyResolver) boundName(f *pyFile, name string, depth int) []pyTarget {
	var out []pyTarget
	if d := f.top[name]; d != nil {
		out = append(out, pyTarget{f: f, d: d})
	}
	for _, i := range f.binds[name] {
		im := f.imports[i]
		if !im.from {
			if g := r.moduleFile(f, im.mod); g != nil {
				out = append(out, r.module(g)...)
			}
			continue
		}
		out = append(out, r.fromImport(f, im.mod, im.name, depth)...)
	}
	if len(out) == 0 {
		for _, i := range f.stars {
			g := r.moduleFile(f, f.imports[i].mod)
			if g != nil && g != f {
				out = append(out, r.resolveName(g, name, depth+1)...)
			}
		}
	}
	return out
}

// fromImport resolves "from mod import name" in f: a submodule of a
// package, or the name as the module binds it.
func (r *pyResolver) fromImport(f *pyFile, mod, name string, depth int) []pyTarget {
	g := r.moduleFile(f, mod)
	if g == nil {
		return nil
	}
	var out []pyTarget
	if g != f {
		out = r.resolveName(g, name, depth+1)
	}
	if len(out) == 0 && g.isPkg {
		if sub := r.moduleFile(g, "."+name); sub != nil && sub != g {
			return r.module(sub)
		}
	}
	return out
}

// stubOf answers the stub x.pyi beside module x.py, nil if none.
func (r *pyResolver) stubOf(f *pyFile) *pyFile {
	if path.Ext(f.Path) != ".py" {
		return nil
	}
	return r.file(f.Path + "i")
}

// module answers module g as a target (a module name leads to the module,
// not to its stub).
func (r *pyResolver) module(g *pyFile) []pyTarget {
	return []pyTarget{{f: g}}
}

// attr resolves member name of what t is: a module's name or submodule, a
// class's member (its bases searched), the members of what a function
// returns or a variable holds.
func (r *pyResolver) attr(t pyTarget, name string, depth int) []pyTarget {
	if depth > pyMaxDepth || t.only {
		return nil
	}
	if t.d == nil {
		out := r.resolveName(t.f, name, depth+1)
		if len(out) == 0 && t.f.isPkg {
			if sub := r.moduleFile(t.f, "."+name); sub != nil && sub != t.f {
				out = r.module(sub)
			}
		}
		return out
	}
	var out []pyTarget
	for _, c := range r.instances(t, depth+1) {
		out = append(out, r.member(c.f, c.d.Name, name, depth+1)...)
	}
	return out
}

// instances answers the classes whose instances (or, for a class, whose
// own attributes) t stands for: a class itself, what a function returns,
// what a module variable holds.
func (r *pyResolver) instances(t pyTarget, depth int) []pyTarget {
	if t.d == nil || t.only || depth > pyMaxDepth {
		return nil
	}
	switch t.d.Kind {
	case "class":
		return []pyTarget{t}
	case "function", "method":
		return r.typeTargets(t.f, t.f.typeFacts().Returns[lexed.Display(*t.d)], depth+1)
	case "variable":
		return r.typeTargets(t.f, t.f.typeFacts().Vars[t.d.Name], depth+1)
	case "field":
		return r.typeTargets(t.f, t.f.typeFacts().Vars["self."+t.d.Name], depth+1)
	}
	return nil
}

// typeTargets resolves type names written in f (dotted chains) to classes.
func (r *pyResolver) typeTargets(f *pyFile, chains []string, depth int) []pyTarget {
	var out []pyTarget
	for _, ch := range chains {
		for _, t := range r.chain(f, ch, depth+1) {
			out = append(out, r.instances(t, depth+1)...)
		}
	}
	return out
}

// chain resolves a dotted chain written at module level of f.
func (r *pyResolver) chain(f *pyFile, ch string, depth int) []pyTarget {
	parts := strings.Split(ch, ".")
	ts := r.resolveName(f, parts[0], depth+1)
	for _, p := range parts[1:] {
		var next []pyTarget
		for _, t := range ts {
			next = append(next, r.attr(t, p, depth+1)...)
		}
		ts = next
	}
	return ts
}

// member finds member m of class cls declared in f, or in its bases.
func (r *pyResolver) member(f *pyFile, cls, m string, depth int) []pyTarget {
	if depth > pyMaxDepth {
		return nil
	}
	if d := f.members[cls][m]; d != nil {
		return []pyTarget{{f: f, d: d}}
	}
	var out []pyTarget
	for _, b := range f.typeFacts().Supers[cls] {
		for _, bt := range r.chain(f, b, depth+1) {
			if bt.d != nil && bt.d.Kind == "class" {
				out = append(out, r.member(bt.f, bt.d.Name, m, depth+1)...)
			}
		}
	}
	return out
}

// classAt is the class whose method holds line of f ("" outside one).
func classAt(f *pyFile, line int) *lexed.Decl {
	name := ""
	for i := range f.Decls {
		d := &f.Decls[i]
		if d.Kind == "method" && d.From <= line && line <= d.To {
			name = d.Container
		}
	}
	if name == "" {
		return nil
	}
	for i := range f.Decls {
		if f.Decls[i].Kind == "class" && f.Decls[i].Name == name {
			return &f.Decls[i]
		}
	}
	return nil
}

// value resolves the name toks[i] as an expression of f: self and cls, a
// typed local or attribute, else a module-level name.
func (r *pyResolver) value(f *pyFile, i int) []pyTarget {
	t := f.Toks[i]
	if t.Text == "self" || t.Text == "cls" {
		if c := classAt(f, t.Line); c != nil {
			return []pyTarget{{f: f, d: c}}
		}
		return nil
	}
	if ts := f.typeFacts().Vars[t.Text]; len(ts) > 0 {
		return r.typeTargets(f, ts, 0)
	}
	return r.resolveName(f, t.Text, 0)
}

// receiverAt resolves the receiver of the member token toks[i] (after a
// "."): a chain of names (self.x typed by the model), or a call's result;
// depth counts the members and calls from the first asked. It is memoized.
func (r *pyResolver) receiverAt(f *pyFile, i, depth int) []pyTarget {
	k := pyAt{f, i}
	if ts, ok := r.receivers[k]; ok {
		return ts
	}
	if depth > maxReceiverChain {
		return nil
	}
	ts := r.receiverOnce(f, i, depth)
	if r.receivers == nil {
		r.receivers = map[pyAt][]pyTarget{}
	}
	r.receivers[k] = ts
	return ts
}

// receiverOnce is receiverAt without the memo.
func (r *pyResolver) receiverOnce(f *pyFile, i, depth int) []pyTarget {
	toks := f.Toks
	if i < 2 || toks[i-1].Text != "." {
		return nil
	}
	if toks[i-2].Kind == lexed.TkIdent {
		ch, start := chainBefore(toks, i-2)
		parts := strings.Split(ch, ".")
		var ts []pyTarget
		k := 1
		if (parts[0] == "self" || parts[0] == "cls") && len(parts) > 1 {
			if vs := f.typeFacts().Vars["self."+parts[1]]; len(vs) > 0 {
				ts = r.typeTargets(f, vs, 0)
				k = 2
			}
		}
		if k == 1 {
			ts = r.value(f, start)
		}
		for _, p := range parts[k:] {
			var next []pyTarget
			for _, t := range ts {
				next = append(next, r.attr(t, p, 0)...)
			}
			ts = next
		}
		return ts
	}
	if toks[i-2].Text != ")" {
		return nil
	}
	j := f.Brackets.Open(i - 2)
	if j < 1 || toks[j-1].Kind != lexed.TkIdent {
		return nil
	}
	var callee []pyTarget
	if j >= 2 && toks[j-2].Text == "." {
		for _, rt := range r.receiverAt(f, j-1, depth+1) {
			callee = append(callee, r.attr(rt, toks[j-1].Text, 0)...)
		}
	} else {
		callee = r.value(f, j-1)
	}
	var out []pyTarget
	for _, c := range callee {
		out = append(out, r.instances(c, 0)...)
	}
	return out
}

// refTargets resolves the name token toks[i] of f: a member through its
// Receiver, else a name of the module.
func (r *pyResolver) refTargets(f *pyFile, i int) (ts []pyTarget, member, known bool) {
	toks := f.Toks
	if i > 0 && toks[i-1].Text == "." {
		var out []pyTarget
		rs := r.receiverAt(f, i, 0)
		for _, rt := range rs {
			out = append(out, r.attr(rt, toks[i].Text, 0)...)
		}
		return out, true, len(rs) > 0
	}
	if f.typeFacts().Vars[toks[i].Text] != nil || (f.localNames()[toks[i].Text] && f.top[toks[i].Text] == nil && len(f.binds[toks[i].Text]) == 0) {
		return nil, false, true // a local
	}
	n := toks[i].Text
	ts = r.resolveName(f, n, 0)
	// A name bound by an import of another library is known, though it
	// resolves to no file of the repository.
	return ts, false, len(ts) > 0 || len(f.binds[n]) > 0 || f.top[n] != nil || pyBuiltins[n]
}

// pyPathSkipped reports files the Python search leaves out beside those
// engine.SkippedPath names: dependencies, virtual environments, build
// output.
func pyPathSkipped(p string) bool {
	for _, d := range strings.Split(path.Dir(p), "/") {
		switch d {
		case "site-packages", "venv", "build", "dist", "__pycache__":
			return true
		}
	}
	return false
}
