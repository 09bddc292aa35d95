package ctext

import "testing"

// TestBlankClassMacros: the export macro of a class head is blanked, every
// byte keeping its offset; a name that is the class's own, a variable's
// struct type or a qualifier is kept.
func TestBlankClassMacros(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"class YAML_CPP_API Node : public Base {};", "class              Node : public Base {};"},
		{"struct GTEST_API_ TestInfo\n{ int x; };", "struct            TestInfo\n{ int x; };"},
		{"template <> class FMT_API formatter<int> {};", "template <> class         formatter<int> {};"},
		{"class API Foo final {};", "class     Foo final {};"},
		{"struct STAT st;", ""},
		{"class RGB final {};", ""},
		{"class Node : API::Base {};", ""},
		{"class API_X ns::Foo {};", ""},
		{"subclass API Foo {};", ""},
		{"enum class Color { RED };", ""},
	} {
		got := BlankClassMacros([]byte(c.src))
		if string(got) != c.want {
			t.Errorf("%q: %q, want %q", c.src, got, c.want)
		}
	}
}

// FuzzBlankClassMacros: any input keeps its length, and only bytes of
// macro names, never a newline, turn into spaces.
func FuzzBlankClassMacros(f *testing.F) {
	for _, s := range []string{"class API Foo : Base {};", "struct A_B c {", "union X y<", "class", "struct Q final", "class AB\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		out := BlankClassMacros(src)
		if out == nil {
			return
		}
		if len(out) != len(src) {
			t.Fatalf("length %d, want %d", len(out), len(src))
		}
		for i := range src {
			if out[i] != src[i] && (out[i] != ' ' || !(src[i] == '_' || src[i] >= 'A' && src[i] <= 'Z' || src[i] >= '0' && src[i] <= '9')) {
				t.Fatalf("byte %d %q became %q", i, src[i], out[i])
			}
		}
	})
}
