// Package golang is the candidates engine for Go: files are parsed with
// go/parser, names resolved per package (directory) and import path (go.mod's
// module path maps imports to directories), methods by receiver type and
// fields by struct, with the types of local variables inferred from their
// declarations. There is no type checker at run time, so a selector whose
// operand type cannot be inferred still counts, with a lower score.
package golang

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/candidates/golang/goast"
	"github.com/prscout/prscout/pipeline/candidates/golang/goscan"
	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/ident"
)

// Scores of Go evidence. Exact means the name resolved to one declaration;
// ambiguous means a selector whose operand type could not be inferred.
const (
	scoreGoUses          = 0.9
	scoreGoUsesAmbiguous = 0.5
	scoreGoImpactBreak   = 0.95 // a changed signature or a removed name
	scoreGoImpact        = 0.85 // a changed body or declaration
	scoreGoImpactAmbig   = 0.4
	// goGrepLimit bounds the files one search for changed names answers.
	goGrepLimit = 2000
	// goWalkLimit bounds the files inspected for references to changed names.
	goWalkLimit = 400
)

// goSym is a declaration the change touched.
type goSym struct {
	pk     pkgKey
	recv   string // for methods and fields
	name   string
	member bool
	ptr    bool // pointer receiver
	iface  bool // a method of an interface type
	change engine.DeclChange
	from   string // the changed file, for reasons
}

func (s *goSym) key() string {
	return s.pk.dir + "\x00" + strconv.FormatBool(s.pk.xtest) + "\x00" + s.recv + "\x00" + s.name
}

func (s *goSym) display() string {
	if s.member {
		return memberName(s.recv, s.name, s.ptr)
	}
	return s.name
}

// memberName names a member in reasons: (*T).m for a method of a pointer
// receiver, else T.m.
func memberName(recv, name string, ptr bool) string {
	if ptr {
		return "(*" + recv + ")." + name
	}
	return recv + "." + name
}

// find adds the Go evidence of the change to ev.
func find(ctx context.Context, tree engine.Tree, all, gos []*engine.Change, ev *engine.Evidence) error {
	return newGoEngine(ctx, tree, ev.Cache).find(all, gos, ev)
}

// find adds the Go evidence of the change to ev.
func (e *goEngine) find(all, gos []*engine.Change, ev *engine.Evidence) error {
	ctx := e.ctx
	for _, c := range all {
		if c.New != nil {
			e.heads[c.Path] = c.New
		}
	}
	order, usesFiles, err := e.touched(gos)
	if err != nil {
		return err
	}
	// The search for the changed names, and the reading, filtering and
	// parsing of the files it finds, run in the background while the uses
	// of the added lines are resolved: none of it touches the engine's
	// own maps, which only this goroutine changes.
	plan := e.impactPlan(order)
	done := make(chan impactPrep, 1)
	if len(plan.words) > 0 {
		e.plan = plan
		go func() { done <- e.prepareImpact(plan, ev) }()
	}
	// The uses of the added lines are resolved meanwhile; the references
	// to the changed names are walked once the search's files are ready,
	// after the uses, so the reasons come in the same order every run.
	for _, j := range usesFiles {
		e.usesOf(j.f, j.c, ev)
	}
	if len(plan.words) == 0 {
		return e.err
	}
	prep := <-done
	if prep.err != nil {
		return prep.err
	}
	if e.err == nil {
		e.impactOf(plan, prep, ev)
	}
	if e.err != nil {
		return e.err
	}
	return ctx.Err()
}

// usesJob is a changed file whose added lines' uses are to be resolved.
type usesJob struct {
	f *goFile
	c *engine.Change
}

