package tokens

// Python declarations: def and class statements outside functions, with
// their decorators, and module-level assignments.

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
