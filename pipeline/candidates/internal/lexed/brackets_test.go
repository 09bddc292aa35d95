package lexed

import (
	"math/rand/v2"
	"testing"
)

// matchByDepth is the bracket matcher Brackets replaces: count depth from i
// until it returns to zero.
func matchByDepth(toks []Tok, i, step int) int {
	depth := 0
	for j := i; j >= 0 && j < len(toks); j += step {
		if toks[j].Kind != TkPunct {
			continue
		}
		switch toks[j].Text {
		case "(", "[", "{":
			depth += step
		case ")", "]", "}":
			depth -= step
		}
		if depth == 0 {
			return j
		}
		if depth < 0 {
			return -1
		}
	}
	return -1
}

// TestBracketsAsDepth: on random bracket soups (unbalanced too) and
// strings holding brackets, every pair is the one counting depth finds.
func TestBracketsAsDepth(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	texts := []string{"(", ")", "[", "]", "{", "}", "x", ";"}
	for range 2000 {
		toks := make([]Tok, rng.IntN(40))
		for i := range toks {
			toks[i] = Tok{Kind: TkPunct, Text: texts[rng.IntN(len(texts))]}
			if rng.IntN(6) == 0 {
				toks[i].Kind = TkString // a string holding a bracket is none
			}
		}
		b := PairBrackets(toks)
		for i, tk := range toks {
			opens := tk.Kind == TkPunct && (tk.Text == "(" || tk.Text == "[" || tk.Text == "{")
			closes := tk.Kind == TkPunct && (tk.Text == ")" || tk.Text == "]" || tk.Text == "}")
			if opens && b.Close(i) != matchByDepth(toks, i, 1) {
				t.Fatalf("%v: Close(%d) = %d, depth finds %d", toks, i, b.Close(i), matchByDepth(toks, i, 1))
			}
			if closes && b.Open(i) != matchByDepth(toks, i, -1) {
				t.Fatalf("%v: Open(%d) = %d, depth finds %d", toks, i, b.Open(i), matchByDepth(toks, i, -1))
			}
			if !opens && b.Close(i) != -1 || !closes && b.Open(i) != -1 {
				t.Fatalf("%v: token %d pairs though it is no bracket of that side", toks, i)
			}
		}
	}
}

// TestJavaTextBlock: a text block is one string, so the braces and quotes
// in it are no tokens of their own.
func TestJavaTextBlock(t *testing.T) {
	src := "class A {\n  String s = \"\"\"\n    { \"json\": [1, 2] }\n    \\\"\"\"\n    \"\"\";\n  int f() { return 1; }\n}\n"
	f := Read("A.java", []byte(src))
	strings := 0
	for _, tk := range f.Toks {
		if tk.Kind == TkString {
			strings++
		}
	}
	if strings != 1 {
		t.Fatalf("want the text block as one string, got %d strings: %v", strings, f.Toks)
	}
	if c := f.Brackets.Close(2); c != len(f.Toks)-1 {
		t.Fatalf("the class body's '{' closes at %d, want the last token %d", c, len(f.Toks)-1)
	}
}

// Enclosing finds the innermost bracket around a token as a backward scan
// counting depth does, stepping over whole groups.
func TestBracketsEnclosing(t *testing.T) {
	for _, tc := range []struct {
		src, at string
		want    string // the enclosing bracket's text and the token after it, "" none
	}{
		{"f(a, {k: 1}, x)", "x", "(a"},
		{"f(a, {k: 1}, x)", "k", "{k"},
		{"g([1, 2], [3, y])", "y", "[3"},
		{"top", "top", ""},
		{"a) b", "b", ""},
		{"{ (", "(", "{("},
	} {
		f := Read("a.ts", []byte(tc.src))
		i := -1
		for k, tk := range f.Toks {
			if tk.Text == tc.at {
				i = k
			}
		}
		got := ""
		if e := f.Brackets.Enclosing(f.Toks, i); e >= 0 {
			got = f.Toks[e].Text + f.Toks[e+1].Text
		}
		if got != tc.want {
			t.Errorf("%q at %q: enclosing %q, want %q", tc.src, tc.at, got, tc.want)
		}
	}
}
