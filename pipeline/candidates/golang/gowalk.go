package golang

import (
	"go/ast"
	"go/token"

	"github.com/prscout/prscout/pipeline/candidates/golang/goast"
	"github.com/prscout/prscout/pipeline/candidates/golang/goscan"
)

// goRef is one use of a name that may be declared elsewhere in the repository.
type goRef struct {
	// pk and name are the package and name of a package-level object
	// (recv == "") or the member name of type recv in pk.
	pk     pkgKey
	recv   string
	name   string
	member bool
	// exact is false for a selector x.name whose operand type is unknown;
	// pk and recv are then empty.
	exact bool
	// decl is the member's declaration when it was found.
	decl *memberRef
	call bool
}

// goWalker visits every name use of a file with the local scopes in force.
type goWalker struct {
	e    *goEngine
	f    *goFile
	want func(id *ast.Ident) bool
	emit func(goRef)
	// skip, when set, leaves out top-level declarations that cannot hold a
	// wanted name.
	skip func(ast.Decl) bool
	// holds, when set, reports whether the source between two positions
	// may hold a wanted name. Every goRef comes from a wanted ident, and an
	// expression or a compound statement binds nothing outside itself, so
	// one that cannot hold a wanted name is not walked; assignments and
	// declarations still define their names.
	holds func(from, to token.Pos) bool
	// callees holds the idents called (f() or x.f()) by the calls whose
	// function the walk is in, for the wording of reasons.
	callees []*ast.Ident
}

// called reports whether id is the ident a call calls: the walk reaches a
// call's callee only while it walks the call's function, with the callee
// on w.callees.
func (w *goWalker) called(id *ast.Ident) bool {
	for i := len(w.callees) - 1; i >= 0; i-- {
		if w.callees[i] == id {
			return true
		}
	}
	return false
}

func (w *goWalker) walkFile() {
	file := newScope(nil)
	for _, d := range w.f.ast.Decls {
		if w.skip != nil && w.skip(d) {
			continue
		}
		switch d := d.(type) {
		case *ast.FuncDecl:
			sc := newScope(file)
			if d.Recv != nil {
				for _, fld := range d.Recv.List {
					w.typeParamsOfRecv(sc, fld.Type)
					w.expr(sc, fld.Type)
					for _, n := range fld.Names {
						sc.define(n.Name, &binding{f: w.f, sc: sc, typ: fld.Type})
					}
				}
			}
			w.funcType(sc, d.Type)
			if d.Body != nil {
				w.stmtList(sc, d.Body.List)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					sc := file
					if s.TypeParams != nil {
						sc = newScope(file)
						w.fieldList(sc, s.TypeParams, true)
					}
					w.expr(sc, s.Type)
				case *ast.ValueSpec:
					if s.Type != nil {
						w.expr(file, s.Type)
					}
					for _, v := range s.Values {
						w.expr(file, v)
					}
				}
			}
		}
	}
}

// typeParamsOfRecv defines the type parameters named in a generic receiver
// (r *T[K, V]) as opaque.
func (w *goWalker) typeParamsOfRecv(sc *scope, x ast.Expr) {
	if s, ok := x.(*ast.StarExpr); ok {
		x = s.X
	}
	var idx []ast.Expr
	switch t := x.(type) {
	case *ast.IndexExpr:
		idx = []ast.Expr{t.Index}
	case *ast.IndexListExpr:
		idx = t.Indices
	}
	for _, i := range idx {
		if id, ok := i.(*ast.Ident); ok {
			sc.define(id.Name, &binding{opaque: true})
		}
	}
}

// funcType defines type parameters, parameters and results in sc and visits
// their types.
func (w *goWalker) funcType(sc *scope, ft *ast.FuncType) {
	if ft.TypeParams != nil {
		w.fieldList(sc, ft.TypeParams, true)
	}
	if ft.Params != nil {
		w.fieldList(sc, ft.Params, false)
	}
	if ft.Results != nil {
		w.fieldList(sc, ft.Results, false)
	}
}

func (w *goWalker) fieldList(sc *scope, fl *ast.FieldList, typeParams bool) {
	for _, fld := range fl.List {
		if typeParams {
			for _, n := range fld.Names {
				sc.define(n.Name, &binding{opaque: true})
			}
			w.expr(sc, fld.Type)
			continue
		}
		w.expr(sc, fld.Type)
		for _, n := range fld.Names {
			sc.define(n.Name, &binding{f: w.f, sc: sc, typ: fld.Type})
		}
	}
}

