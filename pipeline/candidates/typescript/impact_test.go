package typescript

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

// impactFiles runs the search on the changes of heads (path -> new
// source) from base and returns the files given impact evidence, sorted.
func impactFiles(t *testing.T, base map[string]string, heads map[string]string) []string {
	t.Helper()
	return evidenceFiles(t, base, heads, engine.KindImpact)
}

// lineChange is the change of path from old to new, a line counted added
// (removed) when the other side does not hold it.
func lineChange(path, old, new string) *engine.Change {
	added, removed := map[int]bool{}, map[int]bool{}
	ol, nl := strings.Split(old, "\n"), strings.Split(new, "\n")
	for i, l := range nl {
		if !slices.Contains(ol, l) {
			added[i+1] = true
		}
	}
	for i, l := range ol {
		if !slices.Contains(nl, l) {
			removed[i+1] = true
		}
	}
	return &engine.Change{Path: path, Old: []byte(old), New: []byte(new), Added: added, Removed: removed}
}

// wantEvidence checks that the search on heads from base gives evidence of
// kind to exactly the files of want.
func wantEvidence(t *testing.T, base, heads map[string]string, kind engine.Kind, want []string) {
	t.Helper()
	if got := evidenceFiles(t, base, heads, kind); !slices.Equal(got, want) {
		t.Errorf("%v evidence in %v, want %v", kind, got, want)
	}
}

