package candidates

import (
	"strings"
	"testing"
)

// The failure classes of the TypeScript/JavaScript reading, one fixture
// repository each; the wanted lists are what the TypeScript language
// service answers for the change, written by hand.

// export * and import {x}; export {x} chains are followed through every
// index, not one: the app imports run from the package entry, which
// re-exports the core index, which re-exports the module.
func TestFindTypeScriptReexportChain(t *testing.T) {
	base := map[string]string{
		"src/core/run.ts":    "export function run(s: string): string {\n  return s;\n}\n",
		"src/core/index.ts":  "import {run} from './run.js';\nexport {run};\n",
		"src/index.ts":       "export * from './core/index.js';\n",
		"app/main.ts":        "import {run} from '../src/index.js';\n\nrun('x');\n",
		"app/unrelated.ts":   "export function run(): void {}\n\nrun();\n",
		"app/other.ts":       "import {run} from './unrelated.js';\n\nrun();\n",
		"src/core/helper.ts": "export function helper(): number {\n  return 1;\n}\n",
	}
	got := repo{base: base, changed: map[string]string{
		"src/core/run.ts": strings.Replace(base["src/core/run.ts"], "return s;", "return s + '!';", 1),
	}}.run(t)
	check(t, got, []want{
		{"app/main.ts", KindImpact, MethodTokens, "calls `run`, whose body changed"},
		{"src/core/index.ts", KindImpact, MethodTokens, "uses `run`"},
	})
}

// An index that is itself in the diff still leads from the name to its
// module: the change adds the re-export and its use at once.
func TestFindTypeScriptChangedIndex(t *testing.T) {
	base := map[string]string{
		"src/errors/fail.ts": "export class Fail extends Error {}\n",
		"src/index.ts":       "export const version = 1;\n",
		"src/use.ts":         "import {version} from './index.js';\n\nexport const v = version;\n",
	}
	got := repo{base: base, changed: map[string]string{
		"src/index.ts": "export const version = 1;\nexport * from './errors/fail.js';\n",
		"src/use.ts":   "import {version, Fail} from './index.js';\n\nexport const v = version;\nexport const f = new Fail();\n",
	}}.run(t)
	check(t, got, []want{{"src/errors/fail.ts", KindUses, MethodTokens, "declares `Fail`"}})
}

// import * as ns reaches a module's names as ns.name, and a TypeScript
// namespace's members are reached through the namespace's name.
func TestFindTypeScriptNamespaces(t *testing.T) {
	base := map[string]string{
		"src/fmt.ts":   "export function pad(s: string): string {\n  return s;\n}\n",
		"src/ns.ts":    "export namespace Codec {\n  export function encode(s: string): string {\n    return s;\n  }\n}\n",
		"src/app.ts":   "import * as fmt from './fmt.js';\nimport {Codec} from './ns.js';\n\nexport const a = fmt.pad('x');\nexport const b = Codec.encode('y');\n",
		"src/other.ts": "const fmt = {pad: (s: string) => s};\nexport const c = fmt.pad('z');\n",
	}
	got := repo{base: base, changed: map[string]string{
		"src/fmt.ts": strings.Replace(base["src/fmt.ts"], "return s;", "return ' ' + s;", 1),
	}}.run(t)
	check(t, got, []want{{"src/app.ts", KindImpact, MethodTokens, "calls `pad`, whose body changed"}})
	got = repo{base: base, changed: map[string]string{
		"src/ns.ts": strings.Replace(base["src/ns.ts"], "return s;", "return btoa(s);", 1),
	}}.run(t)
	check(t, got, []want{{"src/app.ts", KindImpact, MethodTokens, "calls `Codec.encode`, whose body changed"}})
}

// A changed constructor reaches the new C(...) expressions of its class, not
// the other mentions of the class.
func TestFindTypeScriptConstructor(t *testing.T) {
	base := map[string]string{
		"src/client.ts": "export class Client {\n  url: string;\n  constructor(url: string) {\n    this.url = url;\n  }\n}\n",
		"src/make.ts":   "import {Client} from './client.js';\n\nexport const c = new Client('x');\n",
		"src/types.ts":  "import type {Client} from './client.js';\n\nexport type Maker = () => Client;\n",
	}
	got := repo{base: base, changed: map[string]string{
		"src/client.ts": strings.Replace(base["src/client.ts"], "this.url = url;", "this.url = url.trim();", 1),
	}}.run(t)
	check(t, got, []want{{"src/make.ts", KindImpact, MethodTokens, "Client"}})
}
