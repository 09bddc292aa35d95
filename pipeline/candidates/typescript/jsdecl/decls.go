// Package jsdecl reads the declarations of a TypeScript/JavaScript file,
// with their extents and the facts of the declared-type model they state,
// and its functions' parameter scopes.
package jsdecl

import (
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

// TypeScript/JavaScript declarations, read statement by statement: the
// module-level functions, classes, interfaces, enums, type aliases and
// variables (and those of namespace bodies), the members of class and
// interface bodies, each with the span the compiler gives it (a statement
// ends at ';', or at a line break where neither side continues it); and the
// facts of the declared-type model (lexed.TypeModel) the declarations state:
// supertypes, return types, the types of fields and parameters.

// jsScan is the state of Decls's walk.
type jsScan struct {
	toks  []lexed.Tok
	br    lexed.Brackets // toks' brackets paired
	out   []lexed.Decl
	types *lexed.TypeModel
	// literal is set while the members of a type alias's object type are
	// read (lexed.Decl.literal).
	literal bool
}

// Decls reads the declarations of a TypeScript/JavaScript file's tokens
// and fills types with what they declare.
func Decls(f *lexed.File, types *lexed.TypeModel) []lexed.Decl {
	s := &jsScan{toks: f.Toks, br: f.Brackets, types: types}
	s.module(0, len(s.toks), "")
	jsLocalTypes(f, types)
	return s.out
}

func (s *jsScan) text(i int) string { return lexed.TextAt(s.toks, i) }

func (s *jsScan) isIdent(i int) bool { return lexed.IdentAt(s.toks, i) }

// punctAt reports whether toks[i] is the punctuation p.
func (s *jsScan) punctAt(i int, p string) bool {
	return i >= 0 && i < len(s.toks) && s.toks[i].Kind == lexed.TkPunct && s.toks[i].Text == p
}

// arrowAt reports whether toks[i] is the '>' of "=>".
func (s *jsScan) arrowAt(i int) bool {
	return s.punctAt(i, ">") && s.punctAt(i-1, "=") && s.toks[i-1].Line == s.toks[i].Line && s.toks[i-1].Col+1 == s.toks[i].Col
}

// skipAngle returns the index after the type arguments or parameters
// "<...>" opening at i.
func (s *jsScan) skipAngle(i int) int {
	depth := 0
	for j := i; j < len(s.toks); j++ {
		t := s.toks[j]
		if t.Kind != lexed.TkPunct {
			continue
		}
		switch t.Text {
		case "(", "[", "{":
			j = s.br.CloseOrLast(j)
		case "<":
			depth++
		case ">":
			if s.arrowAt(j) {
				continue
			}
			depth--
			if depth == 0 {
				return j + 1
			}
		case ";", ")", "]", "}":
			return j // not type arguments after all
		}
	}
	return len(s.toks)
}

// typeArgsAt reports whether the '<' at i opens type arguments (f<T>(),
// Map<K, V>): it follows a name without a space, where a comparison would
// have one.
func (s *jsScan) typeArgsAt(i int) bool {
	return s.isIdent(i-1) && s.toks[i-1].Line == s.toks[i].Line && int(s.toks[i-1].Col)+len(s.toks[i-1].Text) == int(s.toks[i].Col)
}

// continuesAfter reports whether a statement goes on after toks[j] when a
// line break follows it.
func (s *jsScan) continuesAfter(j int, typeCtx bool) bool {
	t := s.toks[j]
	if t.Kind == lexed.TkIdent {
		switch t.Text {
		case "extends", "keyof", "typeof", "in", "instanceof", "as", "satisfies", "new", "await", "infer", "is", "of", "implements", "readonly", "unique":
			return true
		}
		return false
	}
	if t.Kind != lexed.TkPunct {
		return false
	}
	switch t.Text {
	case "=", ",", "|", "&", "?", ":", ".", "(", "[", "{", "*", "/", "%", "^", "~", "!":
		return t.Text != "!" || !s.isIdent(j-1) && !s.punctAt(j-1, ")") && !s.punctAt(j-1, "]")
	case "+", "-":
		return !s.punctAt(j-1, t.Text) // x++ and x-- end a statement
	case "<":
		return true
	case ">":
		return s.arrowAt(j)
	}
	return false
}

// continuesBefore reports whether a statement goes on when the line
// starting with toks[j] follows it.
func (s *jsScan) continuesBefore(j int) bool {
	t := s.toks[j]
	if t.Kind == lexed.TkIdent {
		switch t.Text {
		case "as", "satisfies", "extends", "instanceof", "implements":
			return true
		}
		return false
	}
	if t.Kind != lexed.TkPunct {
		return false
	}
	switch t.Text {
	case ".", "?", ":", "|", "&", "=", ",", ">", "*", "/", "%", "+":
		return true
	}
	return false
}

// stmtEnd returns the index of the last token of the statement (or member)
// starting at i, before end: a ';' at depth 0, the token before a line
// break neither side continues, or the token before the closing bracket of
// the enclosing block. typeCtx counts '<' '>' as brackets (type aliases).
func (s *jsScan) stmtEnd(i, end int, typeCtx bool) int {
	angle := 0
	for j := i; j < end; j++ {
		t := s.toks[j]
		if t.Kind == lexed.TkPunct {
			switch t.Text {
			case "(", "[", "{":
				j = s.br.CloseOrLast(j)
				if j >= end {
					return end - 1
				}
			case ")", "]", "}":
				return max(j-1, i)
			case ";":
				if angle == 0 {
					return j
				}
			case "<":
				if typeCtx {
					angle++
				}
			case ">":
				if typeCtx && angle > 0 && !s.arrowAt(j) {
					angle--
				}
			}
		}
		if j+1 >= end {
			return j
		}
		if s.toks[j+1].Line > s.toks[j].Line && angle == 0 && !s.continuesAfter(j, typeCtx) && !s.continuesBefore(j+1) {
			return j
		}
	}
	return end - 1
}

// typeLiteralAfter reports whether a '{' after toks[j] opens an object type
// rather than a body.
func (s *jsScan) typeLiteralAfter(j int) bool {
	if s.arrowAt(j) {
		return true
	}
	if s.isIdent(j) {
		switch s.text(j) {
		case "extends", "keyof", "typeof", "readonly", "is":
			return true
		}
		return false
	}
	switch s.text(j) {
	case ":", "|", "&", "<", ",", "(", "=", "[", "?":
		return true
	}
	return false
}

// skipType returns the index of the token ending the type starting at i: a
// body's '{', or a ';', '=', ',', ')' or line end at depth 0.
func (s *jsScan) skipType(i, end int) int { return s.skipTypeTo(i, end, false) }

// skipTypeTo is skipType; with arrowEnds a "=>" at depth 0 ends the type too
// (the return type of an arrow function).
func (s *jsScan) skipTypeTo(i, end int, arrowEnds bool) int {
	for j := i; j < end; j++ {
		t := s.toks[j]
		if t.Kind == lexed.TkPunct {
			switch t.Text {
			case "{":
				if !s.typeLiteralAfter(j - 1) {
					return j
				}
				j = s.br.CloseOrLast(j)
			case "(", "[":
				j = s.br.CloseOrLast(j)
			case "<":
				j = s.skipAngle(j) - 1
			case ";", ",", ")", "]", "}":
				return j
			case "=":
				if !s.arrowAt(j+1) || arrowEnds {
					return j
				}
			}
		}
		if j+1 < end && s.toks[j+1].Line > s.toks[j].Line && !s.continuesAfter(j, true) && !s.continuesBefore(j+1) && !s.punctAt(j+1, "{") {
			return j + 1
		}
	}
	return end
}

// typeName returns the type a type expression starting at i names: its
// first identifier, with Promise<T>, Awaited<T>, Readonly<T>, Partial<T>,
// Required<T>, Pick<T, K> and Omit<T, K> unwrapped (a T's members, or some
// of them) and a qualified a.B read as B; "" for none.
func (s *jsScan) typeName(i, end int) string {
	for j := i; j < end && j < i+12; j++ {
		if !s.isIdent(j) {
			if s.punctAt(j, "(") || s.punctAt(j, "{") || s.punctAt(j, "[") {
				return ""
			}
			continue
		}
		name := s.text(j)
		for s.punctAt(j+1, ".") && s.isIdent(j+2) {
			j += 2
			name = s.text(j)
		}
		switch name {
		case "Promise", "Awaited", "Readonly", "Partial", "Required", "PromiseLike", "NonNullable", "Pick", "Omit":
			if s.punctAt(j+1, "<") {
				continue
			}
		case "typeof", "keyof", "readonly", "asserts", "new":
			continue
		case "null", "undefined":
			if s.punctAt(j+1, "|") {
				continue // null | T is a T where it is used
			}
		}
		if s.text(j+1) == "is" {
			return "" // a type predicate
		}
		if lexed.IsKeyword(lexed.LangJS, name) {
			return ""
		}
		return name
	}
	return ""
}

func (s *jsScan) add(d lexed.Decl) int {
	if d.To < d.From {
		d.To = d.From
	}
	d.Literal = d.Literal || s.literal && d.Container != ""
	s.out = append(s.out, d)
	return len(s.out) - 1
}

var jsStmtModifiers = engine.Words("export default declare abstract async")

// module reads the statements of toks[i:end] at module level (or of a
// namespace body: container names the namespace, whose members are reached
// through its name).
func (s *jsScan) module(i, end int, container string) {
	for i < end {
		i = s.statement(i, end, container) + 1
	}
}

// statement reads the statement starting at i and returns the index of its
// last token.
func (s *jsScan) statement(i, end int, container string) int {
	if s.punctAt(i, ";") || s.punctAt(i, "}") {
		return i
	}
	j := i
	for s.punctAt(j, "@") { // decorators of a class
		j = s.decorator(j)
	}
	for s.isIdent(j) && jsStmtModifiers[s.text(j)] && j+1 < end && s.isIdent(j+1) {
		j++
	}
	from := s.toks[min(i, len(s.toks)-1)].Line
	static := container != ""
	switch w := s.text(j); {
	case !s.isIdent(j):
	case w == "function":
		k := j + 1
		if s.punctAt(k, "*") {
			k++
		}
		if s.isIdent(k) {
			return s.function(from, k, end, container, static)
		}
	case w == "class" && s.isIdent(j+1) && s.text(j+1) != "extends" && s.text(j+1) != "implements":
		return s.class(from, j+1, end, container, "class")
	case w == "interface" && s.isIdent(j+1):
		return s.class(from, j+1, end, container, "interface")
	case w == "enum" || w == "const" && s.text(j+1) == "enum":
		if w == "const" {
			j++
		}
		if s.isIdent(j+1) && s.punctAt(j+2, "{") {
			close := s.br.CloseOrLast(j + 2)
			s.add(lexed.Decl{Name: s.text(j + 1), Kind: "enum", Container: container, Static: static, From: from, To: s.toks[close].Line, HeadTo: s.toks[close].Line})
			return close
		}
	case w == "type" && s.isIdent(j+1) && (s.punctAt(j+2, "=") || s.punctAt(j+2, "<")):
		e := s.stmtEnd(j+1, end, true)
		s.add(lexed.Decl{Name: s.text(j + 1), Kind: "type", Container: container, Static: static, From: from, To: s.toks[e].Line})
		s.typeAlias(j+1, e+1)
		return e
	case w == "const" || w == "let" || w == "var":
		return s.variables(i, j+1, end, container, static)
	case (w == "namespace" || w == "module") && (s.isIdent(j+1) || s.toks[j+1].Kind == lexed.TkString) || w == "global" && s.punctAt(j+1, "{"):
		k := j + 1
		name := ""
		if w != "global" && s.isIdent(k) {
			name = s.text(k)
			for s.punctAt(k+1, ".") && s.isIdent(k+2) {
				k += 2
			}
		}
		if w == "global" {
			k = j
		}
		if s.punctAt(k+1, "{") {
			close := s.br.CloseOrLast(k + 1)
			if name != "" && k == j+1 && w == "namespace" {
				// namespace Assert {...}: Assert.IsEqual(...) uses the
				// namespace by its name, a declaration of the file.
				s.add(lexed.Decl{Name: name, Kind: "namespace", Container: container, From: from, To: s.toks[close].Line})
			}
			inner := container
			if name != "" {
				inner = name
			}
			s.module(k+2, close, inner)
			return close
		}
	}
	e := s.stmtEnd(i, end, false)
	if container == "" && s.text(i) == "export" && s.text(i+1) == "default" {
		// export default <expression>: the module's default export, bound
		// by its importers under names of their own.
		s.add(lexed.Decl{Name: "default", Kind: "variable", From: from, To: s.toks[e].Line})
	}
	return e
}

// typeAlias reads the type of the alias whose name is at k, up to end:
// the members of its object types (type T = {m(): R} & Base) are T's, and
// the types it intersects or unites (Base, Promise<R>) are its supertypes,
// whose members a T has too.
func (s *jsScan) typeAlias(k, end int) {
	name := s.text(k)
	j := k + 1
	if s.punctAt(j, "<") {
		j = s.skipAngle(j)
	}
	if !s.punctAt(j, "=") {
		return
	}
	for j++; j < end; j++ {
		if s.punctAt(j, "&") || s.punctAt(j, "|") {
			continue
		}
		if s.punctAt(j, "{") {
			close := min(s.br.CloseOrLast(j), end)
			lit := s.literal
			s.literal = true
			s.members(j+1, close, name, true)
			s.literal = lit
			j = close
			continue
		}
		// One part of the intersection or union: up to the next & or | at
		// depth 0.
		e := j
		for e < end && !s.punctAt(e, "&") && !s.punctAt(e, "|") {
			switch {
			case s.punctAt(e, "<"):
				e = s.skipAngle(e)
				continue
			case s.punctAt(e, "(") || s.punctAt(e, "[") || s.punctAt(e, "{"):
				e = s.br.CloseOrLast(e)
			}
			e++
		}
		switch {
		case s.punctAt(j, "(") || s.punctAt(j, "<"):
			// A function type: a T is called like it (type Handler =
			// (c: Context) => R).
			if ret := s.arrowReturn(j, e); ret != "" || s.arrowParams(j) != nil {
				s.types.AddReturn(name+"()", ret)
				s.types.AddParams(name+"()", s.arrowParams(j))
			}
		case s.isIdent(j) && s.text(j) != "typeof" && s.text(j) != "keyof":
			s.types.AddSuper(name, s.typeName(j, e))
		}
		j = e - 1
	}
}

// decorator returns the index after the decorator "@a.b(...)" at i.
func (s *jsScan) decorator(i int) int {
	j := i + 1
	for s.isIdent(j) && s.punctAt(j+1, ".") {
		j += 2
	}
	j++
	if s.punctAt(j, "(") {
		j = s.br.CloseOrLast(j) + 1
	}
	return j
}

// function reads a function declaration whose name is at k.
func (s *jsScan) function(from, k, end int, container string, static bool) int {
	name := s.text(k)
	last, body, ret, open := s.signature(k+1, end)
	if body < 0 && ret == "" {
		last = s.stmtEnd(k, end, false)
	}
	fn := name
	if container != "" {
		fn = container + "." + name
	}
	if ret == "this" {
		ret = ""
	}
	if ret == "" {
		ret = s.returnLiteral(fn, open)
	}
	s.types.AddReturn(fn, ret)
	s.types.AddReturn(name, ret)
	if open >= 0 {
		s.types.AddParams(fn, s.paramTypes(open+1, s.br.CloseOrLast(open)))
		s.types.AddParams(name, s.paramTypes(open+1, s.br.CloseOrLast(open)))
	}
	s.add(lexed.Decl{Name: name, Kind: "function", Container: container, Static: static, From: from, To: s.toks[last].Line})
	return last
}

// signature reads "<T>(params): R { body }" from i: it returns the index of
// its last token, of the body's '{' (-1 without a body), the return type
// and the index of the parameters' '(' (-1 for none).
func (s *jsScan) signature(i, end int) (last, body int, ret string, open int) {
	j := i
	if s.punctAt(j, "<") {
		j = s.skipAngle(j)
	}
	if !s.punctAt(j, "(") {
		return max(j-1, i-1), -1, "", -1
	}
	open = j
	close := s.br.CloseOrLast(j)
	s.params(j+1, close, "")
	j = close + 1
	last = close
	if s.punctAt(j, ":") {
		ret = s.typeName(j+1, end)
		if s.text(j+1) == "this" {
			ret = "this" // a method returning its receiver (members)
		}
		j = s.skipType(j+1, end)
		last = j - 1
	}
	if s.punctAt(j, "{") {
		body := j
		if !s.punctAt(s.br.CloseOrLast(open)+1, ":") { // no annotation: what its body returns
			ret = s.returnedNew(body, s.br.CloseOrLast(body))
		}
		return s.br.CloseOrLast(body), body, ret, open
	}
	if s.punctAt(j, ";") {
		last = j
	}
	return last, -1, ret, open
}

// returnedNew returns the class C of a return new C(...) statement of the
// body toks[open:close] (its own statements, not those of blocks or
// functions nested in it); "" for none.
func (s *jsScan) returnedNew(open, close int) string {
	for k := open + 1; k < close; k++ {
		switch {
		case s.punctAt(k, "{") || s.punctAt(k, "(") || s.punctAt(k, "["):
			if e := s.br.CloseOrLast(k); e > k {
				k = e
			}
		case s.text(k) == "return" && s.text(k+1) == "new":
			return s.typeName(k+2, close)
		case s.text(k) == "return" && s.text(k+1) == "this" && s.returnsThis(k+2, close):
			return "this"
		}
	}
	return ""
}

// returnsThis reports whether the return statement whose "this" ends
// before toks[j] returns its receiver: return this, or a builder's return
// this.m(...) (this.use(rule), this.test({...})), the statement ending
// there.
func (s *jsScan) returnsThis(j, close int) bool {
	if s.punctAt(j, ".") && s.isIdent(j+1) && s.punctAt(j+2, "(") {
		j = s.br.CloseOrLast(j+2) + 1
	}
	return j >= close || s.punctAt(j, ";") || s.toks[j].Line > s.toks[j-1].Line
}

// paramTypes returns the type names of each parameter of the list
// toks[i:end] in order ("" for one without an annotation naming a type;
// a function type's parameter as "(...)" is skipped the same way).
func (s *jsScan) paramTypes(i, end int) []string {
	var out []string
	for j := i; j < end; {
		e, colon := s.listItem(j, end)
		typ := ""
		if colon >= 0 {
			typ = s.typeName(colon+1, e)
		}
		switch rest := s.punctAt(j, "."); {
		case rest && colon >= 0 && s.punctAt(colon+1, "["):
			// ...handlers: [A, B & M, C]: one position per element.
			out = append(out, s.tupleTypes(colon+1, min(s.br.CloseOrLast(colon+1), e))...)
		case rest:
			// ...args: T[]: every later position is a T.
			for range maxRestPositions {
				out = append(out, typ)
			}
		default:
			out = append(out, typ)
		}
		j = e + 1
	}
	return out
}

// listItem returns the end of the list item starting at toks[j] (the
// index of the ',' after it at depth 0, or end) and the index of its
// first ':' at that depth, -1 for none.
func (s *jsScan) listItem(j, end int) (e, colon int) {
	colon = -1
	for e = j; e < end && !s.punctAt(e, ","); e++ {
		switch {
		case s.punctAt(e, "(") || s.punctAt(e, "[") || s.punctAt(e, "{"):
			e = s.br.CloseOrLast(e)
		case s.punctAt(e, "<"):
			e = s.skipAngle(e) - 1
		case s.punctAt(e, ":") && colon < 0:
			colon = e
		}
	}
	return e, colon
}

// maxRestPositions is how many argument positions a rest parameter's
// element type is recorded for.
const maxRestPositions = 8

// tupleTypes returns the type names of the elements of the tuple type
// whose '[' is at i and whose ']' is at end.
func (s *jsScan) tupleTypes(i, end int) []string {
	var out []string
	for j := i + 1; j < end; {
		e, _ := s.listItem(j, end)
		out = append(out, s.typeName(j, min(e, end)))
		j = e + 1
	}
	return out
}

// params records the types of the parameters in toks[i:end] ("p: T",
// "private p: T" also as the field this.p when inClass names a class).
func (s *jsScan) params(i, end int, inClass string) {
	for j := i; j < end; j++ {
		switch {
		case s.punctAt(j, "(") || s.punctAt(j, "[") || s.punctAt(j, "{"):
			j = s.br.CloseOrLast(j)
		case s.isIdent(j) && (s.punctAt(j+1, ":") || s.punctAt(j+1, "?") && s.punctAt(j+2, ":")) && (j == i || s.punctAt(j-1, ",") || s.isIdent(j-1) && isModifier(s.text(j-1))):
			k := j + 2
			if s.punctAt(j+1, "?") {
				k++
			}
			if typ := s.typeName(k, end); typ != "" {
				s.types.AddVar(s.text(j), typ)
				if inClass != "" && s.isIdent(j-1) && isModifier(s.text(j-1)) {
					s.types.AddVar("this."+s.text(j), typ)
					s.types.AddField(inClass+"."+s.text(j), typ)
				}
			}
		}
	}
}

// jsLocalTypes records the types that statements anywhere in the file give
// names: const x = new C(), x: C, this.x = new C(), x = await f() and
// x = f() (the latter as the call f(), whose return type is looked up), and
// the narrowing x instanceof C.
func jsLocalTypes(f *lexed.File, m *lexed.TypeModel) {
	toks := f.Toks
	s := &jsScan{toks: toks, br: f.Brackets, types: m}
	for j := 0; j+2 < len(toks); j++ {
		if !s.isIdent(j) {
			continue
		}
		name := s.text(j)
		k := j + 1
		if name == "default" && s.text(j-1) == "export" {
			s.defaultExportType(m, k)
			continue
		}
		if s.text(k) == "instanceof" && s.isIdent(k+1) && !s.punctAt(j-1, ".") {
			// x instanceof C narrows x to C where it holds.
			n := k + 1
			for s.punctAt(n+1, ".") && s.isIdent(n+2) {
				n += 2
			}
			m.AddVar(name, s.text(n))
			continue
		}
		if s.punctAt(j-1, ".") {
			if s.text(j-2) != "this" || s.punctAt(j-3, ".") {
				continue
			}
			name = "this." + name
		} else if w := s.text(j - 1); w != "const" && w != "let" && w != "var" && w != "," && w != "(" && !(s.isIdent(j-1) && isModifier(w)) {
			if !s.punctAt(k, "=") || s.punctAt(j-1, "=") {
				continue
			}
		}
		if s.punctAt(k, ":") && !strings.HasPrefix(name, "this.") {
			if typ := s.typeName(k+1, len(toks)); typ != "" && !s.punctAt(k+1, "{") {
				m.AddVar(name, typ)
			}
			continue
		}
		if !s.punctAt(k, "=") || s.punctAt(k+1, "=") || s.arrowAt(k+1) {
			continue
		}
		v := k + 1
		if len(m.Inits[name]) < 4 {
			m.Inits[name] = append(m.Inits[name], v)
		}
		if typ := s.castType(v, s.stmtEnd(v, len(toks), false)); typ != "" {
			m.AddVar(name, typ) // x = expr as T
			continue
		}
		if s.text(v) == "await" {
			v++
		}
		if s.text(v) == "new" {
			if typ := s.typeName(v+1, len(toks)); typ != "" {
				m.AddVar(name, typ)
			}
			continue
		}
		// A call: the callee is the last name before the '(' of a.b.f(.
		c := v
		for s.isIdent(c) && s.punctAt(c+1, ".") && s.isIdent(c+2) {
			c += 2
		}
		if s.isIdent(c) && (s.punctAt(c+1, "(") || s.punctAt(c+1, "<")) {
			m.AddCall(name, s.text(c))
		}
	}
}

// defaultExportType records the type of the expression a module exports
// by default from toks[v] on (export default make(x) as Api, export
// default new C()) as the type of "default", the name its importers bind
// under names of their own; a class or function exported by default is
// a declaration, which the importers' lookup finds by its name instead.
func (s *jsScan) defaultExportType(m *lexed.TypeModel, v int) {
	switch s.text(v) {
	case "class", "function", "async", "abstract", "interface", "enum", "{", "":
		return
	}
	if typ := s.castType(v, s.stmtEnd(v, len(s.toks), false)); typ != "" {
		m.AddVar("default", typ)
		return
	}
	if len(m.Inits["default"]) < 4 {
		m.Inits["default"] = append(m.Inits["default"], v)
	}
}

// castType returns T when the expression toks[i:e+1] ends in a cast
// "as T" (as T<A>, as unknown as T) at its own level; "" for none, and
// for as const.
func (s *jsScan) castType(i, e int) string {
	if s.punctAt(e, ";") {
		e--
	}
	for p := e; p > i && p > e-24; p-- {
		switch {
		case s.punctAt(p, ")") || s.punctAt(p, "]") || s.punctAt(p, "}"):
			// A bracket's inside is another level: f(a as B) casts a.
			if p = s.br.Open(p); p < 0 {
				return ""
			}
		case s.isIdent(p) && s.text(p) == "as" && !s.punctAt(p-1, "."):
			if s.text(p+1) == "const" {
				return ""
			}
			return s.typeName(p+1, e+1)
		}
	}
	return ""
}