// evidenceFiles is impactFiles for evidence of kind.
func evidenceFiles(t *testing.T, base map[string]string, heads map[string]string, kind engine.Kind) []string {
	t.Helper()
	files := map[string]string{}
	for p, s := range base {
		files[p] = s
	}
	var cs []*engine.Change
	for _, path := range slices.Sorted(maps.Keys(heads)) {
		head := heads[path]
		files[path] = head
		cs = append(cs, lineChange(path, base[path], head))
	}
	ev := engine.NewEvidence(cs)
	if err := find(context.Background(), pipelinetest.NewTree(files), nil, cs, ev); err != nil {
		t.Fatal(err)
	}
	var out []string
	for p, f := range ev.Files {
		if slices.ContainsFunc(f.Items, func(it engine.Item) bool { return it.Kind == kind }) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// honoLike is a router whose handlers take the Context of another file
// through the handler types: code calling c.json(...) inside a handler
// neither imports context.ts nor names Context.
var honoLike = map[string]string{
	"src/context.ts": "export class Context {\n  json(o: object): Response {\n    return new Response(String(o));\n  }\n  set(k: string, v: unknown): void {\n    this.vars.set(k, v);\n  }\n  vars = new Map<string, unknown>();\n}\n",
	"src/types.ts":   "import type {Context} from './context.js';\n\nexport type Handler = (c: Context, next: () => void) => Response;\nexport interface HandlerInterface {\n  (path: string, handler: Handler): void;\n}\n",
	"src/hono.ts":    "import type {HandlerInterface} from './types.js';\n\nexport class Hono {\n  get!: HandlerInterface;\n}\n",
	"src/other.ts":   "export class Other {\n  json(): string {\n    return '';\n  }\n  set(k: string): void {}\n}\n",
	"test/app.ts":    "import {Hono} from '../src/hono.js';\n\nconst app = new Hono();\napp.get('/', (c) => c.json({}));\n",
	"test/other.ts":  "import {Other} from '../src/other.js';\n\nconst o = new Other();\nexport const s = o.json();\n",
}

// A changed member is referenced where a receiver's type, resolved across
// modules, is its class, though the file neither imports the class's file
// nor names the class.
func TestImpactThroughReceiverTypes(t *testing.T) {
	for _, tt := range []struct {
		name       string
		base       map[string]string
		path, from string
		to         string
		want       []string
	}{
		{
			name: "callback parameter typed by a handler type",
			base: honoLike, path: "src/context.ts",
			from: "return new Response(String(o));", to: "return new Response(JSON.stringify(o));",
			want: []string{"test/app.ts"},
		},
		{
			name: "a receiver of another class declaring the same member is not one",
			base: honoLike, path: "src/other.ts",
			from: "return '';", to: "return 'x';",
			want: []string{"test/other.ts"},
		},
		{
			name: "functions typed by a declared return type or a variable's annotation",
			base: honoMiddleware, path: "src/context.ts",
			from: "return new Response(String(o));", to: "return new Response(JSON.stringify(o));",
			want: []string{"src/mw/cors.ts", "src/mw/etag.ts", "src/mw/h.ts", "test/app.ts"},
		},
		{
			name: "in a file importing the class, a receiver of another type is not one",
			base: honoOtherReceivers, path: "src/context.ts",
			from: "return new Response(String(o));", to: "return new Response(JSON.stringify(o));",
			want: []string{"src/typed.ts", "test/app.ts"},
		},
		{
			name: "a receiver of a subclass overriding the member is one",
			base: overriding, path: "src/schema.ts",
			from: "return v;", to: "return v ?? null;",
			want: []string{"src/string.ts", "test/string.ts"},
		},
		{
			name: "a member with a common name, where the receiver's type is its class",
			base: honoCommon, path: "src/context.ts",
			from: "this.vars.set(k, v);", to: "this.vars.set(k, v ?? null);",
			want: []string{"src/mw/vars.ts", "test/app.ts"},
		},
		{
			name: "a member with a common name of a class nothing imports lists nothing",
			base: honoCommon, path: "src/lonely.ts",
			from: "this.m.set(k, 1);", to: "this.m.set(k, 2);",
			want: nil,
		},
		{
			name: "an object key passed to a default export's call signature",
			base: kyLike, path: "source/types/options.ts",
			from: "searchParams?: string;", to: "searchParams?: string | URLSearchParams;",
			want: []string{"test/fetch.ts"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			head := strings.Replace(tt.base[tt.path], tt.from, tt.to, 1)
			if head == tt.base[tt.path] {
				t.Fatalf("%q not in %s", tt.from, tt.path)
			}
			wantEvidence(t, tt.base, map[string]string{tt.path: head}, engine.KindImpact, tt.want)
		})
	}
}

// honoMiddleware adds middleware: functions given the handler type by
// the declared return type of the function returning them, or by the
// annotation of the variable they are assigned to.
var honoMiddleware = func() map[string]string {
	m := map[string]string{
		"src/types.ts":   honoLike["src/types.ts"] + "export type MiddlewareHandler = (c: Context, next: () => Promise<void>) => Promise<void>;\n",
		"src/mw/etag.ts": "import type {MiddlewareHandler} from '../types.js';\n\nexport const etag = (): MiddlewareHandler => {\n  return async function etag(c, next) {\n    await next();\n    c.json({});\n  };\n};\n",
		"src/mw/cors.ts": "import type {MiddlewareHandler} from '../types.js';\n\nexport const cors = (): MiddlewareHandler => async (c, next) => {\n  c.json({});\n};\n",
		"src/mw/h.ts":    "import type {MiddlewareHandler} from '../types.js';\n\nexport const h: MiddlewareHandler = async (c, next) => {\n  c.json({});\n};\n",
		"src/mw/loop.ts": "import type {MiddlewareHandler} from '../types.js';\n\nexport const loop = (): MiddlewareHandler => {\n  const o = {json: () => 1};\n  return async (c, next) => {\n    [o].forEach((x) => x.json());\n  };\n};\n",
	}
	for p, s := range honoLike {
		if m[p] == "" {
			m[p] = s
		}
	}
	return m
}()

// honoOtherReceivers imports Context and calls json on it and on values
// of other types.
var honoOtherReceivers = func() map[string]string {
	m := map[string]string{
		"src/typed.ts":   "import type {Context} from './context.js';\n\nexport const f = (c: Context) => c.json({});\n",
		"src/untyped.ts": "import type {Context} from './context.js';\nimport {Other} from './other.js';\n\nexport type C = Context;\nexport const g = (r: Response) => r.json();\nexport const h = (o: Other) => o.json();\n",
	}
	for p, s := range honoLike {
		m[p] = s
	}
	return m
}()

// overriding has a subclass overriding the base class's member in its
// own file, and a test calling it on the subclass.
var overriding = map[string]string{
	"src/schema.ts":  "export class Schema {\n  cast(v: unknown): unknown {\n    return v;\n  }\n}\n",
	"src/string.ts":  "import {Schema} from './schema.js';\n\nexport class StringSchema extends Schema {\n  cast(v: unknown): string {\n    return String(super.cast(v));\n  }\n}\n",
	"src/index.ts":   "import {Schema} from './schema.js';\nimport {StringSchema} from './string.js';\n\nexport {Schema};\nexport const str = (): StringSchema => new StringSchema();\n",
	"test/string.ts": "import {str} from '../src/index.js';\n\nexport const s = str().cast(1);\n",
}

// honoCommon sets the context's variables with set, the common name that
// maps and other classes declare too.
var honoCommon = func() map[string]string {
	m := map[string]string{
		"test/app.ts":    "import {Hono} from '../src/hono.js';\n\nconst app = new Hono();\nconst m = new Map<string, number>();\napp.get('/', (c) => {\n  c.set('k', 1);\n  m.set('k', 1);\n  return c.json({});\n});\n",
		"src/mw/vars.ts": "import type {MiddlewareHandler} from '../types.js';\n\nexport const vars = (): MiddlewareHandler => async (c, next) => {\n  c.set('v', 1);\n  await next();\n};\n",
		"src/mw/map.ts":  "import type {MiddlewareHandler} from '../types.js';\n\nexport const keep = new Map<string, number>();\nexport const count: MiddlewareHandler = async (_c, next) => {\n  keep.set('n', 1);\n  await next();\n};\n",
		"src/lonely.ts":  "export class Lonely {\n  m = new Map<string, number>();\n  set(k: string): void {\n    this.m.set(k, 1);\n  }\n}\n",
	}
	for p, s := range honoMiddleware {
		if m[p] == "" {
			m[p] = s
		}
	}
	return m
}()

// kyLike is a default export made by a function whose declared return type
// is an interface, imported under another name, with a call signature.
var kyLike = map[string]string{
	"source/types/options.ts": "export interface Options {\n  searchParams?: string;\n  retry?: number;\n}\n",
	"source/types/ky.ts":      "import type {Options} from './options.js';\n\nexport interface ky {\n  (url: string, options?: Options): Promise<Response>;\n  get: (url: string, options?: Options) => Promise<Response>;\n}\n",
	"source/index.ts":         "import type {ky as KyInterface} from './types/ky.js';\nimport type {Options} from './types/options.js';\n\nconst createInstance = (defaults?: Partial<Options>): KyInterface => {\n  const ky = (input: string, options?: Options) => fetch(input);\n  return ky as KyInterface;\n};\n\nconst ky = createInstance();\n\nexport default ky;\n",
	"test/fetch.ts":           "import ky from '../source/index.js';\n\nexport const r = ky('/u', {searchParams: 'a'});\n",
	"test/other.ts":           "export const o = {searchParams: 'a'};\n",
}

// gotLike makes its default export by calling a function of another file.
var gotLike = map[string]string{
	"source/create.ts": "export const create = (defaults: object) => {\n  const got = (url: string) => String(defaults) + url;\n  return got;\n};\n\nexport default create;\n",
	"source/index.ts":  "import create from './create.js';\n\nconst defaults = {retry: 2};\n\nconst got = create(defaults);\n\nexport default got;\n",
	"test/get.ts":      "import got from '../source/index.js';\n\nexport const r = got('/u');\n",
	"test/other.ts":    "import {retry} from './retry.js';\n\nexport const r = retry;\n",
	"test/retry.ts":    "export const retry = 2;\n",
}

// A value a changed function makes reaches the files using it, also when
// the file making it changed with the function.
func TestImpactOfMadeValues(t *testing.T) {
	for _, tt := range []struct {
		name  string
		heads map[string]string
		want  []string
	}{
		{
			name:  "the function changed alone",
			heads: map[string]string{"source/create.ts": strings.Replace(gotLike["source/create.ts"], "String(defaults) + url", "String(defaults) + '/' + url", 1)},
			want:  []string{"source/index.ts", "test/get.ts"},
		},
		{
			name: "the file making the value changed too",
			heads: map[string]string{
				"source/create.ts": strings.Replace(gotLike["source/create.ts"], "String(defaults) + url", "String(defaults) + '/' + url", 1),
				"source/index.ts":  strings.Replace(gotLike["source/index.ts"], "retry: 2", "retry: 3", 1),
			},
			want: []string{"test/get.ts"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantEvidence(t, gotLike, tt.heads, engine.KindImpact, tt.want)
		})
	}
}

// Names bound by an object pattern take the types of the members they
// destructure: response (and r) is this.response, the PlainResponse of a
// base class's field, whose rawBody the change reads.
func TestUsesThroughObjectPatterns(t *testing.T) {
	base := map[string]string{
		"source/response.ts": "export interface PlainResponse {\n  rawBody?: Uint8Array;\n}\n",
		"source/base.ts":     "import type {PlainResponse} from './response.js';\n\nexport class Base {\n  response?: PlainResponse;\n}\n",
		"source/other.ts":    "export class Other {\n  rawBody = 1;\n}\n",
		"source/request.ts":  "import {Base} from './base.js';\n\nexport class Request extends Base {\n  run(): number {\n    const {response} = this;\n    const {response: r, ...rest} = this;\n    return 0;\n  }\n}\n",
	}
	for _, tt := range []struct {
		name, from, to string
		want           []string
	}{
		{"a member of this", "return 0;", "return response?.rawBody ? 1 : 0;", []string{"source/response.ts"}},
		{"a renamed member", "return 0;", "return r?.rawBody ? 1 : 0;", []string{"source/response.ts"}},
		{"a rest element is not the member", "return 0;", "return rest.rawBody ? 1 : 0;", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			head := strings.Replace(base["source/request.ts"], tt.from, tt.to, 1)
			wantEvidence(t, base, map[string]string{"source/request.ts": head}, engine.KindUses, tt.want)
		})
	}
}

// A member shorter than lexed.MinMemberLength is used where its
// receiver's type, read across modules, declares it: ky.get is the get of
// the interface ky's file declares; a Map's get names no file.
func TestUsesOfShortMembers(t *testing.T) {
	for _, tt := range []struct {
		name, add string
		want      []string
	}{
		{"a typed receiver", "export const g = ky.get('/u');\n", []string{"source/index.ts", "source/types/ky.ts"}},
		{"an untyped receiver", "const m = new Map<string, number>();\nexport const g = m.get('u');\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			head := kyLike["test/fetch.ts"] + tt.add
			wantEvidence(t, kyLike, map[string]string{"test/fetch.ts": head}, engine.KindUses, tt.want)
		})
	}
}

