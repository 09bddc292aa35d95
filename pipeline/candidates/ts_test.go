package candidates

import (
	"strings"
	"sync"
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
	// The re-export next to the changed file ranks first: the directory
	// raises it (ties.raise).
	check(t, got, []want{
		{"src/core/index.ts", KindImpact, MethodTokens, "uses `run`, whose body changed; next to run.ts"},
		{"app/main.ts", KindImpact, MethodTokens, "calls `run`, whose body changed"},
	})
}

// A name imported under another name (import {run as start}), directly or
// through an index's export *, is followed to its calls by the local name.
func TestFindTypeScriptRenamedImport(t *testing.T) {
	base := map[string]string{
		"src/core/run.ts":   "export const run = async (s: string) => {\n  return s;\n}\n",
		"src/core/index.ts": "export * from './run'\n",
		"src/bun.ts":        "import { run as baseRun } from './core'\n\nexport const go = () => baseRun('x')\n",
		"src/deno.ts":       "import { run as start } from './core/run'\n\nexport const go = () => start('y')\n",
		"src/other.ts":      "import { other as run } from './elsewhere'\n\nexport const go = () => run('z')\n",
		"src/elsewhere.ts":  "export const other = (s: string) => s\n",
	}
	got := repo{base: base, changed: map[string]string{
		"src/core/run.ts": strings.Replace(base["src/core/run.ts"], "return s;", "return s + '!';", 1),
	}}.run(t)
	check(t, got, []want{
		{"src/bun.ts", KindImpact, MethodTokens, "calls `run`, whose body changed"},
		{"src/deno.ts", KindImpact, MethodTokens, "calls `run`, whose body changed"},
	})
}

// A class extending a default-exported base (import Request from
// '../core') reaches it: a changed override lists the base's member, and
// a changed static method of the base its super.m() calls.
func TestFindTypeScriptDefaultExportedBase(t *testing.T) {
	base := map[string]string{
		"source/core/index.ts": "export default class Request {\n\tstatic normalize(url?: string): string {\n\t\treturn url ?? '';\n\t}\n" +
			"\trun(): void {\n\t\tthis.beforeError(new Error('x'));\n\t}\n\tbeforeError(error: Error): void {\n\t\tconsole.log(error);\n\t}\n}\n",
		"source/as-promise/core.ts": "import Request from '../core';\n\nexport default class PromisableRequest extends Request {\n" +
			"\tstatic normalize(url?: string): string {\n\t\treturn super.normalize(url);\n\t}\n" +
			"\tbeforeError(error: Error): void {\n\t\treturn;\n\t}\n}\n",
	}
	got := repo{base: base, changed: map[string]string{
		"source/as-promise/core.ts": strings.Replace(base["source/as-promise/core.ts"], "\t\treturn;", "\t\tthrow error;", 1),
	}}.run(t)
	check(t, got, []want{{"source/core/index.ts", KindImpact, MethodTokens, "declares `Request.beforeError`, which the changed `PromisableRequest.beforeError` implements"}})
	got = repo{base: base, changed: map[string]string{
		"source/core/index.ts": strings.Replace(base["source/core/index.ts"], "url ?? ''", "url ?? '/'", 1),
	}}.run(t)
	check(t, got, []want{{"source/as-promise/core.ts", KindImpact, MethodTokens, "calls `Request.normalize`, whose body changed"}})
	// const {normalize} = Request takes the static member out of its class.
	base["source/create.ts"] = "import Request from './core';\n\nconst {normalize} = Request;\nexport const n = normalize('x');\n"
	base["source/other.ts"] = "import Request from './core';\n\nconst {normalize} = other;\nexport const n = normalize('x');\n"
	got = repo{base: base, changed: map[string]string{
		"source/core/index.ts": strings.Replace(base["source/core/index.ts"], "url ?? ''", "url ?? '/'", 1),
	}}.run(t)
	check(t, got, []want{
		{"source/create.ts", KindImpact, MethodTokens, "uses `Request.normalize`, whose body changed"},
		{"source/as-promise/core.ts", KindImpact, MethodTokens, "calls `Request.normalize`, whose body changed"},
	})
}

