package candidates

import (
	"strings"
	"testing"
)

// A comment- or docstring-only edit changes no behaviour: nothing refers to
// it. The same function with a code edit lists its caller.
func TestFindCommentOnlyEditIsNoBodyChange(t *testing.T) {
	for _, tc := range []struct {
		name, path, callerPath, caller, src, docEdit, codeEdit string
	}{
		{
			name: "python docstring", path: "pkg/store.py", callerPath: "pkg/api.py",
			src:     "def open_store(path):\n    \"\"\"Open the store.\n\n    It is created when missing.\n    \"\"\"\n    # the path is relative\n    return path\n",
			caller:  "from pkg.store import open_store\n\n\ndef handler():\n    return open_store('x')\n",
			docEdit: "It is created when missing, with mode 0600.", codeEdit: "return path.strip()",
		},
		{
			name: "python comment", path: "pkg/store.py", callerPath: "pkg/api.py",
			src:     "def open_store(path):\n    \"\"\"Open the store.\n\n    It is created when missing.\n    \"\"\"\n    # the path is relative\n    return path\n",
			caller:  "from pkg.store import open_store\n\n\ndef handler():\n    return open_store('x')\n",
			docEdit: "# the path is relative to the working directory", codeEdit: "return path.strip()",
		},
		{
			name: "typescript comment", path: "src/store.ts", callerPath: "src/api.ts",
			src:     "export function openStore(path: string): string {\n  /* The store is created\n     when missing. */\n  // relative path\n  return path;\n}\n",
			caller:  "import { openStore } from './store';\n\nexport function handler() {\n  return openStore('x');\n}\n",
			docEdit: "when it is missing, with mode 0600. */", codeEdit: "return path.trim();",
		},
		{
			name: "go comment", path: "store/store.go", callerPath: "api/api.go",
			src:     "package store\n\nfunc Open(path string) string {\n\t/* The store is created\n\t   when missing. */\n\treturn path\n}\n",
			caller:  "package api\n\nimport \"example.com/m/store\"\n\nfunc Handle() string {\n\treturn store.Open(\"x\")\n}\n",
			docEdit: "   when it is missing, with mode 0600. */", codeEdit: "return path + \"/\"",
		},
		{
			name: "java javadoc", path: "src/main/java/a/Store.java", callerPath: "src/main/java/a/Api.java",
			src:     "package a;\n\npublic class Store {\n    public String open(String path) {\n        /** The store is created\n         * when missing. */\n        return path;\n    }\n}\n",
			caller:  "package a;\n\npublic class Api {\n    String handle(Store s) {\n        return s.open(\"x\");\n    }\n}\n",
			docEdit: " * when it is missing, with mode 0600. */", codeEdit: "return path.trim();",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := map[string]string{tc.path: tc.src, tc.callerPath: tc.caller, "go.mod": "module example.com/m\n"}
			lines := strings.Split(tc.src, "\n")
			edit := func(replacement string, code bool) string {
				out := append([]string(nil), lines...)
				for i, l := range out {
					trimmed := strings.TrimSpace(l)
					isCode := strings.HasPrefix(trimmed, "return ")
					isDoc := !isCode && (strings.Contains(trimmed, "when missing") || strings.HasPrefix(trimmed, "# the path") || strings.HasPrefix(trimmed, "// relative"))
					if (code && isCode) || (!code && isDoc && strings.Contains(replacement, strings.Fields(trimmed)[0])) {
						out[i] = l[:len(l)-len(strings.TrimLeft(l, " "))] + replacement
						return strings.Join(out, "\n")
					}
				}
				t.Fatalf("no line to edit for %q", replacement)
				return ""
			}
			doc := edit(tc.docEdit, false)
			if doc == tc.src {
				t.Fatal("the doc edit changed nothing")
			}
			if got := (repo{base: base, changed: map[string]string{tc.path: doc}}).run(t); len(got) != 0 {
				t.Errorf("a comment-only edit lists %s", dump(got))
			}
			got := repo{base: base, changed: map[string]string{tc.path: edit(tc.codeEdit, true)}}.run(t)
			if len(got) != 1 || got[0].Path != tc.callerPath || got[0].Kind != KindImpact {
				t.Errorf("a code edit lists %s, want the caller %s", dump(got), tc.callerPath)
			}
		})
	}
}