// A function or method without a declared return type returns the class
// of its body's own return new C(...): init.context() is a Builder2, whose
// create the change calls; a return inside a nested block is not read.
func TestUsesThroughUnannotatedReturns(t *testing.T) {
	base := map[string]string{
		"src/builder.ts":  "import {Builder2} from './builder2.js';\n\nexport class Builder {\n  context() {\n    return new Builder2();\n  }\n  meta() {\n    if (Math.random()) {\n      return new Builder2();\n    }\n    return null;\n  }\n}\n\nexport const init = new Builder();\n",
		"src/builder2.ts": "export class Builder2 {\n  create(): number {\n    return 1;\n  }\n}\n",
		"src/other.ts":    "export class Other {\n  create(): string {\n    return '';\n  }\n}\n",
		"test/app.ts":     "import {init} from '../src/builder.js';\n\nexport const n = 1;\n",
	}
	for _, tt := range []struct {
		name, add string
		want      []string
	}{
		{"a method's return new C", "export const r = init.context().create();\n", []string{"src/builder.ts", "src/builder2.ts"}},
		{"a return in a nested block", "export const r = init.meta().create();\n", []string{"src/builder.ts"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			head := base["test/app.ts"] + tt.add
			wantEvidence(t, base, map[string]string{"test/app.ts": head}, engine.KindUses, tt.want)
		})
	}
}

