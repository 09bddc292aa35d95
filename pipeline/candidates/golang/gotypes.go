package golang

import (
	"go/ast"
	"go/token"

	"github.com/prscout/prscout/pipeline/candidates/golang/goast"
	"github.com/prscout/prscout/pipeline/candidates/golang/goscan"
)

// This file infers the types of Go expressions from declarations alone, as
// far as a selector x.Name needs them: the type of x decides which method or
// field Name is. Anything it cannot infer is nil, and the caller treats the
// selector as ambiguous.

type tkind int

const (
	tNamed    tkind = iota + 1 // a defined type: in the repository (pk) or outside (ext)
	tPointer                   // *elem
	tSlice                     // []elem, [n]elem
	tMap                       // map[key]elem
	tChan                      // chan elem
	tFunc                      // func(...) results
	tTypeName                  // an expression that denotes the type elem itself
	tBasic                     // a predeclared or literal type: has no repository members
)

type gtype struct {
	kind    tkind
	pk      pkgKey
	ext     string // import path of a named type outside the repository
	name    string
	elem    *gtype
	key     *gtype
	results []*gtype
}

var basicType = &gtype{kind: tBasic}

// isExternal reports a named type from outside the repository (or a value
// derived from one): its members are never repository declarations.
func isExternal(t *gtype) bool {
	d := deref(t)
	return d != nil && d.kind == tNamed && d.ext != ""
}

// deref strips pointers (and a type-name wrapper).
func deref(t *gtype) *gtype {
	for t != nil && (t.kind == tPointer || t.kind == tTypeName) {
		t = t.elem
	}
	return t
}

// scope maps local names to what they were declared with.
type scope struct {
	parent *scope
	// names are the scope's own definitions, one per name. A slice: most
	// scopes define a few names, and a walk opens thousands of them, so a
	// map each cost more to make than a linear search costs to read. Past
	// scopeIndexed names (a long generated function), index says where
	// each is.
	names []scopeName
	index map[string]int
}

type scopeName struct {
	name string
	b    *binding
}

// scopeIndexed is how many names a scope holds before it indexes them.
const scopeIndexed = 32

// newScope opens a scope in parent.
func newScope(parent *scope) *scope { return &scope{parent: parent} }

func (s *scope) lookup(name string) *binding {
	for ; s != nil; s = s.parent {
		if b := s.own(name); b != nil {
			return b
		}
	}
	return nil
}

// own returns the binding s itself defines for name, nil when none.
func (s *scope) own(name string) *binding {
	if i := s.find(name); i >= 0 {
		return s.names[i].b
	}
	return nil
}

func (s *scope) find(name string) int {
	if s.index != nil {
		if i, ok := s.index[name]; ok {
			return i
		}
		return -1
	}
	for i := range s.names {
		if s.names[i].name == name {
			return i
		}
	}
	return -1
}

func (s *scope) define(name string, b *binding) {
	if name == "_" || name == "" {
		return
	}
	if i := s.find(name); i >= 0 {
		s.names[i].b = b
		return
	}
	s.names = append(s.names, scopeName{name, b})
	switch {
	case s.index != nil:
		s.index[name] = len(s.names) - 1
	case len(s.names) > scopeIndexed:
		s.index = make(map[string]int, 2*len(s.names))
		for i, n := range s.names {
			s.index[n.name] = i
		}
	}
}

// binding is a local name's declaration, evaluated on demand.
type binding struct {
	f      *goFile
	sc     *scope   // scope the value or type is read in
	typ    ast.Expr // declared type
	val    ast.Expr // initial value
	idx    int      // result index when val yields several values
	multi  bool     // val is the single value of a multi-name assignment
	rng    ast.Expr // range operand
	rngKey bool     // the range key rather than the value
	fixed  *gtype   // a type known at declaration (type switch cases)
	opaque bool     // a local type or a type parameter: never a repository member
	done   bool
	t      *gtype
}

func (e *goEngine) bindingType(b *binding) *gtype {
	if b.done {
		return b.t
	}
	b.done = true
	switch {
	case b.opaque:
	case b.fixed != nil:
		b.t = b.fixed
	case b.typ != nil:
		b.t = e.resolveType(b.f, b.sc, b.typ)
	case b.rng != nil:
		t := deref2(e.typeOf(b.f, b.sc, b.rng))
		if isExternal(t) {
			b.t = deref(t)
			break
		}
		if t != nil {
			switch t.kind {
			case tSlice:
				if b.rngKey {
					b.t = basicType
				} else {
					b.t = t.elem
				}
			case tMap:
				if b.rngKey {
					b.t = t.key
				} else {
					b.t = t.elem
				}
			case tChan:
				if b.rngKey {
					b.t = t.elem
				}
			}
		}
	case b.val != nil:
		if b.multi {
			b.t = e.nthValue(b.f, b.sc, b.val, b.idx)
		} else {
			b.t = e.typeOf(b.f, b.sc, b.val)
		}
	}
	return b.t
}

