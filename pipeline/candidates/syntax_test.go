//go:build cgo

package candidates

import (
	"strings"
	"testing"
)

// syntaxLang is one language's fixture for the tree-sitter reader: lib
// declares compute and helper, caller calls compute where the language's
// rules (namespace, import, include, module path) put lib, and decoy
// declares and calls a compute and a helper of its own that caller does
// not see.
type syntaxLang struct {
	name                 string
	files                map[string]string
	lib, caller, decoy   string
	call, callMore       string // caller's call line, and it calling helper too
	header, header2      string // compute's header, and it with a new parameter
	body, body2          string // a line of compute's body, and it changed
	removed              string // compute's lines in lib
	usesToo, declaredToo []string
}

var syntaxLangs = []syntaxLang{
	{
		name: "csharp", lib: "src/Lib/Calc.cs", caller: "src/App/Run.cs", decoy: "src/Other/Calc.cs",
		files: map[string]string{
			"src/Lib/Calc.cs":   "namespace Acme.Lib\n{\n    public static class Calc\n    {\n        public static int Compute(int n)\n        {\n            return n * 2;\n        }\n\n        public static int Helper(int n)\n        {\n            return n;\n        }\n    }\n}\n",
			"src/Other/Calc.cs": "namespace Acme.Other\n{\n    public static class Calc\n    {\n        public static int Compute(int n)\n        {\n            return n;\n        }\n\n        public static int Helper(int n)\n        {\n            return Compute(n);\n        }\n    }\n}\n",
			"src/App/Run.cs":    "using Acme.Lib;\n\nnamespace Acme.App\n{\n    class Run\n    {\n        int Go()\n        {\n            return Calc.Compute(3);\n        }\n    }\n}\n",
		},
		call: "return Calc.Compute(3);", callMore: "return Calc.Compute(3) + Calc.Helper(4);",
		header: "public static int Compute(int n)", header2: "public static int Compute(int n, int m)",
		body: "return n * 2;", body2: "return n * 3;",
		removed: "        public static int Compute(int n)\n        {\n            return n * 2;\n        }\n\n",
	},
	{
		name: "kotlin", lib: "src/main/kotlin/com/acme/lib/Calc.kt", caller: "src/main/kotlin/com/acme/app/Run.kt", decoy: "src/main/kotlin/com/acme/other/Calc.kt",
		files: map[string]string{
			"src/main/kotlin/com/acme/lib/Calc.kt":   "package com.acme.lib\n\nfun compute(n: Int): Int {\n    return n * 2\n}\n\nfun helper(n: Int): Int {\n    return n\n}\n",
			"src/main/kotlin/com/acme/other/Calc.kt": "package com.acme.other\n\nfun compute(n: Int): Int {\n    return n\n}\n\nfun helper(n: Int): Int {\n    return compute(n)\n}\n",
			"src/main/kotlin/com/acme/app/Run.kt":    "package com.acme.app\n\nimport com.acme.lib.compute\nimport com.acme.lib.helper\n\nfun run(): Int {\n    return compute(3)\n}\n",
		},
		call: "return compute(3)", callMore: "return compute(3) + helper(4)",
		header: "fun compute(n: Int): Int", header2: "fun compute(n: Int, m: Int): Int",
		body: "return n * 2", body2: "return n * 3",
		removed: "fun compute(n: Int): Int {\n    return n * 2\n}\n\n",
	},
	{
		name: "php", lib: "src/Lib/Calc.php", caller: "src/App/Run.php", decoy: "src/Other/Calc.php",
		files: map[string]string{
			"src/Lib/Calc.php":   "<?php\nnamespace App\\Lib;\n\nclass Calc\n{\n    public static function compute(int $n): int\n    {\n        return $n * 2;\n    }\n\n    public static function helper(int $n): int\n    {\n        return $n;\n    }\n}\n",
			"src/Other/Calc.php": "<?php\nnamespace App\\Other;\n\nclass Calc\n{\n    public static function compute(int $n): int\n    {\n        return $n;\n    }\n\n    public static function helper(int $n): int\n    {\n        return self::compute($n);\n    }\n}\n",
			"src/App/Run.php":    "<?php\nnamespace App\\App;\n\nuse App\\Lib\\Calc;\n\nclass Run\n{\n    public function go(): int\n    {\n        return Calc::compute(3);\n    }\n}\n",
		},
		call: "return Calc::compute(3);", callMore: "return Calc::compute(3) + Calc::helper(4);",
		header: "public static function compute(int $n): int", header2: "public static function compute(int $n, int $m): int",
		body: "return $n * 2;", body2: "return $n * 3;",
		removed: "    public static function compute(int $n): int\n    {\n        return $n * 2;\n    }\n\n",
	},
	{
		name: "ruby", lib: "lib/acme/calc.rb", caller: "app/run.rb", decoy: "lib/other/calc.rb",
		files: map[string]string{
			"lib/acme/calc.rb":  "module Acme\n  class Calc\n    def self.compute(n)\n      n * 2\n    end\n\n    def self.helper(n)\n      n\n    end\n  end\nend\n",
			"lib/other/calc.rb": "module Other\n  class Calc2\n    def self.compute(n)\n      n\n    end\n\n    def self.helper(n)\n      compute(n)\n    end\n  end\nend\n",
			"app/run.rb":        "class Run\n  def go\n    Acme::Calc.compute(3)\n  end\nend\n",
		},
		call: "Acme::Calc.compute(3)", callMore: "Acme::Calc.compute(3) + Acme::Calc.helper(4)",
		header: "def self.compute(n)", header2: "def self.compute(n, m)",
		body: "n * 2", body2: "n * 3",
		removed: "    def self.compute(n)\n      n * 2\n    end\n\n",
	},
	{
		name: "rust", lib: "src/calc.rs", caller: "src/run.rs", decoy: "src/other/calc.rs",
		files: map[string]string{
			"src/calc.rs":       "pub fn compute(n: i32) -> i32 {\n    n * 2\n}\n\npub fn helper(n: i32) -> i32 {\n    n\n}\n",
			"src/other/calc.rs": "pub fn compute(n: i32) -> i32 {\n    n\n}\n\npub fn helper(n: i32) -> i32 {\n    compute(n)\n}\n",
			"src/run.rs":        "use crate::calc::{compute, helper};\n\npub fn run() -> i32 {\n    compute(3)\n}\n",
		},
		call: "    compute(3)", callMore: "    compute(3) + helper(4)",
		header: "pub fn compute(n: i32) -> i32", header2: "pub fn compute(n: i32, m: i32) -> i32",
		body: "n * 2", body2: "n * 3",
		removed: "pub fn compute(n: i32) -> i32 {\n    n * 2\n}\n\n",
	},
	{
		name: "c", lib: "src/lib/calc.c", caller: "src/app/run.c", decoy: "src/other/calc.c",
		files: map[string]string{
			"src/lib/calc.h":   "int compute(int n);\nint helper(int n);\n",
			"src/lib/calc.c":   "#include \"calc.h\"\n\nint compute(int n) {\n    return n * 2;\n}\n\nint helper(int n) {\n    return n;\n}\n",
			"src/other/calc.c": "static int compute(int n) {\n    return n;\n}\n\nint helper(int n) {\n    return compute(n);\n}\n",
			"src/app/run.c":    "#include \"lib/calc.h\"\n\nint run(void) {\n    return compute(3);\n}\n",
		},
		call: "return compute(3);", callMore: "return compute(3) + helper(4);",
		header: "int compute(int n) {", header2: "int compute(int n, int m) {",
		body: "return n * 2;", body2: "return n * 3;",
		removed: "int compute(int n) {\n    return n * 2;\n}\n\n",
		// The header declares what the change uses, and its prototype of a
		// function whose body or signature changes, or that goes.
		usesToo: []string{"src/lib/calc.h"}, declaredToo: []string{"src/lib/calc.h"},
	},
	{
		name: "cpp", lib: "src/lib/calc.cpp", caller: "src/app/run.cpp", decoy: "src/other/calc.cpp",
		files: map[string]string{
			"src/lib/calc.cpp":   "#include \"lib/calc.hpp\"\n\nnamespace acme {\n\nint compute(int n) {\n    return n * 2;\n}\n\nint helper(int n) {\n    return n;\n}\n\n}\n",
			"src/other/calc.cpp": "namespace other {\n\nint compute(int n) {\n    return n;\n}\n\nint helper(int n) {\n    return compute(n);\n}\n\n}\n",
			"src/app/run.cpp":    "#include \"lib/calc.hpp\"\n\nint run() {\n    return acme::compute(3);\n}\n",
		},
		call: "return acme::compute(3);", callMore: "return acme::compute(3) + acme::helper(4);",
		header: "int compute(int n) {", header2: "int compute(int n, int m) {",
		body: "return n * 2;", body2: "return n * 3;",
		removed: "int compute(int n) {\n    return n * 2;\n}\n\n",
	},
	{
		name: "swift", lib: "Sources/Lib/Calc.swift", caller: "Sources/App/Run.swift", decoy: "Sources/Other/Other.swift",
		files: map[string]string{
			"Sources/Lib/Calc.swift":    "enum Calc {\n    static func compute(n: Int) -> Int {\n        return n * 2\n    }\n\n    static func helper(n: Int) -> Int {\n        return n\n    }\n}\n",
			"Sources/Other/Other.swift": "enum Other {\n    static func compute(n: Int) -> Int {\n        return n\n    }\n\n    static func helper(n: Int) -> Int {\n        return compute(n: n)\n    }\n}\n",
			"Sources/App/Run.swift":     "func run() -> Int {\n    return Calc.compute(n: 3)\n}\n",
		},
		call: "return Calc.compute(n: 3)", callMore: "return Calc.compute(n: 3) + Calc.helper(n: 4)",
		header: "static func compute(n: Int) -> Int", header2: "static func compute(n: Int, m: Int) -> Int",
		body: "return n * 2", body2: "return n * 3",
		removed: "    static func compute(n: Int) -> Int {\n        return n * 2\n    }\n\n",
	},
	{
		name: "scala", lib: "src/main/scala/com/acme/lib/Calc.scala", caller: "src/main/scala/com/acme/app/Run.scala", decoy: "src/main/scala/com/acme/other/Calc.scala",
		files: map[string]string{
			"src/main/scala/com/acme/lib/Calc.scala":   "package com.acme.lib\n\nobject Calc {\n  def compute(n: Int): Int = {\n    n * 2\n  }\n\n  def helper(n: Int): Int = {\n    n\n  }\n}\n",
			"src/main/scala/com/acme/other/Calc.scala": "package com.acme.other\n\nobject Calc {\n  def compute(n: Int): Int = {\n    n\n  }\n\n  def helper(n: Int): Int = {\n    compute(n)\n  }\n}\n",
			"src/main/scala/com/acme/app/Run.scala":    "package com.acme.app\n\nimport com.acme.lib.Calc\n\nobject Run {\n  def run(): Int = Calc.compute(3)\n}\n",
		},
		call: "Calc.compute(3)", callMore: "Calc.compute(3) + Calc.helper(4)",
		header: "def compute(n: Int): Int", header2: "def compute(n: Int, m: Int): Int",
		body: "n * 2", body2: "n * 3",
		removed: "  def compute(n: Int): Int = {\n    n * 2\n  }\n\n",
	},
}

