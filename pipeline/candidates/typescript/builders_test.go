package typescript

import (
	"maps"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// owLike is a predicate builder: predicate classes in one module each, an
// interface of getters typed by them, and an entry exporting by default a
// cast of what a function makes.
var owLike = map[string]string{
	"source/predicates/predicate.ts": "export class Predicate<T> {\n  addValidator(v: unknown): this {\n    return this;\n  }\n  get not(): this {\n    return this;\n  }\n}\n",
	"source/predicates/weak-map.ts":  "import {Predicate} from './predicate';\n\nexport class WeakMapPredicate extends Predicate<object> {\n  hasKeys(...keys: string[]) {\n    return this.addValidator(keys);\n  }\n}\n",
	"source/predicates.ts":           "import {WeakMapPredicate} from './predicates/weak-map';\n\nexport interface Predicates {\n  readonly weakMap: WeakMapPredicate;\n}\n\nexport default <T>(object: T): T & Predicates => {\n  return object as T & Predicates;\n};\n",
	"source/index.ts":                "import predicates, {Predicates} from './predicates';\n\nexport interface Ow extends Predicates {\n  isValid(v: unknown): boolean;\n}\n\nconst ow = (value: unknown) => {\n  return value;\n};\n\nexport default predicates(ow) as Ow;\n",
	"test/weak-map.ts":               "import ow from '../source';\n\nconst keys = [1];\n",
}

// A module's default export of an expression cast to a type (export
// default predicates(ow) as Ow) has that type where it is imported under
// another name, by a default import or as {default as ow} (not the
// module's own const ow, the value before its cast); a member returning
// its receiver (get not(): this), reached through a subclass, leaves the
// subclass, whose own members follow.
func TestUsesThroughDefaultExportsAndSelfReturns(t *testing.T) {
	for _, tt := range []struct {
		name, imp, line string
		want            []string
	}{
		{"default export cast", "", "ow(1, ow.weakMap.hasKeys('a'));\n",
			[]string{"source/index.ts", "source/predicates.ts", "source/predicates/weak-map.ts"}},
		{"imported as {default as ow}", "import {default as ow} from '../source';", "ow(1, ow.weakMap.hasKeys('a'));\n",
			[]string{"source/index.ts", "source/predicates.ts", "source/predicates/weak-map.ts"}},
		{"this through a subclass", "", "ow(1, ow.weakMap.not.hasKeys('a'));\n",
			[]string{"source/index.ts", "source/predicates.ts", "source/predicates/predicate.ts", "source/predicates/weak-map.ts"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			base := maps.Clone(owLike)
			if tt.imp != "" {
				base["test/weak-map.ts"] = strings.Replace(base["test/weak-map.ts"], "import ow from '../source';", tt.imp, 1)
			}
			head := base["test/weak-map.ts"] + tt.line
			wantEvidence(t, base, map[string]string{"test/weak-map.ts": head}, engine.KindUses, tt.want)
		})
	}
}

// vineLike is a schema builder: a base class whose rules return this, a
// string schema's methods returning this.use(...) unannotated, and a
// builder making schemas.
var vineLike = map[string]string{
	"src/base.ts":          "export class BaseType {\n  use(v: unknown): this {\n    return this;\n  }\n  optional() {\n    this.opt = true;\n    return this;\n  }\n  email(o?: object) {\n    return this.use(o);\n  }\n  parsed() {\n    return this.parse(1).value;\n  }\n}\n",
	"src/string.ts":        "import {BaseType} from './base';\n\nexport class VineString extends BaseType {\n  min(n: number) {\n    return this.use(n);\n  }\n}\n",
	"src/builder.ts":       "import {VineString} from './string';\n\nexport class SchemaBuilder {\n  string() {\n    return new VineString();\n  }\n}\n",
	"tests/string.spec.ts": "import {SchemaBuilder} from '../src/builder';\n\nconst vine = new SchemaBuilder();\n",
}

// An unannotated method returning its receiver (return this, or a
// builder's return this.use(rule)) returns its class, so the next link of
// a chain (vine.string().email().min(3): min, a name too short to search
// alone) is the subclass's member; a method returning a member of what
// it calls (return this.parse(1).value) is no such method.
func TestUsesThroughUnannotatedSelfReturns(t *testing.T) {
	for _, tt := range []struct {
		name, line string
		want       []string
	}{
		{"return this", "vine.string().optional().min(3);\n", []string{"src/base.ts", "src/builder.ts", "src/string.ts"}},
		{"return this.use(...)", "vine.string().email().min(3);\n", []string{"src/base.ts", "src/builder.ts", "src/string.ts"}},
		{"return this.m(...).x", "vine.string().parsed().min(3);\n", []string{"src/base.ts", "src/builder.ts"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			head := vineLike["tests/string.spec.ts"] + tt.line
			wantEvidence(t, vineLike, map[string]string{"tests/string.spec.ts": head}, engine.KindUses, tt.want)
		})
	}
}

// vineFields is a builder whose fields hold what its modules export: a
// function with members set on it, and an object of helpers (no
// semicolons, as the library writes it).
var vineFields = map[string]string{
	"src/vine/helpers.ts":         "export const helpers = {\n  isString(v: unknown): boolean {\n    return typeof v === 'string'\n  },\n}\n",
	"src/schema/group_builder.ts": "export function group(c: unknown[]) {\n  return c\n}\n\ngroup.if = function groupIf(c: unknown) {\n  return c\n}\n",
	"src/schema/builder.ts":       "import {group} from './group_builder'\nimport {helpers} from '../vine/helpers'\n\nexport class SchemaBuilder {\n  group = group\n  helpers = helpers\n  string() {\n    return 1\n  }\n}\n",
	"src/vine/main.ts":            "import {SchemaBuilder} from '../schema/builder'\n\nexport class Vine extends SchemaBuilder {\n  validate() {\n    return 1\n  }\n}\nexport const vine = new Vine()\n",
	"tests/object.spec.ts":        "import {vine} from '../src/vine/main'\n\n",
}

// A field holding a module's value (group = group, helpers = helpers, the
// names imported) has that value's members: vine.helpers.isString(...)
// uses the module declaring helpers, vine.group.if(...) the one setting
// group.if.
func TestUsesThroughFieldsHoldingModuleValues(t *testing.T) {
	for _, tt := range []struct {
		line string
		want []string
	}{
		{"vine.helpers.isString(1)\n", []string{"src/schema/builder.ts", "src/vine/helpers.ts", "src/vine/main.ts"}},
		{"vine.group.if(1)\n", []string{"src/schema/builder.ts", "src/schema/group_builder.ts", "src/vine/main.ts"}},
		{"vine.validate()\n", []string{"src/vine/main.ts"}},
	} {
		t.Run(tt.line, func(t *testing.T) {
			head := vineFields["tests/object.spec.ts"] + tt.line
			wantEvidence(t, vineFields, map[string]string{"tests/object.spec.ts": head}, engine.KindUses, tt.want)
		})
	}
}

// yupLike is a schema library whose index imports each module's create
// under another name and exports it under a third, a contextual keyword
// (import {create as stringCreate}; export {stringCreate as string}).
var yupLike = map[string]string{
	"src/schema.ts":  "export default abstract class Schema<T = any> {\n  clone(): this {\n    return this;\n  }\n  required(message?: string): this {\n    return this.clone();\n  }\n}\n",
	"src/string.ts":  "import Schema from './schema';\n\nexport function create(): StringSchema;\nexport function create() {\n  return new StringSchema();\n}\n\nexport default class StringSchema extends Schema<string> {\n  trim() {\n    return this.clone();\n  }\n}\n",
	"src/index.ts":   "import Schema from './schema';\nimport StringSchema, { create as stringCreate } from './string';\n\nexport { stringCreate as string, Schema, StringSchema };\n",
	"test/string.ts": "import { string } from '../src';\n\nexport const base = string();\n",
}

// A name an index imports renamed and exports renamed again leads to the
// declaration it names twice removed (string is string.ts's create): an
// added line calling it uses that module, what the call returns has the
// module's class (string().required(): the class's base, exported by
// default as an abstract class, declares required), even named like a
// keyword.
func TestThroughNamesRenamedTwice(t *testing.T) {
	for _, tt := range []struct {
		line string
		want []string
	}{
		{"string();\n", []string{"src/string.ts"}},
		{"string().required();\n", []string{"src/schema.ts", "src/string.ts"}},
	} {
		t.Run(tt.line, func(t *testing.T) {
			head := yupLike["test/string.ts"] + tt.line
			wantEvidence(t, yupLike, map[string]string{"test/string.ts": head}, engine.KindUses, tt.want)
		})
	}
}

// A class merged with a namespace of its name (class Runtype {...};
// namespace Runtype {...}) keeps its members: a changed method is
// referenced through the class's instances (R.guard(...), R made by
// another module's function returning a Runtype), not as Runtype.guard
// only.
func TestImpactOfClassMergedWithNamespace(t *testing.T) {
	base := map[string]string{
		"src/Runtype.ts":    "class Runtype {\n  guard(x: unknown): boolean {\n    return true;\n  }\n}\n\nnamespace Runtype {\n  export type Core = Runtype;\n}\n\nexport default Runtype;\n",
		"src/Array.ts":      "import Runtype from './Runtype';\n\nexport default function Arr(): Runtype {\n  return new Runtype();\n}\n",
		"src/Array.test.ts": "import Arr from './Array';\n\nconst R = Arr();\nR.guard(1);\n",
	}
	head := strings.Replace(base["src/Runtype.ts"], "return true;", "return x !== undefined;", 1)
	wantEvidence(t, base, map[string]string{"src/Runtype.ts": head}, engine.KindImpact, []string{"src/Array.test.ts"})
}

// An index re-exporting another module's default under a name (export
// {default as Options} from './options') while exporting its own default
// (export default got) leads a use of Options to the module declaring it,
// not to the index: with that module changed too, nothing is listed.
func TestUsesOfReexportedDefaults(t *testing.T) {
	base := map[string]string{
		"src/options.ts":  "export default class Options {\n  merge(o: object): void {}\n}\n",
		"src/index.ts":    "import Options from './options';\n\nconst got = {options: new Options()};\n\nexport default got;\nexport {default as Options} from './options';\n",
		"test/options.ts": "import {Options} from '../src/index';\n\n",
	}
	heads := map[string]string{
		"test/options.ts": base["test/options.ts"] + "export const o = new Options();\n",
		"src/options.ts":  strings.Replace(base["src/options.ts"], "merge(o: object): void {}", "merge(o: object): void {\n    return;\n  }", 1),
	}
	wantEvidence(t, base, heads, engine.KindUses, nil)
}

// A touched top-level declaration named by a contextual keyword (a
// locale module's export let string = {...}, a struct library's export
// function string()) is referenced by the files importing it, renamed or
// not (import {string as locale}), found through the module's name: the
// word itself is in nearly every file. A file importing another name of
// the module, or an index re-exporting all of it, does not reference it.
func TestImpactOfKeywordNamedDeclarations(t *testing.T) {
	base := map[string]string{
		"src/locale.ts":     "export let mixed = {\n  required: 'is required',\n};\n\nexport let string = {\n  min: 'too short',\n};\n",
		"src/string.ts":     "import {string as locale} from './locale';\n\nexport const message = locale.min;\n",
		"src/mixed.ts":      "import {mixed} from './locale';\n\nexport const required = mixed.required;\n",
		"src/number.ts":     "export function check(n: number, s: string): string {\n  return s;\n}\n",
		"src/structs.ts":    "export function string(): number {\n  return 1;\n}\n",
		"src/index.ts":      "export * from './structs';\n",
		"test/structs.ts":   "import {string} from '../src/structs';\n\nexport const s = string();\n",
		"test/unrelated.ts": "export function f(s: string): string {\n  return s;\n}\n",
	}
	for _, tt := range []struct {
		path, from, to string
		want           []string
	}{
		{"src/locale.ts", "min: 'too short',", "min: 'is too short',", []string{"src/string.ts"}},
		{"src/structs.ts", "return 1;", "return 2;", []string{"test/structs.ts"}},
	} {
		t.Run(tt.path, func(t *testing.T) {
			head := strings.Replace(base[tt.path], tt.from, tt.to, 1)
			wantEvidence(t, base, map[string]string{tt.path: head}, engine.KindImpact, tt.want)
		})
	}
}

// A default import is no renamed name: the module it names exports it by
// default (usesIn), and the declaration file beside that module, which the
// reading of types may reach first, is not listed for it.
func TestUsesOfDefaultImportsNotRenamed(t *testing.T) {
	base := map[string]string{
		"src/locale/en-US/index.js":   "const locale = {code: 'en-US'};\nexport default locale;\n",
		"src/locale/en-US/index.d.ts": "declare const locale: object;\nexport default locale;\n",
		"src/format/index.ts":         "import defaultLocale from '../locale/en-US/index';\n\n",
	}
	head := base["src/format/index.ts"] + "export const code = defaultLocale;\n"
	wantEvidence(t, base, map[string]string{"src/format/index.ts": head}, engine.KindUses, []string{"src/locale/en-US/index.js"})
}

// A changed function an index exports under another name (create, exported
// as string: imported and exported renamed, or renamed in one export
// clause) is called where its exported name is, even renamed again by the
// importing file or reached as a member of a namespace import of the index
// (yup.string()); a file calling another module's create is not.
func TestImpactOfFunctionsExportedRenamed(t *testing.T) {
	reexported := maps.Clone(yupLike)
	reexported["src/index.ts"] = "import Schema from './schema';\nexport { create as string, default as StringSchema } from './string';\nexport { Schema };\n"
	renamedAgain := maps.Clone(yupLike)
	renamedAgain["test/string.ts"] = "import { string as str } from '../src';\n\nexport const base = str();\n"
	namespaced := maps.Clone(yupLike)
	namespaced["test/string.ts"] = "import * as yup from '../src';\n\nexport const base = yup.string();\n"
	for _, tt := range []struct {
		name string
		base map[string]string
		want []string
	}{
		{"imported renamed, exported renamed", yupLike, []string{"src/index.ts", "test/string.ts"}},
		{"renamed in an export clause", reexported, []string{"src/index.ts", "test/string.ts"}},
		{"renamed again by the importer", renamedAgain, []string{"src/index.ts", "test/string.ts"}},
		{"a member of a namespace import", namespaced, []string{"src/index.ts", "test/string.ts"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			base := maps.Clone(tt.base)
			base["src/number.ts"] = "export function create() {\n  return 1;\n}\n"
			base["test/number.ts"] = "import { create } from '../src/number';\n\nexport const n = create();\n"
			head := strings.Replace(base["src/string.ts"], "  return new StringSchema();", "  return new StringSchema().trim();", 1)
			wantEvidence(t, base, map[string]string{"src/string.ts": head}, engine.KindImpact, tt.want)
		})
	}
}

// A declaration named like a contextual keyword is referenced through a
// namespace import of its module, or of an index re-exporting it (t.type,
// s.string()): those files are found by the names of the module and of
// its indexes; a file using another member of the namespace does not
// reference it.
func TestImpactOfKeywordNamedDeclarationsThroughNamespaces(t *testing.T) {
	base := map[string]string{
		"src/index.ts":    "export * from './structs';\n\nexport const type = (props: object) => {\n  return props;\n};\n\nexport const other = 1;\n",
		"src/structs.ts":  "export function string(): number {\n  return 1;\n}\n",
		"test/type.ts":    "import * as t from '../src';\n\nexport const T = t.type({});\n",
		"test/string.ts":  "import * as s from '../src';\n\nexport const S = s.string();\n",
		"test/other.ts":   "import * as t from '../src';\n\nexport const o = t.other;\n",
		"test/foreign.ts": "import * as t from 'other-lib';\n\nexport const T = t.type({});\n",
	}
	for _, tt := range []struct {
		path, from, to string
		want           []string
	}{
		{"src/index.ts", "return props;", "return {...props};", []string{"test/type.ts"}},
		{"src/structs.ts", "return 1;", "return 2;", []string{"test/string.ts"}},
	} {
		t.Run(tt.path, func(t *testing.T) {
			head := strings.Replace(base[tt.path], tt.from, tt.to, 1)
			wantEvidence(t, base, map[string]string{tt.path: head}, engine.KindImpact, tt.want)
		})
	}
}

// A member named like a contextual keyword (readonly type: 'max_value')
// overriding a supertype's member reaches that member, the other
// interfaces declaring it over the same supertype, and the member
// accesses whose receiver has the supertype (issue.type); another type's
// member of the name is not reached.
func TestImpactOfKeywordNamedMembersThroughSupertypes(t *testing.T) {
	base := map[string]string{
		"src/types/issue.ts":   "export interface BaseIssue<T> {\n  readonly input: T;\n  readonly type: string;\n}\n",
		"src/actions/max.ts":   "import type { BaseIssue } from '../types/issue';\n\nexport interface MaxIssue extends BaseIssue<number> {\n  readonly type: 'max_value';\n}\n",
		"src/actions/min.ts":   "import type { BaseIssue } from '../types/issue';\n\nexport interface MinIssue extends BaseIssue<number> {\n  readonly type: 'min_value';\n}\n",
		"src/utils/flatten.ts": "import type { BaseIssue } from '../types/issue';\n\nexport function flatten(issue: BaseIssue<unknown>): string {\n  return issue.type;\n}\n",
		"src/other.ts":         "export interface Other {\n  readonly type: string;\n}\n",
		"test/other.ts":        "import type { Other } from '../src/other';\n\nexport function f(o: Other): string {\n  return o.type;\n}\n",
	}
	head := strings.Replace(base["src/actions/max.ts"], "'max_value'", "'max'", 1)
	wantEvidence(t, base, map[string]string{"src/actions/max.ts": head}, engine.KindImpact,
		[]string{"src/actions/min.ts", "src/types/issue.ts", "src/utils/flatten.ts"})
}

// valibotLike returns an object literal from a function whose declared
// return type extends an interface declaring the literal's method under a
// quoted name: the method's parameters take that member's parameter
// types.
var valibotLike = map[string]string{
	"src/types/dataset.ts":    "export interface SuccessDataset<T> {\n  typed: true;\n  value: T;\n}\n\nexport interface FailureDataset {\n  typed: false;\n  value: unknown;\n}\n\nexport type OutputDataset<T> = SuccessDataset<T> | FailureDataset;\n",
	"src/types/validation.ts": "import type { OutputDataset } from './dataset';\n\nexport interface BaseValidation<T> {\n  readonly kind: 'validation';\n  '~validate'(dataset: OutputDataset<T>, config: object): OutputDataset<T>;\n}\n",
	"src/types/other.ts":      "export interface Other {\n  typed: boolean;\n}\n",
	"src/actions/email.ts":    "import type { BaseValidation } from '../types/validation';\n\nexport interface EmailAction extends BaseValidation<string> {\n  readonly requirement: RegExp;\n}\n\nexport function email(): EmailAction {\n  return {\n    kind: 'validation',\n    requirement: /@/,\n    '~validate'(dataset, config) {\n      return dataset;\n    },\n  };\n}\n",
}

// A method of an object literal a function returns takes its parameters'
// types from the function's declared return type, through the supertypes
// declaring the method, also when the method's name is quoted
// ('~validate'(dataset, config)): a member used on them (dataset.typed)
// is the declaring type's, not another type's member of the name.
func TestUsesThroughReturnedLiteralMethods(t *testing.T) {
	head := strings.Replace(valibotLike["src/actions/email.ts"], "      return dataset;\n", "      if (dataset.typed) {\n        return dataset;\n      }\n      return dataset;\n", 1)
	wantEvidence(t, valibotLike, map[string]string{"src/actions/email.ts": head}, engine.KindUses, []string{"src/types/dataset.ts"})
}

// A module importing the changed one as a namespace (import * as D) and
// declaring a top-level name of its own like a changed one (export const
// record = C.record; {record}) refers to its own declaration by the bare
// name: only D.record is the changed one.
func TestImpactOfNamesAModuleDeclaresToo(t *testing.T) {
	base := map[string]string{
		"src/Decoder.ts":   "export const record = (x: number) => x;\n\nexport const other = 1;\n",
		"src/JsonCodec.ts": "import * as D from './Decoder';\n\nexport const record = (x: number) => D.other + x;\n\nexport const codec = { record };\n",
		"src/Guard.ts":     "import * as D from './Decoder';\n\nexport const guard = { record: D.record };\n",
		"test/Decoder.ts":  "import * as D from '../src/Decoder';\n\nD.record(1);\n",
	}
	head := strings.Replace(base["src/Decoder.ts"], "=> x;", "=> x + 1;", 1)
	wantEvidence(t, base, map[string]string{"src/Decoder.ts": head}, engine.KindImpact, []string{"src/Guard.ts", "test/Decoder.ts"})
}

// A method shorthand of an object literal declared as an interface
// (const def: KeywordDefinition = {code(cxt) {...}}) sets that member as
// a key with a value does; a member of the name called on a receiver of
// another type inside it (gen.code(...), gen a CodeGen) is not the
// interface's.
func TestImpactOfMembersSetByMethodShorthand(t *testing.T) {
	base := map[string]string{
		"lib/types.ts":        "import type { CodeGen } from './codegen';\n\nexport interface KeywordContext {\n  gen: CodeGen;\n}\n\nexport interface KeywordDefinition {\n  keyword: string;\n  code?: (cxt: KeywordContext) => void;\n}\n",
		"lib/codegen.ts":      "export class CodeGen {\n  code(s: string): void {}\n}\n",
		"lib/vocab/anyOf.ts":  "import type { KeywordDefinition } from '../types';\n\nconst def: KeywordDefinition = {\n  keyword: 'anyOf',\n  code(cxt) {\n    const { gen } = cxt;\n    gen.code('x');\n  },\n};\n\nexport default def;\n",
		"lib/vocab/const.ts":  "import type { KeywordDefinition } from '../types';\n\nconst def: KeywordDefinition = {\n  keyword: 'const',\n  code: (cxt) => {},\n};\n\nexport default def;\n",
		"lib/vocab/format.ts": "import { CodeGen } from '../codegen';\n\nexport function format(gen: CodeGen) {\n  gen.code('y');\n}\n",
	}
	head := strings.Replace(base["lib/types.ts"], "  code?: (cxt: KeywordContext) => void;", "  code?: (cxt: KeywordContext, ruleType?: string) => void;", 1)
	wantEvidence(t, base, map[string]string{"lib/types.ts": head}, engine.KindImpact, []string{"lib/vocab/anyOf.ts", "lib/vocab/const.ts"})
}

// A changed method overriding a base class's member through an
// intermediate class (PrimitiveConstraint extends BaseConstraint extends
// BaseNode) reaches the other classes overriding it below the same base,
// whatever class between them; a class of another hierarchy declaring a
// method of the name is none of them.
func TestImpactOfOverridesThroughIntermediateClasses(t *testing.T) {
	base := map[string]string{
		"schema/node.ts":       "export abstract class BaseNode {\n  compile(js: string): void {}\n}\n",
		"schema/constraint.ts": "import { BaseNode } from './node';\n\nexport abstract class BaseConstraint extends BaseNode {\n  impliedBy = [];\n}\n",
		"schema/primitive.ts":  "import { BaseConstraint } from './constraint';\n\nexport class PrimitiveConstraint extends BaseConstraint {\n  compile(js: string): void {\n    js.trim();\n  }\n}\n",
		"schema/predicate.ts":  "import { BaseConstraint } from './constraint';\n\nexport class PredicateNode extends BaseConstraint {\n  compile(js: string): void {}\n}\n",
		"schema/other.ts":      "export class Other {\n  compile(js: string): void {}\n}\n",
	}
	head := strings.Replace(base["schema/primitive.ts"], "js.trim();", "js.trimEnd();", 1)
	wantEvidence(t, base, map[string]string{"schema/primitive.ts": head}, engine.KindImpact, []string{"schema/node.ts", "schema/predicate.ts"})
}