func (w *goWalker) stmtList(sc *scope, list []ast.Stmt) {
	for _, s := range list {
		w.stmt(sc, s)
	}
}

func (w *goWalker) stmt(sc *scope, s ast.Stmt) {
	switch s.(type) {
	case nil, *ast.AssignStmt, *ast.DeclStmt, *ast.LabeledStmt:
	default:
		if w.holds != nil && !w.holds(s.Pos(), s.End()) {
			return
		}
	}
	switch s := s.(type) {
	case nil:
	case *ast.BlockStmt:
		w.stmtList(newScope(sc), s.List)
	case *ast.ExprStmt:
		w.expr(sc, s.X)
	case *ast.AssignStmt:
		w.assign(sc, s)
	case *ast.DeclStmt:
		w.declStmt(sc, s)
	case *ast.IfStmt:
		sc = newScope(sc)
		w.stmt(sc, s.Init)
		w.expr(sc, s.Cond)
		w.stmt(sc, s.Body)
		w.stmt(sc, s.Else)
	case *ast.ForStmt:
		sc = newScope(sc)
		w.stmt(sc, s.Init)
		if s.Cond != nil {
			w.expr(sc, s.Cond)
		}
		w.stmt(sc, s.Post)
		w.stmt(sc, s.Body)
	case *ast.RangeStmt:
		w.rangeStmt(sc, s)
	case *ast.SwitchStmt:
		sc = newScope(sc)
		w.stmt(sc, s.Init)
		if s.Tag != nil {
			w.expr(sc, s.Tag)
		}
		for _, c := range s.Body.List {
			cc := c.(*ast.CaseClause)
			csc := newScope(sc)
			for _, x := range cc.List {
				w.expr(csc, x)
			}
			w.stmtList(csc, cc.Body)
		}
	case *ast.TypeSwitchStmt:
		w.typeSwitch(sc, s)
	case *ast.SelectStmt:
		for _, c := range s.Body.List {
			cc := c.(*ast.CommClause)
			csc := newScope(sc)
			w.stmt(csc, cc.Comm)
			w.stmtList(csc, cc.Body)
		}
	case *ast.LabeledStmt:
		w.stmt(sc, s.Stmt)
	case *ast.ReturnStmt:
		for _, r := range s.Results {
			w.expr(sc, r)
		}
	case *ast.GoStmt:
		w.expr(sc, s.Call)
	case *ast.DeferStmt:
		w.expr(sc, s.Call)
	case *ast.SendStmt:
		w.expr(sc, s.Chan)
		w.expr(sc, s.Value)
	case *ast.IncDecStmt:
		w.expr(sc, s.X)
	}
}

// assign walks an assignment; := defines its new names, typed by their values.
func (w *goWalker) assign(sc *scope, s *ast.AssignStmt) {
	for _, r := range s.Rhs {
		w.expr(sc, r)
	}
	if s.Tok != token.DEFINE {
		for _, l := range s.Lhs {
			w.expr(sc, l)
		}
		return
	}
	for i, l := range s.Lhs {
		id, ok := l.(*ast.Ident)
		if !ok {
			continue
		}
		if sc.own(id.Name) != nil { // redeclared in a multi-assign: keeps its type
			continue
		}
		b := &binding{f: w.f, sc: sc}
		if len(s.Rhs) == len(s.Lhs) {
			b.val = s.Rhs[i]
		} else if len(s.Rhs) == 1 {
			b.val, b.idx, b.multi = s.Rhs[0], i, true
		}
		sc.define(id.Name, b)
	}
}

// declStmt walks a local var, const or type declaration and defines its names.
func (w *goWalker) declStmt(sc *scope, s *ast.DeclStmt) {
	gd, ok := s.Decl.(*ast.GenDecl)
	if !ok {
		return
	}
	for _, sp := range gd.Specs {
		switch sp := sp.(type) {
		case *ast.ValueSpec:
			if sp.Type != nil {
				w.expr(sc, sp.Type)
			}
			for _, v := range sp.Values {
				w.expr(sc, v)
			}
			for i, n := range sp.Names {
				b := &binding{f: w.f, sc: sc, typ: sp.Type}
				if sp.Type == nil {
					if len(sp.Values) == len(sp.Names) {
						b.val = sp.Values[i]
					} else if len(sp.Values) == 1 {
						b.val, b.idx, b.multi = sp.Values[0], i, true
					}
				}
				sc.define(n.Name, b)
			}
		case *ast.TypeSpec:
			sc.define(sp.Name.Name, &binding{opaque: true})
			w.expr(sc, sp.Type)
		}
	}
}

