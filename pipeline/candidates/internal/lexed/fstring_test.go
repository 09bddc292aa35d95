package lexed

import (
	"slices"
	"strings"
	"testing"
)

// The expressions in a Python f-string's replacement fields are code; the
// literal text, escaped braces, conversions and format specs are not, and
// the tokens after the f-string keep their lines.
func TestLexPythonFString(t *testing.T) {
	for _, tc := range []struct {
		src    string
		idents []string
		line   int // the line of the last token
	}{
		{`s = f"a{b.c!r:>{width}}{{lit}} {d['k']}" + tail`, []string{"s", "b", "c", "width", "d", "tail"}, 1},
		{`s = rf'{x}\d{{y}}' if z else F"{w(v)=}"`, []string{"s", "x", "if", "z", "else", "w", "v"}, 1},
		{"s = f'''\n{one}\n{two:{fmt}}\n''' + after", []string{"s", "one", "two", "fmt", "after"}, 4},
		{`s = f"{x != y}" and f"{'lit'}"`, []string{"s", "x", "y", "and"}, 1},
		{`s = f"{a:{b}{c}}" ; e`, []string{"s", "a", "b", "c", "e"}, 1},
		{`s = "{not_code}" + b"{nor}" ; e`, []string{"s", "e"}, 1},
		{"s = f\"{unclosed\nnext_line", []string{"s", "unclosed", "next_line"}, 2},
	} {
		checkIdents(t, LexPython, tc.src, tc.idents, tc.line)
	}
	// x = f"{C()}" is a string: an empty string token comes first.
	toks := Tokens([]byte(`x = f"{C()}"`), LexPython)
	if toks[2].Kind != TkString || toks[2].Text != "" || toks[3].Text != "C" || toks[len(toks)-1].Text != "{C()}" {
		t.Errorf("f-string tokens %+v", toks)
	}
}

// The expressions in a JS template literal's substitutions are code, nested
// templates and strings inside them included; the literal text is not (a
// lone '{' or '$' in it is text), and the tokens after the template keep
// their lines.
func TestLexJSTemplate(t *testing.T) {
	for _, tc := range []struct {
		src    string
		idents []string
		line   int // the line of the last token
	}{
		{"s = `a${f(x)}b {lit} $notcode ${`n${y}`}c` + tail", []string{"s", "f", "x", "y", "tail"}, 1},
		{"s = `line\n${one.two}\n${ {k: v}.k }\n` + after", []string{"s", "one", "two", "k", "v", "k", "after"}, 4},
		{"s = `${'}' + \"`\"}${/}/.test(z) /* } */}` ; e", []string{"s", "test", "z", "e"}, 1},
		{"s = `${unclosed\nnext_line", []string{"s", "unclosed", "next_line"}, 2},
		{"s = '${not}' + \"${code}\" ; e", []string{"s", "e"}, 1},
	} {
		checkIdents(t, LexJS, tc.src, tc.idents, tc.line)
	}
	// x = `${C()}` is a string: an empty string token comes first.
	toks := Tokens([]byte("x = `${C()}`"), LexJS)
	if toks[2].Kind != TkString || toks[2].Text != "" || toks[3].Text != "C" || toks[len(toks)-1].Text != "${C()}" {
		t.Errorf("template tokens %+v", toks)
	}
	// Templates nested past the bound are text, not a deep recursion.
	deep := strings.Repeat("`${", 5000) + "x" + strings.Repeat("}`", 5000)
	if toks := Tokens([]byte("s = "+deep+" ; e"), LexJS); toks[len(toks)-1].Text != "e" {
		t.Errorf("deep nesting: last token %+v", toks[len(toks)-1])
	}
}

// checkIdents checks the identifiers src lexes to in mode, and the line of
// its last token.
func checkIdents(t *testing.T, mode LexMode, src string, want []string, line int) {
	t.Helper()
	toks := Tokens([]byte(src), mode)
	var idents []string
	for _, tk := range toks {
		if tk.Kind == TkIdent {
			idents = append(idents, tk.Text)
		}
	}
	if !slices.Equal(idents, want) {
		t.Errorf("%q: identifiers %q, want %q", src, idents, want)
	}
	if last := toks[len(toks)-1]; last.Line != line {
		t.Errorf("%q: last token %q on line %d, want %d", src, last.Text, last.Line, line)
	}
}
