package gate

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"testing"
)

// v8Case is a snippet with V8's verdict on it (node 20 / V8 11.3), written by
// hand and confirmed against node by TestV8CasesAgreeWithNode when node is
// installed.
type v8Case struct {
	name string
	code string
	ok   bool // V8 compiles it
	fn   bool // wrap as a Function node instead of a Code node
}

var v8Cases = []v8Case{
	// Wrapper behaviour.
	{"trailing line comment", "return items; // done", true, false},
	{"stray }; after a comment", "return items; // done };\n};", false, false},
	{"unclosed block comment", "return items; /* done", false, false},
	{"top-level return and await", "const r = await Promise.resolve(1);\nreturn [{json:{r}}];", true, false},
	{"import statement", "import fs from 'fs';\nreturn [];", false, false},
	{"export statement", "export const a = 1;", false, false},
	{"closing the wrapper", "return 1 }; {", false, false},
	{"function node wrapper", "return items;\n// last", true, true},
	{"function node stray brace", "return items;\n}", false, true},
	// goja rejects, V8 accepts.
	{"for await", "for await (const x of items) { x; }\nreturn items;", true, false},
	{"for await in a sync function", "function f() { for await (const x of y) {} }", false, false},
	{"for await over in", "for await (const x in y) {}", false, false},
	{"for await C style", "for await (;;) {}", false, false},
	{"dynamic import", "const m = await import('node:fs');\nreturn [];", true, false},
	{"dynamic import with options", "const m = await import('x', { with: { type: 'json' } });", true, false},
	{"dynamic import no argument", "import();", false, false},
	{"dynamic import spread", "import(...a);", false, false},
	{"dynamic import three arguments", "import(a, b, c);", false, false},
	{"import.meta in a script", "const u = import.meta.url;", false, false},
	{"new import", "new import('x');", false, false},
	{"HTML open comment", "<!-- a comment\nreturn items;", true, false},
	{"HTML open comment after code", "const a = 1; <!-- comment\nreturn [a];", true, false},
	{"HTML close comment at line start", "const a = 1;\n--> comment\nreturn [a];", true, false},
	{"HTML close comment indented", "const a = 1;\n   --> comment\nreturn [a];", true, false},
	{"HTML close comment after code", "const a = 1; --> comment\nreturn [a];", false, false},
	{"HTML comment in a string", "const s = '<!-- x -->';\nreturn [{json:{s}}];", true, false},
	{"HTML comment closing line", "<!-- Modify the HTML -->\nreturn [];", true, false},
	{"legacy 08.5", "const a = 08.5;\nreturn [a];", true, false},
	{"legacy 09", "const a = 09;", true, false},
	{"legacy 08e1", "const a = 08e1;", true, false},
	{"legacy octal 07", "const a = 07;", true, false},
	{"legacy octal 07.5", "const a = 07.5;", false, false},
	{"legacy 08 strict", "'use strict'; const a = 08;", false, false},
	{"legacy 08n", "const a = 08n;", false, false},
	{"regexp v flag", "const r = /[\\p{L}--[a-z]]/v;", true, false},
	{"regexp v flag string", "const r = /[\\q{abc|d}]/v;", true, false},
	{"regexp v flag bad", "const r = /[a-z&&&]/v;", false, false},
	{"regexp u and v", "const r = /a/uv;", false, false},
	{"regexp d flag", "const r = /a/d;", true, false},
	{"regexp lookbehind", "const r = /(?<=\\$)\\d+/;", true, false},
	{"regexp named group", "const r = /(?<year>\\d{4})-\\k<year>/;", true, false},
	{"regexp annex B brace", "const r = /a{/;", true, false},
	{"regexp annex B ]", "const r = /]/;", true, false},
	{"regexp annex B octal escape", "const r = /\\1(a)/;", true, false},
	{"regexp annex B \\c", "const r = /\\c/;", true, false},
	{"regexp u brace", "const r = /a{/u;", false, false},
	{"regexp possessive", "const r = /a++/;", false, false},
	{"regexp nothing to repeat", "const r = /*a/;", false, false},
	{"regexp unterminated group", "const r = /(a/;", false, false},
	{"regexp unmatched )", "const r = /a)/;", false, false},
	{"regexp bad range", "const r = /[z-a]/;", false, false},
	{"regexp duplicate flag", "const r = /a/gg;", false, false},
	{"regexp unknown flag", "const r = /a/x;", false, false},
	{"regexp inline flags", "const r = /(?i)a/;", false, false},
	{"regexp duplicate group name", "const r = /(?<a>x)(?<a>y)/;", false, false},
	{"regexp bad \\k without groups", "const r = /\\k<a>/;", true, false},
	{"regexp bad \\k with groups", "const r = /\\k<a>(?<b>x)/;", false, false},
	{"regexp \\p without u", "const r = /\\p{L}/;", true, false},
	{"regexp bad \\p with u", "const r = /\\p{Foo}/u;", false, false},
	{"regexp lookahead quantifier annex B", "const r = /(?=a)*/;", true, false},
	{"regexp lookbehind quantifier", "const r = /(?<=a)*/;", false, false},
	{"regexp class escape range", "const r = /[\\d-z]/;", true, false},
	{"regexp class escape range u", "const r = /[\\d-z]/u;", false, false},
	{"regexp big quantifier order", "const r = /a{3,2}/;", false, false},
	{"regexp dotAll and sticky", "const r = /a.b/sy;", true, false},
	{"regexp in a function node", "const r = /(?<n>a)/;\nreturn items;", true, true},
	// goja accepts, V8 rejects (early errors).
	{"duplicate let", "let a = 1;\nlet a = 2;", false, false},
	{"let and var", "let a = 1;\nvar a = 2;", false, false},
	{"duplicate const in block", "{ const a = 1; const a = 2; }", false, false},
	{"duplicate var is fine", "var a = 1; var a = 2;", true, false},
	{"function and let", "function f() {}\nlet f = 1;", false, false},
	{"duplicate function in function body", "function f() {} function f() {}", true, false},
	{"break outside loop", "break;", false, false},
	{"continue outside loop", "continue;", false, false},
	{"undefined label", "for (;;) { break foo; }", false, false},
	{"continue to a block label", "foo: { for (;;) { continue foo; } }", false, false},
	{"duplicate __proto__", "const o = { __proto__: null, __proto__: null };", false, false},
	{"new.target in the wrapper", "const t = new.target;", true, false},
	{"super outside a method", "super.x();", false, false},
	{"assignment to a literal", "1 = 2;", false, false},
	{"prefix increment of a literal", "++1;", false, false},
	{"optional chain assignment", "a?.b = 1;", false, false},
	{"new on optional chain", "new a?.b();", false, false},
	{"octal escape in template", "const s = `\\01`;", false, false},
	{"octal escape in tagged template", "const s = tag`\\01`;", true, false},
	{"octal escape in string", "const s = '\\01';", true, false},
	{"octal escape strict", "'use strict'; const s = '\\01';", false, false},
	{"with statement", "with (Math) { x = PI; }", true, false},
	{"with statement strict", "'use strict'; with (Math) { x = PI; }", false, false},
	{"delete identifier strict", "'use strict'; delete x;", false, false},
	{"await as identifier in async", "const await = 1;", false, false},
	{"yield in generator param default", "function* g(a = yield) {}", false, false},
	{"arrow duplicate params", "const f = (a, a) => a;", false, false},
	{"sloppy duplicate params", "function f(a, a) { return a; }", true, false},
	{"class duplicate constructor", "class A { constructor() {} constructor() {} }", false, false},
	{"class private undeclared", "class A { m() { return this.#x; } }", false, false},
	{"class private in", "class A { #x; static h(o) { return #x in o; } }", true, false},
	{"class static block", "class A { static { this.x = 1; } }", true, false},
	{"super call outside derived", "class A { constructor() { super(); } }", false, false},
	{"getter with a parameter", "const o = { get x(a) { return 1; } };", false, false},
	{"setter without a parameter", "const o = { set x() {} };", false, false},
	{"logical assignment", "let a = null; a ??= 1; a ||= 2; a &&= 3;", true, false},
	{"numeric separator", "const n = 1_000_000;", true, false},
	{"numeric separator trailing", "const n = 1_;", false, false},
	{"bigint", "const n = 10n ** 2n;", true, false},
	{"optional catch binding", "try { x(); } catch { }", true, false},
	{"optional call", "a?.(1)?.[2]?.b;", true, false},
	{"nullish mixed with or", "const v = a ?? b || c;", false, false},
	{"exponent after unary", "const v = -2 ** 2;", false, false},
	{"async arrow", "const f = async (x) => await x;", true, false},
	{"async generator", "async function* g() { yield 1; }", true, false},
	{"labelled function sloppy", "foo: function f() {}", true, false},
	{"if function sloppy", "if (a) function f() {}", true, false},
	{"let as identifier sloppy", "var let = 1;", true, false},
	{"lexical declaration in if", "if (a) let b = 1;", false, false},
	{"escaped keyword", "var v\\u0061r = 1;", false, false},
	{"invalid unicode escape", "const s = '\\u{110000}';", false, false},
	{"legacy \\8 string", "const s = '\\8';", true, false},
	{"hashbang inside", "#!/bin/node\nreturn 1;", false, false},
	{"unterminated string", "const s = 'abc;\nreturn s;", false, false},
	{"unterminated template", "const s = `abc;\nreturn s;", false, false},
	{"regex in html string", "const h = '<a href=\"x\">' + /a\\/b/.source;", true, false},
	{"arguments in class field", "class A { x = arguments; }", false, false},
	{"await in class static block", "class A { static { await 1; } }", false, false},
	{"use strict reserved word", "'use strict'; var interface = 1;", false, false},
	{"top level using", "using x = y;", false, false},
	{"decorators", "@dec class A {}", false, false},
	{"regexp unicode sets in class", "const r = /[a&&b]/;", true, false},
	{"regexp quantified lookahead u", "const r = /(?=a)*/u;", false, false},
	{"regexp escape dash in class u", "const r = /[\\-]/u;", true, false},
	{"regexp identity escape u", "const r = /\\a/u;", false, false},
	{"regexp identity escape", "const r = /\\a/;", true, false},
	{"regexp slash in class", "const r = /[/]/;", true, false},
	{"regexp line break", "const r = /a\n/;", false, false},
	{"division not regexp", "const a = b / c / d;", true, false},
	// Classes found by TestDifferentialMutations (mutated corpus snippets).
	{"HTML open comment mid-expression", "const t = (a.b<!--c || '');\nreturn [t];", false, false},
	{"HTML open comment ends a line", "let o = { a: 'x'<!--\n};\nreturn [o];", true, false},
	{"HTML open comment inside an identifier", "let a = 1;\nlet b = a<!--ab += 1;\nreturn [b];", true, false},
	{"HTML open comment in a regexp", "let x;\n/<!--/ Format\nreturn [];", false, false},
	{"identifier ending in for before await", "$for await ('x');", false, false},
	{"regexp cut by a line end", "x;\n/[/ foo;\nbar", false, false},
	{"regexp with a slash in a class", "const r = /[/]+/g;\nreturn [];", true, false},
	{"regexp after paren", "if (/x/.test(s)) {}", true, false},
}