// deref2 resolves a named type to its underlying composite type (for range
// and index), following one level of definition.
func deref2(t *gtype) *gtype {
	if t != nil && t.kind == tPointer && t.elem != nil && t.elem.kind == tSlice {
		return t.elem
	}
	return t
}

// nthValue is the type of the i-th value of a multi-value expression.
func (e *goEngine) nthValue(f *goFile, sc *scope, x ast.Expr, i int) *gtype {
	switch x := ast.Unparen(x).(type) {
	case *ast.CallExpr:
		ft := e.typeOf(f, sc, x.Fun)
		if ft != nil && ft.kind == tFunc && i < len(ft.results) {
			return ft.results[i]
		}
		if ft != nil && ft.kind == tTypeName && i == 0 {
			return ft.elem
		}
		return nil
	case *ast.TypeAssertExpr, *ast.IndexExpr, *ast.UnaryExpr:
		if i == 0 {
			return e.typeOf(f, sc, x)
		}
		return basicType
	}
	return nil
}

// underlying returns the composite type a named repository type is defined
// as, for indexing and ranging.
func (e *goEngine) underlying(t *gtype) *gtype {
	for n := 0; t != nil && t.kind == tNamed && t.ext == "" && n < 4; n++ {
		df, d, ok := e.lookupTop(t.pk, t.name, true)
		if !ok || d.kind != dType {
			return nil
		}
		if _, isStruct := d.typ.Type.(*ast.StructType); isStruct {
			return t
		}
		t = e.resolveType(df, nil, d.typ.Type)
	}
	return t
}

// typeOf infers the type of expression x in file f and scope sc.
func (e *goEngine) typeOf(f *goFile, sc *scope, x ast.Expr) *gtype {
	if e.depth > 24 {
		return nil
	}
	e.depth++
	defer func() { e.depth-- }()
	switch x := x.(type) {
	case *ast.ParenExpr:
		return e.typeOf(f, sc, x.X)
	case *ast.Ident:
		if b := sc.lookup(x.Name); b != nil {
			return e.bindingType(b)
		}
		return e.topType(f.pk, x.Name, f.test)
	case *ast.BasicLit:
		return basicType
	case *ast.SelectorExpr:
		return e.selectorType(f, sc, x)
	case *ast.CallExpr:
		return e.callType(f, sc, x)
	case *ast.StarExpr:
		t := e.typeOf(f, sc, x.X)
		if t != nil && t.kind == tPointer {
			return t.elem
		}
		if t != nil && t.kind == tTypeName {
			return &gtype{kind: tTypeName, elem: &gtype{kind: tPointer, elem: t.elem}}
		}
		return nil
	case *ast.UnaryExpr:
		if x.Op == token.AND {
			if t := e.typeOf(f, sc, x.X); t != nil {
				return &gtype{kind: tPointer, elem: t}
			}
			return nil
		}
		if x.Op == token.ARROW {
			if t := e.underlying(e.typeOf(f, sc, x.X)); t != nil && t.kind == tChan {
				return t.elem
			}
			return nil
		}
		return e.typeOf(f, sc, x.X)
	case *ast.CompositeLit:
		if x.Type == nil {
			return nil
		}
		return e.resolveType(f, sc, x.Type)
	case *ast.IndexExpr:
		t := e.typeOf(f, sc, x.X)
		if isExternal(t) {
			return deref(t)
		}
		if t != nil && t.kind == tFunc { // generic function instantiation
			return t
		}
		if t != nil && t.kind == tTypeName {
			return t
		}
		t = e.underlying(deref2(t))
		if t != nil && (t.kind == tSlice || t.kind == tMap) {
			return t.elem
		}
		return nil
	case *ast.SliceExpr:
		return e.typeOf(f, sc, x.X)
	case *ast.TypeAssertExpr:
		if x.Type == nil {
			return nil
		}
		return e.resolveType(f, sc, x.Type)
	case *ast.FuncLit:
		return e.resolveType(f, sc, x.Type)
	case *ast.BinaryExpr:
		switch x.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.LAND, token.LOR:
			return basicType
		}
		return e.typeOf(f, sc, x.X)
	case *ast.ArrayType, *ast.MapType, *ast.ChanType, *ast.FuncType, *ast.StructType, *ast.InterfaceType:
		return &gtype{kind: tTypeName, elem: e.resolveType(f, sc, x)}
	}
	return nil
}