// usesOf records the declarations outside the change that the added lines
// of changed file f refer to.
func (e *goEngine) usesOf(f *goFile, c *engine.Change, ev *engine.Evidence) {
	if len(c.Added) == 0 {
		return
	}
	tf := f.tf
	callees := goast.EnclosingCallees(f.ast, f.tf, c.Added)
	onAdded := func(id *ast.Ident) bool { return c.Added[tf.Line(id.Pos())] || callees[id] }
	var ambiguous []string // member names of operands of unknown type, each once
	seen := map[string]bool{}
	w := &goWalker{e: e, f: f, want: onAdded, emit: func(r goRef) {
		switch {
		case !r.member:
			p := e.lookupTopPath(r.pk, r.name, f.test)
			if p == "" || p == f.path {
				return
			}
			ev.Add(p, engine.UseItem(r.name, f.path, scoreGoUses, engine.MethodGo))
		case r.exact && r.decl != nil:
			ev.Add(r.decl.f.path, engine.UseItem(memberName(r.decl.recv, r.decl.name, r.decl.ptr), f.path, scoreGoUses, engine.MethodGo))
		case !r.exact:
			if !seen[r.name] {
				seen[r.name] = true
				ambiguous = append(ambiguous, r.name)
			}
		}
	}}
	w.holds = func(from, to token.Pos) bool {
		if engine.SpanHit(c.Added, tf.Line(from), tf.Line(to)) {
			return true
		}
		for id := range callees { // the callee of a changed argument line
			if from <= id.Pos() && id.Pos() < to {
				return true
			}
		}
		return false
	}
	w.skip = func(d ast.Decl) bool { return !w.holds(d.Pos(), d.End()) }
	w.walkFile()
	for _, name := range ambiguous {
		if !commonMethods[name] {
			e.ambiguousUses(f, name, ev)
		}
	}
}

// ambiguousUses records the declarations of members named name in f's own
// package and the repository packages it imports, when there are few.
func (e *goEngine) ambiguousUses(f *goFile, name string, ev *engine.Evidence) {
	dirs := []pkgKey{f.pk}
	if f.pk.xtest {
		dirs = append(dirs, pkgKey{dir: f.pk.dir})
	}
	for _, ips := range []map[string]string{f.imports, e.aliases[f]} {
		for _, ip := range ips {
			if d, ok := e.importDir(f, ip); ok {
				dirs = append(dirs, pkgKey{dir: d})
			}
		}
	}
	// Only one or two declaring files are listed: the methods are looked
	// up first, and the search for fields (which reads every file of a
	// package naming the name) stops once more than two files declare it.
	var hits []found
	files := map[string]bool{}
	add := func(h found) {
		hits = append(hits, h)
		if h.path != f.path {
			files[h.path] = true
		}
	}
	for _, pk := range dirs {
		for _, m := range e.dir(pk.dir).methods(name) {
			for _, p := range m.paths {
				add(found{p, "(" + m.recv + ")." + name})
			}
		}
	}
	for _, pk := range dirs {
		if len(files) > 2 {
			return
		}
		for _, h := range e.fieldsNamed(pk, name) {
			add(h)
		}
	}
	// The declarations come from maps: sorted, each path keeps the same
	// symbol from one run to the next.
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].path != hits[j].path {
			return hits[i].path < hits[j].path
		}
		return hits[i].sym < hits[j].sym
	})
	uniq := map[string]string{}
	for _, h := range hits {
		if _, ok := uniq[h.path]; !ok && h.path != f.path {
			uniq[h.path] = h.sym
		}
	}
	if len(uniq) == 0 || len(uniq) > 2 {
		return
	}
	score := scoreGoUsesAmbiguous / float64(len(uniq))
	for p, s := range uniq {
		ev.Add(p, engine.Item{Kind: engine.KindUses, Symbol: s, Method: engine.MethodGo, Score: score,
			Reason: fmt.Sprintf("may declare `%s`, used by the change in %s (operand type not inferred)", s, engine.PathBase(f.path))})
	}
}

// fieldsNamed finds struct fields and interface methods named name in the
// files of package pk that mention it.
func (e *goEngine) fieldsNamed(pk pkgKey, name string) []found {
	k := fieldsKey{pk, name}
	if out, ok := e.fields[k]; ok {
		return out
	}
	out := e.findFields(pk, name)
	e.fields[k] = out
	return out
}