// barrels re-exports a module through files no index lookup reads by
// place: decorators.ts (export * from) and all.ts (export {..} from
// decorators.ts), each imported by a test; another module declares a
// function of the same name.
var barrels = map[string]string{
	"src/decorator/common/IsIn.ts":  "export function isIn(value: unknown, values: unknown[]): boolean {\n  return values.includes(value);\n}\n",
	"src/decorator/common/Other.ts": "export function isOther(value: unknown): boolean {\n  return !value;\n}\n",
	"src/decorator/decorators.ts":   "export * from './common/Other';\nexport * from './common/IsIn';\n",
	"src/all.ts":                    "export {isIn, isOther} from './decorator/decorators';\n",
	"src/legacy/isIn.ts":            "export function isIn(value: unknown): boolean {\n  return false;\n}\n",
	"test/decorators.spec.ts":       "import {isIn} from '../src/decorator/decorators';\n\nexpect(isIn(1, [1])).toBe(true);\n",
	"test/all.spec.ts":              "import {isOther, isIn} from '../src/all';\n\nexpect(isIn(1, [1])).toBe(true);\n",
	"test/legacy.spec.ts":           "import {isIn} from '../src/legacy/isIn';\n\nexpect(isIn(1)).toBe(false);\n",
	"test/other.spec.ts":            "import {isOther} from '../src/decorator/decorators';\n\nconst isIn = (v: unknown) => v;\nexpect(isOther(isIn(1))).toBe(false);\n",
}

// wideBarrels adds to barrels one re-exporting more modules than the
// reading of types across modules reads (decorators.ts of a validation
// library re-exports a hundred), the changed one last.
var wideBarrels = func() map[string]string {
	m := maps.Clone(barrels)
	var wide strings.Builder
	for i := range 100 {
		fmt.Fprintf(&wide, "export * from './gen/m%d';\n", i)
		m[fmt.Sprintf("src/gen/m%d.ts", i)] = fmt.Sprintf("export const v%d = %d;\n", i, i)
	}
	wide.WriteString("export * from './decorator/string/IsPhone';\n")
	m["src/wide.ts"] = wide.String()
	m["src/decorator/string/IsPhone.ts"] = "export function IsPhone(region?: string): PropertyDecorator {\n  return () => {};\n}\n"
	m["test/phone.spec.ts"] = "import {v1, IsPhone} from '../src/wide';\n\nclass A {\n  @IsPhone('CH')\n  p = v1;\n}\n"
	return m
}()

// A changed function reaches the files importing it from a module that
// re-exports it, whatever that module's name.
func TestImpactThroughNamedBarrels(t *testing.T) {
	for _, tt := range []struct {
		name       string
		base       map[string]string // barrels when nil
		path, from string
		to         string
		want       []string
	}{
		{
			name: "export * from in a barrel, and export {..} from that barrel",
			path: "src/decorator/common/IsIn.ts", from: "return values.includes(value);", to: "return values.some((v) => v === value);",
			// all.ts names isIn in its export clause: a reference too.
			want: []string{"src/all.ts", "test/all.spec.ts", "test/decorators.spec.ts"},
		},
		{
			name: "a module declaring the same name is not the changed one",
			path: "src/legacy/isIn.ts", from: "return false;", to: "return true;",
			want: []string{"test/legacy.spec.ts"},
		},
		{
			name: "a barrel re-exporting a hundred modules, the changed one last",
			base: wideBarrels, path: "src/decorator/string/IsPhone.ts", from: "region?: string", to: "region: string",
			want: []string{"test/phone.spec.ts"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			base := tt.base
			if base == nil {
				base = barrels
			}
			head := strings.Replace(base[tt.path], tt.from, tt.to, 1)
			if head == base[tt.path] {
				t.Fatalf("%q not in %s", tt.from, tt.path)
			}
			wantEvidence(t, base, map[string]string{tt.path: head}, engine.KindImpact, tt.want)
		})
	}
}

// sameNamed declares a class method and a module function of one name,
// the method calling the function, and a test calling the function
// through the package's index.
var sameNamed = map[string]string{
	"src/struct.ts":       "export class Struct<T = unknown> {\n  assert(value: unknown): asserts value is T {\n    return assert(value, this);\n  }\n}\n\nexport function assert<T>(\n  value: unknown,\n  struct: Struct<T>\n): asserts value is T {\n  struct.check(value);\n}\n",
	"src/index.ts":        "export * from './struct';\n",
	"test/typings/any.ts": "import { assert, any } from '../../src';\nimport { test } from '..';\n\ntest<any>((x) => {\n  assert(x, any());\n  return x;\n});\n",
	"test/api/method.ts":  "import { Struct } from '../../src';\n\nnew Struct().assert(1);\n",
}

