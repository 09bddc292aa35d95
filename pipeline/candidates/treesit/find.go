package treesit

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/candidates/internal/touch"
	"github.com/prscout/prscout/pipeline/candidates/treesit/cargo"
	"github.com/prscout/prscout/pipeline/candidates/treesit/cinclude"
)

// The scores, by how well the two files see each other (sight): below the
// Go and Java readers' resolved ones, above the identifier search's.
var (
	usesScore   = [...]float64{unseen: 0.42, nearby: 0.55, visible: 0.7}
	impactScore = [...]float64{unseen: 0.38, nearby: 0.5, visible: 0.65}
)

// ownDeclScore is a C or C++ header's score for holding the own
// declaration of a definition the change touched (reference.own).
const ownDeclScore = 0.85

const (
	// maxUnseen drops a name that more files declare or refer to than
	// this, none of them seen from the other side: it says little.
	maxUnseen = 6
	// minNameLen is the shortest name searched.
	minNameLen = 2
)

// search is the search of one language family's changes.
type search struct {
	tree   engine.Tree
	ev     *engine.Evidence
	family string
	// autoload maps namespace prefixes to directories (PHP's PSR-4 from
	// composer.json; nil for none).
	autoload map[string]string
	// includes resolves #include paths (nil for families without them).
	includes *cinclude.Includes
	// cargo is the Rust workspace (nil for none, or another family).
	cargo *cargo.Workspace
	// graph is the include graph the gate built (nil for none), and
	// supers the supertypes of the types the files read declare.
	graph  *includeGraph
	supers map[string][]string
	// reach caches includesDecl by the including file and the declaring
	// one.
	reach map[[2]string]bool
}

// touched is a declaration the change touched.
type touched struct {
	f      *file // the side declaring it
	d      *decl
	change engine.DeclChange
}

// use is a name an added line of a changed file uses.
type use struct {
	name, recv string
	member     bool // a member access's name: recv.name
	f          *file
}