// A name used from a workspace package is followed from the package's
// entry through indexes that name it nowhere (src/index.ts: export * from
// './links'; links/index.ts: export * from './wsLink') to its declaration,
// and an object literal's key added inside a call links the callee.
func TestFindTypeScriptWorkspaceIndexChain(t *testing.T) {
	base := map[string]string{
		"package.json":                        `{"private": true, "workspaces": {"packages": ["packages/*", "examples/*"]}}`,
		"packages/client/package.json":        `{"name": "@acme/client", "main": "dist/index.js"}`,
		"packages/client/src/index.ts":        "export * from './links';\nexport * from './proxy';\n",
		"packages/client/src/links/index.ts":  "export * from './wsLink';\n",
		"packages/client/src/links/wsLink.ts": "export function createWSClient(o: {url: string}) {\n  return o;\n}\n",
		"packages/client/src/proxy.ts":        "export function createProxy<T>(o: {url: string, retry?: number}): T {\n  return o as T;\n}\n",
		"packages/client/src/links/unused.ts": "export function createWSClient2() {}\n",
		"examples/app/package.json":           `{"name": "app"}`,
		"examples/app/src/client.ts":          "import { createWSClient, createProxy } from '@acme/client';\n\nconst ws = createWSClient({ url: 'a' });\nconst p = createProxy<string>({\n  url: 'b',\n});\n",
	}
	got := repo{base: base, changed: map[string]string{
		"examples/app/src/client.ts": strings.NewReplacer("url: 'a'", "url: 'c'", "  url: 'b',\n", "  url: 'b',\n  retry: 2,\n").Replace(base["examples/app/src/client.ts"]),
	}}.run(t)
	check(t, got, []want{
		{"packages/client/src/links/wsLink.ts", KindUses, MethodTokens, "declares `createWSClient`"},
		{"packages/client/src/proxy.ts", KindUses, MethodTokens, "declares `createProxy`"},
	})
}

