package candidates

import (
	"slices"
	"strings"
	"testing"
)

func TestParseAliases(t *testing.T) {
	cfg := `{
  // the package imports itself by name
  "compilerOptions": {
    "strict": true, /* a comment with "quotes" */
    "baseUrl": ".",
    "paths": {
      "app": ["./src/index.ts"],
      "app/*": ["./src/*.ts",],
      "@/*": ["src/*"],
      "bad/*/*": ["src/*/*"],
      "up/*": ["../elsewhere/*"],
    },
  },
  "include": ["src/**/*", "http://not-a-comment"]
}`
	a := parseAliases([]byte(cfg))
	if a == nil {
		t.Fatal("parseAliases returned nil")
	}
	for _, tc := range []struct {
		spec string
		want []string
	}{
		{"app", []string{"src/index.ts"}},
		{"app/middleware", []string{"src/middleware.ts"}},
		{"@/lib/x", []string{"src/lib/x"}},
		{"apple", nil},
		{"bad/a/b", nil},
		{"up/x", nil},
		{"react", nil},
	} {
		got := a.resolve(tc.spec)
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("resolve(%q) = %v, want %v", tc.spec, got, tc.want)
		}
	}
	for _, bad := range []string{"", "not json", `{"compilerOptions": {}}`, `{"compilerOptions": {"baseUrl": "/abs", "paths": {"a": ["b"]}}}`, "/* open"} {
		if a := parseAliases([]byte(bad)); a != nil {
			t.Errorf("parseAliases(%q) = %+v, want nil", bad, a)
		}
	}
	var none *pathAliases
	if got := none.resolve("app"); got != nil {
		t.Errorf("nil aliases resolve to %v", got)
	}
}

// A test that imports the package by its own name through a tsconfig path
// alias calls the changed function.
func TestFindTypeScriptPathAlias(t *testing.T) {
	base := map[string]string{
		"tsconfig.json":       "{\n  // aliases\n  \"compilerOptions\": {\"paths\": {\"app\": [\"./src/index.ts\"], \"app/*\": [\"./src/*.ts\"],}}\n}\n",
		"src/middleware.ts":   "export function persist(s: string): string {\n  return s;\n}\n",
		"src/index.ts":        "export const version = 1;\n",
		"tests/mw.test.ts":    "import { persist } from 'app/middleware';\n\ntest('persist', () => {\n  expect(persist('a')).toBe('a');\n});\n",
		"tests/other.test.ts": "import { persist } from 'other/middleware';\n\npersist('b');\n",
	}
	got := repo{base: base, changed: map[string]string{
		"src/middleware.ts": strings.Replace(base["src/middleware.ts"], "return s;", "return s.trim();", 1),
	}}.run(t)
	check(t, got, []want{{"tests/mw.test.ts", KindImpact, MethodTokens, "calls `persist`, whose body changed"}})
}