// A module function named like a method of a class the same file declares
// is reached through indexes as any other module function, also when both
// change.
func TestImpactOfFunctionNamedLikeMethod(t *testing.T) {
	// Both change: the method and the function it calls.
	head := strings.Replace(sameNamed["src/struct.ts"], "  struct: Struct<T>\n", "  struct: Struct<T>,\n  message?: string\n", 1)
	head = strings.Replace(head, "return assert(value, this);", "return assert(value, this, 'no');", 1)
	if head == sameNamed["src/struct.ts"] {
		t.Fatal("no change")
	}
	got := impactFiles(t, sameNamed, map[string]string{"src/struct.ts": head})
	if want := []string{"test/api/method.ts", "test/typings/any.ts"}; !slices.Equal(got, want) {
		t.Errorf("impact = %v, want %v", got, want)
	}
}

// dayLike names its units in a module of short constants, imported as a
// namespace, and another module declares constants of the same names.
var dayLike = map[string]string{
	"src/constant.js": "export const M = 'month';\nexport const Y = 'year';\nexport const MS = 'millisecond';\n",
	"src/units.js":    "export const M = 1;\nexport const Y = 2;\n",
	"src/utils.js":    "import * as C from './constant';\n\nexport const monthDiff = (a, b) => a.diff(b, 'month');\n",
	"src/other.js":    "import { M } from './units';\n\nexport const m = M;\n",
}

// A member of a namespace import is the module's export, whatever its
// length: C.M names constant.js's M; a short member of any other receiver
// names nothing.
func TestUsesOfModuleShortMembers(t *testing.T) {
	for _, tt := range []struct {
		name, add string
		want      []string
	}{
		{"a namespace import's short member", "export const anchor = (a, n) => a.add(n, C.M);\n", []string{"src/constant.js"}},
		{"a local object's short member", "const o = {M: 1};\nexport const anchor = (a, n) => a.add(n, o.M);\n", nil},
		{"a parameter named like the namespace", "export const anchor = (C, n) => C.M + n;\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			head := dayLike["src/utils.js"] + tt.add
			wantEvidence(t, dayLike, map[string]string{"src/utils.js": head}, engine.KindUses, tt.want)
		})
	}
}

// schemaLike exports functions named like TypeScript's keywords through its
// index; another module declares one of those names too.
var schemaLike = map[string]string{
	"src/structs/types.ts": "export function string(): string {\n  return 's';\n}\nexport function type<T>(schema: T): T {\n  return schema;\n}\n",
	"src/index.ts":         "export * from './structs/types';\n",
	"src/legacy.ts":        "export function string(): string {\n  return '';\n}\n",
	"test/valid.ts":        "import { type, string } from '../src';\n\nexport const S = 1;\n",
	"test/plain.ts":        "export const n = 1;\n",
}

// A contextual keyword an import binds (string() of a schema library) is
// a name like any other, looked up in the modules the file imports; the
// keyword of a type annotation names nothing.
func TestUsesOfImportedKeywords(t *testing.T) {
	for _, tt := range []struct {
		name, path, add string
		want            []string
	}{
		{"functions named string and type", "test/valid.ts", "export const T = type({name: string()});\n", []string{"src/structs/types.ts"}},
		{"a type annotation without the import", "test/plain.ts", "export const s: string = 'a';\nexport type T = {a: string};\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			head := schemaLike[tt.path] + tt.add
			wantEvidence(t, schemaLike, map[string]string{tt.path: head}, engine.KindUses, tt.want)
		})
	}
}

// validatorLike passes a decorator's options as an object literal whose
// nested literal implements an interface: its method's parameters take
// their types from that interface.
var validatorLike = map[string]string{
	"src/validation/ValidationArguments.ts":          "export interface ValidationArguments {\n  value: any;\n  constraints: any[];\n}\n",
	"src/validation/ValidatorConstraintInterface.ts": "import { ValidationArguments } from './ValidationArguments';\n\nexport interface ValidatorConstraintInterface {\n  validate(value: any, validationArguments?: ValidationArguments): boolean;\n}\n",
	"src/decorator/common/ValidateBy.ts":             "import { ValidatorConstraintInterface } from '../../validation/ValidatorConstraintInterface';\n\nexport interface ValidateByOptions {\n  name: string;\n  validator: ValidatorConstraintInterface | Function;\n}\n\nexport function ValidateBy(options: ValidateByOptions): PropertyDecorator {\n  return () => {};\n}\n\nexport function run(options: object): void {}\n",
	"src/other.ts":                                   "export interface Other {\n  constraints: string[];\n}\n",
	"src/decorator/object/IsNotEmpty.ts":             "import { ValidateBy, run } from '../common/ValidateBy';\n\nexport function IsNotEmpty(): PropertyDecorator {\n  return ValidateBy({\n    name: 'isNotEmpty',\n    validator: {\n      validate: (value, args): boolean => !!value,\n    },\n  });\n}\n",
}

