package tokens

import "github.com/prscout/prscout/pipeline/candidates/internal/engine"

// Declarations by token patterns: module-level functions, classes,
// interfaces, enums, types and variables, and the methods and fields of
// class bodies. Declarations inside function bodies are local and left out.

// braceDecls finds declarations in TypeScript/JavaScript or Java tokens.
func braceDecls(toks []tok, l lang) []tdecl {
	s := &braceScan{toks: toks, l: l, pendingDecl: -1, simple: -1, stmtStart: true, headerStart: -1}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		prevLine := 0
		if i > 0 {
			prevLine = toks[i-1].line
		}
		// A body-less declaration ends at ';' or where a new statement
		// starts at its depth and column.
		if s.simple >= 0 && len(s.stack) == s.simpleDepth && s.paren == 0 && i > 0 {
			if t.line > prevLine && t.col <= s.simpleCol && t.text != "}" && t.text != ")" && t.text != "]" && t.text != "." {
				s.closeSimple(prevLine)
			}
		}
		inClass := len(s.stack) > 0 && s.stack[len(s.stack)-1].kind == "class" && s.paren == s.stack[len(s.stack)-1].paren
		atTop := len(s.stack) == 0 && s.paren == 0
		if l == langJS && atTop && t.line > prevLine {
			s.stmtStart = true
		}
		switch {
		case s.bracket(t):
		case t.kind != tkIdent:
			i = s.punct(i, inClass)
		default:
			i = s.word(i, prevLine, inClass, atTop)
		}
	}
	s.closeSimple(lastLine(toks))
	for i := range s.out {
		if s.out[i].to < s.out[i].from {
			s.out[i].to = s.out[i].from
		}
	}
	return s.out
}

// braceScan is the state of braceDecls's walk over the tokens.
type braceScan struct {
	toks        []tok
	l           lang
	out         []tdecl
	stack       []braceFrame
	paren       int
	pendingDecl int    // a declaration waiting for its body's '{'
	pendingKind string // class or func
	pendingName string // class name
	simple      int    // a body-less declaration whose span is still open
	simpleDepth int    // len(stack) at its start
	simpleCol   int    // its first token's column
	stmtStart   bool   // the next token starts a statement or member
	headerStart int    // Java/TS class member header start
}

// braceFrame is one open brace.
type braceFrame struct {
	kind  string // class, func, block
	name  string // class name
	decl  int    // index in out of the declaration the frame closes, -1 if none
	paren int    // paren depth when opened
}

func (s *braceScan) top() string {
	for i := len(s.stack) - 1; i >= 0; i-- {
		if s.stack[i].kind != "block" || s.stack[i].name != "" {
			return s.stack[i].kind
		}
	}
	return ""
}

func (s *braceScan) className() string {
	if n := len(s.stack); n > 0 && s.stack[n-1].kind == "class" {
		return s.stack[n-1].name
	}
	return ""
}

func (s *braceScan) closeSimple(line int) {
	if s.simple >= 0 {
		if line < s.out[s.simple].from {
			line = s.out[s.simple].from
		}
		s.out[s.simple].to = line
		s.simple = -1
	}
}

func (s *braceScan) add(name, kind, container string, line int) int {
	s.out = append(s.out, tdecl{name: name, kind: kind, container: container, from: line, to: line})
	return len(s.out) - 1
}

// bracket follows parentheses, braces and semicolons; it reports whether t
// was one.
func (s *braceScan) bracket(t tok) bool {
	switch t.text {
	case "(", "[":
		s.paren++
	case ")", "]":
		if s.paren > 0 {
			s.paren--
		}
	case "{":
		f := braceFrame{kind: "block", decl: -1, paren: s.paren}
		if s.pendingDecl >= 0 || s.pendingKind == "class" {
			f.kind, f.decl, f.name = s.pendingKind, s.pendingDecl, s.pendingName
			s.pendingDecl, s.pendingKind, s.pendingName = -1, "", ""
		}
		s.stack = append(s.stack, f)
		s.stmtStart = true
		s.headerStart = -1
	case "}":
		if n := len(s.stack); n > 0 {
			f := s.stack[n-1]
			s.stack = s.stack[:n-1]
			if f.decl >= 0 {
				s.out[f.decl].to = t.line
			}
			s.paren = f.paren
		}
		if s.simple >= 0 && len(s.stack) < s.simpleDepth {
			s.closeSimple(t.line)
		}
		s.stmtStart = true
		s.headerStart = -1
	case ";":
		if s.simple >= 0 && len(s.stack) == s.simpleDepth && s.paren == 0 {
			s.closeSimple(t.line)
		}
		if s.pendingKind == "func" && s.pendingDecl >= 0 && s.paren == 0 {
			s.pendingDecl, s.pendingKind = -1, "" // an abstract or interface method
		}
		s.stmtStart = true
		s.headerStart = -1
	default:
		return false
	}
	return true
}

