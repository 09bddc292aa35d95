package candidates

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"sort"
	"strings"
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

// change kinds of a declaration, for the wording of reasons.
type declChange int

const (
	changedBody declChange = iota + 1
	changedSignature
	changedDecl
	removedDecl
)

func (c declChange) phrase() string {
	switch c {
	case changedBody:
		return "whose body changed"
	case changedSignature:
		return "whose signature changed"
	case removedDecl:
		return "which the change removes"
	}
	return "whose declaration changed"
}

// goSym is a declaration the change touched.
type goSym struct {
	pk     pkgKey
	recv   string // for methods and fields
	name   string
	member bool
	ptr    bool // pointer receiver
	field  bool
	change declChange
	from   string // the changed file, for reasons
	sig    string // a function's signature text, to tell body from signature changes
}

func (s *goSym) key() string {
	return fmt.Sprintf("%s\x00%t\x00%s\x00%s", s.pk.dir, s.pk.xtest, s.recv, s.name)
}

func (s *goSym) display() string {
	switch {
	case s.member && !s.field && s.ptr:
		return "(*" + s.recv + ")." + s.name
	case s.member:
		return s.recv + "." + s.name
	}
	return s.name
}

// findGo adds the Go evidence of the change to ev.
func findGo(ctx context.Context, tree Tree, all, gos []*change, ev *evidence) error {
	e := newGoEngine(ctx, tree)
	for _, c := range all {
		if c.New != nil {
			e.heads[c.Path] = c.New
		}
	}
	syms := map[string]*goSym{}
	var order []*goSym
	addSym := func(s *goSym) {
		if old, ok := syms[s.key()]; ok {
			if s.change > old.change && old.change != removedDecl {
				old.change = s.change
			}
			return
		}
		syms[s.key()] = s
		order = append(order, s)
	}
	var olds []*goSym
	oldSig := map[string]string{}
	for _, c := range gos {
		if skippedPath(c.Path) {
			continue
		}
		if c.New != nil {
			if f := e.parse(c.Path); f != nil {
				for _, s := range changedSyms(e.fset, f, c.added) {
					s.from = c.Path
					addSym(s)
				}
				e.usesOf(f, c, ev)
			}
		}
		if c.Old != nil && len(c.removed) > 0 {
			op := c.Path
			if c.OldPath != "" {
				op = c.OldPath
			}
			if f := e.parseSrc(op, c.Old); f != nil {
				for _, s := range changedSyms(e.fset, f, c.removed) {
					s.from = c.Path
					olds = append(olds, s)
				}
				all := map[int]bool{}
				for l := 1; l <= e.fset.File(f.ast.Pos()).LineCount(); l++ {
					all[l] = true
				}
				for _, s := range changedSyms(e.fset, f, all) {
					if s.sig != "" {
						oldSig[s.key()] = s.sig
					}
				}
			}
		}
		if e.err != nil {
			return e.err
		}
	}
	// A declaration that lost lines is changed when the head still has it,
	// removed otherwise (renamed counts as removed: its users still name it).
	for _, s := range olds {
		if _, ok := syms[s.key()]; ok {
			addSym(s)
			continue
		}
		if !e.existsAtHead(s) {
			s.change = removedDecl
		}
		addSym(s)
	}
	// A function whose signature text is the same on both sides changed its
	// body only, whatever lines the diff touched.
	for _, s := range order {
		if old, ok := oldSig[s.key()]; ok && s.sig != "" && s.change != removedDecl {
			if old == s.sig {
				s.change = changedBody
			} else {
				s.change = changedSignature
			}
		}
	}
	if len(order) == 0 {
		return e.err
	}
	if err := e.impactOf(order, ev); err != nil {
		return err
	}
	return e.err
}

// existsAtHead reports whether the declaration named by s exists at the head.
func (e *goEngine) existsAtHead(s *goSym) bool {
	if !s.member {
		_, _, ok := e.lookupTop(s.pk, s.name, true)
		return ok
	}
	return e.member(&gtype{kind: tNamed, pk: s.pk, name: s.recv}, s.name, 0) != nil
}

