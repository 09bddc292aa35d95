package jsdecl

import (
	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/candidates/typescript/modtypes"
)

// Classes and interfaces: their headers' supertypes and their members'
// declarations and types.

// class reads a class or interface whose name is at k: its header's
// supertypes and its body's members.
func (s *jsScan) class(from, k, end int, container, kind string) int {
	name := s.text(k)
	j := k + 1
	if s.punctAt(j, "<") {
		j = s.skipAngle(j)
	}
	// The header runs to the body's '{' at depth 0: a '{' inside type
	// arguments (extends Base<{}>) or a call (extends mixin({})) is none.
	super := false
	for ; j < end && !s.punctAt(j, "{"); j++ {
		switch {
		case s.punctAt(j, "<"):
			j = s.skipAngle(j) - 1
		case s.punctAt(j, "(") || s.punctAt(j, "["):
			j = s.br.CloseOrLast(j)
		case s.punctAt(j, ";"):
			return j
		case s.text(j) == "extends" || s.text(j) == "implements" || s.punctAt(j, ","):
			super = true
		case super && s.isIdent(j):
			n := j
			for s.punctAt(n+1, ".") && s.isIdent(n+2) {
				n += 2
			}
			s.types.AddSuper(name, s.text(n))
			super = false
			j = n
		}
	}
	if j >= end {
		s.add(lexed.Decl{Name: name, Kind: kind, Container: container, Static: container != "", From: from, To: s.toks[end-1].Line})
		return end - 1
	}
	close := s.br.CloseOrLast(j)
	s.add(lexed.Decl{Name: name, Kind: kind, Container: container, Static: container != "", From: from, To: s.toks[close].Line, HeadTo: s.toks[j].Line})
	s.members(j+1, close, name, kind == "interface")
	return close
}

var jsMemberModifiers = engine.Words("public private protected static readonly abstract async override declare accessor")

// members reads the members of a class or interface body toks[i:end].
func (s *jsScan) members(i, end int, class string, iface bool) {
	for j := i; j < end; j++ {
		if !s.punctAt(j, ";") && !s.punctAt(j, ",") {
			j = s.member(j, end, class, iface)
		}
	}
}

// member reads the member starting at toks[j] and returns the index of its
// last token.
func (s *jsScan) member(j, end int, class string, iface bool) int {
	start := j
	for s.punctAt(j, "@") {
		j = s.decorator(j)
	}
	static := false
	for s.isIdent(j) && jsMemberModifiers[s.text(j)] && s.startsName(j+1) {
		static = static || s.text(j) == "static"
		j++
	}
	getter := false
	if (s.text(j) == "get" || s.text(j) == "set") && s.startsName(j+1) && s.toks[j+1].Line == s.toks[j].Line {
		getter = s.text(j) == "get"
		j++
	}
	if s.punctAt(j, "*") {
		j++
	}
	name := ""
	switch {
	case iface && (s.text(j) == "new" && (s.punctAt(j+1, "(") || s.punctAt(j+1, "<")) || s.punctAt(j, "(") || s.punctAt(j, "<")):
		return s.callSignature(j, end, class)
	case s.punctAt(j, "#") && s.isIdent(j+1):
		name = "#" + s.text(j+1)
		j++
	case s.isIdent(j) || s.toks[min(j, len(s.toks)-1)].Kind == lexed.TkString:
		name = s.text(j)
	case s.punctAt(j, "["): // a computed name or an index signature
		j = s.br.CloseOrLast(j)
	case s.punctAt(j, "{"): // a static block
		return s.br.CloseOrLast(j)
	}
	k := j + 1
	if s.punctAt(k, "?") || s.punctAt(k, "!") {
		k++
	}
	m := jsMember{name: name, class: class, static: static, getter: getter, iface: iface, from: s.toks[min(start, len(s.toks)-1)].Line}
	if s.punctAt(k, "(") || s.punctAt(k, "<") && !iface || s.punctAt(k, "<") && s.punctAt(s.skipAngle(k), "(") {
		return s.method(m, k, end)
	}
	return s.field(m, k, end)
}

// jsMember is a class or interface member being read.
type jsMember struct {
	name, class           string // name "" for a computed one
	static, getter, iface bool
	from                  int // its first line
}

// callSignature reads an interface's call or construct signature at j: no
// member; a call signature's return type is what calling a C returns.
func (s *jsScan) callSignature(j, end int, class string) int {
	if s.text(j) != "new" {
		c := j
		if s.punctAt(c, "<") {
			c = s.skipAngle(c)
		}
		if s.punctAt(c, "(") {
			s.types.AddParams(class+"()", s.paramTypes(c+1, s.br.CloseOrLast(c)))
			if s.punctAt(s.br.CloseOrLast(c)+1, ":") {
				s.types.AddReturn(class+"()", s.typeName(s.br.CloseOrLast(c)+2, end))
			}
		}
	}
	return s.stmtEnd(j, end, true)
}