// fieldsKey is a package and a member name.
type fieldsKey struct {
	pk   pkgKey
	name string
}

func (e *goEngine) findFields(pk pkgKey, name string) []found {
	var out []found
	g := e.dir(pk.dir)
	for _, p := range g.paths {
		src := e.read(p)
		// Only a file naming name outside its function bodies, where the
		// fields of package-level types are, is parsed.
		if src == nil || !goscan.NamedOutsideBodies(src, name, ident.Dollar|ident.Unicode, func() []goscan.Body { return e.bodiesOf(src) }) {
			continue
		}
		f := e.parse(p)
		if f == nil || f.pk != pk {
			continue
		}
		for tn, d := range f.top {
			if d.kind != dType {
				continue
			}
			fl, _ := goast.Members(d.typ.Type)
			if fl == nil {
				continue
			}
			for _, fld := range fl.List {
				for _, n := range fld.Names {
					if n.Name == name {
						out = append(out, found{p, tn + "." + name})
					}
				}
			}
		}
	}
	return out
}

// commonMethods are member names that many types declare, in the standard
// library (interfaces such as error, fmt.Stringer, io.Closer, sort.Interface,
// http.Handler) and in most code bases. A selector with such a name and an
// operand of unknown type says nothing about which type it means.
var commonMethods = engine.Words("Error String Close Read Write Len Less Swap ServeHTTP Header WriteHeader Flush Unwrap Is As Format GoString MarshalJSON UnmarshalJSON MarshalText UnmarshalText MarshalYAML UnmarshalYAML Add Get Set Delete Del Values Value Run Do Name Type Key Next Reset Init Start Stop Wait Done Err Context Handle Parse Clone Copy Equal Compare Lock Unlock RLock RUnlock Load Store Apply Validate Open Scan Seek Sum Size Bytes Len Cap Append Push Pop Peek Contains Keys Find Match Exec Call Send Recv Close Shutdown Serve Listen Accept Dial Print Printf Println Sprintf Errorf Fatal Fatalf Log Logf Info Warn Debug With WithField WithFields WithContext WithError")

// uniqueMember reports whether no other type of the member's package
// declares a method or field with its name, so that a selector of unknown
// operand type most likely means it.
func (e *goEngine) uniqueMember(s *goSym) bool {
	if commonMethods[s.name] {
		return false
	}
	for _, m := range e.dir(s.pk.dir).methods(s.name) {
		if m.recv != s.recv {
			return false
		}
	}
	for _, h := range e.fieldsNamed(s.pk, s.name) {
		if !strings.HasPrefix(h.sym, s.recv+".") {
			return false
		}
	}
	return true
}

// found is a declaration's file and display name.
type found struct{ path, sym string }

// impactOf records the files outside the change that refer to the changed
// or removed declarations syms.
// impactPlan is what the search for references to changed names needs.
type impactPlan struct {
	byName      map[string][]*goSym
	words       []string
	want        ident.Set[bool] // changed names and the receiver types of changed members
	importPaths map[pkgKey]string
	imports     map[pkgKey][]byte // "import path" of each, for the files that import it
}

func (e *goEngine) impactPlan(syms []*goSym) *impactPlan {
	p := &impactPlan{byName: map[string][]*goSym{}, importPaths: map[pkgKey]string{}, imports: map[pkgKey][]byte{}}
	for _, s := range syms {
		if isTestFunc(s) {
			continue // nothing refers to a test function
		}
		if _, ok := p.byName[s.name]; !ok {
			p.words = append(p.words, s.name)
		}
		p.byName[s.name] = append(p.byName[s.name], s)
		p.want.Put(s.name, true)
		if s.member {
			p.want.Put(s.recv, true)
		}
		if _, ok := p.importPaths[s.pk]; !ok {
			p.importPaths[s.pk] = e.importPathOf(s.pk.dir)
			if ip := p.importPaths[s.pk]; ip != "" {
				p.imports[s.pk] = []byte(`"` + ip + `"`)
			}
		}
	}
	sort.Strings(p.words)
	return p
}