// rangeStmt walks a range loop; := defines its key and value, typed by what it ranges over.
func (w *goWalker) rangeStmt(sc *scope, s *ast.RangeStmt) {
	w.expr(sc, s.X)
	sc = newScope(sc)
	if s.Tok == token.DEFINE {
		if id, ok := s.Key.(*ast.Ident); ok {
			sc.define(id.Name, &binding{f: w.f, sc: sc.parent, rng: s.X, rngKey: true})
		}
		if id, ok := s.Value.(*ast.Ident); ok {
			sc.define(id.Name, &binding{f: w.f, sc: sc.parent, rng: s.X})
		}
	} else {
		if s.Key != nil {
			w.expr(sc, s.Key)
		}
		if s.Value != nil {
			w.expr(sc, s.Value)
		}
	}
	w.stmt(sc, s.Body)
}

// typeSwitch walks a type switch; its bound name takes the type of a one-type case.
func (w *goWalker) typeSwitch(sc *scope, s *ast.TypeSwitchStmt) {
	sc = newScope(sc)
	w.stmt(sc, s.Init)
	var name string
	switch a := s.Assign.(type) {
	case *ast.AssignStmt:
		if len(a.Lhs) == 1 && len(a.Rhs) == 1 {
			if id, ok := a.Lhs[0].(*ast.Ident); ok {
				name = id.Name
			}
			w.expr(sc, a.Rhs[0])
		}
	case *ast.ExprStmt:
		w.expr(sc, a.X)
	}
	for _, c := range s.Body.List {
		cc := c.(*ast.CaseClause)
		csc := newScope(sc)
		for _, x := range cc.List {
			w.expr(csc, x)
		}
		if name != "" {
			b := &binding{f: w.f, sc: sc, opaque: true}
			if len(cc.List) == 1 {
				b = &binding{f: w.f, sc: sc, typ: cc.List[0]}
			}
			csc.define(name, b)
		}
		w.stmtList(csc, cc.Body)
	}
}

func (w *goWalker) expr(sc *scope, x ast.Expr) {
	switch x.(type) {
	case nil, *ast.Ident, *ast.BasicLit:
	default:
		if w.holds != nil && !w.holds(x.Pos(), x.End()) {
			return
		}
	}
	switch x := x.(type) {
	case nil:
	case *ast.Ident:
		w.ident(sc, x)
	case *ast.SelectorExpr:
		w.selector(sc, x)
	case *ast.CompositeLit:
		w.composite(sc, x, nil)
	case *ast.FuncLit:
		fsc := newScope(sc)
		w.funcType(fsc, x.Type)
		if x.Body != nil {
			w.stmtList(fsc, x.Body.List)
		}
	case *ast.FuncType:
		for _, fl := range []*ast.FieldList{x.TypeParams, x.Params, x.Results} {
			if fl != nil {
				for _, fld := range fl.List {
					w.expr(sc, fld.Type)
				}
			}
		}
	case *ast.StructType, *ast.InterfaceType:
		fl, _ := goast.Members(x)
		for _, fld := range fl.List {
			w.expr(sc, fld.Type)
		}
	case *ast.KeyValueExpr:
		w.expr(sc, x.Key)
		w.expr(sc, x.Value)
	// The most frequent expressions, their operands in ast.Walk's order.
	case *ast.CallExpr:
		n := len(w.callees)
		if id := goast.Callee(x); id != nil {
			w.callees = append(w.callees, id)
		}
		w.expr(sc, x.Fun)
		w.callees = w.callees[:n]
		for _, a := range x.Args {
			w.expr(sc, a)
		}
	case *ast.BasicLit:
	case *ast.BinaryExpr:
		w.expr(sc, x.X)
		w.expr(sc, x.Y)
	case *ast.UnaryExpr:
		w.expr(sc, x.X)
	case *ast.StarExpr:
		w.expr(sc, x.X)
	case *ast.ParenExpr:
		w.expr(sc, x.X)
	case *ast.IndexExpr:
		w.expr(sc, x.X)
		w.expr(sc, x.Index)
	default:
		ast.Inspect(x, func(n ast.Node) bool {
			if n == x {
				return true
			}
			if c, ok := n.(ast.Expr); ok {
				w.expr(sc, c)
				return false
			}
			return true
		})
	}
}

