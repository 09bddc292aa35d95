package compiledb

import (
	"slices"
	"testing"
)

// TestSearchPath: the -I, -iquote, -isystem and -idirafter directories of
// a database's entries, joined or apart, in commands or arguments, become
// directories of the tree found from an entry's file; those outside the
// tree are left out, and a database whose files are not the tree's, or
// that does not decode, names none.
func TestSearchPath(t *testing.T) {
	has := func(p string) bool { return p == "src/a.c" }
	for _, c := range []struct {
		name, db string
		want     []string
		ok       bool
	}{
		{"command", `[{"directory": "/w/proj/build", "file": "../src/a.c", "command": "cc -I../include -iquote ../src -isystem /usr/include -c a.c"}]`,
			[]string{"include", "src"}, true},
		{"arguments", `[{"directory": "/w/proj", "file": "/w/proj/src/a.c", "arguments": ["cc", "-I", "lib/x", "-idirafter", "third", "-Ilib/x"]}]`,
			[]string{"lib/x", "third"}, true},
		{"another tree", `[{"directory": "/w/other", "file": "b.c", "command": "cc -Iinc b.c"}]`, nil, false},
		{"not a database", `{"directory": 1}`, nil, false},
	} {
		got, ok := SearchPath([]byte(c.db), has)
		if ok != c.ok || !slices.Equal(got, c.want) {
			t.Errorf("%s: %q %v, want %q %v", c.name, got, ok, c.want, c.ok)
		}
	}
}
