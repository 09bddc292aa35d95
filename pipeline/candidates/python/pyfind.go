package python

import (
	"context"
	"slices"
	"sort"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

// The evidence of Python changes: uses are the files that names on added
// code lines resolve to (pysearch.go); impact are the files whose
// references resolve to a declaration the change touched. All Python
// changes of one Find share one search and one resolver.

const (
	scorePyResolved = 0.85              // a name resolved through the module's bindings
	scorePyTyped    = 0.75              // a member resolved through its receiver's type
	scorePyLoose    = 0.45              // a member whose receiver is unknown, in a file that resolves its class
	scorePyTextual  = 0.3               // a name nothing resolves, declared by few files
	pyTextualMax    = engine.MaxTextual // textual candidates per change, at most
	pyLooseMax      = 12                // unresolved names searched textually, at most
)

// pyChange is one changed Python file with what the change touched in it.
type pyChange struct {
	c       *engine.Change
	nf      *pyFile
	touched []*lexed.Sym
}

// find adds the evidence of the Python changes cs.
func find(ctx context.Context, tree engine.Tree, _, cs []*engine.Change, ev *engine.Evidence) error {
	r := newPyResolver(ctx, tree, ev.Cache)
	var pcs []*pyChange
	for _, c := range cs {
		pc := &pyChange{c: c}
		var of *pyFile
		pc.nf, of = engine.Sides(c, func(p string, src []byte) *pyFile { return cachedPython(ev.Cache, p, src) })
		if pc.nf != nil {
			r.over[c.Path] = pc.nf
		}
		pc.touched = lexed.Touched(c, pc.nf, of)
		pcs = append(pcs, pc)
	}
	var loose []pyLoose
	for _, pc := range pcs {
		if pc.nf != nil {
			loose = append(loose, pyUses(r, pc, ev)...)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return pyImpact(ctx, r, tree, pcs, loose, ev)
}

// pyLoose is a name on an added line that nothing resolved.
type pyLoose struct {
	pc     *pyChange
	name   string
	member bool
}

// pyUses records the files declaring what names on added code lines of pc
// resolve to, and answers the names nothing resolved.
func pyUses(r *pyResolver, pc *pyChange, ev *engine.Evidence) []pyLoose {
	f := pc.nf
	added := lexed.CodeLines(f.File, pc.c.Added)
	calls := lexed.EnclosingCalls(f.File, added)
	var loose []pyLoose
	seenLoose := map[string]bool{}
	for i, t := range f.Toks {
		if t.Kind != lexed.TkIdent || !added[t.Line] && !calls[i] || pyReserved[t.Text] || f.declares(t) {
			continue
		}
		if i+1 < len(f.Toks) && f.Toks[i+1].Text == "=" && i > 0 && (f.Toks[i-1].Text == "(" || f.Toks[i-1].Text == ",") &&
			(i+2 >= len(f.Toks) || f.Toks[i+2].Text != "=") {
			continue // a keyword argument
		}
		ts, member, known := r.refTargets(f, i)
		score := scorePyResolved
		if member {
			score = scorePyTyped
		}
		for _, tg := range ts {
			if tg.hide {
				continue
			}
			name := t.Text
			if tg.d != nil {
				name = lexed.Display(*tg.d)
			}
			ev.Add(tg.f.Path, engine.UseItem(name, pc.c.Path, score, engine.MethodTokens))
		}
		if len(ts) == 0 && !known && len(t.Text) >= lexed.MinMemberLength && !pyBuiltins[t.Text] && !f.localNames()[t.Text] && !seenLoose[t.Text] {
			seenLoose[t.Text] = true
			loose = append(loose, pyLoose{pc, t.Text, member})
		}
	}
	return loose
}

// pySym is a touched declaration searched for references, by its name or,
// for a touched __init__ (ctor), its class's (the class's constructions).
type pySym struct {
	pc   *pyChange
	s    *lexed.Sym
	ctor bool
}

// pyImpact records the files referring to touched declarations, and the
// textual candidates of names nothing resolved.
func pyImpact(ctx context.Context, r *pyResolver, tree engine.Tree, pcs []*pyChange, loose []pyLoose, ev *engine.Evidence) error {
	byName := map[string][]pySym{}
	var words []string
	addWord := func(w string) {
		if _, ok := byName[w]; !ok {
			words = append(words, w)
			byName[w] = nil
		}
	}
	for _, pc := range pcs {
		for _, s := range pc.touched {
			name, ctor := s.Decl.Name, false
			if s.Decl.Name == "__init__" && s.Decl.Container != "" {
				name, ctor = s.Decl.Container, true
			} else if len(name) < 2 || pyReserved[name] || (lexed.CommonMember[name] && s.Decl.Container != "") {
				continue
			}
			addWord(name)
			byName[name] = append(byName[name], pySym{pc, s, ctor})
		}
	}
	looseNames := map[string]bool{}
	for _, l := range loose {
		if _, ok := byName[l.name]; ok || looseNames[l.name] || len(looseNames) >= pyLooseMax {
			continue
		}
		// A member of an unknown receiver is most often a library's
		// (str.join, dict.values): only a distinctive name is searched.
		if l.member && (len(l.name) < 8 || pyLibraryMembers[l.name]) {
			continue
		}
		looseNames[l.name] = true
		words = append(words, l.name)
	}
	if len(words) == 0 {
		return nil
	}
	q := lexed.Query(lexed.LangPython, words)
	q.Skip = pyPathSkipped
	keep, err := engine.Found(ctx, tree, ev, q)
	if err != nil {
		return err
	}
	// A file is lexed when it mentions a touched name with one of its gate
	// words, or an unresolved name.
	var gate [][]string
	for name, ss := range byName {
		for _, s := range ss {
			gate = append(gate, append([]string{name}, r.gateWords(s.pc.c.Path, s.s.Decl.Name, s.s.Decl.Container)...))
		}
	}
	for n := range looseNames {
		gate = append(gate, []string{n})
	}
	declaring := map[string][]string{} // loose name -> files declaring it
	read := r.prefetch(keep, gate, ev)
	if err := ctx.Err(); err != nil {
		return err
	}
	var touched []*lexed.Sym
	for _, ss := range byName {
		for _, s := range ss {
			touched = append(touched, s.s)
		}
	}
	overrides, below, belowFiles := lexed.FindOverrides(ctx, tree, ev, lexed.LangPython, touched, func(p string, src []byte) (*pyFile, map[string][]string) {
		f := cachedPython(r.cache, p, src)
		return f, f.typeFacts().Supers
	})
	for i, p := range below {
		g, ok := r.files[p]
		if !ok {
			g = belowFiles[i]
			r.files[p] = g
		}
		if g != nil && !slices.Contains(read, g) {
			read = append(read, g)
		}
	}
	for _, g := range read {
		g.typeFacts()
	}
	lexed.Record(overrides, read, ev)
	for _, g := range read {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := g.Path
		for n := range looseNames {
			if g.top[n] != nil || declaresMember(g, n) {
				declaring[n] = append(declaring[n], p)
			}
		}
		pyImpactIn(r, g, byName, ev)
	}
	pyTextual(loose, declaring, ev)
	return nil
}

func declaresMember(g *pyFile, n string) bool {
	for _, ms := range g.members {
		if ms[n] != nil {
			return true
		}
	}
	return false
}

// pyImpactIn records g's references to the touched declarations.
func pyImpactIn(r *pyResolver, g *pyFile, byName map[string][]pySym, ev *engine.Evidence) {
	for i, t := range g.Toks {
		syms := byName[t.Text]
		if t.Kind != lexed.TkIdent || len(syms) == 0 || g.declares(t) || g.importToks[i] {
			continue
		}
		call := i+1 < len(g.Toks) && g.Toks[i+1].Text == "("
		ts, member, known := r.refTargets(g, i)
		for _, sym := range syms {
			if sym.ctor && !call {
				continue
			}
			score := 0.0
			for _, tg := range ts {
				if pySame(tg, sym) {
					score = scorePyResolved
					if member && sym.s.Decl.Container != "" {
						score = scorePyTyped
					}
					break
				}
			}
			if score == 0 && member && !known && sym.s.Decl.Container != "" && !sym.ctor && knowsClass(r, g, sym) {
				score = scorePyLoose
			}
			if score == 0 && !member && sym.s.Base && len(ts) == 0 && importsFrom(r, g, t.Text, sym.pc.c.Path) {
				score = scorePyResolved // the name the module no longer declares
			}
			if score == 0 {
				continue
			}
			verb := engine.Verb(call)
			if sym.ctor {
				verb = "constructs"
			}
			ev.Add(g.Path, engine.ImpactItem(verb, lexed.Display(sym.s.Decl), sym.s.Change, score, engine.MethodTokens, call))
		}
	}
}

// importsFrom reports whether g binds name by a from-import of the module
// at path.
func importsFrom(r *pyResolver, g *pyFile, name, path string) bool {
	for _, i := range g.binds[name] {
		if im := g.imports[i]; im.from {
			if m := r.moduleFile(g, im.mod); m != nil && m.Path == path {
				return true
			}
		}
	}
	return false
}

// pySame reports whether target tg is the touched declaration (for a
// touched __init__, its class).
func pySame(tg pyTarget, sym pySym) bool {
	if tg.d == nil || tg.f.Path != sym.pc.c.Path {
		return false
	}
	if sym.ctor {
		return tg.d.Kind == "class" && tg.d.Name == sym.s.Decl.Container
	}
	return tg.d.Name == sym.s.Decl.Name && tg.d.Container == sym.s.Decl.Container
}

// knowsClass reports whether g resolves the class declaring sym by a name
// it mentions: g imports it (or a subclass of it), so an untyped receiver
// may be one.
func knowsClass(r *pyResolver, g *pyFile, sym pySym) bool {
	cls := sym.s.Decl.Container
	if !lexed.RefersTo(g.File, cls) {
		return false
	}
	for _, tg := range r.resolveName(g, cls, 0) {
		if tg.d != nil && tg.f.Path == sym.pc.c.Path && tg.d.Name == cls {
			return true
		}
	}
	return false
}

// pyTextual adds, for names nothing resolved, the few files that declare
// them: at most pyTextualMax per change, none for a name declared widely.
func pyTextual(loose []pyLoose, declaring map[string][]string, ev *engine.Evidence) {
	added := map[*pyChange]int{}
	for _, l := range loose {
		ps := declaring[l.name]
		if len(ps) == 0 || len(ps) > 2 {
			continue
		}
		if l.member && len(ps) > 1 {
			continue // only a member name declared once counts
		}
		sort.Strings(ps)
		for _, p := range ps {
			if added[l.pc] >= pyTextualMax {
				break
			}
			if ev.Files[p] != nil {
				continue
			}
			added[l.pc]++
			it := engine.UseItem(l.name, l.pc.c.Path, scorePyTextual, engine.MethodTextual)
			it.Reason += " (the name did not resolve)"
			ev.Add(p, it)
		}
	}
}

// pyLibraryMembers are methods of the builtin and standard library types
// that a repository's classes often declare too.
var pyLibraryMembers = engine.Words("readlines splitlines expanduser write_text read_text write_bytes read_bytes startswith endswith isidentifier removeprefix removesuffix append extend insert remove update values items keys decode encode format replace strip lstrip rstrip split rsplit splitlines startswith endswith lower upper join setdefault popitem discard isdigit isalpha casefold partition rpartition readline readlines write writelines flush close seek tell getvalue search match fullmatch findall finditer group groups groupdict")

// Reader reads Python changes.
var Reader = lexed.ReaderOf(lexed.LangPython, find)
