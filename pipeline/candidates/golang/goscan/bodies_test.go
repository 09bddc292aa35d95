package goscan

import (
	"testing"

	"github.com/prscout/prscout/pipeline/ident"
)

// TestNamedOutsideBodies: a name counts outside the bodies gofmt lays out
// (a type's field, a signature, a package-level value), not inside one,
// nor as part of a longer identifier.
func TestNamedOutsideBodies(t *testing.T) {
	src := []byte("package p\n\ntype T struct {\n\tField int\n}\n\nfunc (t T) Sig(arg int) {\n\tt.Inner = arg\n\tvar local struct{ Nested int }\n}\n\nvar Value = 1\n\nfunc f() { Oneline() }\n")
	for _, c := range []struct {
		name string
		want bool
	}{
		{"Field", true}, {"Sig", true}, {"arg", true}, {"Value", true},
		{"Oneline", true}, // a one-line body is no body gofmt lays out: parsed
		{"Inner", false}, {"local", false}, {"Nested", false},
		{"Fiel", false}, {"Missing", false}, {"", false},
	} {
		if got := NamedOutsideBodies(src, c.name, ident.Dollar|ident.Unicode, nil); got != c.want {
			t.Errorf("%q: %v, want %v", c.name, got, c.want)
		}
	}
}
