package lexed

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
		toks := Tokens([]byte(tc.src), LexJS)
		i := slices.IndexFunc(toks, func(t Tok) bool { return t.Text == tc.member })
		if got := Receiver(toks, i); got != tc.want {
			t.Errorf("receiver(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
}

func TestTypesOf(t *testing.T) {
	m := NewTypeModel()
	m.AddVar("c", "Client")
	m.AddVar("c", "Client")
	m.AddReturn("makeClient", "HttpClient")
	m.AddReturn("Factory.session", "Session")
	m.AddReturn("Other.session", "Session")
	m.AddReturn("Pool.session", "PooledSession")
	for r, want := range map[string][]string{
		"c":            {"Client"},
		"makeClient()": {"HttpClient"},
		"session()":    {"PooledSession", "Session"},
		"nothing":      nil,
		"":             nil,
	} {
		if got := m.TypesOf(r); !slices.Equal(got, want) {
			t.Errorf("typesOf(%q) = %v, want %v", r, got, want)
		}
	}
	var none *TypeModel
	if none.TypesOf("c") != nil {
		t.Error("a nil model answers types")
	}
}

func TestHierarchy(t *testing.T) {
	h := NewHierarchy()
	base := &File{Decls: []Decl{{Name: "get", Container: "Base"}, {Name: "close", Container: "Closer"}}}
	mid := &File{Decls: []Decl{{Name: "get", Container: "Mid"}}, Types: NewTypeModel()}
	mid.Types.AddSuper("Mid", "Base")
	mid.Types.AddSuper("Mid", "Closer")
	leaf := &File{Decls: []Decl{{Name: "post", Container: "Leaf"}}, Types: NewTypeModel()}
	leaf.Types.AddSuper("Leaf", "Mid")
	leaf.Types.AddSuper("Leaf", "Leaf") // a self-reference is no supertype
	loop := &File{Types: NewTypeModel()}
	loop.Types.AddSuper("Base", "Leaf") // a cycle must not hang
	for _, f := range []*File{base, mid, leaf, loop} {
		h.Add(f, MembersOf(f))
	}
	if got := h.Declaring("Leaf", "get"); !slices.Equal(got, []string{"Mid", "Base"}) {
		t.Errorf("declaring(Leaf, get) = %v, want [Mid Base]", got)
	}
	if got := h.Declaring("Leaf", "close"); !slices.Equal(got, []string{"Closer"}) {
		t.Errorf("declaring(Leaf, close) = %v, want [Closer]", got)
	}
	if got := h.Declaring("Leaf", "missing"); got != nil {
		t.Errorf("declaring(Leaf, missing) = %v, want none", got)
	}
}

// An escaped newline inside a string continues it on the next line: the
// tokens after it keep their line numbers.
func TestLexEscapedNewlineKeepsLines(t *testing.T) {
	for _, mode := range []LexMode{LexJS, LexPython, LexCLike} {
		toks := Tokens([]byte("x = 'a\\\nb'\ny = 1\n"), mode)
		i := slices.IndexFunc(toks, func(t Tok) bool { return t.Text == "y" })
		if i < 0 || toks[i].Line != 3 {
			t.Errorf("mode %d: y at %+v, want line 3", mode, toks)
		}
		if s := toks[2]; s.Kind != TkString || StartLine(s) != 1 || s.Line != 2 {
			t.Errorf("mode %d: string %+v, want lines 1..2", mode, s)
		}
	}
}