// selectorType is the type of pkg.Name or x.Member.
func (e *goEngine) selectorType(f *goFile, sc *scope, x *ast.SelectorExpr) *gtype {
	if id, ok := x.X.(*ast.Ident); ok && sc.lookup(id.Name) == nil {
		if !e.isTop(f, id.Name) {
			if ip, dir, inRepo, ok := e.importedPkg(f, id.Name); ok {
				if !inRepo {
					return &gtype{kind: tNamed, ext: ip, name: x.Sel.Name}
				}
				return e.topType(pkgKey{dir: dir}, x.Sel.Name, f.test)
			}
		}
	}
	xt := e.typeOf(f, sc, x.X)
	if isExternal(xt) {
		return deref(xt) // whatever an outside type yields stays outside
	}
	m := e.member(xt, x.Sel.Name, 0)
	if m == nil {
		return nil
	}
	return m.typeOf(e)
}

// callType is the type a call yields: of a builtin (new, make, append), a
// conversion, or a function's first result.
func (e *goEngine) callType(f *goFile, sc *scope, x *ast.CallExpr) *gtype {
	if id, ok := ast.Unparen(x.Fun).(*ast.Ident); ok && sc.lookup(id.Name) == nil && goscan.Universe[id.Name] {
		switch id.Name {
		case "new":
			if len(x.Args) == 1 {
				return &gtype{kind: tPointer, elem: e.resolveType(f, sc, x.Args[0])}
			}
		case "make":
			if len(x.Args) > 0 {
				return e.resolveType(f, sc, x.Args[0])
			}
		case "append":
			if len(x.Args) > 0 {
				return e.typeOf(f, sc, x.Args[0])
			}
		}
		if !e.isTop(f, id.Name) {
			return basicType
		}
	}
	if at, ok := x.Fun.(*ast.ArrayType); ok {
		return e.resolveType(f, sc, at)
	}
	ft := e.typeOf(f, sc, x.Fun)
	if ft == nil {
		return nil
	}
	if isExternal(ft) {
		return deref(ft)
	}
	switch ft.kind {
	case tTypeName:
		return ft.elem
	case tFunc:
		if len(ft.results) > 0 {
			return ft.results[0]
		}
	}
	return nil
}

// isTop reports whether name is declared at package level in f's package.
func (e *goEngine) isTop(f *goFile, name string) bool {
	if _, ok := f.top[name]; ok {
		return true
	}
	return e.lookupTopPath(f.pk, name, f.test) != ""
}

// topType is the type of a package-level name used as an expression.
func (e *goEngine) topType(pk pkgKey, name string, fromTest bool) *gtype {
	if goscan.Universe[name] {
		return basicType
	}
	key := pk.dir + "\x00" + name
	if pk.xtest {
		key += "\x00x"
	}
	if t, ok := e.typeMemo[key]; ok {
		return t
	}
	e.typeMemo[key] = nil // cycles answer nil
	df, d, ok := e.lookupTop(pk, name, fromTest)
	var t *gtype
	if ok {
		switch d.kind {
		case dFunc:
			t = e.resolveType(df, nil, d.fn.Type)
		case dType:
			t = &gtype{kind: tTypeName, elem: &gtype{kind: tNamed, pk: pk, name: name}}
		case dVar, dConst:
			switch {
			case d.val.Type != nil:
				t = e.resolveType(df, nil, d.val.Type)
			case len(d.val.Values) == len(d.val.Names):
				t = e.typeOf(df, nil, d.val.Values[d.index])
			case len(d.val.Values) == 1:
				t = e.nthValue(df, nil, d.val.Values[0], d.index)
			case d.kind == dConst:
				t = basicType
			}
		}
	}
	e.typeMemo[key] = t
	return t
}

