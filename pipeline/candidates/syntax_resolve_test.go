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
	resolveCases{
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
			// src/bar.c's body reaches its header's prototype and the file
			// including the header, not the one calling a bar_open of its own.
			name: "header stands for its source",
			files: map[string]string{"include/foo/bar.h": proto, "src/bar.c": def, "src/app/main.c": strings.Replace(caller, "return 0;", "return bar_open(1);", 1),
				"legacy/old.c": decoy},
			path: "src/bar.c", old: "return n + 1;", new: "return n + 2;",
			want: []string{"include/foo/bar.h", "src/app/main.c"},
		},
		{
			// api.h declares what src/exec.c defines, under another name: a
			// file including it refers to the definition, the decoy calling
			// a bar_open of its own does not.
			name: "prototype of another name",
			files: map[string]string{"include/foo/api.h": proto, "src/exec.c": strings.Replace(def, "foo/bar.h", "foo/api.h", 1),
				"src/app/main.c": strings.NewReplacer("foo/bar.h", "foo/api.h", "return 0;", "return bar_open(1);").Replace(caller),
				"legacy/old.c":   decoy},
			path: "src/exec.c", old: "return n + 1;", new: "return n + 2;",
			want: []string{"include/foo/api.h", "src/app/main.c"},
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
			// "bar.h" is in no include folder of src/lib/main.c's: of the
			// header folders holding it, src/util shares src/ with it.
			name:  "nearest header folder",
			files: map[string]string{"src/util/bar.h": proto, "ext/zlib/bar.h": proto, "src/lib/main.c": flat},
			path:  "src/lib/main.c", old: "return 0;", new: "return bar_open(1);",
			want: []string{"src/util/bar.h"},
		},
		{
			name:  "database at the root naming no file of the tree",
			files: map[string]string{"compile_commands.json": strings.ReplaceAll(db, "src/", "gen/"), "api/bar.h": proto, "other/bar.h": proto, "src/main.c": flat},
			path:  "src/main.c", old: "return 0;", new: "return bar_open(1);",
			want: []string{"api/bar.h", "other/bar.h"},
		},
	}.run(t)
}

// resolveCases are changes, each with the files the reader must list for
// it, all found by their syntax.
type resolveCases []struct {
	name           string
	files          map[string]string
	path, old, new string
	want           []string
}

