package candidates

import (
	"context"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// touchLang is one reader's fixture for TestTouchedSameInEveryReader: a
// library file declaring compute with a two-line header whose parameter
// sits on the second line, and a caller in another file.
type touchLang struct {
	name          string
	lib, libSrc   string
	caller        string
	callerSrc     string
	extra         map[string]string
	param, param2 string // the parameter line, and it with a second parameter
	body, body2   string // a body line, and it changed
	fn, renamed   string // the function's name, and a new one
	comment       string // a comment line the language allows in a body
}

var touchLangs = []touchLang{
	{
		name: "go", lib: "lib/calc.go",
		libSrc:    "package lib\n\n// Compute doubles n.\nfunc Compute(\n\tn int,\n) int {\n\treturn n * 2\n}\n",
		caller:    "app/run.go",
		callerSrc: "package app\n\nimport \"example.com/m/lib\"\n\nfunc Run() int {\n\treturn lib.Compute(3)\n}\n",
		extra:     map[string]string{"go.mod": "module example.com/m\n"},
		param:     "\tn int,", param2: "\tn, m int,",
		body: "\treturn n * 2", body2: "\treturn n * 3",
		fn: "Compute", renamed: "Calculate", comment: "\t// the factor is fixed",
	},
	{
		name: "typescript", lib: "src/calc.ts",
		libSrc:    "export function compute(\n  n: number,\n): number {\n  return n * 2;\n}\n",
		caller:    "src/run.ts",
		callerSrc: "import { compute } from './calc';\n\nexport function run(): number {\n  return compute(3);\n}\n",
		param:     "  n: number,", param2: "  n: number, m: number,",
		body: "  return n * 2;", body2: "  return n * 3;",
		fn: "compute", renamed: "calculate", comment: "  // the factor is fixed",
	},
	{
		name: "python", lib: "lib/calc.py",
		libSrc:    "VERSION = 1\n\n\ndef compute(\n    n,\n):\n    return n * 2\n",
		caller:    "lib/run.py",
		callerSrc: "from lib.calc import compute\n\n\ndef run():\n    return compute(3)\n",
		extra:     map[string]string{"lib/__init__.py": ""},
		param:     "    n,", param2: "    n, m,",
		body: "    return n * 2", body2: "    return n * 3",
		fn: "compute", renamed: "calculate", comment: "    # the factor is fixed",
	},
	{
		name: "java", lib: "src/main/java/com/acme/Calc.java",
		libSrc:    "package com.acme;\n\npublic class Calc {\n    public static int compute(\n            int n\n    ) {\n        return n * 2;\n    }\n}\n",
		caller:    "src/main/java/com/acme/Run.java",
		callerSrc: "package com.acme;\n\npublic class Run {\n    int run() {\n        return Calc.compute(3);\n    }\n}\n",
		param:     "            int n", param2: "            int n, int m",
		body: "        return n * 2;", body2: "        return n * 3;",
		fn: "compute", renamed: "calculate", comment: "        // the factor is fixed",
	},
}

// TestTouchedSameInEveryReader runs one table of changes over every
// reader: each must say the same of the caller of a changed function.
func TestTouchedSameInEveryReader(t *testing.T) {
	type edit struct {
		name  string
		apply func(l touchLang, src string) string
		want  string // a part of the caller's reason; "" lists nothing
	}
	edits := []edit{
		{"body", func(l touchLang, s string) string { return strings.Replace(s, l.body, l.body2, 1) }, "whose body changed"},
		{"signature on the header's second line", func(l touchLang, s string) string { return strings.Replace(s, l.param, l.param2, 1) }, "whose signature changed"},
		{"header re-spaced only", func(l touchLang, s string) string { return strings.Replace(s, l.param, l.param+"  ", 1) }, "whose body changed"},
		{"removed", func(l touchLang, s string) string { return removeFunc(l, s) }, "which the change removes"},
		{"renamed", func(l touchLang, s string) string { return strings.Replace(s, l.fn+"(", l.renamed+"(", 1) }, "which the change removes"},
		{"comment in the body", func(l touchLang, s string) string { return strings.Replace(s, l.body, l.comment+"\n"+l.body, 1) }, ""},
	}
	for _, l := range touchLangs {
		for _, e := range edits {
			t.Run(l.name+"/"+e.name, func(t *testing.T) {
				base := map[string]string{l.lib: l.libSrc, l.caller: l.callerSrc}
				for p, s := range l.extra {
					base[p] = s
				}
				head := e.apply(l, l.libSrc)
				if head == l.libSrc {
					t.Fatalf("the edit changed nothing")
				}
				got := repo{base: base, changed: map[string]string{l.lib: head}}.run(t)
				if e.want == "" {
					if len(got) != 0 {
						t.Fatalf("want nothing listed, got:\n%s", dump(got))
					}
					return
				}
				if len(got) != 1 || got[0].Path != l.caller || got[0].Kind != KindImpact || !strings.Contains(got[0].Reason, e.want) {
					t.Fatalf("want %s impact %q, got:\n%s", l.caller, e.want, dump(got))
				}
			})
		}
	}
}

// TestChangeKindSameInEveryReader runs one table of changes over every
// reader: each marks the caller's evidence with how the change touched
// compute (engine.Item.Change), the same way for the same edit.
func TestChangeKindSameInEveryReader(t *testing.T) {
	edits := []struct {
		name  string
		apply func(l touchLang, src string) string
		want  engine.DeclChange
	}{
		{"body", func(l touchLang, s string) string { return strings.Replace(s, l.body, l.body2, 1) }, engine.ChangedBody},
		{"header re-spaced only", func(l touchLang, s string) string { return strings.Replace(s, l.param, l.param+"  ", 1) }, engine.ChangedBody},
		{"signature", func(l touchLang, s string) string { return strings.Replace(s, l.param, l.param2, 1) }, engine.ChangedSignature},
		{"removed", func(l touchLang, s string) string { return removeFunc(l, s) }, engine.RemovedDecl},
	}
	for _, l := range touchLangs {
		for _, e := range edits {
			base := map[string]string{l.lib: l.libSrc, l.caller: l.callerSrc}
			for p, s := range l.extra {
				base[p] = s
			}
			tree, changes := repo{base: base, changed: map[string]string{l.lib: e.apply(l, l.libSrc)}}.apply()
			cs, err := normalize(changes)
			if err != nil {
				t.Fatal(err)
			}
			ev := engine.NewEvidence(cs)
			if err := read(context.Background(), tree, changes, cs, ev); err != nil {
				t.Fatalf("%s/%s: %v", l.name, e.name, err)
			}
			f := ev.Files[l.caller]
			if f == nil {
				t.Errorf("%s/%s: no evidence for %s", l.name, e.name, l.caller)
				continue
			}
			impact := 0
			for _, it := range f.Items {
				if it.Kind != engine.KindImpact {
					continue
				}
				impact++
				if it.Change != e.want {
					t.Errorf("%s/%s: %s's item %q marks change %d, want %d", l.name, e.name, l.caller, it.Reason, it.Change, e.want)
				}
			}
			if impact == 0 {
				t.Errorf("%s/%s: %s has no impact item", l.name, e.name, l.caller)
			}
		}
	}
}

// removeFunc removes compute's lines, from its header to its body's end.
func removeFunc(l touchLang, s string) string {
	lines := strings.SplitAfter(s, "\n")
	from, to := -1, -1
	for i, ln := range lines {
		if from < 0 && strings.Contains(ln, l.fn+"(") {
			from = i
		}
		if from >= 0 && strings.Contains(ln, strings.TrimSpace(l.body)) {
			to = i + 1
			if l.name != "python" {
				to++ // the closing brace
			}
			break
		}
	}
	return strings.Join(lines[:from], "") + strings.Join(lines[to:], "")
}