// resolveType turns a type expression of file f into a gtype.
func (e *goEngine) resolveType(f *goFile, sc *scope, x ast.Expr) *gtype {
	switch x := x.(type) {
	case *ast.ParenExpr:
		return e.resolveType(f, sc, x.X)
	case *ast.Ident:
		if b := sc.lookup(x.Name); b != nil {
			return nil // a type parameter or a local type
		}
		if goscan.Universe[x.Name] {
			return basicType
		}
		if _, ok := f.top[x.Name]; !ok {
			if e.lookupTopPath(f.pk, x.Name, f.test) == "" {
				return nil
			}
		}
		return &gtype{kind: tNamed, pk: f.pk, name: x.Name}
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		if !ok {
			return nil
		}
		ip, dir, inRepo, ok := e.importedPkg(f, id.Name)
		if !ok {
			return nil
		}
		if !inRepo {
			return &gtype{kind: tNamed, ext: ip, name: x.Sel.Name}
		}
		return &gtype{kind: tNamed, pk: pkgKey{dir: dir}, name: x.Sel.Name}
	case *ast.StarExpr:
		return &gtype{kind: tPointer, elem: e.resolveType(f, sc, x.X)}
	case *ast.ArrayType:
		return &gtype{kind: tSlice, elem: e.resolveType(f, sc, x.Elt)}
	case *ast.Ellipsis:
		return &gtype{kind: tSlice, elem: e.resolveType(f, sc, x.Elt)}
	case *ast.MapType:
		return &gtype{kind: tMap, key: e.resolveType(f, sc, x.Key), elem: e.resolveType(f, sc, x.Value)}
	case *ast.ChanType:
		return &gtype{kind: tChan, elem: e.resolveType(f, sc, x.Value)}
	case *ast.FuncType:
		t := &gtype{kind: tFunc}
		if x.Results != nil {
			for _, r := range x.Results.List {
				rt := e.resolveType(f, sc, r.Type)
				for n := max(1, len(r.Names)); n > 0; n-- {
					t.results = append(t.results, rt)
				}
			}
		}
		return t
	case *ast.IndexExpr:
		return e.resolveType(f, sc, x.X)
	case *ast.IndexListExpr:
		return e.resolveType(f, sc, x.X)
	case *ast.StructType, *ast.InterfaceType:
		return basicType
	}
	return nil
}

// memberRef is a method or field found on a repository type.
type memberRef struct {
	pk    pkgKey
	recv  string // the type that declares it
	name  string
	ptr   bool // a method with a pointer receiver
	f     *goFile
	fn    *ast.FuncDecl // method
	field ast.Expr      // field type or interface method type
}

func (m *memberRef) typeOf(e *goEngine) *gtype {
	switch {
	case m.fn != nil:
		return e.resolveType(m.f, nil, m.fn.Type)
	case m.field != nil:
		return e.resolveType(m.f, nil, m.field)
	}
	return nil
}

// member finds the method or field name of type t, following embedded
// fields. It answers nil when t is unknown or not a repository type.
func (e *goEngine) member(t *gtype, name string, depth int) *memberRef {
	t = deref(t)
	if t == nil || t.kind != tNamed || t.ext != "" || depth > 4 {
		return nil
	}
	if f, fn := e.lookupMethod(t.pk, t.name, name); fn != nil {
		_, ptr := fn.Recv.List[0].Type.(*ast.StarExpr)
		return &memberRef{pk: t.pk, recv: t.name, name: name, ptr: ptr, f: f, fn: fn}
	}
	df, d, ok := e.lookupTop(t.pk, t.name, true)
	if !ok || d.kind != dType {
		return nil
	}
	var embedded []*gtype
	fl, iface := goast.Members(d.typ.Type)
	if fl == nil {
		embedded = append(embedded, e.resolveType(df, nil, d.typ.Type))
	} else {
		for _, fld := range fl.List {
			if len(fld.Names) == 0 {
				// An embedded struct field is named by its type.
				if !iface && (goast.RecvName(fld.Type) == name || goast.SelName(fld.Type) == name) {
					return &memberRef{pk: t.pk, recv: t.name, name: name, f: df, field: fld.Type}
				}
				embedded = append(embedded, e.resolveType(df, nil, fld.Type))
				continue
			}
			for _, n := range fld.Names {
				if n.Name == name {
					return &memberRef{pk: t.pk, recv: t.name, name: name, f: df, field: fld.Type}
				}
			}
		}
	}
	for _, et := range embedded {
		if m := e.member(et, name, depth+1); m != nil {
			return m
		}
	}
	return nil
}

// hasExternalEmbed reports whether a repository struct or interface type
// embeds a type from outside the repository, whose members cannot be seen.
func (e *goEngine) hasExternalEmbed(t *gtype, depth int) bool {
	t = deref(t)
	if t == nil || t.kind != tNamed || depth > 4 {
		return false
	}
	if t.ext != "" {
		return true
	}
	df, d, ok := e.lookupTop(t.pk, t.name, true)
	if !ok || d.kind != dType {
		return false
	}
	fl, _ := goast.Members(d.typ.Type)
	if fl == nil {
		return e.hasExternalEmbed(e.resolveType(df, nil, d.typ.Type), depth+1)
	}
	for _, fld := range fl.List {
		if len(fld.Names) == 0 && e.hasExternalEmbed(e.resolveType(df, nil, fld.Type), depth+1) {
			return true
		}
	}
	return false
}