func (cases resolveCases) run(t *testing.T) {
	t.Helper()
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

// TestSyntaxCargo: in a Cargo workspace a use path naming a member crate
// reaches that crate's files only, and crate:: the importing file's own
// crate; without a workspace, the path's parts reach every file they run
// through.
func TestSyntaxCargo(t *testing.T) {
	const add = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"
	files := map[string]string{
		"Cargo.toml":                   "[workspace]\nmembers = [\"crates/*\"]\nresolver = \"2\"\n",
		"crates/calc-core/Cargo.toml":  "[package]\nname = \"calc-core\"\nversion = \"0.1.0\"\n",
		"crates/calc-core/src/lib.rs":  "pub mod ops;\n",
		"crates/calc-core/src/ops.rs":  add,
		"crates/calc-extra/Cargo.toml": "[package]\nname = \"calc-extra\"\nversion = \"0.1.0\"\n\n[lib]\nname = \"extra\"\n",
		"crates/calc-extra/src/lib.rs": "pub mod ops;\npub mod run;\n",
		"crates/calc-extra/src/ops.rs": add,
		"crates/calc-extra/src/run.rs": "use crate::ops::add;\n\npub fn run() -> i32 {\n    add(1, 2)\n}\n",
		"crates/app/Cargo.toml":        "[package]\nname = \"app\"\nversion = \"0.1.0\"\n",
		"crates/app/src/main.rs":       "use calc_core::ops::add;\n\nfn main() {\n    let x = 0;\n}\n",
	}
	noWorkspace := map[string]string{}
	for p, s := range files {
		noWorkspace[p] = s
	}
	delete(noWorkspace, "Cargo.toml")
	called := strings.Replace(files["crates/app/src/main.rs"], "let x = 0;", "let x = add(1, 2);", 1)
	withCall := map[string]string{}
	for p, s := range files {
		withCall[p] = s
	}
	withCall["crates/app/src/main.rs"] = called
	resolveCases{
		{
			name: "use names a member crate", files: files,
			path: "crates/app/src/main.rs", old: "let x = 0;", new: "let x = add(1, 2);",
			want: []string{"crates/calc-core/src/ops.rs"},
		},
		{
			name: "crate:: is the importing file's crate", files: withCall,
			path: "crates/calc-extra/src/ops.rs", old: "a + b", new: "a - b",
			want: []string{"crates/calc-extra/src/run.rs"},
		},
		{
			name: "no workspace", files: noWorkspace,
			path: "crates/app/src/main.rs", old: "let x = 0;", new: "let x = add(1, 2);",
			want: []string{"crates/calc-core/src/ops.rs", "crates/calc-extra/src/ops.rs"},
		},
	}.run(t)
}

// TestSyntaxConstPaths: Ruby's autoloading puts Foo::BarBaz in
// foo/bar_baz.rb under lib/ or app/*/: that file is the one a qualified
// use reaches, not another bar_baz.rb declaring a BarBaz of its own; a
// bare BarBaz still reaches every bar_baz.rb.
func TestSyntaxConstPaths(t *testing.T) {
	const run = "class RunController\n  def go\n    1\n  end\nend\n"
	files := map[string]string{
		"app/models/billing/invoice_line.rb": "class Billing::InvoiceLine\n  def self.total(n)\n    n\n  end\nend\n",
		"lib/legacy/invoice_line.rb":         "class Legacy::InvoiceLine\n  def self.total(n)\n    n * 2\n  end\nend\n",
		"tools/billing/invoice_line.rb":      "class Billing::InvoiceLine\n  def self.total(n)\n    0\n  end\nend\n",
		"app/controllers/run_controller.rb":  run,
	}
	resolveCases{
		{
			name: "qualified under an autoload root", files: files,
			path: "app/controllers/run_controller.rb", old: "    1\n", new: "    Billing::InvoiceLine.total(1)\n",
			want: []string{"app/models/billing/invoice_line.rb"},
		},
		{
			name: "qualified inside an enclosing namespace", files: map[string]string{
				"lib/acme/billing/invoice_line.rb":  "module Acme\n  class Billing::InvoiceLine\n    def self.total(n)\n      n\n    end\n  end\nend\n",
				"lib/legacy/invoice_line.rb":        files["lib/legacy/invoice_line.rb"],
				"app/controllers/run_controller.rb": run,
			},
			path: "app/controllers/run_controller.rb", old: "    1\n", new: "    Billing::InvoiceLine.total(1)\n",
			want: []string{"lib/acme/billing/invoice_line.rb"},
		},
		{
			name: "bare", files: files,
			path: "app/controllers/run_controller.rb", old: "    1\n", new: "    InvoiceLine.total(1)\n",
			want: []string{"app/models/billing/invoice_line.rb", "lib/legacy/invoice_line.rb", "tools/billing/invoice_line.rb"},
		},
	}.run(t)
}

// TestSyntaxOverrides: a changed member of a base class reaches the
// subclass overriding it, which names neither the member nor calls it.
func TestSyntaxOverrides(t *testing.T) {
	resolveCases{
		{
			name: "csharp", files: map[string]string{
				"src/Node.cs":       "namespace Acme\n{\n    public abstract class Node\n    {\n        public virtual int Size()\n        {\n            return 0;\n        }\n    }\n}\n",
				"src/ObjectNode.cs": "namespace Acme\n{\n    public class ObjectNode : Node\n    {\n        public override int Size()\n        {\n            return 2;\n        }\n    }\n}\n",
				"src/Other.cs":      "namespace Acme\n{\n    public class Other\n    {\n        public int Size()\n        {\n            return 1;\n        }\n    }\n}\n",
			},
			path: "src/Node.cs", old: "return 0;", new: "return -1;",
			want: []string{"src/ObjectNode.cs"},
		},
	}.run(t)
}
