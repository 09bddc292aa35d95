package tokens

import (
	"slices"
	"testing"
)

func TestReceiver(t *testing.T) {
	for _, tc := range []struct {
		src, member, want string
	}{
		{"x.get()", "get", "x"},
		{"this.client.get()", "get", "this.client"},
		{"self.session.send(r)", "send", "self.session"},
		{"makeClient().get()", "get", "makeClient()"},
		{"api.makeClient(a, f(b)).get()", "get", "makeClient()"},
		{"(a + b).get()", "get", ""},
		{"get()", "get", ""},
	} {
		toks := lex([]byte(tc.src), lexJS)
		i := slices.IndexFunc(toks, func(t tok) bool { return t.text == tc.member })
		if got := receiver(toks, i); got != tc.want {
			t.Errorf("receiver(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
}

func TestTypesOf(t *testing.T) {
	m := newTypeModel()
	m.addVar("c", "Client")
	m.addVar("c", "Client")
	m.addReturn("makeClient", "HttpClient")
	m.addReturn("Factory.session", "Session")
	m.addReturn("Other.session", "Session")
	m.addReturn("Pool.session", "PooledSession")
	for r, want := range map[string][]string{
		"c":            {"Client"},
		"makeClient()": {"HttpClient"},
		"session()":    {"PooledSession", "Session"},
		"nothing":      nil,
		"":             nil,
	} {
		if got := m.typesOf(r); !slices.Equal(got, want) {
			t.Errorf("typesOf(%q) = %v, want %v", r, got, want)
		}
	}
	var none *typeModel
	if none.typesOf("c") != nil {
		t.Error("a nil model answers types")
	}
}

func TestHierarchy(t *testing.T) {
	h := newHierarchy()
	base := &tfile{decls: []tdecl{{name: "get", container: "Base"}, {name: "close", container: "Closer"}}}
	mid := &tfile{decls: []tdecl{{name: "get", container: "Mid"}}, types: newTypeModel()}
	mid.types.addSuper("Mid", "Base")
	mid.types.addSuper("Mid", "Closer")
	leaf := &tfile{decls: []tdecl{{name: "post", container: "Leaf"}}, types: newTypeModel()}
	leaf.types.addSuper("Leaf", "Mid")
	leaf.types.addSuper("Leaf", "Leaf") // a self-reference is no supertype
	loop := &tfile{types: newTypeModel()}
	loop.types.addSuper("Base", "Leaf") // a cycle must not hang
	for _, f := range []*tfile{base, mid, leaf, loop} {
		h.add(f)
	}
	if got := h.declaring("Leaf", "get"); !slices.Equal(got, []string{"Mid", "Base"}) {
		t.Errorf("declaring(Leaf, get) = %v, want [Mid Base]", got)
	}
	if got := h.declaring("Leaf", "close"); !slices.Equal(got, []string{"Closer"}) {
		t.Errorf("declaring(Leaf, close) = %v, want [Closer]", got)
	}
	if got := h.declaring("Leaf", "missing"); got != nil {
		t.Errorf("declaring(Leaf, missing) = %v, want none", got)
	}
}

// An escaped newline inside a string continues it on the next line: the
// tokens after it keep their line numbers.
func TestLexEscapedNewlineKeepsLines(t *testing.T) {
	for _, mode := range []lexMode{lexJS, lexPython, lexCLike} {
		toks := lex([]byte("x = 'a\\\nb'\ny = 1\n"), mode)
		i := slices.IndexFunc(toks, func(t tok) bool { return t.text == "y" })
		if i < 0 || toks[i].line != 3 {
			t.Errorf("mode %d: y at %+v, want line 3", mode, toks)
		}
		if s := toks[2]; s.kind != tkString || startLine(s) != 1 || s.line != 2 {
			t.Errorf("mode %d: string %+v, want lines 1..2", mode, s)
		}
	}
}