// A declaration in the global scope (declare global {...}, or a
// declaration file that imports and exports nothing) is seen by every file
// without an import.
func TestFindTypeScriptGlobalDeclarations(t *testing.T) {
	base := map[string]string{
		"src/mod.ts":      "declare global {\n  interface FetchEvent {\n    respondWith(r: Response): Promise<Response>\n  }\n}\nexport const version = 1\n",
		"src/context.ts":  "export class Context {\n  constructor(public event?: FetchEvent) {}\n}\n",
		"src/local.ts":    "interface FetchEvent {\n  id: string\n}\nexport const e: FetchEvent = {id: 'x'}\n",
		"types/env.d.ts":  "declare function handle(name: string): void\n",
		"src/use.ts":      "export function run() {\n  handle('x')\n}\n",
		"src/module.ts":   "import {handle} from './handlers'\nexport const h = handle\n",
		"src/handlers.ts": "export function handle(n: number) {}\n",
	}
	got := repo{base: base, changed: map[string]string{
		"src/mod.ts": strings.Replace(base["src/mod.ts"], "interface FetchEvent {", "abstract class FetchEvent {", 1),
	}}.run(t)
	check(t, got, []want{{"src/context.ts", KindImpact, MethodTokens, "uses `FetchEvent`"}})
	got = repo{base: base, changed: map[string]string{
		"types/env.d.ts": "declare function handle(name: string, n?: number): void\n",
	}}.run(t)
	check(t, got, []want{{"src/use.ts", KindImpact, MethodTokens, "calls `handle`, whose signature changed"}})
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

// A workspace package imports its sibling by its package.json name and
// subpath exports (built paths read as their sources), and a package
// imports itself by its own name.
func TestFindTypeScriptWorkspacePackages(t *testing.T) {
	base := map[string]string{
		"package.json":                      `{"name": "root", "private": true, "workspaces": ["packages/*"]}`,
		"packages/server/package.json":      `{"name": "@acme/server", "exports": {".": {"import": "./dist/index.mjs"}, "./http": {"types": "./dist/http/index.d.ts"}}}`,
		"packages/server/src/index.ts":      "export {route} from './route.js';\n",
		"packages/server/src/route.ts":      "export function route(p: string): string {\n  return p;\n}\n",
		"packages/server/src/http/index.ts": "export function serve(port: number): number {\n  return port;\n}\n",
		"packages/client/package.json":      `{"name": "@acme/client", "main": "./lib/main.js"}`,
		"packages/client/src/main.ts":       "import {route} from '@acme/server';\nimport {serve} from '@acme/server/http';\n\nexport const routed = route('/');\nexport const s = serve(1);\n",
		"packages/client/src/self.ts":       "import {routed} from '@acme/client';\n\nexport const again = routed;\n",
		"packages/other/src/route.ts":       "export function route(): void {}\nexport function serve(): void {}\n",
	}
	got := repo{base: base, changed: map[string]string{
		"packages/server/src/route.ts":      strings.Replace(base["packages/server/src/route.ts"], "return p;", "return '/' + p;", 1),
		"packages/server/src/http/index.ts": strings.Replace(base["packages/server/src/http/index.ts"], "return port;", "return port + 1;", 1),
	}}.run(t)
	check(t, got, []want{
		{"packages/client/src/main.ts", KindImpact, MethodTokens, "calls `"},
		{"packages/server/src/index.ts", KindImpact, MethodTokens, "uses `route`"},
		// main.ts's routed is what route returns: self.ts uses it.
		{"packages/client/src/self.ts", KindImpact, MethodTokens, "uses `routed`, which `route` makes in main.ts"},
	})
	got = repo{base: base, changed: map[string]string{
		"packages/client/src/main.ts": strings.Replace(base["packages/client/src/main.ts"], "route('/')", "route('/a')", 1),
	}}.run(t)
	check(t, got, []want{
		{"packages/client/src/self.ts", KindImpact, MethodTokens, "uses `routed`"},
		{"packages/server/src/route.ts", KindUses, MethodTokens, "declares `route`"},
	})
}

// A member used on a changed line belongs to the class its receiver's
// declared type names: a field's annotation, new C(), this (the enclosing
// class, and members inherited from its base class); another class
// declaring a member of that name in an imported file is not listed.
func TestFindTypeScriptMembersByDeclaredType(t *testing.T) {
	base := map[string]string{
		"src/http.ts":   "export class HttpClient {\n  request(u: string): string {\n    return u;\n  }\n}\n",
		"src/base.ts":   "export class Base {\n  retries = 0;\n  describe(): string {\n    return '';\n  }\n}\n",
		"src/marker.ts": "export class Marker {\n  request(u: string): string {\n    return u;\n  }\n  describe(): string {\n    return 'm';\n  }\n}\n",
		"src/api.ts":    "import {HttpClient} from './http.js';\nimport {Base} from './base.js';\nimport {Marker} from './marker.js';\n\nexport class Api extends Base {\n  client: HttpClient = new HttpClient();\n  mark = new Marker();\n  run(): string {\n    return '';\n  }\n}\n",
	}
	got := repo{base: base, changed: map[string]string{
		"src/api.ts": strings.Replace(base["src/api.ts"], "    return '';", "    return this.client.request('/') + this.describe();", 1),
	}}.run(t)
	check(t, got, []want{
		{"src/base.ts", KindUses, MethodTokens, "declares `Base.describe`"},
		{"src/http.ts", KindUses, MethodTokens, "declares `HttpClient.request`"},
	})
}

// x instanceof C narrows x: a member used on it belongs to C too, though x
// is declared with a base type.
func TestFindTypeScriptInstanceofNarrowing(t *testing.T) {
	base := map[string]string{
		"src/errors.ts": "export class RetryError extends Error {\n  customRequest: Request | undefined;\n}\n",
		"src/run.ts":    "import {RetryError} from './errors.js';\n\nexport function retry(error: Error): void {\n  if (error instanceof RetryError) {\n    console.log(1);\n  }\n}\n",
	}
	got := repo{base: base, changed: map[string]string{
		"src/run.ts": strings.Replace(base["src/run.ts"], "console.log(1);", "console.log(error.customRequest);", 1),
	}}.run(t)
	check(t, got, []want{{"src/errors.ts", KindUses, MethodTokens, "declares `RetryError.customRequest`"}})
}

// A default import binds the module's default export under the importer's
// own name, and export default of an expression declares nothing by name:
// the test's withServer is the helper file's generateHook(...) result.
func TestFindTypeScriptDefaultExportExpression(t *testing.T) {
	base := map[string]string{
		"test/helpers/with-server.ts": "const generateHook = (install: boolean) => ({install});\n\nexport default generateHook(false);\n",
		"test/helpers/other.ts":       "export default generateHook(true);\n",
		"test/hooks.ts":               "import withServer from './helpers/with-server.js';\n\ntest('a', withServer, () => {});\n",
	}
	got := repo{base: base, changed: map[string]string{
		"test/hooks.ts": base["test/hooks.ts"] + "\ntest('b', withServer, () => {});\n",
	}}.run(t)
	check(t, got, []want{{"test/helpers/with-server.ts", KindUses, MethodTokens, "exports `withServer` by default"}})
}

// The searched files' readings are kept across requests by path and
// content, but what their imports name depends on each repository's
// tsconfig: the same file under other path aliases resolves elsewhere.
// Concurrent searches over the same files share the readings (run with
// -race).
func TestFindTypeScriptSharedReadings(t *testing.T) {
	run := "export function run(s: string): string {\n  return s;\n}\n"
	changed := map[string]string{"src/lib/run.ts": strings.Replace(run, "return s;", "return s + '!';", 1)}
	main := "import {run} from '@lib/run';\n\nrun('x');\n"
	here := repo{base: map[string]string{
		"tsconfig.json":  `{"compilerOptions": {"baseUrl": ".", "paths": {"@lib/*": ["src/lib/*"]}}}`,
		"src/lib/run.ts": run,
		"app/main.ts":    main,
	}, changed: changed}
	elsewhere := repo{base: map[string]string{
		"tsconfig.json":     `{"compilerOptions": {"baseUrl": ".", "paths": {"@lib/*": ["vendor/lib/*"]}}}`,
		"src/lib/run.ts":    run,
		"vendor/lib/run.ts": run,
		"app/main.ts":       main,
	}, changed: changed}
	wantHere := []want{{"app/main.ts", KindImpact, MethodTokens, "calls `run`, whose body changed"}}
	check(t, here.run(t), wantHere)
	if got := elsewhere.run(t); len(got) != 0 {
		t.Fatalf("under aliases to vendor/lib, app/main.ts still listed:\n%s", dump(got))
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { check(t, here.run(t), wantHere) })
		wg.Go(func() {
			if got := elsewhere.run(t); len(got) != 0 {
				t.Errorf("concurrent run under aliases to vendor/lib listed:\n%s", dump(got))
			}
		})
	}
	wg.Wait()
}