// A function that is a key's value, or a method, of a literal nested in an
// argument takes its parameters' types from the member of the parameter's
// type: args of validate is a ValidationArguments.
func TestUsesThroughNestedLiterals(t *testing.T) {
	const p = "src/decorator/object/IsNotEmpty.ts"
	for _, tt := range []struct {
		name, from, to string
		want           []string
	}{
		{"an arrow function as a key's value", "validate: (value, args): boolean => !!value,", "validate: (value, args): boolean => !!args.constraints[0],",
			[]string{"src/validation/ValidationArguments.ts"}},
		{"a method of the literal", "validate: (value, args): boolean => !!value,", "validate(value, args) {\n        return !!args.constraints[0];\n      },",
			[]string{"src/validation/ValidationArguments.ts"}},
		{"a literal passed as an untyped parameter", "  return ValidateBy({", "  run({validator: {validate: (v, a) => a.constraints}});\n  return ValidateBy({",
			[]string{"src/decorator/common/ValidateBy.ts"}}, // run's file; a.constraints is nobody's
	} {
		t.Run(tt.name, func(t *testing.T) {
			head := strings.Replace(validatorLike[p], tt.from, tt.to, 1)
			if head == validatorLike[p] {
				t.Fatalf("%q not in %s", tt.from, p)
			}
			wantEvidence(t, validatorLike, map[string]string{p: head}, engine.KindUses, tt.want)
		})
	}
}

// dayAliased keeps its helpers in a default-exported object and uses them
// through a local alias of the default import.
var dayAliased = map[string]string{
	"src/utils.js": "const padStart = (s, n) => s;\n\nexport default {\n  s: padStart,\n};\n",
	"src/other.js": "export default {\n  s: 1,\n};\n",
	"src/index.js": "import U from './utils';\n\nconst Utils = U;\nconst Made = make();\n\nexport const format = (y) => y;\n",
}

// A local alias of an import is a use of the import: Utils.s(...), with
// const Utils = U, uses the default export of U's module.
func TestUsesThroughImportAliases(t *testing.T) {
	for _, tt := range []struct {
		name, from, to string
		want           []string
	}{
		{"an alias of the default import", "export const format = (y) => y;", "export const format = (y) => Utils.s(y, 4);", []string{"src/utils.js"}},
		{"a local made by a call", "export const format = (y) => y;", "export const format = (y) => Made.s(y, 4);", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			head := strings.Replace(dayAliased["src/index.js"], tt.from, tt.to, 1)
			wantEvidence(t, dayAliased, map[string]string{"src/index.js": head}, engine.KindUses, tt.want)
		})
	}
}

// A function or method annotated to return an object type spelled out
// ((i): {status: S; ctx: Ctx}) gives the names destructured from its
// result the types of the members: ctx.data is the data of Ctx, for a
// method inherited from the base class and for a module-level function.
func TestUsesThroughReturnedObjectTypes(t *testing.T) {
	base := map[string]string{
		"src/ctx.ts":   "export interface Ctx {\n  readonly data: unknown;\n}\nexport class Status {\n  dirty(): void {}\n}\n",
		"src/other.ts": "export class Other {\n  data = 1;\n}\n",
		"src/base.ts": "import type {Ctx, Status} from './ctx.js';\n\nexport class Base {\n  params(i: number): {\n    status: Status;\n    readonly ctx?: Ctx;\n  } {\n    return {status: null!, ctx: null!};\n  }\n}\n" +
			"export function split(i: number): {ctx: Ctx, n: number} {\n  return {ctx: null!, n: i};\n}\n",
		"src/object.ts": "import {Base, split} from './base.js';\n\nexport class Obj extends Base {\n  parse(i: number): unknown {\n    const {status, ctx} = this.params(i);\n    const {ctx: c} = split(i);\n    return null;\n  }\n}\n",
	}
	for _, tt := range []struct {
		name, to string
		want     []string
	}{
		{"an inherited method's object type", "return ctx.data;", []string{"src/ctx.ts"}},
		{"a method of a member's type", "status.dirty();\n    return null;", []string{"src/ctx.ts"}},
		{"a function's object type", "return c.data;", []string{"src/ctx.ts"}},
		{"a member the object type lacks", "return ctx.size;", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			head := strings.Replace(base["src/object.ts"], "return null;", tt.to, 1)
			wantEvidence(t, base, map[string]string{"src/object.ts": head}, engine.KindUses, tt.want)
		})
	}
}

// A member used on an added line whose receiver's type another file
// declares is used even where the changed file declares a member of that
// name too, for another class: ctx.data is Ctx's data, not Obj's, nor
// that of the Ctx another file declares; a receiver of unknown type leaves
// the name the changed file's own.
func TestUsesOfMembersNamedLikeOwn(t *testing.T) {
	base := map[string]string{
		"src/ctx.ts":       "export interface Ctx {\n  readonly data: unknown;\n}\n",
		"src/other/ctx.ts": "export interface Ctx {\n  readonly data: number;\n}\nexport const helper = 1;\n",
		"src/object.ts":    "import type {Ctx} from './ctx.js';\nimport {helper} from './other/ctx.js';\n\nexport class Obj {\n  data = helper;\n  parse(ctx: Ctx, x: any): unknown {\n    return null;\n  }\n}\n",
	}
	for _, tt := range []struct {
		name, to string
		want     []string
	}{
		{"a typed receiver", "return ctx.data;", []string{"src/ctx.ts"}},
		{"an untyped receiver", "return x.data;", nil},
		{"this", "return this.data;", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			head := strings.Replace(base["src/object.ts"], "return null;", tt.to, 1)
			wantEvidence(t, base, map[string]string{"src/object.ts": head}, engine.KindUses, tt.want)
		})
	}
}

