package python

import "github.com/prscout/prscout/pipeline/candidates/internal/lexed"

// Python declarations: def and class statements outside functions, with
// their decorators, and module-level assignments.

// pythonDecls finds def and class statements that are not inside a function,
// and module-level assignments.
func pythonDecls(toks []lexed.Tok) []lexed.Decl {
	var out []lexed.Decl
	type open struct {
		kind, name string
		indent     int
	}
	var stack []open
	// firsts are the indexes of tokens that start a line.
	var firsts []int
	for i, t := range toks {
		if t.Col == t.Indent && (i == 0 || toks[i-1].Line < t.Line) {
			firsts = append(firsts, i)
		}
	}
	endOf := func(k, indent int) int {
		// The last line before the next line-starting token at indent <= indent.
		for _, j := range firsts[k+1:] {
			if int(toks[j].Indent) <= indent && toks[j].Text != ")" && toks[j].Text != "]" && toks[j].Text != "}" {
				if j > 0 {
					return toks[j-1].Line
				}
			}
		}
		return lexed.LastLine(toks)
	}
	for k, i := range firsts {
		t := toks[i]
		for len(stack) > 0 && stack[len(stack)-1].indent >= int(t.Indent) {
			stack = stack[:len(stack)-1]
		}
		j := i
		if t.Text == "async" && j+1 < len(toks) {
			j++
		}
		kw := toks[j].Text
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
		if (kw == "def" || kw == "class") && j+1 < len(toks) && toks[j+1].Kind == lexed.TkIdent {
			name := toks[j+1].Text
			stack = append(stack, open{kw, name, int(t.Indent)})
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
			out = append(out, lexed.Decl{Name: name, Kind: kind, Container: container, From: decoratorsFrom(toks, firsts, k), To: endOf(k, int(t.Indent))})
			continue
		}
		if t.Kind == lexed.TkIdent && !inFunc && i+1 < len(toks) && (toks[i+1].Text == "=" && (i+2 >= len(toks) || toks[i+2].Text != "=") || toks[i+1].Text == ":") && !lexed.IsKeyword(lexed.LangPython, t.Text) {
			kind := "variable"
			if container != "" {
				kind = "field"
			}
			// A module-level variable may sit in an if/try block
			// (if TYPE_CHECKING:, try: import ... except: X = None).
			if t.Indent == 0 || container != "" || len(stack) == 0 {
				out = append(out, lexed.Decl{Name: t.Text, Kind: kind, Container: container, From: t.Line, To: endOf(k, int(t.Indent))})
			}
		}
	}
	return out
}

// decoratorsFrom is the first line of the def or class starting the line
// toks[firsts[k]]: its first decorator's, when decorators precede it. A
// decorator's arguments may span lines (@click.option(\n...\n)): the walk
// back counts brackets, so only a line starting outside them ends it.
func decoratorsFrom(toks []lexed.Tok, firsts []int, k int) int {
	from := toks[firsts[k]].Line
	indent := toks[firsts[k]].Indent
	depth := 0
	for i := firsts[k] - 1; i >= 0; i-- {
		t := toks[i]
		switch t.Text {
		case ")", "]", "}":
			depth++
		case "(", "[", "{":
			depth--
		}
		lineStart := t.Col == t.Indent && (i == 0 || toks[i-1].Line < t.Line)
		if depth != 0 || !lineStart || t.Kind == lexed.TkString {
			continue
		}
		if t.Text != "@" || t.Indent != indent {
			break
		}
		from = t.Line
	}
	return from
}