// changedSyms returns the declarations of f that contain one of lines:
// functions and methods (body or signature), types, struct fields,
// interface methods, variables and constants. Doc comments do not count.
func changedSyms(fset *token.FileSet, f *goFile, lines map[int]bool) []*goSym {
	if len(lines) == 0 {
		return nil
	}
	line := func(p token.Pos) int { return fset.Position(p).Line }
	hit := func(from, to int) bool {
		if to-from < len(lines) {
			for l := from; l <= to; l++ {
				if lines[l] {
					return true
				}
			}
			return false
		}
		for l := range lines {
			if l >= from && l <= to {
				return true
			}
		}
		return false
	}
	var out []*goSym
	for _, d := range f.ast.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			from, to := line(d.Pos()), line(d.End())
			if !hit(from, to) {
				continue
			}
			s := &goSym{pk: f.pk, name: d.Name.Name, change: changedBody}
			sigEnd := to
			if d.Body != nil {
				sigEnd = line(d.Body.Lbrace)
			}
			if hit(from, sigEnd) {
				s.change = changedSignature
			}
			s.sig = sigText(fset, f.src, d)
			if d.Recv != nil && len(d.Recv.List) > 0 {
				s.recv = recvName(d.Recv.List[0].Type)
				s.member = true
				_, s.ptr = d.Recv.List[0].Type.(*ast.StarExpr)
				if s.recv == "" {
					continue
				}
			}
			out = append(out, s)
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					out = append(out, typeSyms(f, sp, line, hit)...)
				case *ast.ValueSpec:
					from, to := line(sp.Pos()), line(sp.End())
					if len(d.Specs) == 1 && !d.Lparen.IsValid() {
						from = line(d.Pos())
					}
					if !hit(from, to) {
						continue
					}
					for _, n := range sp.Names {
						if n.Name != "_" {
							out = append(out, &goSym{pk: f.pk, name: n.Name, change: changedDecl})
						}
					}
				}
			}
		}
	}
	return out
}

// sigText is the source of a function's receiver type and signature with
// spaces collapsed.
func sigText(fset *token.FileSet, src []byte, d *ast.FuncDecl) string {
	text := func(n ast.Node) string {
		a, b := fset.Position(n.Pos()).Offset, fset.Position(n.End()).Offset
		if a < 0 || b > len(src) || a > b {
			return ""
		}
		return strings.Join(strings.Fields(string(src[a:b])), " ")
	}
	s := text(d.Type)
	if d.Recv != nil && len(d.Recv.List) > 0 {
		s = text(d.Recv.List[0].Type) + " " + s
	}
	return s
}

// typeSyms returns the type itself when its header or non-struct definition
// changed, and the struct fields and interface methods whose lines changed.
func typeSyms(f *goFile, sp *ast.TypeSpec, line func(token.Pos) int, hit func(int, int) bool) []*goSym {
	from, to := line(sp.Pos()), line(sp.End())
	if !hit(from, to) {
		return nil
	}
	var fields *ast.FieldList
	method := false
	switch t := sp.Type.(type) {
	case *ast.StructType:
		fields = t.Fields
	case *ast.InterfaceType:
		fields, method = t.Methods, true
	default:
		return []*goSym{{pk: f.pk, name: sp.Name.Name, change: changedDecl}}
	}
	var out []*goSym
	if hit(from, line(fields.Opening)) {
		out = append(out, &goSym{pk: f.pk, name: sp.Name.Name, change: changedDecl})
	}
	for _, fld := range fields.List {
		if !hit(line(fld.Pos()), line(fld.End())) {
			continue
		}
		names := fld.Names
		if len(names) == 0 {
			if method {
				out = append(out, &goSym{pk: f.pk, name: sp.Name.Name, change: changedDecl})
				continue
			}
			n := recvName(fld.Type)
			if n == "" {
				n = selName(fld.Type)
			}
			if n != "" {
				names = []*ast.Ident{{Name: n}}
			}
		}
		for _, n := range names {
			s := &goSym{pk: f.pk, recv: sp.Name.Name, name: n.Name, member: true, field: !method, change: changedDecl}
			if method {
				s.change = changedSignature
			}
			out = append(out, s)
		}
	}
	return out
}

