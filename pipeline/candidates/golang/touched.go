package golang

import (
	"go/ast"
	"go/token"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/candidates/golang/goast"
	"github.com/prscout/prscout/pipeline/candidates/golang/goscan"
	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/touch"
)

// touched returns the declarations the changes touched (package touch's
// rule; a declaration the head declares elsewhere in its package is not
// removed), each once across the changes, in the order found, with how
// each changed, and the changed files whose added lines' uses are to be
// resolved.
func (e *goEngine) touched(gos []*engine.Change) ([]*goSym, []usesJob, error) {
	syms := map[string]*goSym{}
	var order []*goSym
	addSym := func(s *goSym) {
		if old, ok := syms[s.key()]; ok {
			if s.change > old.change && old.change != engine.RemovedDecl {
				old.change = s.change
			}
			return
		}
		syms[s.key()] = s
		order = append(order, s)
	}
	var usesFiles []usesJob
	newFiles, newSides, oldSides, keeps := e.parseSides(gos)
	var olds []*goSym
	for i, c := range gos {
		if engine.SkippedPath(c.Path) {
			continue
		}
		head := newSides[i]
		if c.New != nil {
			if f := e.parsedFor(c.Path, keeps[i], newFiles[i]); f != nil {
				if f != newFiles[i] {
					head = sideOf(f, e.codeLines(c.New, c.Added))
				}
				usesFiles = append(usesFiles, usesJob{f, c})
			} else {
				head = nil
			}
		}
		base := oldSides[i]
		elsewhere := func(j int) bool { return e.existsAtHead(base.syms[j]) }
		for _, t := range touch.Touched(head.side(), base.side(), elsewhere) {
			sd := head
			if t.Base {
				sd = base
			}
			s := *sd.syms[t.Index]
			s.change, s.from = t.Change, c.Path
			if t.Base {
				olds = append(olds, &s)
				continue
			}
			addSym(&s)
		}
		if e.err != nil {
			return nil, nil, e.err
		}
	}
	// The base's declarations follow the head's, as the head names them.
	for _, s := range olds {
		addSym(s)
	}
	return order, usesFiles, nil
}

// parseSides parses both sides of every change, and lists their
// declarations, in parallel: the heads with the bodies that hold added
// lines (the walk of usesOf reads them), which keeps answers for each
// change. The heads' parses are the request's before any lookup, which
// would parse a changed file again.
func (e *goEngine) parseSides(gos []*engine.Change) (newFiles []*goFile, newSides, oldSides []*goSide, keeps []func(goscan.Body) bool) {
	newFiles = make([]*goFile, len(gos))
	newSides, oldSides = make([]*goSide, len(gos)), make([]*goSide, len(gos))
	keeps = make([]func(goscan.Body) bool, len(gos))
	for i, c := range gos {
		added := c.Added
		keeps[i] = func(b goscan.Body) bool { return engine.SpanHit(added, b.From, b.To) }
	}
	pipeline.Parallel(len(gos), func(i int) {
		c := gos[i]
		if engine.SkippedPath(c.Path) {
			return
		}
		if src := e.heads[c.Path]; c.New != nil && src != nil {
			if f := parseIn(c.Path, src, e.bodiesOf(src), keeps[i]); f != nil {
				newFiles[i], newSides[i] = f, sideOf(f, e.codeLines(c.New, c.Added))
			}
		}
		if c.Old != nil && len(c.Removed) > 0 {
			if f := parseKeep(c.BasePath(), c.Old, nil); f != nil {
				oldSides[i] = sideOf(f, e.codeLines(c.Old, c.Removed))
			}
		}
	})
	for i, c := range gos {
		if newFiles[i] != nil {
			e.parsedFor(c.Path, keeps[i], newFiles[i])
		}
	}
	return newFiles, newSides, oldSides, keeps
}

// existsAtHead reports whether the declaration named by s exists at the head.
func (e *goEngine) existsAtHead(s *goSym) bool {
	if !s.member {
		return e.lookupTopPath(s.pk, s.name, true) != ""
	}
	return e.member(&gtype{kind: tNamed, pk: s.pk, name: s.recv}, s.name, 0) != nil
}