// A member's receiver typed in other modules: the test's ky is the index's
// default export, createInstance()'s KyInstance (declared in a third file,
// an object type whose get property is a function returning
// ResponsePromise), and json is a member of ResponsePromise's object type,
// which intersects Promise. The file declaring each member is listed; a
// class the test imports that declares json too is not.
func TestFindTypeScriptMembersAcrossModules(t *testing.T) {
	base := map[string]string{
		"src/types/response-promise.ts": "export type ResponsePromise<T = unknown> = {\n  json: <J = T>() => Promise<J>;\n  text: () => Promise<string>;\n} & Promise<Response>;\n",
		"src/types/instance.ts":         "import type {ResponsePromise} from './response-promise.js';\n\nexport type KyInstance = {\n  get: <T>(url: string) => ResponsePromise<T>;\n  extend(o: object): KyInstance;\n};\n",
		"src/index.ts":                  "import type {KyInstance} from './types/instance.js';\n\nconst createInstance = (): KyInstance => {\n  return {} as KyInstance;\n};\n\nconst ky = createInstance();\n\nexport default ky;\nexport type {KyInstance} from './types/instance.js';\n",
		"src/body.ts":                   "export class Body {\n  json(): unknown {\n    return null;\n  }\n}\n",
		"test/main.ts":                  "import ky from '../src/index.js';\nimport {Body} from '../src/body.js';\n\nexport const b = new Body();\n\ntest('x', async () => {\n  await ky('u');\n});\n",
	}
	got := repo{base: base, changed: map[string]string{
		"test/main.ts": strings.Replace(base["test/main.ts"], "await ky('u');", "await ky('u');\n  const data = await ky.extend({}).get('u').json();", 1),
	}}.run(t)
	check(t, got, []want{
		{"src/types/instance.ts", KindUses, MethodTokens, "declares `KyInstance."},
		{"src/index.ts", KindUses, MethodTokens, "`ky`"},
		{"src/types/response-promise.ts", KindUses, MethodTokens, "declares `ResponsePromise.json`"},
	})
}

// A member a class inherits from its base class in another module: the
// app is a Hono, whose route and get come from HonoBase in the file Hono's
// module imports; get returns this, so a chain stays on the app. Router,
// which the test imports and which declares route too, is not listed.
func TestFindTypeScriptInheritedMembersAcrossModules(t *testing.T) {
	base := map[string]string{
		"src/hono-base.ts": "export class HonoBase {\n  get(path: string): this {\n    return this;\n  }\n  route(path: string): this {\n    return this;\n  }\n}\n",
		"src/hono.ts":      "import {HonoBase} from './hono-base.js';\n\nexport class Hono extends HonoBase {\n  fire(): void {}\n}\n",
		"src/router.ts":    "export class Router {\n  route(path: string): void {}\n}\n",
		"test/app.ts":      "import {Hono} from '../src/hono.js';\nimport {Router} from '../src/router.js';\n\nconst app = new Hono();\nexport const r = new Router();\napp.fire();\n",
	}
	got := repo{base: base, changed: map[string]string{
		"test/app.ts": base["test/app.ts"] + "app.get('/').route('/x');\n",
	}}.run(t)
	check(t, got, []want{{"src/hono-base.ts", KindUses, MethodTokens, "declares `HonoBase.get`, used by the change in app.ts (and 1 more)"}})
}

// A callback parameter named like an import shadows it: inside the test's
// callback got is the parameter the hook passes, not the module's default
// export, so the module is no evidence of it (withServer, used outside
// any callback, is).
func TestFindTypeScriptParameterShadowsImport(t *testing.T) {
	base := map[string]string{
		"source/index.ts":             "const got = (url: string): string => url;\n\nexport default got;\n",
		"test/helpers/with-server.ts": "const withServer = (t: unknown, run: (t: unknown, got: (u: string) => string) => void): void => {};\n\nexport default withServer;\n",
		"test/stream.ts":              "import got from '../source/index.js';\nimport withServer from './helpers/with-server.js';\n\ntest('a', async (t, got) => {\n  await got.stream('x');\n});\n",
	}
	got := repo{base: base, changed: map[string]string{
		"test/stream.ts": strings.Replace(base["test/stream.ts"], "  await got.stream('x');\n", "  await got.stream('x');\n  await got('y');\n  got.stream.on('data');\n", 1) +
			"\ntest('b', withServer, () => {});\n",
	}}.run(t)
	check(t, got, []want{{"test/helpers/with-server.ts", KindUses, MethodTokens, "`withServer`"}})
}