// run adds the evidence of cs, the family's changes, to s.ev.
func (s *search) run(ctx context.Context, cs []*engine.Change) error {
	type read struct {
		touched []touched
		uses    []use
	}
	reads := make([]read, len(cs))
	pipeline.ParallelCtx(ctx, len(cs), func(i int) {
		reads[i].touched, reads[i].uses = s.readChange(ctx, cs[i])
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	var ts []touched
	var us []use
	for _, r := range reads {
		ts = append(ts, r.touched...)
		us = append(us, r.uses...)
	}
	words := searchWords(ts, us)
	if len(words) == 0 {
		return nil
	}
	if f := autoloadFiles[s.family]; f != "" {
		s.autoload = readAutoload(ctx, s.tree, s.ev.Cache, f)
	}
	if familyIncludes(s.family) {
		s.includes = newIncludes(ctx, s.tree, s.ev.Cache)
	}
	if s.family == "rust" {
		s.cargo = newCargo(ctx, s.tree, s.ev.Cache)
	}
	q := engine.Query{Words: words, Globs: familyGlobs(s.family), Limit: lexed.GrepLimit, Skip: func(p string) bool {
		l := languageOf(p)
		return l == nil || l.family != s.family
	}}
	paths, err := engine.Found(ctx, s.tree, s.ev, q)
	if err != nil {
		return err
	}
	if s.includes != nil {
		s.includes.Learn(paths, isHeader)
		for _, c := range cs {
			s.includes.Learn([]string{c.Path}, isHeader)
		}
	}
	var files []*file
	var gt *gate
	if s.includes == nil || !gateIncludes {
		files = s.read(ctx, paths, nil)
	} else {
		gt = s.newGate(ctx, paths, words, ts)
		files = s.read(ctx, gt.first(ctx, ts, us), gt.held)
		parsed := make(map[string]*file, len(files))
		for _, f := range files {
			if f != nil {
				parsed[f.path] = f
			}
		}
		files = append(files, s.read(ctx, gt.second(parsed), gt.held)...)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	files = slices.DeleteFunc(files, func(f *file) bool { return f == nil })
	if gt != nil {
		gt.inOrder(files)
		s.graph = gt.graph
	}
	s.supers = supertypes(files, ts)
	s.impact(ts, files)
	s.uses(us, files)
	return nil
}

// read parses the searched files at paths (engine.ReadHeld, held the
// contents at hand): their readings, nil for those not read.
func (s *search) read(ctx context.Context, paths []string, held func(string) []byte) []*file {
	return engine.ReadHeld(ctx, s.tree, s.ev, s.family, paths, held, func(p string, src []byte) (*file, int, bool) {
		f := cachedFile(ctx, s.ev.Cache, p, src)
		if f == nil {
			return nil, 0, false
		}
		return f, len(f.refs) + len(f.decls), true
	})
}

// readChange reads both sides of c: the declarations it touched and the
// names its added lines use.
func (s *search) readChange(ctx context.Context, c *engine.Change) ([]touched, []use) {
	var head, base *touch.Side
	var heads, bases []int
	nf, of := cachedSides(ctx, s.ev.Cache, c)
	if nf != nil {
		head, heads = side(nf, c.New, c.Added)
	}
	if of != nil {
		base, bases = side(of, c.Old, c.Removed)
	}
	var ts []touched
	for _, t := range touch.Touched(head, base, nil) {
		var tt touched
		var other *file
		if t.Base {
			tt, other = touched{f: of, d: &of.decls[bases[t.Index]], change: t.Change}, nf
		} else {
			tt, other = touched{f: nf, d: &nf.decls[heads[t.Index]], change: t.Change}, of
		}
		if !rewritten(tt, other) {
			if valueOnly(tt, other) {
				tt.change = engine.ChangedBody // its callers' contract holds
			}
			ts = append(ts, tt)
		}
	}
	if nf == nil {
		return ts, nil
	}
	var us []use
	seen := map[string]bool{}
	for _, r := range nf.refsOn(head.Lines) {
		k := r.name + "\x00" + r.recv
		if len(r.name) < minNameLen || nf.declares[r.name] || nf.locals[r.name] || seen[k] || (r.member && r.recv == "" && lexed.CommonMember[r.name]) {
			continue
		}
		seen[k] = true
		us = append(us, use{name: r.name, recv: r.recv, member: r.member, f: nf})
	}
	return ts, us
}

// rewritten reports whether t, a declaration touched on one side of a
// change, is written another way on the other side (other, nil for none)
// with nothing changed: a class or struct that is a namespace of its name
// there (its members keep their scope: decl.scope), or a declaration that
// is not a callable whose text is the same there (re-indented, moved).
func rewritten(t touched, other *file) bool {
	if other == nil || t.change != engine.ChangedDecl && t.change != engine.RemovedDecl {
		return false
	}
	d := t.d
	if containerKinds[d.kind] && slices.ContainsFunc(other.namespaces, func(n string) bool { return lastName(n) == d.name }) &&
		!slices.ContainsFunc(other.decls, func(o decl) bool { return o.name == d.name && containerKinds[o.kind] }) {
		return true
	}
	if callableKinds[d.kind] || d.sig == "" {
		return false
	}
	return slices.ContainsFunc(other.decls, func(o decl) bool {
		return o.name == d.name && o.kind == d.kind && o.scope() == d.scope() && o.sig == d.sig
	})
}

// valueOnly reports whether t, a changed variable, field or property, is
// the same up to its '=' on the other side: its value changed, not its type.
func valueOnly(t touched, other *file) bool {
	i := strings.IndexByte(t.d.sig, '=')
	if other == nil || i < 0 || t.change != engine.ChangedDecl || callableKinds[t.d.kind] || containerKinds[t.d.kind] {
		return false
	}
	return slices.ContainsFunc(other.decls, func(o decl) bool {
		return o.name == t.d.name && o.scope() == t.d.scope() && strings.HasPrefix(o.sig, t.d.sig[:i+1])
	})
}

// side is f's side for package touch, with the index in f.decls of each of
// its declarations: f's declarations but impl blocks, the changed lines
// holding code, and the headers' text.
func side(f *file, src []byte, lines map[int]bool) (*touch.Side, []int) {
	s := &touch.Side{Lines: f.codeLines(src, lines)}
	var idx []int
	for k, d := range f.decls {
		if d.kind == "impl" {
			continue
		}
		s.Decls = append(s.Decls, touch.Decl{Container: d.scope(), Name: d.name, Kind: d.kind, From: d.from, To: d.to,
			HeadTo: d.headTo, ByHeader: containerKinds[d.kind], Callable: callableKinds[d.kind]})
		idx = append(idx, k)
	}
	s.Sig = func(i int) string {
		d := &f.decls[idx[i]]
		if !callableKinds[d.kind] && !containerKinds[d.kind] {
			return ""
		}
		return d.sig
	}
	return s, idx
}

// searchWords are the names grepped: each touched declaration's (a member
// whose name every class has, by its container's) and each used name.
func searchWords(ts []touched, us []use) []string {
	seen := map[string]bool{}
	var out []string
	add := func(w string) {
		if len(w) >= minNameLen && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	for _, t := range ts {
		add(t.word())
	}
	for _, u := range us {
		add(u.name)
	}
	sort.Strings(out)
	return out
}

// word is the name searched for t: its declaration's, or for a member
// whose name every class has, its container's.
func (t touched) word() string {
	if t.d.container != "" && commonName(t.d.name) {
		return t.d.container
	}
	return t.d.name
}

// commonName reports a member name too common to search alone.
func commonName(n string) bool { return len(n) < 3 || lexed.CommonMember[n] }