// punct handles the other punctuation at toks[i]: an annotation or
// decorator is skipped, a class member header ending in '=', ':', '?', '!'
// (or a TS '<') declares a field (or a generic method). It returns the
// index of the last token consumed.
func (s *braceScan) punct(i int, inClass bool) int {
	toks, t := s.toks, s.toks[i]
	if t.text == "@" && i+1 < len(toks) { // annotation or decorator
		i++
		if i+1 < len(toks) && toks[i+1].text == "(" {
			depth := 0
			for i++; i < len(toks); i++ {
				if toks[i].text == "(" {
					depth++
				} else if toks[i].text == ")" {
					depth--
					if depth == 0 {
						break
					}
				}
			}
		}
	}
	if inClass && s.headerStart >= 0 && (t.text == "=" || t.text == ":" || t.text == "?" || t.text == "!" || (t.text == "<" && s.l == langJS)) {
		// A field (or a TS generic method): the name precedes.
		if name := lastIdent(toks, s.headerStart, i); name != "" {
			kind := "field"
			if t.text == "<" {
				kind = "method"
				s.pendingKind = "func"
			}
			d := s.add(name, kind, s.className(), toks[s.headerStart].line)
			s.out[d].static = hasStatic(toks, s.headerStart, i)
			if kind == "method" {
				s.pendingDecl = d
			} else {
				s.simple, s.simpleDepth, s.simpleCol = d, len(s.stack), toks[s.headerStart].col
			}
		}
		s.headerStart = -1
	}
	return i
}

// word handles the identifier at toks[i]: type keywords, JS functions and
// top-level variables, class member headers. It returns the index of the
// last token consumed.
func (s *braceScan) word(i, prevLine int, inClass, atTop bool) int {
	toks, t, l := s.toks, s.toks[i], s.l
	switch {
	case (atTop || inClass || s.top() == "") && isTypeKeyword(l, t.text) && i+1 < len(toks) && toks[i+1].kind == tkIdent && (i == 0 || toks[i-1].text != "."):
		d := s.add(toks[i+1].text, typeKind(t.text), s.className(), t.line)
		s.pendingDecl, s.pendingKind, s.pendingName = d, "class", toks[i+1].text
		i++
		s.headerStart = -1
	case l == langJS && atTop && t.text == "function":
		j := i + 1
		if j < len(toks) && toks[j].text == "*" {
			j++
		}
		if j < len(toks) && toks[j].kind == tkIdent {
			s.pendingDecl, s.pendingKind = s.add(toks[j].text, "function", "", t.line), "func"
			i = j
		}
	case l == langJS && atTop && s.stmtStart && (t.text == "const" || t.text == "let" || t.text == "var" || t.text == "type") && i+1 < len(toks) && toks[i+1].kind == tkIdent:
		kind := "variable"
		if t.text == "type" {
			kind = "type"
		} else if i+3 < len(toks) && toks[i+2].text == "=" && (toks[i+3].text == "(" || toks[i+3].text == "async" || toks[i+3].text == "function") {
			kind = "function"
		}
		s.closeSimple(prevLine)
		d := s.add(toks[i+1].text, kind, "", t.line)
		s.simple, s.simpleDepth, s.simpleCol = d, 0, t.col
		i++
		s.stmtStart = false
	case inClass && isModifier(l, t.text):
		if s.headerStart < 0 {
			s.headerStart = i
		}
	case inClass:
		s.member(i, prevLine)
	default:
		if atTop && !isModifier(l, t.text) {
			s.stmtStart = false
		}
	}
	return i
}

// member handles an identifier in a class body: it starts a member header,
// or names a method (before '(') or a Java field (before ';', '=' or ',').
func (s *braceScan) member(i, prevLine int) {
	toks, t, l := s.toks, s.toks[i], s.l
	if s.headerStart < 0 && (s.stmtStart || t.line > prevLine) {
		s.headerStart = i
	}
	if s.headerStart < 0 {
		return
	}
	if i+1 < len(toks) && toks[i+1].text == "(" && !isKeyword(l, t.text) {
		s.pendingDecl, s.pendingKind = s.add(t.text, "method", s.className(), toks[s.headerStart].line), "func"
		s.out[s.pendingDecl].static = hasStatic(toks, s.headerStart, i)
		s.headerStart = -1
	} else if l == langJava && i+1 < len(toks) && (toks[i+1].text == ";" || toks[i+1].text == "=" || toks[i+1].text == ",") {
		d := s.add(t.text, "field", s.className(), toks[s.headerStart].line)
		s.out[d].static = hasStatic(toks, s.headerStart, i)
		s.simple, s.simpleDepth, s.simpleCol = d, len(s.stack), toks[s.headerStart].col
		s.headerStart = -1
	}
	s.stmtStart = false
}

func lastLine(toks []tok) int {
	if len(toks) == 0 {
		return 0
	}
	return toks[len(toks)-1].line
}

// hasStatic reports whether the member header toks[from:to] has the static
// modifier.
func hasStatic(toks []tok, from, to int) bool {
	for j := from; j < to; j++ {
		if toks[j].text == "static" {
			return true
		}
	}
	return false
}

// lastIdent returns the last identifier of toks[from:to] that is no modifier.
func lastIdent(toks []tok, from, to int) string {
	for j := to - 1; j >= from; j-- {
		if toks[j].kind == tkIdent && !isModifier(langJS, toks[j].text) {
			return toks[j].text
		}
	}
	return ""
}