// usesOf records the declarations outside the change that the added lines
// of changed file f refer to.
func (e *goEngine) usesOf(f *goFile, c *change, ev *evidence) {
	if len(c.added) == 0 {
		return
	}
	onAdded := func(id *ast.Ident) bool { return c.added[e.fset.Position(id.Pos()).Line] }
	type amb struct {
		name string
		call bool
	}
	var ambiguous []amb
	seen := map[string]bool{}
	w := &goWalker{e: e, f: f, want: onAdded, emit: func(r goRef) {
		switch {
		case !r.member:
			df, d, ok := e.lookupTop(r.pk, r.name, f.test)
			if !ok || df.path == f.path {
				return
			}
			ev.add(df.path, item{kind: KindUses, symbol: topDisplay(d, r.name), method: MethodGo, score: scoreGoUses,
				reason: fmt.Sprintf("declares `%s`, used by the change in %s", topDisplay(d, r.name), pathBase(f.path))})
		case r.exact && r.decl != nil:
			s := memberDisplay(r.decl)
			ev.add(r.decl.f.path, item{kind: KindUses, symbol: s, method: MethodGo, score: scoreGoUses,
				reason: fmt.Sprintf("declares `%s`, used by the change in %s", s, pathBase(f.path))})
		case !r.exact:
			if !seen[r.name] {
				seen[r.name] = true
				ambiguous = append(ambiguous, amb{r.name, r.call})
			}
		}
	}}
	w.walkFile()
	for _, a := range ambiguous {
		e.ambiguousUses(f, a.name, ev)
	}
}

// ambiguousUses records the declarations of members named name in f's own
// package and the repository packages it imports, when there are few.
func (e *goEngine) ambiguousUses(f *goFile, name string, ev *evidence) {
	dirs := []pkgKey{f.pk}
	if f.pk.xtest {
		dirs = append(dirs, pkgKey{dir: f.pk.dir})
	}
	for _, ip := range f.imports {
		if d, ok := e.importDir(f, ip); ok {
			dirs = append(dirs, pkgKey{dir: d})
		}
	}
	var hits []found
	for _, pk := range dirs {
		g := e.dir(pk.dir)
		for k, paths := range g.decls {
			recv, meth, ok := strings.Cut(k, ".")
			if !ok || meth != name {
				continue
			}
			for _, p := range paths {
				hits = append(hits, found{p, "(" + recv + ")." + name})
			}
		}
		hits = append(hits, e.fieldsNamed(pk, name)...)
	}
	uniq := map[string]string{}
	for _, h := range hits {
		if h.path != f.path {
			uniq[h.path] = h.sym
		}
	}
	if len(uniq) == 0 || len(uniq) > 2 {
		return
	}
	score := scoreGoUsesAmbiguous / float64(len(uniq))
	for p, s := range uniq {
		ev.add(p, item{kind: KindUses, symbol: s, method: MethodGo, score: score,
			reason: fmt.Sprintf("may declare `%s`, used by the change in %s (operand type not inferred)", s, pathBase(f.path))})
	}
}

