//go:build cgo

package candidates

// The languages of the tree-sitter reader join TestTouchedSameInEveryReader:
// each must say the same of the caller of a changed function as the other
// readers.
func init() {
	touchLangs = append(touchLangs,
		touchLang{
			name: "csharp", lib: "src/Calc.cs",
			libSrc:    "namespace Acme.Lib\n{\n    public static class Calc\n    {\n        public static int Compute(\n            int n\n        )\n        {\n            return n * 2;\n        }\n    }\n}\n",
			caller:    "app/Run.cs",
			callerSrc: "using Acme.Lib;\n\nnamespace Acme.App\n{\n    class Run\n    {\n        int Go() { return Calc.Compute(3); }\n    }\n}\n",
			param:     "            int n", param2: "            int n, int m",
			body: "            return n * 2;", body2: "            return n * 3;",
			fn: "Compute", renamed: "Calculate", comment: "            // the factor is fixed",
		},
		touchLang{
			name: "kotlin", lib: "src/main/kotlin/com/acme/lib/Calc.kt",
			libSrc:    "package com.acme.lib\n\nfun compute(\n    n: Int,\n): Int {\n    return n * 2\n}\n",
			caller:    "src/main/kotlin/com/acme/app/Run.kt",
			callerSrc: "package com.acme.app\n\nimport com.acme.lib.compute\n\nfun run(): Int {\n    return compute(3)\n}\n",
			param:     "    n: Int,", param2: "    n: Int, m: Int,",
			body: "    return n * 2", body2: "    return n * 3",
			fn: "compute", renamed: "calculate", comment: "    // the factor is fixed",
		},
		touchLang{
			name: "php", lib: "src/Lib/calc.php",
			libSrc:    "<?php\nnamespace App\\Lib;\n\nfunction compute(\n    int $n\n): int {\n    return $n * 2;\n}\n",
			caller:    "src/App/run.php",
			callerSrc: "<?php\nnamespace App\\App;\n\nuse function App\\Lib\\compute;\n\nfunction run(): int {\n    return compute(3);\n}\n",
			param:     "    int $n", param2: "    int $n, int $m",
			body: "    return $n * 2;", body2: "    return $n * 3;",
			fn: "compute", renamed: "calculate", comment: "    // the factor is fixed",
		},
		touchLang{
			name: "ruby", lib: "lib/calc.rb",
			libSrc:    "module Calc\n  def self.compute(\n    n\n  )\n    n * 2\n  end\nend\n",
			caller:    "app/run.rb",
			callerSrc: "require_relative '../lib/calc'\n\nclass Run\n  def go\n    Calc.compute(3)\n  end\nend\n",
			param:     "    n\n", param2: "    n, m\n",
			body: "    n * 2", body2: "    n * 3",
			fn: "compute", renamed: "calculate", comment: "    # the factor is fixed",
		},
		touchLang{
			name: "rust", lib: "src/calc.rs",
			libSrc:    "pub fn compute(\n    n: i32,\n) -> i32 {\n    n * 2\n}\n",
			caller:    "src/run.rs",
			callerSrc: "use crate::calc::compute;\n\npub fn run() -> i32 {\n    compute(3)\n}\n",
			param:     "    n: i32,", param2: "    n: i32, m: i32,",
			body: "    n * 2", body2: "    n * 3",
			fn: "compute", renamed: "calculate", comment: "    // the factor is fixed",
		},
		touchLang{
			name: "c", lib: "src/calc.c",
			libSrc:    "#include \"calc.h\"\n\nint compute(\n    int n\n) {\n    return n * 2;\n}\n",
			caller:    "src/run.c",
			callerSrc: "#include \"calc.h\"\n\nint run(void) {\n    return compute(3);\n}\n",
			param:     "    int n", param2: "    int n, int m",
			body: "    return n * 2;", body2: "    return n * 3;",
			fn: "compute", renamed: "calculate", comment: "    /* the factor is fixed */",
		},
		touchLang{
			name: "cpp", lib: "src/calc.cpp",
			libSrc:    "#include \"calc.hpp\"\n\nnamespace acme {\nint compute(\n    int n\n) {\n    return n * 2;\n}\n}\n",
			caller:    "src/run.cpp",
			callerSrc: "#include \"calc.hpp\"\n\nint run() {\n    return acme::compute(3);\n}\n",
			param:     "    int n", param2: "    int n, int m",
			body: "    return n * 2;", body2: "    return n * 3;",
			fn: "compute", renamed: "calculate", comment: "    // the factor is fixed",
		},
		touchLang{
			name: "swift", lib: "Sources/Lib/Calc.swift",
			libSrc:    "func compute(\n    n: Int\n) -> Int {\n    return n * 2\n}\n",
			caller:    "Sources/App/Run.swift",
			callerSrc: "import Lib\n\nfunc run() -> Int {\n    return compute(n: 3)\n}\n",
			param:     "    n: Int", param2: "    n: Int, m: Int",
			body: "    return n * 2", body2: "    return n * 3",
			fn: "compute", renamed: "calculate", comment: "    // the factor is fixed",
		},
		touchLang{
			name: "scala", lib: "src/main/scala/com/acme/lib/Calc.scala",
			libSrc:    "package com.acme.lib\n\nobject Calc {\n  def compute(\n      n: Int\n  ): Int = {\n    n * 2\n  }\n}\n",
			caller:    "src/main/scala/com/acme/app/Run.scala",
			callerSrc: "package com.acme.app\n\nimport com.acme.lib.Calc\n\nobject Run {\n  def run(): Int = Calc.compute(3)\n}\n",
			param:     "      n: Int", param2: "      n: Int, m: Int",
			body: "    n * 2", body2: "    n * 3",
			fn: "compute", renamed: "calculate", comment: "    // the factor is fixed",
		},
	)
}