// A declaration file beside a TypeScript source of the same name
// (getYear/index.d.ts next to getYear/index.ts) is no module of the
// program: its names are neither references nor declarations the change
// reaches; beside a JS source it is the module its importers read.
func TestShadowedDeclarationFiles(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		want      []string
	}{
		{"beside a TypeScript source", "src/getYear/index.ts", []string{"src/index.ts"}},
		{"beside a JS source", "src/getYear/index.js", []string{"src/getYear/index.d.ts", "src/index.ts"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			base := map[string]string{
				tt.src:                   "export default function getYear(d: number): number {\n  return d;\n}\n",
				"package.json":           `{"name": "date-fns", "main": "src/index.ts"}`,
				"src/getYear/index.d.ts": "import {getYear} from 'date-fns';\nexport default getYear;\n",
				"src/index.ts":           "export {default as getYear} from './getYear/index';\n",
			}
			head := strings.Replace(base[tt.src], "return d;", "return d + 1;", 1)
			wantEvidence(t, base, map[string]string{tt.src: head}, engine.KindImpact, tt.want)
		})
	}
}

// A namespace import's name used on an added line stands for its module
// (import * as z from '.': src/index.ts), followed through the imports and
// renaming exports that pass a namespace on (import {z} from '..', whose
// index has import * as mod from './external' and export {mod as z}, or
// export * as z from './external'); a parameter named like it is not it.
func TestUsesOfNamespaceModules(t *testing.T) {
	base := map[string]string{
		"src/external.ts":   "export const str = () => 1;\n",
		"src/index.ts":      "import * as mod from './external';\nexport * from './external';\nexport {mod as z};\n",
		"src/star.ts":       "export * as z from './external';\n",
		"src/play.ts":       "import * as z from '.';\n\nexport const a = 1;\n",
		"src/test/named.ts": "import {z} from '..';\n\nexport const a = 1;\n",
		"src/test/star.ts":  "import {z} from '../star';\n\nexport const a = 1;\n",
	}
	for _, tt := range []struct {
		name, path, add string
		want            []string
	}{
		{"a namespace import", "src/play.ts", "export const b = z.str();\n", []string{"src/external.ts", "src/index.ts"}},
		{"a namespace re-exported renamed", "src/test/named.ts", "export const b = z.str();\n", []string{"src/external.ts"}},
		{"export * as", "src/test/star.ts", "export const b = z.str();\n", []string{"src/external.ts"}},
		{"a parameter named like it", "src/play.ts", "export const b = (z: {str(): number}) => z.str();\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantEvidence(t, base, map[string]string{tt.path: base[tt.path] + tt.add}, engine.KindUses, tt.want)
		})
	}
}

// extIndexes imports a package's index by a specifier with its source
// extension ('../type/index.ts'), the index re-exporting its directories'
// indexes with export * from.
var extIndexes = map[string]string{
	"src/type/index.ts":           "export * from './action/index.ts'\nexport * from './types/index.ts'\n",
	"src/type/action/index.ts":    "export * from './evaluate.ts'\n",
	"src/type/action/evaluate.ts": "export function Evaluate(t: unknown): unknown {\n  return t\n}\n",
	"src/type/types/index.ts":     "export * from './object.ts'\n",
	"src/type/types/object.ts":    "export function IsObject(t: unknown): boolean {\n  return typeof t === 'object'\n}\n",
	"src/value/clean.ts":          "import { Evaluate, IsObject } from '../type/index.ts'\n\nexport function Clean(t: unknown): unknown {\n  return IsObject(t) ? t : null\n}\n",
}

// A name imported from an index by a specifier with its extension is
// declared where the index's re-exports lead, below the index's directory.
func TestUsesThroughExtensionSpecifiers(t *testing.T) {
	head := strings.Replace(extIndexes["src/value/clean.ts"], "return IsObject(t) ? t : null", "return IsObject(t) ? Evaluate(t) : null", 1)
	wantEvidence(t, extIndexes, map[string]string{"src/value/clean.ts": head}, engine.KindUses, []string{"src/type/action/evaluate.ts", "src/type/types/object.ts"})
}

// nsMembers exports a module as a namespace (export * as Type) that
// re-exports its members from the files declaring them.
var nsMembers = map[string]string{
	"src/index.ts":        "export * as Type from './typebox.ts'\n",
	"src/typebox.ts":      "export { String } from './types/string.ts'\nexport { Number } from './types/number.ts'\n",
	"src/types/string.ts": "export function String(): object {\n  return {}\n}\n",
	"src/types/number.ts": "export function Number(): object {\n  return {}\n}\n",
	"test/a.ts":           "import { Type } from '../src/index.ts'\n\nexport const A = Type.Number()\n",
}

// A member reached through a namespace (Type.String()) is used from the
// file declaring it, past the module the namespace names.
func TestUsesOfNamespaceMembers(t *testing.T) {
	head := strings.Replace(nsMembers["test/a.ts"], "Type.Number()", "Type.String()", 1)
	wantEvidence(t, nsMembers, map[string]string{"test/a.ts": head}, engine.KindUses, []string{"src/typebox.ts", "src/types/string.ts"})
}