// goSide is one side of a changed Go file for package touch: its
// declarations, and the symbol each stands for.
type goSide struct {
	touch.Side
	syms  []*goSym
	funcs []*ast.FuncDecl // by declaration; nil for one of another kind
}

func (g *goSide) side() *touch.Side {
	if g == nil {
		return nil
	}
	return &g.Side
}

// sideOf lists f's declarations: functions and methods, types (a struct or
// interface by its header, its fields and methods as declarations of their
// own), variables and constants; lines are the changed code lines.
func sideOf(f *goFile, lines map[int]bool) *goSide {
	g := &goSide{}
	g.Lines = lines
	line := func(p token.Pos) int { return f.tf.Position(p).Line }
	add := func(d touch.Decl, s *goSym, fn *ast.FuncDecl) {
		g.Decls = append(g.Decls, d)
		g.syms = append(g.syms, s)
		g.funcs = append(g.funcs, fn)
	}
	for _, d := range f.ast.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			s := &goSym{pk: f.pk, name: d.Name.Name}
			td := touch.Decl{Name: d.Name.Name, Kind: "function", From: line(d.Pos()), To: line(d.End()), Callable: true}
			td.HeadTo = td.To
			if d.Body != nil {
				td.HeadTo = line(d.Body.Lbrace)
			}
			if d.Recv != nil && len(d.Recv.List) > 0 {
				s.recv = goast.RecvName(d.Recv.List[0].Type)
				s.member = true
				_, s.ptr = d.Recv.List[0].Type.(*ast.StarExpr)
				if s.recv == "" {
					continue
				}
				td.Container, td.Kind = s.recv, "method"
			}
			add(td, s, d)
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					typeDecls(f, sp, line, add)
				case *ast.ValueSpec:
					from, to := line(sp.Pos()), line(sp.End())
					if len(d.Specs) == 1 && !d.Lparen.IsValid() {
						from = line(d.Pos())
					}
					for _, n := range sp.Names {
						if n.Name != "_" {
							add(touch.Decl{Name: n.Name, Kind: "value", From: from, To: to}, &goSym{pk: f.pk, name: n.Name}, nil)
						}
					}
				}
			}
		}
	}
	g.Sig = func(i int) string {
		if g.funcs[i] == nil {
			return ""
		}
		return sigText(f.tf, f.src, g.funcs[i])
	}
	return g
}

// typeDecls adds a type: a struct or interface by its header, with its
// fields and methods (an embedded interface's line touches the type);
// another type by its whole definition.
func typeDecls(f *goFile, sp *ast.TypeSpec, line func(token.Pos) int, add func(touch.Decl, *goSym, *ast.FuncDecl)) {
	from, to := line(sp.Pos()), line(sp.End())
	typ := touch.Decl{Name: sp.Name.Name, Kind: "type", From: from, To: to}
	sym := &goSym{pk: f.pk, name: sp.Name.Name}
	fields, method := goast.Members(sp.Type)
	if fields == nil {
		add(typ, sym, nil)
		return
	}
	typ.ByHeader, typ.HeadTo = true, line(fields.Opening)
	add(typ, sym, nil)
	for _, fld := range fields.List {
		ff, ft := line(fld.Pos()), line(fld.End())
		names := fld.Names
		if len(names) == 0 {
			if method {
				add(touch.Decl{Name: sp.Name.Name, Kind: "type", From: ff, To: ft}, sym, nil)
				continue
			}
			n := goast.RecvName(fld.Type)
			if n == "" {
				n = goast.SelName(fld.Type)
			}
			if n != "" {
				names = []*ast.Ident{{Name: n}}
			}
		}
		for _, n := range names {
			d := touch.Decl{Container: sp.Name.Name, Name: n.Name, Kind: "field", From: ff, To: ft}
			if method {
				d.Kind, d.Callable, d.HeadTo = "method", true, ft
			}
			add(d, &goSym{pk: f.pk, recv: sp.Name.Name, name: n.Name, member: true, iface: method}, nil)
		}
	}
}

// sigText is the source of a function's receiver type and signature with
// spaces collapsed.
func sigText(tf *token.File, src []byte, d *ast.FuncDecl) string {
	text := func(n ast.Node) string {
		a, b := tf.Position(n.Pos()).Offset, tf.Position(n.End()).Offset
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