func isTypeKeyword(l lang, w string) bool {
	switch w {
	case "class", "interface", "enum":
		return true
	case "record":
		return l == langJava
	}
	return false
}

func typeKind(w string) string {
	if w == "record" {
		return "class"
	}
	return w
}

func isModifier(l lang, w string) bool {
	switch w {
	case "public", "private", "protected", "static", "readonly", "abstract", "async", "override",
		"declare", "accessor", "get", "set", "final", "synchronized", "native", "transient", "volatile", "default", "export":
		return true
	}
	return false
}

// pythonDecls finds def and class statements that are not inside a function,
// and module-level assignments.
func pythonDecls(toks []tok) []tdecl {
	var out []tdecl
	type open struct {
		kind, name string
		indent     int
	}
	var stack []open
	// firsts are the indexes of tokens that start a line.
	var firsts []int
	for i, t := range toks {
		if t.col == t.indent && (i == 0 || toks[i-1].line < t.line) {
			firsts = append(firsts, i)
		}
	}
	endOf := func(k, indent int) int {
		// The last line before the next line-starting token at indent <= indent.
		for _, j := range firsts[k+1:] {
			if toks[j].indent <= indent && toks[j].text != ")" && toks[j].text != "]" && toks[j].text != "}" {
				if j > 0 {
					return toks[j-1].line
				}
			}
		}
		return lastLine(toks)
	}
	for k, i := range firsts {
		t := toks[i]
		for len(stack) > 0 && stack[len(stack)-1].indent >= t.indent {
			stack = stack[:len(stack)-1]
		}
		j := i
		if t.text == "async" && j+1 < len(toks) {
			j++
		}
		kw := toks[j].text
		inFunc := false
		container := ""
		for _, o := range stack {
			if o.kind == "def" {
				inFunc = true
			}
		}
		if n := len(stack); n > 0 && stack[n-1].kind == "class" {
			container = stack[n-1].name
		}
		if (kw == "def" || kw == "class") && j+1 < len(toks) && toks[j+1].kind == tkIdent {
			name := toks[j+1].text
			stack = append(stack, open{kw, name, t.indent})
			if inFunc {
				continue
			}
			kind := "function"
			switch {
			case kw == "class":
				kind = "class"
			case container != "":
				kind = "method"
			}
			out = append(out, tdecl{name: name, kind: kind, container: container, from: decoratorsFrom(toks, firsts, k), to: endOf(k, t.indent)})
			continue
		}
		if t.kind == tkIdent && !inFunc && i+1 < len(toks) && (toks[i+1].text == "=" && (i+2 >= len(toks) || toks[i+2].text != "=") || toks[i+1].text == ":") && !isKeyword(langPython, t.text) {
			kind := "variable"
			if container != "" {
				kind = "field"
			}
			// A module-level variable may sit in an if/try block
			// (if TYPE_CHECKING:, try: import ... except: X = None).
			if t.indent == 0 || container != "" || len(stack) == 0 {
				out = append(out, tdecl{name: t.text, kind: kind, container: container, from: t.line, to: endOf(k, t.indent)})
			}
		}
	}
	return out
}

// decoratorsFrom is the first line of the def or class starting the line
// toks[firsts[k]]: its first decorator's, when decorators precede it. A
// decorator's arguments may span lines (@click.option(\n...\n)): the walk
// back counts brackets, so only a line starting outside them ends it.
func decoratorsFrom(toks []tok, firsts []int, k int) int {
	from := toks[firsts[k]].line
	indent := toks[firsts[k]].indent
	depth := 0
	for i := firsts[k] - 1; i >= 0; i-- {
		t := toks[i]
		switch t.text {
		case ")", "]", "}":
			depth++
		case "(", "[", "{":
			depth--
		}
		lineStart := t.col == t.indent && (i == 0 || toks[i-1].line < t.line)
		if depth != 0 || !lineStart || t.kind == tkString {
			continue
		}
		if t.text != "@" || t.indent != indent {
			break
		}
		from = t.line
	}
	return from
}

var (
	jsKeywords   = engine.Words("break case catch class const continue debugger default delete do else export extends finally for function if import in instanceof new return super switch this throw try typeof var void while with yield let static enum await implements package protected interface private public async of from as type any number string boolean undefined null true false readonly declare keyof unknown never abstract get set")
	pyKeywords   = engine.Words("False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield self cls print len str int list dict set tuple bool float object super isinstance range")
	javaKeywords = engine.Words("abstract assert boolean break byte case catch char class const continue default do double else enum extends final finally float for goto if implements import instanceof int interface long native new package private protected public return short static strictfp super switch synchronized this throw throws transient try void volatile while true false null var record String Object Override List Map")
)

// isKeyword reports words of the language (and a few ubiquitous built-ins)
// that are never looked up as declarations.
func isKeyword(l lang, w string) bool {
	switch l {
	case langPython:
		return pyKeywords[w]
	case langJava:
		return javaKeywords[w]
	case langJS:
		return jsKeywords[w]
	}
	return jsKeywords[w] || pyKeywords[w]
}