// An unannotated callback parameter has the type the callee's parameter
// gives it: app.get's handler is an H, a union holding Handler, a function
// type whose first parameter is a Context, so c.json is Context's. Other,
// which the test imports and which declares json too, is not listed.
func TestFindTypeScriptCallbackParameterTypes(t *testing.T) {
	base := map[string]string{
		"src/context.ts": "export class Context {\n  json(o: object): Response {\n    return new Response();\n  }\n}\n",
		"src/types.ts":   "import type {Context} from './context.js';\n\nexport type Handler = (c: Context, next: () => void) => Response;\nexport type H = Handler | string;\nexport interface HandlerInterface {\n  (path: string, handler: H): void;\n}\n",
		"src/hono.ts":    "import type {HandlerInterface} from './types.js';\n\nexport class Hono {\n  get!: HandlerInterface;\n}\n",
		"src/other.ts":   "export class Other {\n  json(): string {\n    return '';\n  }\n}\n",
		"test/app.ts":    "import {Hono} from '../src/hono.js';\nimport {Other} from '../src/other.js';\n\nconst app = new Hono();\nexport const o = new Other();\n",
	}
	got := repo{base: base, changed: map[string]string{
		"test/app.ts": base["test/app.ts"] + "app.get('/', (c) => c.json({}));\n",
	}}.run(t)
	// get, short as it is, is the get of Hono: its receiver's type says so.
	check(t, got, []want{
		{"src/context.ts", KindUses, MethodTokens, "declares `Context.json`"},
		{"src/hono.ts", KindUses, MethodTokens, "declares `Hono.get`"},
	})
}

// Types across modules resolve imports through workspace packages and
// tsconfig paths as the search does: the router imports initTRPC from the
// server package by name (its exports name the build output, read as the
// sources), create() returns the root object whose procedure is a
// ProcedureBuilder in a third file, and the added route calls its query.
// The same chain through a tsconfig alias reaches the files under it.
func TestFindTypeScriptMembersThroughPackageNames(t *testing.T) {
	core := map[string]string{
		"server/src/index.ts":        "export * from './core/index.js';\n",
		"server/src/core/index.ts":   "export {\n  initTRPC,\n} from './init.js';\n",
		"server/src/core/init.ts":    "import type {ProcedureBuilder} from './builder.js';\n\nexport interface RootObject<TContext> {\n  procedure: ProcedureBuilder<\n    TContext\n  >;\n}\n\nclass TRPCBuilder<TContext extends object> {\n  create<TOptions>(\n    opts?: TOptions,\n  ): RootObject<TContext> {\n    return {} as RootObject<TContext>;\n  }\n}\n\nexport const initTRPC = new TRPCBuilder();\n",
		"server/src/core/builder.ts": "export interface ProcedureBuilder<TContext> {\n  query<$Output>(resolver: () => $Output): number;\n}\n",
		"server/src/query.ts":        "export class Cache {\n  query(): void {}\n}\n",
	}
	for _, tc := range []struct {
		name   string
		config map[string]string
		spec   string
	}{
		{"workspace package", map[string]string{
			"package.json":                 `{"name": "root", "private": true}`,
			"pnpm-workspace.yaml":          "packages:\n  - 'packages/*'\n",
			"packages/server/package.json": `{"name": "@trpc/server", "exports": {".": {"import": {"types": "./dist/index.d.mts", "default": "./dist/index.mjs"}}}}`,
		}, "@trpc/server"},
		{"tsconfig paths", map[string]string{
			"tsconfig.json": `{"compilerOptions": {"baseUrl": ".", "paths": {"@server": ["packages/server/src/index.ts"]}}}`,
		}, "@server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := map[string]string{}
			for p, s := range tc.config {
				base[p] = s
			}
			for p, s := range core {
				base["packages/"+p] = s
			}
			base["packages/openapi/test/router.ts"] = "import {initTRPC} from '" + tc.spec + "';\n\nconst t = initTRPC.create();\n\nexport const router = {\n  a: t.procedure.query(() => 1),\n};\n"
			got := repo{base: base, changed: map[string]string{
				"packages/openapi/test/router.ts": strings.Replace(base["packages/openapi/test/router.ts"], "  a: t", "  b: t.procedure.query(() => 2),\n  a: t", 1),
			}}.run(t)
			check(t, got, []want{
				{"packages/server/src/core/builder.ts", KindUses, MethodTokens, "declares `ProcedureBuilder.query`"},
				{"packages/server/src/core/init.ts", KindUses, MethodTokens, "declares `RootObject.procedure`"},
			})
		})
	}
}