// undecidedCases are snippets the gate declares undecided, with V8's verdict
// (confirmed by TestV8CasesAgreeWithNode): the gate must not guess them.
var undecidedCases = []v8Case{
	{"assignment to a call", "f() = 1;", true, false},
	{"compound assignment to a call", "obj.get('x') += 1;", true, false},
	{"unknown script value", "const r = /\\p{Script=Foo}/u;", false, false},
	{"let as an identifier before a line break", "let\nconst match = 1;", true, false},
	{"await as an identifier in a sloppy function", "function f() {\n const a = 1;await\n const b = 2;\n}", true, false},
	{"script value newer than the gate's tables", "const r = /\\p{sc=Garay}/u;", true, false},
}

// TestUndecidedCases checks that the gate says undecided, with a reason and
// a position, where it cannot know V8's verdict.
func TestUndecidedCases(t *testing.T) {
	for _, c := range undecidedCases {
		t.Run(c.name, func(t *testing.T) {
			res := checkCode(KindCode, c.code)
			if res.Verdict != VerdictUndecided || res.Message == "" || res.Line == 0 {
				t.Errorf("checkCode(%q) = %+v, want undecided with a reason and a position", c.code, res)
			}
		})
	}
}

// TestV8Cases checks the gate's verdict on every hand-written case.
func TestV8Cases(t *testing.T) {
	for _, c := range v8Cases {
		t.Run(c.name, func(t *testing.T) {
			kind := KindCode
			if c.fn {
				kind = KindFunction
			}
			res := checkCode(kind, c.code)
			want := VerdictSyntaxError
			if c.ok {
				want = VerdictOK
			}
			if res.Verdict != want {
				t.Errorf("checkCode(%q) = %s (%s at %d:%d), V8 says %s", c.code, res.Verdict, res.Message, res.Line, res.Column, want)
			}
		})
	}
}

// TestV8CasesAgreeWithNode confirms the expected verdicts of v8Cases with the
// node on this machine (skipped when there is none).
func TestV8CasesAgreeWithNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	type in struct {
		Kind string `json:"kind"`
		Code string `json:"code"`
	}
	var input []in
	all := append(append([]v8Case{}, v8Cases...), undecidedCases...)
	for _, c := range all {
		k := "code"
		if c.fn {
			k = "function"
		}
		input = append(input, in{k, c.code})
	}
	body, _ := json.Marshal(input)
	cmd := exec.Command(node, "testdata/v8verdicts.mjs")
	cmd.Stdin = bytes.NewReader(body)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var got []struct {
		OK      bool   `json:"ok"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(out, &got); err != nil || len(got) != len(all) {
		t.Fatalf("node output: %v (%d results)", err, len(got))
	}
	for i, c := range all {
		if got[i].OK != c.ok {
			t.Errorf("%s: expected ok=%v but node says ok=%v %s", c.name, c.ok, got[i].OK, got[i].Message)
		}
	}
}