// impactCand is a file that may refer to changed names.
type impactCand struct {
	path  string
	src   []byte
	names map[string]bool
	rank  int // 0: same package, 1: imports it, 2: names a changed member's type
	f     *goFile
	at    []int // where names occur in src, in order
}

// filter decides whether the file at p can refer to a changed name: a file
// of the name's package, a file importing its package (exported names) or,
// for a member, a file that also names the member's type.
func (pl *impactPlan) filter(p string, src []byte) *impactCand {
	present, at := wantedIn(&pl.want, src)
	c := &impactCand{path: p, src: src, names: map[string]bool{}, rank: 3}
	imports := map[pkgKey]bool{}
	for name, occ := range present {
		for _, s := range pl.byName[name] {
			if s.member && !s.iface && occ&(engine.OccSelector|engine.OccKey) == 0 {
				continue // a member is named after a dot or as a literal key (or declared, implementing an interface)
			}
			r := 2
			switch {
			case engine.DirOf(p) == s.pk.dir:
				r = 0
			case occ&engine.OccSelector == 0 && !s.iface:
				continue // another package writes pkg.Name or x.Name
			case !ast.IsExported(s.name):
				continue // unexported: only its own package can name it
			default:
				in, ok := imports[s.pk]
				if !ok {
					in = pl.importPaths[s.pk] != "" && bytes.Contains(src, pl.imports[s.pk])
					imports[s.pk] = in
				}
				if in {
					r = 1
				} else if !s.member || present[s.recv] == 0 {
					continue
				}
			}
			c.names[name] = true
			c.rank = min(c.rank, r)
		}
	}
	if len(c.names) == 0 {
		return nil
	}
	c.at = at
	if len(c.names) < len(present) {
		c.at = namesAt(src, at, c.names)
	}
	return c
}

// impactPrep is the part of the search for references that needs none of
// the engine's maps (only its parse table, which is safe for concurrent
// use): the files the search found that may refer to a changed name, read
// and filtered, at most goWalkLimit of them, each with a parse that keeps
// the bodies its walk needs.
type impactPrep struct {
	todo  []string
	found []*impactCand // by todo index; nil: ruled out
	cands []*impactCand
	err   error
}

// prepareImpact searches the files that may refer to the changed or
// removed declarations of plan (engine.Search, each filtered as it is
// read), and parses those to walk, all in parallel. It reads the tree, the
// shared caches and the parse table only, so it may run while the engine
// resolves other names.
func (e *goEngine) prepareImpact(plan *impactPlan, ev *engine.Evidence) impactPrep {
	q := engine.Query{Words: plan.words, Globs: []string{"*.go"}, Limit: goGrepLimit}
	todo, found, err := engine.Search(e.ctx, e.tree, ev, "Go", q, func(p string, src []byte) (*impactCand, int, bool) {
		c := plan.filter(p, src)
		return c, 0, c != nil
	})
	if err != nil {
		return impactPrep{err: err}
	}
	var cands []*impactCand
	for _, c := range found {
		if c != nil {
			cands = append(cands, c)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].rank < cands[j].rank })
	if len(cands) > goWalkLimit {
		cands = cands[:goWalkLimit]
	}
	// impactIn walks the declarations whose text names a changed name: the
	// parse keeps those bodies.
	// A file the engine's lookups have parsed, or are parsing, since the
	// plan was made keeps those bodies already: it is parsed once.
	pipeline.ParallelCtx(e.ctx, len(cands), func(i int) {
		c := cands[i]
		keep := walkKeep(c.at)
		c.f = e.files.parsed(c.path, keep, func() *goFile { return parseIn(c.path, c.src, e.bodiesOf(c.src), keep) })
	})
	return impactPrep{todo: todo, found: found, cands: cands}
}