// A changed method of a class that implements an interface reaches what
// the interface's member reaches: the app calls add on a field typed by
// the interface, another router implements the same member, and its test
// calls it; the interface's file declares the contract. A class with an
// add of its own that implements nothing, and a caller of it, are not
// listed.
func TestFindTypeScriptImplementedMembers(t *testing.T) {
	base := map[string]string{
		"src/router.ts":           "export interface Router<T> {\n  add(method: string, path: string, handler: T): void\n  match(method: string, path: string): T[]\n}\n",
		"src/linear/router.ts":    "import type {Router} from '../router'\n\nexport class LinearRouter<T> implements Router<T> {\n  routes: T[] = []\n  add(method: string, path: string, handler: T) {\n    this.routes.push(handler)\n  }\n  match(method: string, path: string): T[] {\n    return this.routes\n  }\n}\n",
		"src/trie/router.ts":      "import type {Router} from '../router'\n\nexport class TrieRouter<T> implements Router<T> {\n  add(method: string, path: string, handler: T) {}\n  match(method: string, path: string): T[] {\n    return []\n  }\n}\n",
		"src/trie/router.test.ts": "import {TrieRouter} from './router'\n\nconst router = new TrieRouter<string>()\nrouter.add('GET', '/', 'x')\n",
		"src/app.ts":              "import type {Router} from './router'\n\nexport class App {\n  router!: Router<string>\n  route(p: string) {\n    this.router.add('GET', p, 'h')\n  }\n}\n",
		"src/set.ts":              "export class Bag {\n  add(x: number) {}\n}\n",
		"src/use-set.ts":          "import {Bag} from './set'\n\nnew Bag().add(1)\n",
	}
	got := repo{base: base, changed: map[string]string{
		"src/linear/router.ts": strings.Replace(base["src/linear/router.ts"], "this.routes.push(handler)", "this.routes.unshift(handler)", 1),
	}}.run(t)
	check(t, got, []want{
		{"src/router.ts", KindImpact, MethodTokens, "declares `Router.add`, which the changed `LinearRouter.add` implements"},
		{"src/app.ts", KindImpact, MethodTokens, "calls `Router.add`, implemented by `LinearRouter.add`"},
		{"src/trie/router.ts", KindImpact, MethodTokens, "declares `TrieRouter.add`, which implements `Router.add`"},
		{"src/trie/router.test.ts", KindImpact, MethodTokens, "calls `TrieRouter.add`, which implements `Router.add` as the changed `LinearRouter.add` does"},
	})
}

// A package imports itself by the name its tsconfig paths give its index
// (zustand: ./src/index.ts), which re-exports its modules with export *:
// the example's create is the one react.ts declares.
func TestFindTypeScriptSelfImportThroughIndex(t *testing.T) {
	base := map[string]string{
		"tsconfig.json":  `{"compilerOptions": {"baseUrl": ".", "paths": {"zustand": ["./src/index.ts"], "zustand/*": ["./src/*.ts"]}}}`,
		"package.json":   `{"name": "zustand"}`,
		"src/index.ts":   "export * from './vanilla.ts'\nexport * from './react.ts'\n",
		"src/vanilla.ts": "export const createStore = () => ({})\n",
		"src/react.ts":   "import {createStore} from './vanilla.ts'\n\nexport const create = () => createStore()\n",
		"tests/other.ts": "export const create = () => 0\n",
	}
	got := repo{base: base, changed: map[string]string{
		"examples/starter/src/index.tsx": "import {create} from 'zustand'\n\nexport const useStore = create()\n",
	}}.run(t)
	check(t, got, []want{{"src/react.ts", KindUses, MethodTokens, "declares `create`"}})
}

// Pick<T, K> and Omit<T, K> keep (some of) T's members: a parameter typed
// by an alias of Pick<StoreApi<T>, ...> calls StoreApi's getState.
func TestFindTypeScriptPickedMembers(t *testing.T) {
	base := map[string]string{
		"src/vanilla.ts": "export interface StoreApi<T> {\n  getState: () => T\n  subscribe: (l: () => void) => () => void\n}\n",
		"src/other.ts":   "export class Cache {\n  getState(): number {\n    return 1\n  }\n}\n",
		"src/react.ts":   "import type {StoreApi} from './vanilla'\nimport {Cache} from './other'\n\ntype ReadonlyStoreApi<T> = Pick<\n  StoreApi<T>,\n  'getState' | 'subscribe'\n>\n\nexport const c = new Cache()\n\nexport function useStore<T>(api: ReadonlyStoreApi<T>) {\n  return api.subscribe(() => {})\n}\n",
	}
	got := repo{base: base, changed: map[string]string{
		"src/react.ts": strings.Replace(base["src/react.ts"], "  return api.subscribe(() => {})", "  api.getState()\n  return api.subscribe(() => {})", 1),
	}}.run(t)
	check(t, got, []want{{"src/vanilla.ts", KindUses, MethodTokens, "declares `StoreApi.getState`"}})
}

// A local bound to a callable value is called like its type: the test's
// extended is the KyInstance extend returns, and calling it gives a
// ResponsePromise, whose text the added line calls. The chain is as deep
// as ky's: the index's ky is what createInstance returns (a local of that
// name inside it has another type).
func TestFindTypeScriptCallOfLocalValue(t *testing.T) {
	base := map[string]string{
		"source/types/ResponsePromise.ts": "export type ResponsePromise = {\n  text: () => Promise<string>;\n} & Promise<Response>;\n",
		"source/types/ky.ts":              "import type {ResponsePromise} from './ResponsePromise.js';\n\nexport type KyInstance = {\n  (url: string): ResponsePromise;\n  create: (o: object) => KyInstance;\n  extend: (o: object | ((p: object) => object)) => KyInstance;\n};\n",
		"source/index.ts":                 "import type {KyInstance} from './types/ky.js';\nimport type {Mutable} from './utils/types.js';\n\nconst createInstance = (): KyInstance => {\n  const ky: Partial<Mutable<KyInstance>> = {};\n  return ky as KyInstance;\n};\n\nconst ky = createInstance();\n\nexport default ky;\n",
		"source/body.ts":                  "export class Body {\n  text(): string {\n    return '';\n  }\n}\n",
		"test/retry.ts":                   "import ky from '../source/index.js';\nimport {Body} from '../source/body.js';\n\nexport const b = new Body();\n\ntest('x', async () => {\n  const extended = ky.create({}).extend({});\n  await extended('u');\n});\n",
	}
	got := repo{base: base, changed: map[string]string{
		"test/retry.ts": strings.Replace(base["test/retry.ts"], "await extended('u');", "await extended('u').text();", 1),
	}}.run(t)
	check(t, got, []want{{"source/types/ResponsePromise.ts", KindUses, MethodTokens, "declares `ResponsePromise.text`"}})
}

