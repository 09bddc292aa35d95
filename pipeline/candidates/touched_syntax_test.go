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
	)
}