// defaultNames exports an object of names by default; its importers name
// it N.
var defaultNames = map[string]string{
	"lib/names.ts":        "const names = {\n  data: 'data',\n}\n\nexport default names\n",
	"lib/errors.ts":       "import N from './names'\n\nexport function err(): string {\n  return N.data\n}\n",
	"lib/vocab/ref.ts":    "import N from '../names'\n\nexport const ref = (): string => N.data\n",
	"lib/vocab/other.ts":  "import N from './names'\n\nexport const other = (): string => N.data\n",
	"lib/vocab/names.ts":  "export default {data: 'x'}\n",
	"lib/vocab/unused.ts": "import N from '../names'\n\nexport const unused = 1\n",
}

// A changed object exported by default reaches the files using it under
// the name they import it as, not those importing another module of the
// same name or not using it.
func TestImpactOfDefaultExportImportedRenamed(t *testing.T) {
	head := strings.Replace(defaultNames["lib/names.ts"], "  data: 'data',\n", "  data: 'data',\n  json: 'json',\n", 1)
	wantEvidence(t, defaultNames, map[string]string{"lib/names.ts": head}, engine.KindImpact, []string{"lib/errors.ts", "lib/vocab/ref.ts"})
}

// namedNamespace re-exports two modules as namespaces named Value, each
// declaring Clean; the tests import them by name.
var namedNamespace = map[string]string{
	"src/value/value.ts": "export function Clean(x: number): number {\n  return x\n}\n",
	"src/value/index.ts": "export * as Value from './value'\n",
	"src/other/other.ts": "export function Clean(x: number): number {\n  return -x\n}\n",
	"src/other/index.ts": "export * as Value from './other'\n",
	"test/a.ts":          "import { Value } from '../src/value/index'\n\nexport const a = Value.Clean(1)\n",
	"test/b.ts":          "import { Value } from '../src/other/index'\n\nexport const b = Value.Clean(1)\n",
}

// A changed function is called as the member of a namespace that a file
// imports by name (import {Value}; Value.Clean(...)), and only where that
// name binds the changed module.
func TestImpactThroughNamedNamespaces(t *testing.T) {
	head := strings.Replace(namedNamespace["src/value/value.ts"], "Clean(x: number)", "Clean(x: number, y = 0)", 1)
	wantEvidence(t, namedNamespace, map[string]string{"src/value/value.ts": head}, engine.KindImpact, []string{"test/a.ts"})
}

// nsAssert declares a TypeScript namespace, re-exported by its directory's
// index.
var nsAssert = map[string]string{
	"test/assert/assert.ts": "export namespace Assert {\n  export function IsTrue(v: boolean): void {}\n}\n",
	"test/assert/index.ts":  "export * from './assert'\n",
	"test/array.ts":         "import { Assert } from './assert/index'\n\nexport function run(): void {}\n",
}

// A namespace's name on an added line (Assert.IsTrue(...)) uses the file
// declaring the namespace.
func TestUsesOfDeclaredNamespaces(t *testing.T) {
	head := strings.Replace(nsAssert["test/array.ts"], "run(): void {}", "run(): void {\n  Assert.IsTrue(true)\n}", 1)
	wantEvidence(t, nsAssert, map[string]string{"test/array.ts": head}, engine.KindUses, []string{"test/assert/assert.ts"})
}

// A change inside a namespace's member touches the member, not the
// namespace: the files using the namespace's other members are not
// listed.
func TestImpactInsideNamespaces(t *testing.T) {
	base := map[string]string{
		"test/assert/assert.ts": "export namespace Assert {\n  export function IsTrue(v: boolean): void {}\n  export function Other(): void {}\n}\n",
		"test/assert/index.ts":  "export * from './assert'\n",
		"test/true.ts":          "import { Assert } from './assert/index'\n\nAssert.IsTrue(true)\n",
		"test/other.ts":         "import { Assert } from './assert/index'\n\nAssert.Other()\n",
	}
	head := strings.Replace(base["test/assert/assert.ts"], "IsTrue(v: boolean): void {}", "IsTrue(v: boolean): void {\n    if (!v) throw new Error()\n  }", 1)
	wantEvidence(t, base, map[string]string{"test/assert/assert.ts": head}, engine.KindImpact, []string{"test/true.ts"})
}

// A namespace's changed member is referenced as NS.m: a file importing
// the changed file that calls a Visit of its own, or another namespace's
// Visit, does not reference it.
func TestImpactOfNamespaceMembers(t *testing.T) {
	base := map[string]string{
		"src/typebox.ts": "export namespace IndexedAccessor {\n  export function Visit(key: string): string {\n    return key\n  }\n}\nexport namespace Other {\n  export function Visit(): void {}\n}\n",
		"src/own.ts":     "import { Other } from './typebox'\n\nfunction Visit(): void {}\nVisit()\nOther.Visit()\n",
		"src/uses.ts":    "import { IndexedAccessor } from './typebox'\n\nIndexedAccessor.Visit('a')\n",
	}
	head := strings.Replace(base["src/typebox.ts"], "Visit(key: string): string", "Visit(key: string, n = 0): string", 1)
	wantEvidence(t, base, map[string]string{"src/typebox.ts": head}, engine.KindImpact, []string{"src/uses.ts"})
}