// A callback passed after other arguments takes its parameter's type from
// the callee's rest parameter (...handlers: [H & M, H], a tuple, one
// position per element), and a getter's return type is its value's type:
// c is the Context, c.req the HonoRequest whose parseBody the handler
// calls.
func TestFindTypeScriptRestParametersAndGetters(t *testing.T) {
	base := map[string]string{
		"src/request.ts":   "export class HonoRequest {\n  parseBody(): Promise<object> {\n    return Promise.resolve({})\n  }\n}\n",
		"src/context.ts":   "import {HonoRequest} from './request'\n\nexport class Context {\n  get req(): HonoRequest {\n    return new HonoRequest()\n  }\n  json(v: unknown): Response {\n    return new Response()\n  }\n}\n",
		"src/types.ts":     "import type {Context} from './context'\n\nexport type Handler = (c: Context, next: () => void) => Response\nexport type H = Handler | Middleware\nexport type Middleware = (c: Context, next: () => void) => Promise<void>\n\nexport interface HandlerInterface {\n  (handler: H): Hono\n  (path: string, ...handlers: [H & object, H]): Hono\n}\n",
		"src/hono.ts":      "import type {HandlerInterface} from './types'\n\nexport class Hono {\n  post!: HandlerInterface\n}\n",
		"src/form.ts":      "export class Form {\n  parseBody(): void {}\n  json(): void {}\n}\n",
		"test/app.test.ts": "import {Hono} from '../src/hono'\nimport {Form} from '../src/form'\n\nexport const f = new Form()\n\nconst app = new Hono().post(\n  '/',\n  (c, next) => next(),\n  async (c) => {\n    return c.json({})\n  }\n)\n",
	}
	got := repo{base: base, changed: map[string]string{
		"test/app.test.ts": strings.Replace(base["test/app.test.ts"], "    return c.json({})", "    const body = await c.req.parseBody()\n    return c.json(body)", 1),
	}}.run(t)
	check(t, got, []want{
		{"src/context.ts", KindUses, MethodTokens, "declares `Context.req`, used by the change in app.test.ts (and 1 more)"},
		{"src/request.ts", KindUses, MethodTokens, "declares `HonoRequest.parseBody`"},
	})
}

// A module-level value made by calling a changed function carries the
// change to the files using it: got's index holds const got =
// create(defaults), and the tests importing got run create's new body.
// A file importing another got, and one importing the index without using
// got, are not listed.
func TestFindTypeScriptValuesMadeByChangedFunction(t *testing.T) {
	base := map[string]string{
		"source/create.ts":     "const create = (defaults: object) => {\n  return () => defaults;\n};\n\nexport default create;\n",
		"source/index.ts":      "import create from './create.js';\n\nconst got = create({});\n\nexport default got;\nexport {default as create} from './create.js';\n",
		"test/abort.ts":        "import got from '../source/index.js';\n\ntest('abort', async () => {\n  await got();\n});\n",
		"test/types.ts":        "import type got from '../source/index.js';\n\nexport type G = typeof got;\n",
		"test/unused.ts":       "import got from '../source/index.js';\n",
		"vendor-like/other.ts": "import got from 'got';\n\ngot();\n",
	}
	got := repo{base: base, changed: map[string]string{
		"source/create.ts": strings.Replace(base["source/create.ts"], "return () => defaults;", "return () => ({...defaults});", 1),
	}}.run(t)
	check(t, got, []want{
		{"source/index.ts", KindImpact, MethodTokens, "calls `create`"},
		{"test/abort.ts", KindImpact, MethodTokens, "uses `got`, which `create` makes in index.ts, whose body changed"},
		{"test/types.ts", KindImpact, MethodTokens, "uses `got`, which `create` makes in index.ts"},
	})
}

