package candidates

import (
	"strings"
	"testing"
)

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