// method reads a method whose signature starts at toks[k].
func (s *jsScan) method(m jsMember, k, end int) int {
	last, _, ret, open := s.signature(k, end)
	if open >= 0 && m.name != "" {
		s.types.AddParams(m.class+"."+m.name, s.paramTypes(open+1, s.br.CloseOrLast(open)))
	}
	if m.name == "constructor" {
		open := k
		if s.punctAt(open, "<") {
			open = s.skipAngle(open)
		}
		s.params(open+1, s.br.CloseOrLast(open), m.class)
	}
	if m.iface && s.punctAt(last+1, ";") {
		last++
	}
	if ret == "this" {
		ret = m.class
	}
	if ret == "" && m.name != "" {
		ret = s.returnLiteral(m.class+"."+m.name, open)
	}
	if m.name != "" {
		s.types.AddReturn(m.class+"."+m.name, ret)
		if m.getter && ret != "" {
			// get req(): HonoRequest is read as a field: c.req.m.
			s.types.AddVar("this."+m.name, ret)
			s.types.AddField(m.class+"."+m.name, ret)
		}
		s.add(lexed.Decl{Name: m.name, Kind: "method", Container: m.class, Static: m.static, From: m.from, To: s.toks[last].Line})
	}
	return last
}

// field reads a property whose name ends before toks[k].
func (s *jsScan) field(m jsMember, k, end int) int {
	e := s.stmtEnd(k, end, m.iface)
	if m.name == "" {
		return e
	}
	key := m.class + "." + m.name
	switch {
	case s.punctAt(k, ":"):
		// A function-typed property (get: (u: string) => R) is called
		// like a method returning R.
		if ret := s.arrowReturn(k+1, e+1); ret != "" || s.punctAt(k+1, "(") || s.punctAt(k+1, "<") {
			s.types.AddReturn(key, ret)
			s.types.AddParams(key, s.arrowParams(k+1))
		} else {
			typ := s.typeName(k+1, e+1)
			s.types.AddVar("this."+m.name, typ)
			s.types.AddField(key, typ)
		}
	case s.punctAt(k, "=") && s.text(k+1) == "new":
		typ := s.typeName(k+2, e+1)
		s.types.AddVar("this."+m.name, typ)
		s.types.AddField(key, typ)
	case s.punctAt(k, "=") && s.isIdent(k+1) && !lexed.IsKeyword(lexed.LangJS, s.text(k+1)) && (k+1 == e || k+2 == e && s.punctAt(e, ";")):
		// group = group, helpers = helpers: a field holding a module's
		// value (an imported function or object) has its members.
		s.types.AddVar("this."+m.name, s.text(k+1))
		s.types.AddField(key, s.text(k+1))
	}
	s.add(lexed.Decl{Name: m.name, Kind: "field", Container: m.class, Static: m.static, From: m.from, To: s.toks[e].Line})
	return e
}

// arrowReturn returns the type a function type starting at i returns
// ("<T>(a: A) => R" answers R), "" when the type is no function type.
func (s *jsScan) arrowReturn(i, end int) string {
	j := i
	if s.punctAt(j, "<") {
		j = s.skipAngle(j)
	}
	if !s.punctAt(j, "(") {
		return ""
	}
	j = s.br.CloseOrLast(j) + 1
	if j+1 < end && s.punctAt(j, "=") && s.arrowAt(j+1) {
		return s.typeName(j+2, end)
	}
	return ""
}

// arrowParams returns the parameter types of the function type starting
// at i ("<T>(a: A, b) => R" answers [A ""]), nil for no function type.
func (s *jsScan) arrowParams(i int) []string {
	j := i
	if s.punctAt(j, "<") {
		j = s.skipAngle(j)
	}
	if !s.punctAt(j, "(") {
		return nil
	}
	return s.paramTypes(j+1, s.br.CloseOrLast(j))
}

// startsName reports whether toks[i] can start a member name, so the word
// before it is a modifier (static x) rather than the name (static(): void).
func (s *jsScan) startsName(i int) bool {
	if i >= len(s.toks) {
		return false
	}
	t := s.toks[i]
	return t.Kind == lexed.TkIdent || t.Kind == lexed.TkString || t.Text == "#" || t.Text == "[" || t.Text == "*"
}

// returnLiteral reads the return annotation of the function fn whose
// parameters open at toks[open] when it is an object type ("(i): {status:
// S; ctx: Ctx}"): its members' types are recorded as fields of the type
// fn+modtypes.LiteralSuffix, which it answers; "" for another annotation.
func (s *jsScan) returnLiteral(fn string, open int) string {
	if open < 0 {
		return ""
	}
	colon := s.br.CloseOrLast(open) + 1
	if !s.punctAt(colon, ":") || !s.punctAt(colon+1, "{") {
		return ""
	}
	name := fn + modtypes.LiteralSuffix
	end := s.br.CloseOrLast(colon + 1)
	for k := colon + 2; k < end; k++ {
		switch {
		case s.punctAt(k, "{") || s.punctAt(k, "(") || s.punctAt(k, "["):
			k = max(k, s.br.CloseOrLast(k))
		case s.punctAt(k, "<"):
			k = max(k, s.skipAngle(k)-1)
		case s.isIdent(k) && (s.punctAt(k-1, "{") || s.punctAt(k-1, ";") || s.punctAt(k-1, ",") || s.text(k-1) == "readonly"):
			c := k + 1
			if s.punctAt(c, "?") {
				c++
			}
			if s.punctAt(c, ":") {
				s.types.AddField(name+"."+s.text(k), s.typeName(c+1, end))
			}
		}
	}
	return name
}