// TestSyntaxPSR4: a PHP import under composer.json's PSR-4 map reaches
// the one file the map puts it in, not another with the same trailing
// path.
func TestSyntaxPSR4(t *testing.T) {
	base := map[string]string{
		"composer.json":           `{"autoload": {"psr-4": {"App\\": "src/"}}, "autoload-dev": {"psr-4": {"Legacy\\": ["legacy/", "old/"]}}}`,
		"src/Models/User.php":     "<?php\nnamespace App\\Models;\n\nclass User\n{\n    public static function find(int $id): self\n    {\n        return new self();\n    }\n}\n",
		"legacy/Models/User.php":  "<?php\nnamespace Legacy\\Models;\n\nclass User\n{\n    public static function find(int $id): self\n    {\n        return new self();\n    }\n}\n",
		"src/Http/Controller.php": "<?php\nnamespace App\\Http;\n\nuse App\\Models\\User;\n\nclass Controller\n{\n    public function show(): int\n    {\n        return 1;\n    }\n}\n",
	}
	got := repo{base: base, changed: map[string]string{
		"src/Http/Controller.php": strings.Replace(base["src/Http/Controller.php"], "return 1;", "return User::find(1)->id;", 1),
	}}.run(t)
	if len(got) != 1 || got[0].Path != "src/Models/User.php" || got[0].Kind != KindUses {
		t.Errorf("want src/Models/User.php uses, got:\n%s", dump(got))
	}
	delete(base, "composer.json") // without the map, both paths end as the import does
	got = repo{base: base, changed: map[string]string{
		"src/Http/Controller.php": strings.Replace(base["src/Http/Controller.php"], "return 1;", "return User::find(1)->id;", 1),
	}}.run(t)
	if len(got) != 2 {
		t.Errorf("without composer.json: want both User.php files, got:\n%s", dump(got))
	}
}

