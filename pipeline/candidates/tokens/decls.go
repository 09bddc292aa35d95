package tokens

import "github.com/prscout/prscout/pipeline/candidates/internal/engine"

// Declarations by token patterns: module-level functions, classes,
// interfaces, enums, types and variables, and the methods and fields of
// class bodies. Declarations inside function bodies are local and left out.

// braceDecls finds declarations in TypeScript/JavaScript or Java tokens.
func braceDecls(toks []tok, l lang) []tdecl {
	type frame struct {
		kind  string // class, func, block
		name  string // class name
		decl  int    // index in out of the declaration the frame closes, -1 if none
		paren int    // paren depth when opened
	}
	var out []tdecl
	var stack []frame
	paren := 0
	pendingDecl := -1 // a declaration waiting for its body's '{'
	pendingKind := "" // class or func
	pendingName := "" // class name
	simple := -1      // a body-less declaration whose span is still open
	simpleDepth := 0  // len(stack) at its start
	simpleCol := 0    // its first token's column
	stmtStart := true // the next token starts a statement or member
	headerStart := -1 // Java/TS class member header start
	top := func() string {
		for i := len(stack) - 1; i >= 0; i-- {
			if stack[i].kind != "block" || stack[i].name != "" {
				return stack[i].kind
			}
		}
		return ""
	}
	className := func() string {
		if n := len(stack); n > 0 && stack[n-1].kind == "class" {
			return stack[n-1].name
		}
		return ""
	}
	closeSimple := func(line int) {
		if simple >= 0 {
			if line < out[simple].from {
				line = out[simple].from
			}
			out[simple].to = line
			simple = -1
		}
	}
	add := func(name, kind, container string, line int) int {
		out = append(out, tdecl{name: name, kind: kind, container: container, from: line, to: line})
		return len(out) - 1
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		prevLine := 0
		if i > 0 {
			prevLine = toks[i-1].line
		}
		// A body-less declaration ends at ';' or where a new statement
		// starts at its depth and column.
		if simple >= 0 && len(stack) == simpleDepth && paren == 0 && i > 0 {
			if t.line > prevLine && t.col <= simpleCol && t.text != "}" && t.text != ")" && t.text != "]" && t.text != "." {
				closeSimple(prevLine)
			}
		}
		inClass := len(stack) > 0 && stack[len(stack)-1].kind == "class" && paren == stack[len(stack)-1].paren
		atTop := len(stack) == 0 && paren == 0
		if l == langJS && atTop && t.line > prevLine {
			stmtStart = true
		}
		switch t.text {
		case "(", "[":
			paren++
			continue
		case ")", "]":
			if paren > 0 {
				paren--
			}
			continue
		case "{":
			f := frame{kind: "block", decl: -1, paren: paren}
			if pendingDecl >= 0 || pendingKind == "class" {
				f.kind, f.decl, f.name = pendingKind, pendingDecl, pendingName
				pendingDecl, pendingKind, pendingName = -1, "", ""
			}
			stack = append(stack, f)
			stmtStart = true
			headerStart = -1
			continue
		case "}":
			if n := len(stack); n > 0 {
				f := stack[n-1]
				stack = stack[:n-1]
				if f.decl >= 0 {
					out[f.decl].to = t.line
				}
				paren = f.paren
			}
			if simple >= 0 && len(stack) < simpleDepth {
				closeSimple(t.line)
			}
			stmtStart = true
			headerStart = -1
			continue
		case ";":
			if simple >= 0 && len(stack) == simpleDepth && paren == 0 {
				closeSimple(t.line)
			}
			if pendingKind == "func" && pendingDecl >= 0 && paren == 0 {
				pendingDecl, pendingKind = -1, "" // an abstract or interface method
			}
			stmtStart = true
			headerStart = -1
			continue
		}
		if t.kind != tkIdent {
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
			if inClass && headerStart >= 0 && (t.text == "=" || t.text == ":" || t.text == "?" || t.text == "!" || (t.text == "<" && l == langJS)) {
				// A field (or a TS generic method): the name precedes.
				if name := lastIdent(toks, headerStart, i); name != "" {
					kind := "field"
					if t.text == "<" {
						kind = "method"
						pendingKind = "func"
					}
					d := add(name, kind, className(), toks[headerStart].line)
					out[d].static = hasStatic(toks, headerStart, i)
					if kind == "method" {
						pendingDecl = d
					} else {
						simple, simpleDepth, simpleCol = d, len(stack), toks[headerStart].col
					}
				}
				headerStart = -1
			}
			continue
		}
		switch {
		case (atTop || inClass || top() == "") && isTypeKeyword(l, t.text) && i+1 < len(toks) && toks[i+1].kind == tkIdent && (i == 0 || toks[i-1].text != "."):
			d := add(toks[i+1].text, typeKind(t.text), className(), t.line)
			pendingDecl, pendingKind, pendingName = d, "class", toks[i+1].text
			i++
			headerStart = -1
		case l == langJS && atTop && t.text == "function":
			j := i + 1
			if j < len(toks) && toks[j].text == "*" {
				j++
			}
			if j < len(toks) && toks[j].kind == tkIdent {
				pendingDecl, pendingKind = add(toks[j].text, "function", "", t.line), "func"
				i = j
			}
		case l == langJS && atTop && stmtStart && (t.text == "const" || t.text == "let" || t.text == "var" || t.text == "type") && i+1 < len(toks) && toks[i+1].kind == tkIdent:
			kind := "variable"
			if t.text == "type" {
				kind = "type"
			} else if i+3 < len(toks) && toks[i+2].text == "=" && (toks[i+3].text == "(" || toks[i+3].text == "async" || toks[i+3].text == "function") {
				kind = "function"
			}
			closeSimple(prevLine)
			d := add(toks[i+1].text, kind, "", t.line)
			simple, simpleDepth, simpleCol = d, 0, t.col
			i++
			stmtStart = false
		case inClass && isModifier(l, t.text):
			if headerStart < 0 {
				headerStart = i
			}
		case inClass:
			if headerStart < 0 && (stmtStart || t.line > prevLine) {
				headerStart = i
			}
			if headerStart < 0 {
				continue
			}
			if i+1 < len(toks) && toks[i+1].text == "(" && !isKeyword(l, t.text) {
				pendingDecl, pendingKind = add(t.text, "method", className(), toks[headerStart].line), "func"
				out[pendingDecl].static = hasStatic(toks, headerStart, i)
				headerStart = -1
			} else if l == langJava && i+1 < len(toks) && (toks[i+1].text == ";" || toks[i+1].text == "=" || toks[i+1].text == ",") {
				d := add(t.text, "field", className(), toks[headerStart].line)
				out[d].static = hasStatic(toks, headerStart, i)
				simple, simpleDepth, simpleCol = d, len(stack), toks[headerStart].col
				headerStart = -1
			}
			stmtStart = false
		default:
			if atTop && !isModifier(l, t.text) {
				stmtStart = false
			}
		}
	}
	closeSimple(lastLine(toks))
	for i := range out {
		if out[i].to < out[i].from {
			out[i].to = out[i].from
		}
	}
	return out
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
			out = append(out, tdecl{name: name, kind: kind, container: container, from: t.line, to: endOf(k, t.indent)})
			continue
		}
		if t.kind == tkIdent && !inFunc && i+1 < len(toks) && (toks[i+1].text == "=" && (i+2 >= len(toks) || toks[i+2].text != "=") || toks[i+1].text == ":") && !isKeyword(langPython, t.text) {
			kind := "variable"
			if container != "" {
				kind = "field"
			}
			if t.indent == 0 || container != "" {
				out = append(out, tdecl{name: t.text, kind: kind, container: container, from: t.line, to: endOf(k, t.indent)})
			}
		}
	}
	return out
}

var (
	jsKeywords   = engine.Words("break case catch class const continue debugger default delete do else export extends finally for function if import in instanceof new return super switch this throw try typeof var void while with yield let static enum await implements package protected interface private public async of from as type any number string boolean undefined null true false readonly declare keyof unknown never abstract get set")
	pyKeywords   = engine.Words("False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield self cls print len str int list dict set tuple bool float object super isinstance range")
	javaKeywords = engine.Words("abstract assert boolean break byte case catch char class const continue default do double else enum extends final finally float for goto if implements import instanceof int interface long native new package private protected public return short static strictfp super switch synchronized this throw throws transient try void volatile while true false null var record String Object Override List Map")
)

func words(s string) map[string]bool {
	m := map[string]bool{}
	start := -1
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' {
			if start >= 0 {
				m[s[start:i]] = true
			}
			start = -1
		} else if start < 0 {
			start = i
		}
	}
	return m
}

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