// A value cast with as takes the cast's type: the client module's api is
// createProxy() as Api, so the page's api.fetchUser() is Api's; a class of
// the page's imports declaring fetchUser too is not listed, nor is a cast
// inside a call (f(x as Other)) taken for the value's.
func TestFindTypeScriptCastValues(t *testing.T) {
	base := map[string]string{
		"src/api.ts":    "export interface Api {\n  fetchUser(id: string): Promise<string>;\n}\n",
		"src/other.ts":  "export interface Other {\n  fetchUser(): void;\n}\n",
		"src/proxy.ts":  "export function createProxy(x: unknown): unknown {\n  return x;\n}\n",
		"src/client.ts": "import type {Api} from './api';\nimport type {Other} from './other';\nimport {createProxy} from './proxy';\n\nexport const api = createProxy({} as Other) as unknown as Api;\n",
		"src/cache.ts":  "export class Cache {\n  fetchUser(): void {}\n}\n",
		"src/page.ts":   "import {api} from './client';\nimport {Cache} from './cache';\n\nexport const c = new Cache();\n",
	}
	got := repo{base: base, changed: map[string]string{
		"src/page.ts": base["src/page.ts"] + "export const u = api.fetchUser('1');\n",
	}}.run(t)
	check(t, got, []want{
		{"src/api.ts", KindUses, MethodTokens, "declares `Api.fetchUser`"},
		{"src/client.ts", KindUses, MethodTokens, "declares `api`"},
	})
}

// A receiver typed null | T is a T, and a type alias whose members are
// not declared one by one (ReturnType of a factory) still names the file
// its member comes from: headDeferred.reject is the Deferred's, from
// createDeferred.ts. A class of the change's imports declaring reject is
// not listed.
func TestFindTypeScriptAliasedReceiverTypes(t *testing.T) {
	base := map[string]string{
		"src/utils/createDeferred.ts": "export function createDeferred<T = void>() {\n  let resolve!: (v: T) => void;\n  let reject!: (e: unknown) => void;\n  const promise = new Promise<T>((res, rej) => {\n    resolve = res;\n    reject = rej;\n  });\n  return {promise, resolve, reject};\n}\nexport type Deferred<T> = ReturnType<typeof createDeferred<T>>;\n",
		"src/queue.ts":                "export class Queue {\n  reject(): void {}\n}\n",
		"src/jsonl.ts":                "import {createDeferred, type Deferred} from './utils/createDeferred';\nimport {Queue} from './queue';\n\nexport const q = new Queue();\n\nexport function consume() {\n  let headDeferred: null | Deferred<string> = createDeferred();\n  return headDeferred;\n}\n",
	}
	got := repo{base: base, changed: map[string]string{
		"src/jsonl.ts": strings.Replace(base["src/jsonl.ts"], "  return headDeferred;", "  headDeferred.reject(new Error('closed'));\n  return headDeferred;", 1),
	}}.run(t)
	check(t, got, []want{{"src/utils/createDeferred.ts", KindUses, MethodTokens, "declares `Deferred`, the type whose `reject` the change in jsonl.ts uses"}})
}

// A template literal's substitutions are code: the added line's
// `${formatDate(d)}` uses the date module's function; a name in the
// template's text (formatTime) is not a use.
func TestFindTypeScriptTemplateSubstitutions(t *testing.T) {
	base := map[string]string{
		"src/date.ts": "export function formatDate(d: Date): string {\n  return d.toISOString();\n}\n",
		"src/time.ts": "export function formatTime(d: Date): string {\n  return d.toTimeString();\n}\n",
		"src/log.ts":  "import {formatDate} from './date';\nimport {formatTime} from './time';\n\nexport function log(d: Date): string {\n  return '';\n}\n",
	}
	got := repo{base: base, changed: map[string]string{
		"src/log.ts": strings.Replace(base["src/log.ts"], "  return '';", "  return `at ${formatDate(d)} (formatTime)`;", 1),
	}}.run(t)
	check(t, got, []want{{"src/date.ts", KindUses, MethodTokens, "declares `formatDate`, used by the change in log.ts"}})
}

// An object literal's key names the member of the type the literal is
// typed by: passed to a parameter of that type, or declared with it. A
// changed interface member reaches those literals; a literal of another
// type, an untyped one and a type literal with the same key do not.
func TestFindTypeScriptObjectLiteralKeys(t *testing.T) {
	base := map[string]string{
		"src/options.ts": "export interface Options {\n  retry: number;\n  timeout: number;\n}\n",
		"src/got.ts":     "import type {Options} from './options.js';\n\nexport function got(url: string, options: Options): string {\n  return url;\n}\n\nexport function log(url: string, meta: {retry: number}): string {\n  return url;\n}\n",
		"src/app.ts":     "import {got} from './got.js';\n\nexport const a = got('u', {retry: 2});\n",
		"src/conf.ts":    "import type {Options} from './options.js';\n\nexport const o: Options = {timeout: 1, retry: 3};\n",
		"src/other.ts":   "import {got, log} from './got.js';\n\nexport const x = {retry: 1};\nexport const y = got('u', {timeout: 2});\nexport const z = log('u', {retry: 1});\n",
		"src/types.ts":   "import type {Options} from './options.js';\n\nexport type Local = {retry: string};\nexport type Both = Options & {retry: 1};\n",
	}
	got := repo{base: base, changed: map[string]string{
		"src/options.ts": strings.Replace(base["src/options.ts"], "retry: number;", "retry: number | false;", 1),
	}}.run(t)
	check(t, got, []want{
		{"src/app.ts", KindImpact, MethodTokens, "sets `Options.retry`"},
		{"src/conf.ts", KindImpact, MethodTokens, "sets `Options.retry`"},
	})
}