// TestSyntaxReader: in every language of the tree-sitter reader, a call
// added to the caller lists the file the language's rules put the callee
// in (not the decoy declaring the same name), and a change to compute's
// body or signature, or its removal, lists its caller (not the decoy
// calling a compute of its own), each with how it changed.
func TestSyntaxReader(t *testing.T) {
	type edit struct {
		name       string
		path       func(l syntaxLang) string
		old, new   func(l syntaxLang) string
		kind       Kind
		reason     string
		want       func(l syntaxLang) string
		alsoListed func(l syntaxLang) []string
	}
	edits := []edit{
		{"uses", func(l syntaxLang) string { return l.caller }, func(l syntaxLang) string { return l.call }, func(l syntaxLang) string { return l.callMore },
			KindUses, "declares `", func(l syntaxLang) string { return l.lib }, func(l syntaxLang) []string { return l.usesToo }},
		{"body", func(l syntaxLang) string { return l.lib }, func(l syntaxLang) string { return l.body }, func(l syntaxLang) string { return l.body2 },
			KindImpact, "whose body changed", func(l syntaxLang) string { return l.caller }, func(l syntaxLang) []string { return l.declaredToo }},
		{"signature", func(l syntaxLang) string { return l.lib }, func(l syntaxLang) string { return l.header }, func(l syntaxLang) string { return l.header2 },
			KindImpact, "whose signature changed", func(l syntaxLang) string { return l.caller }, func(l syntaxLang) []string { return l.declaredToo }},
		{"removed", func(l syntaxLang) string { return l.lib }, func(l syntaxLang) string { return l.removed }, func(syntaxLang) string { return "" },
			KindImpact, "which the change removes", func(l syntaxLang) string { return l.caller }, func(l syntaxLang) []string { return l.declaredToo }},
	}
	for _, l := range syntaxLangs {
		for _, e := range edits {
			t.Run(l.name+"/"+e.name, func(t *testing.T) {
				p := e.path(l)
				src := l.files[p]
				if !strings.Contains(src, e.old(l)) {
					t.Fatalf("%s has no %q", p, e.old(l))
				}
				got := repo{base: l.files, changed: map[string]string{p: strings.Replace(src, e.old(l), e.new(l), 1)}}.run(t)
				want := e.want(l)
				listed := map[string]bool{}
				for _, c := range got {
					listed[c.Path] = true
					if c.Path == l.decoy {
						t.Errorf("listed the decoy %s: %s", c.Path, c.Reason)
					}
					if c.Path == want && (c.Kind != e.kind || c.Method != MethodSyntax || !strings.Contains(c.Reason, e.reason)) {
						t.Errorf("%s listed as %s %s %q, want %s %s containing %q", c.Path, c.Kind, c.Method, c.Reason, e.kind, MethodSyntax, e.reason)
					}
				}
				for _, p := range append([]string{want}, e.alsoListed(l)...) {
					if !listed[p] {
						t.Errorf("%s not listed:\n%s", p, dump(got))
					}
				}
				if n := 1 + len(e.alsoListed(l)); len(got) != n {
					t.Errorf("listed %d, want %d:\n%s", len(got), n, dump(got))
				}
			})
		}
	}
}