// ident reports a bare name that is not declared locally.
func (w *goWalker) ident(sc *scope, id *ast.Ident) {
	if id.Name == "_" || !w.want(id) {
		return
	}
	if goscan.Universe[id.Name] && w.f.top[id.Name] == (topDecl{}) {
		if w.e.lookupTopPath(w.f.pk, id.Name, w.f.test) == "" {
			return
		}
	}
	if sc.lookup(id.Name) != nil {
		return
	}
	w.emit(goRef{pk: w.f.pk, name: id.Name, exact: true, call: w.called(id)})
}

// selector reports pkg.Name as a package-level name and x.Name as a member
// of x's type.
func (w *goWalker) selector(sc *scope, s *ast.SelectorExpr) {
	if id, ok := s.X.(*ast.Ident); ok && sc.lookup(id.Name) == nil {
		if _, isTop := w.f.top[id.Name]; !isTop {
			if _, dir, inRepo, ok := w.e.importedPkg(w.f, id.Name); ok {
				if inRepo && w.want(s.Sel) {
					w.emit(goRef{pk: pkgKey{dir: dir}, name: s.Sel.Name, exact: true, call: w.called(s.Sel)})
				}
				return
			}
		}
	}
	w.expr(sc, s.X)
	if !w.want(s.Sel) {
		return
	}
	w.memberRef(s.Sel, w.e.typeOf(w.f, sc, s.X))
}

// memberRef reports a member name used on a value of type t.
func (w *goWalker) memberRef(sel *ast.Ident, t *gtype) {
	r := goRef{name: sel.Name, member: true, call: w.called(sel)}
	if d := deref(t); d != nil {
		if d.kind != tNamed || d.ext != "" {
			return // a member of a type outside the repository
		}
		if m := w.e.member(d, sel.Name, 0); m != nil {
			r.pk, r.recv, r.exact, r.decl = m.pk, m.recv, true, m
		} else if w.e.hasExternalEmbed(d, 0) {
			return // promoted from an embedded type outside the repository
		} else {
			r.pk, r.recv, r.exact = d.pk, d.name, true // a member the head lacks
		}
	}
	w.emit(r)
}

// composite visits a composite literal; hint is the type of an elided
// literal's enclosing element.
func (w *goWalker) composite(sc *scope, lit *ast.CompositeLit, hint func() *gtype) {
	if w.holds != nil && !w.holds(lit.Pos(), lit.End()) {
		return
	}
	if lit.Type != nil {
		w.expr(sc, lit.Type)
	}
	var typ *gtype
	typed := false
	litType := func() *gtype {
		if !typed {
			typed = true
			if lit.Type != nil {
				typ = w.e.resolveType(w.f, sc, lit.Type)
			} else if hint != nil {
				typ = hint()
			}
		}
		return typ
	}
	elemHint := func() *gtype {
		t := w.e.underlying(deref(litType()))
		if t != nil && (t.kind == tSlice || t.kind == tMap) {
			return t.elem
		}
		return nil
	}
	for _, el := range lit.Elts {
		kv, isKV := el.(*ast.KeyValueExpr)
		val := el
		if isKV {
			val = kv.Value
			if key, ok := kv.Key.(*ast.Ident); ok {
				w.compositeKey(sc, key, litType)
			} else if kl, ok := kv.Key.(*ast.CompositeLit); ok {
				w.composite(sc, kl, nil)
			} else {
				w.expr(sc, kv.Key)
			}
		}
		if vl, ok := val.(*ast.CompositeLit); ok {
			w.composite(sc, vl, elemHint)
		} else if u, ok := val.(*ast.UnaryExpr); ok && u.Op == token.AND {
			if vl, ok := u.X.(*ast.CompositeLit); ok {
				w.composite(sc, vl, func() *gtype { return deref(elemHint()) })
				continue
			}
			w.expr(sc, val)
		} else {
			w.expr(sc, val)
		}
	}
}

// compositeKey reports a key of a composite literal: a field name when the
// literal is a struct, an expression otherwise.
func (w *goWalker) compositeKey(sc *scope, key *ast.Ident, litType func() *gtype) {
	if !w.want(key) {
		return
	}
	t := litType()
	if t != nil {
		u := w.e.underlying(deref(t))
		if u != nil && (u.kind == tMap || u.kind == tSlice) {
			w.ident(sc, key)
			return
		}
		w.memberRef(key, t)
		return
	}
	if sc.lookup(key.Name) != nil {
		return
	}
	w.memberRef(key, nil)
}