// fieldsNamed finds struct fields and interface methods named name in the
// files of package pk that mention it.
func (e *goEngine) fieldsNamed(pk pkgKey, name string) []found {
	var out []found
	g := e.dir(pk.dir)
	for _, p := range g.paths {
		src := e.read(p)
		if src == nil || !containsWord(src, name) {
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
			var list []*ast.Field
			switch t := d.typ.Type.(type) {
			case *ast.StructType:
				list = t.Fields.List
			case *ast.InterfaceType:
				list = t.Methods.List
			}
			for _, fld := range list {
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

// found is a declaration's file and display name.
type found struct{ path, sym string }

func topDisplay(d topDecl, name string) string { return name }

func memberDisplay(m *memberRef) string {
	if m.ptr {
		return "(*" + m.recv + ")." + m.name
	}
	return m.recv + "." + m.name
}

// impactOf records the files outside the change that refer to the changed
// or removed declarations syms.
func (e *goEngine) impactOf(syms []*goSym, ev *evidence) error {
	byName := map[string][]*goSym{}
	var words []string
	for _, s := range syms {
		if _, ok := byName[s.name]; !ok {
			words = append(words, s.name)
		}
		byName[s.name] = append(byName[s.name], s)
	}
	sort.Strings(words)
	paths, err := e.tree.Grep(e.ctx, words, goGrepLimit)
	if err != nil {
		return fmt.Errorf("search for changed names: %w", err)
	}
	// Keep the files that can refer to a changed name: those of its package,
	// those importing its package and, for members, any Go file; files that
	// share the package or import it come first.
	type cand struct {
		path  string
		names map[string]bool
		rank  int
	}
	var cands []cand
	importPaths := map[pkgKey]string{}
	for _, s := range syms {
		if _, ok := importPaths[s.pk]; !ok {
			importPaths[s.pk] = e.importPathOf(s.pk.dir)
		}
	}
	for _, p := range paths {
		if !strings.HasSuffix(p, ".go") || ev.changed[p] || skippedPath(p) {
			continue
		}
		src := e.read(p)
		if src == nil {
			continue
		}
		names := map[string]bool{}
		rank := 2
		for name, ss := range byName {
			if !containsWord(src, name) {
				continue
			}
			for _, s := range ss {
				r := 2
				switch {
				case dirOf(p) == s.pk.dir:
					r = 0
				case importPaths[s.pk] != "" && containsQuoted(src, importPaths[s.pk]):
					r = 1
				case !s.member:
					continue
				}
				names[name] = true
				rank = min(rank, r)
			}
		}
		if len(names) > 0 {
			cands = append(cands, cand{p, names, rank})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].rank < cands[j].rank })
	if len(cands) > goWalkLimit {
		cands = cands[:goWalkLimit]
	}
	for _, c := range cands {
		if e.err != nil {
			return e.err
		}
		f := e.parse(c.path)
		if f == nil {
			continue
		}
		if isGeneratedGo(f.src) {
			ev.markGenerated(f.path)
		}
		e.impactIn(f, c.names, c.rank, byName, ev)
	}
	return nil
}

// containsQuoted reports whether src contains "ip" (an import of ip).
func containsQuoted(src []byte, ip string) bool {
	return strings.Contains(string(src), `"`+ip+`"`)
}

// impactIn records the references of file f to the changed declarations.
func (e *goEngine) impactIn(f *goFile, names map[string]bool, rank int, byName map[string][]*goSym, ev *evidence) {
	w := &goWalker{e: e, f: f, want: func(id *ast.Ident) bool { return names[id.Name] }}
	w.emit = func(r goRef) {
		for _, s := range byName[r.name] {
			score := 0.0
			switch {
			case !r.member && !s.member && r.pk == s.pk:
				score = scoreGoImpact
			case r.member && s.member && r.exact && r.pk == s.pk && r.recv == s.recv:
				score = scoreGoImpact
			case r.member && s.member && !r.exact && rank < 2:
				score = scoreGoImpactAmbig
			}
			if score == 0 {
				continue
			}
			if score == scoreGoImpact && (s.change == changedSignature || s.change == removedDecl) {
				score = scoreGoImpactBreak
			}
			verb := "uses"
			if r.call {
				verb = "calls"
			}
			reason := fmt.Sprintf("%s `%s`, %s", verb, s.display(), s.change.phrase())
			if score == scoreGoImpactAmbig {
				reason += " (operand type not inferred)"
			}
			ev.add(f.path, item{kind: KindImpact, symbol: s.display(), reason: reason, score: score, method: MethodGo, call: r.call})
		}
	}
	w.walkFile()
}