// impactOf records the files of prep.cands that refer to the changed or
// removed declarations of plan; references are resolved one file after
// another, each in the parse prepareImpact took (see parsedFor).
func (e *goEngine) impactOf(plan *impactPlan, prep impactPrep, ev *engine.Evidence) {
	for i, c := range prep.found {
		if c != nil {
			e.content[prep.todo[i]] = c.src
		}
	}
	for _, c := range prep.cands {
		if e.err != nil {
			return
		}
		f := c.f
		if f == nil {
			continue
		}
		if goscan.IsGenerated(f.src) {
			ev.MarkGenerated(f.path)
		}
		e.impactIn(f, c.names, c.at, c.rank, plan.byName, ev)
	}
	if e.err == nil {
		e.err = e.ctx.Err()
	}
}

// isTestFunc reports a Test, Benchmark, Example or Fuzz function of a test file.
func isTestFunc(s *goSym) bool {
	if s.member || !strings.HasSuffix(s.from, "_test.go") {
		return false
	}
	for _, p := range []string{"Test", "Benchmark", "Example", "Fuzz"} {
		if strings.HasPrefix(s.name, p) {
			return true
		}
	}
	return false
}

// maxWord is the length of the longest word looked for.
const maxWord = 64

// namedIn reports whether one of the sorted offsets at lies in [from, to).
func namedIn(at []int, from, to int) bool {
	k, _ := slices.BinarySearch(at, from)
	return k < len(at) && at[k] < to
}

// impactIn records the references of file f to the changed declarations.
// at holds the offsets in f's content at which one of names occurs as an
// identifier: a declaration without one is not walked.
func (e *goEngine) impactIn(f *goFile, names map[string]bool, at []int, rank int, byName map[string][]*goSym, ev *engine.Evidence) {
	w := &goWalker{e: e, f: f, want: func(id *ast.Ident) bool { return names[id.Name] }}
	w.skip = func(d ast.Decl) bool {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			return true
		}
		return !w.holds(d.Pos(), d.End())
	}
	w.holds = func(from, to token.Pos) bool {
		a, b := f.tf.Offset(from), f.tf.Offset(to)
		return a >= 0 && b <= len(f.src) && a <= b && namedIn(at, a, b)
	}
	w.emit = func(r goRef) {
		for _, s := range byName[r.name] {
			score := 0.0
			switch {
			case !r.member && !s.member && r.pk == s.pk:
				score = scoreGoImpact
			case r.member && s.member && r.exact && r.pk == s.pk && r.recv == s.recv:
				score = scoreGoImpact
			case r.member && s.member && !r.exact && rank < 2 && e.uniqueMember(s):
				score = scoreGoImpactAmbig
			}
			if score == 0 {
				continue
			}
			if score == scoreGoImpact && (s.change == engine.ChangedSignature || s.change == engine.RemovedDecl) {
				score = scoreGoImpactBreak
			}
			it := engine.ImpactItem(engine.Verb(r.call), s.display(), s.change, score, engine.MethodGo, r.call)
			if score == scoreGoImpactAmbig {
				it.Reason += " (operand type not inferred)"
			}
			ev.Add(f.path, it)
		}
	}
	w.walkFile()
	e.implementationsIn(f, names, byName, ev)
}

// implementationsIn records the methods f declares under the name of a
// touched interface method, in a package that sees the interface (its own,
// or one importing it): without a type checker a same-named method is taken
// for an implementation, which must follow the interface's change.
func (e *goEngine) implementationsIn(f *goFile, names map[string]bool, byName map[string][]*goSym, ev *engine.Evidence) {
	for _, d := range f.ast.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || !names[fd.Name.Name] {
			continue
		}
		for _, s := range byName[fd.Name.Name] {
			if s.iface && e.sees(f, s.pk) {
				ev.Add(f.path, engine.ImpactItem("implements", s.display(), s.change, scoreGoImpactBreak, engine.MethodGo, false))
			}
		}
	}
}

// sees reports whether f is in package pk or imports it.
func (e *goEngine) sees(f *goFile, pk pkgKey) bool {
	if f.pk.dir == pk.dir {
		return true
	}
	for name := range f.imports {
		if _, dir, in, ok := e.importedPkg(f, name); ok && in && dir == pk.dir {
			return true
		}
	}
	return false
}
