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
