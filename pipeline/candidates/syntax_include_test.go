//go:build cgo

package candidates

import (
	"slices"
	"strings"
	"testing"
)

// TestSyntaxIncludes: a C include resolves by the search path a compiler
// would use (the compilation database's, else the include folders) to one
// header, and a header stands for the source file defining what it
// declares; an include resolving to nothing falls back to the trailing
// parts of its path.
func TestSyntaxIncludes(t *testing.T) {
	const (
		proto  = "int bar_open(int n);\n"
		def    = "#include \"foo/bar.h\"\n\nint bar_open(int n) {\n    return n + 1;\n}\n"
		caller = "#include <stdio.h>\n#include \"foo/bar.h\"\n\nint run(void) {\n    return 0;\n}\n"
		decoy  = "static int bar_open(int n) {\n    return n;\n}\n\nint legacy(void) {\n    return bar_open(2);\n}\n"
	)
	db := `[{"directory": "/home/ci/proj/build", "file": "/home/ci/proj/src/main.c",
	  "command": "cc -I../api -isystem /usr/include -Iinclude -c ../src/main.c"},
	 {"directory": "/home/ci/proj/build", "file": "../src/util.c", "arguments": ["cc", "-I", "../api", "-c", "../src/util.c"]}]`
	flat := "#include \"bar.h\"\n\nint run(void) {\n    return 0;\n}\n"
	cases := []struct {
		name           string
		files          map[string]string
		path, old, new string
		want           []string
	}{
		{
			// include/foo/bar.h, not other/foo/bar.h whose path ends alike;
			// src/bar.c defines what the header declares.
			name: "include folder",
			files: map[string]string{"include/foo/bar.h": proto, "other/foo/bar.h": proto, "src/bar.c": def,
				"src/app/main.c": caller},
			path: "src/app/main.c", old: "return 0;", new: "return bar_open(1);",
			want: []string{"include/foo/bar.h", "src/bar.c"},
		},
		{
			// src/bar.c's body reaches the file including its header, not the
			// one calling a bar_open of its own.
			name: "header stands for its source",
			files: map[string]string{"include/foo/bar.h": proto, "src/bar.c": def, "src/app/main.c": strings.Replace(caller, "return 0;", "return bar_open(1);", 1),
				"legacy/old.c": decoy},
			path: "src/bar.c", old: "return n + 1;", new: "return n + 2;",
			want: []string{"src/app/main.c"},
		},
		{
			name:  "compilation database",
			files: map[string]string{"build/compile_commands.json": db, "api/bar.h": proto, "other/bar.h": proto, "src/main.c": flat},
			path:  "src/main.c", old: "return 0;", new: "return bar_open(1);",
			want: []string{"api/bar.h"},
		},
		{
			// The same without the database: "bar.h" is in no include
			// folder, and both headers end as it does.
			name:  "no compilation database",
			files: map[string]string{"api/bar.h": proto, "other/bar.h": proto, "src/main.c": flat},
			path:  "src/main.c", old: "return 0;", new: "return bar_open(1);",
			want: []string{"api/bar.h", "other/bar.h"},
		},
		{
			name:  "database at the root naming no file of the tree",
			files: map[string]string{"compile_commands.json": strings.ReplaceAll(db, "src/", "gen/"), "api/bar.h": proto, "other/bar.h": proto, "src/main.c": flat},
			path:  "src/main.c", old: "return 0;", new: "return bar_open(1);",
			want: []string{"api/bar.h", "other/bar.h"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := c.files[c.path]
			if !strings.Contains(src, c.old) {
				t.Fatalf("%s has no %q", c.path, c.old)
			}
			got := repo{base: c.files, changed: map[string]string{c.path: strings.Replace(src, c.old, c.new, 1)}}.run(t)
			var listed []string
			for _, g := range got {
				listed = append(listed, g.Path)
				if g.Method != MethodSyntax {
					t.Errorf("%s found by %s, want %s", g.Path, g.Method, MethodSyntax)
				}
			}
			slices.Sort(listed)
			if !slices.Equal(listed, c.want) {
				t.Errorf("listed %v, want %v:\n%s", listed, c.want, dump(got))
			}
		})
	}
}
