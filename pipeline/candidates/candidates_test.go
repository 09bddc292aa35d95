package candidates

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

// memTree is a Tree over files (path -> content), searched as git grep
// searches them.
func memTree(files map[string]string) Tree { return pipelinetest.NewTree(files) }

// lineDiff returns the head-side added and base-side removed line numbers
// of a line diff of old and new (longest common subsequence).
func lineDiff(old, new string) (added, removed []int) {
	a, b := splitLines(old), splitLines(new)
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			added = append(added, j+1)
			j++
		default:
			removed = append(removed, i+1)
			i++
		}
	}
	return added, removed
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// repo is a test repository at the base, and the files the change rewrites.
type repo struct {
	base    map[string]string
	changed map[string]string // head content; "" deletes
	tree    func(Tree) Tree   // wraps the head's tree (nil: none)
}

// run applies the change, builds the Changes from a line diff and runs Find.
func (r repo) run(t *testing.T) []Candidate {
	t.Helper()
	tree, changes := r.apply()
	got, err := Find(context.Background(), tree, changes, Options{})
	if err != nil {
		t.Fatalf("Find: %v", err)
	}
	return got
}

// apply applies the change: the head's tree, and the Changes built from a
// line diff.
func (r repo) apply() (Tree, []Change) {
	head := map[string]string{}
	for p, s := range r.base {
		head[p] = s
	}
	var changes []Change
	paths := make([]string, 0, len(r.changed))
	for p := range r.changed {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		src := r.changed[p]
		old, existed := r.base[p]
		c := Change{Path: p, Status: StatusModified}
		switch {
		case src == "":
			delete(head, p)
			c.Status = StatusDeleted
			c.Old = []byte(old)
		case !existed:
			head[p] = src
			c.Status = StatusAdded
			c.New = []byte(src)
		default:
			head[p] = src
			c.Old, c.New = []byte(old), []byte(src)
		}
		c.AddedLines, c.RemovedLines = lineDiff(old, src)
		changes = append(changes, c)
	}
	var tree Tree = memTree(head)
	if r.tree != nil {
		tree = r.tree(tree)
	}
	return tree, changes
}

type want struct {
	path   string
	kind   Kind
	method Method
	reason string // a part of the reason
}

func check(t *testing.T, got []Candidate, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		t.Fatalf("got %d candidates, want %d:\n%s", len(got), len(wants), dump(got))
	}
	for i, w := range wants {
		g := got[i]
		if g.Path != w.path || g.Kind != w.kind || g.Method != w.method || !strings.Contains(g.Reason, w.reason) {
			t.Errorf("candidate %d = %s %s %s %q, want %s %s %s containing %q\n%s", i, g.Path, g.Kind, g.Method, g.Reason,
				w.path, w.kind, w.method, w.reason, dump(got))
		}
		if g.Score <= 0 || g.Score > 1 || len(g.Symbols) == 0 {
			t.Errorf("candidate %d: score %v, symbols %v", i, g.Score, g.Symbols)
		}
	}
}

func dump(cs []Candidate) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString("  " + c.Path + " " + string(c.Kind) + " " + string(c.Method) + ": " + c.Reason + "\n")
	}
	return b.String()
}

const goMod = "module example.com/app\n\ngo 1.22\n"

const commandGo = `package cmd

import "strings"

// Command is a command.
type Command struct {
	Name  string
	Short string
	run   func() error
}

// Execute runs the command.
func (c *Command) Execute() error {
	return c.run()
}

// Title is the command's name in title case.
func (c *Command) Title() string {
	return strings.ToUpper(c.Name)
}

func helper(s string) string { return s + "!" }
`

const rootGo = `package cmd

func Root() *Command {
	c := &Command{Name: "root"}
	_ = c.Title()
	return c
}
`

const mainGo = `package main

import (
	"fmt"

	"example.com/app/cmd"
)

func main() {
	root := cmd.Root()
	if err := root.Execute(); err != nil {
		fmt.Println(err)
	}
}
`

const otherGo = `package other

type Runner struct{}

// Execute has the same name as (*cmd.Command).Execute but is another method.
func (r Runner) Execute() error { return nil }

func use() { _ = Runner{}.Execute() }
`

func baseGo() map[string]string {
	return map[string]string{
		"go.mod":            goMod,
		"cmd/command.go":    commandGo,
		"cmd/root.go":       rootGo,
		"cmd/root_test.go":  "package cmd\n\nimport \"testing\"\n\nfunc TestRoot(t *testing.T) {\n\tif err := Root().Execute(); err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n",
		"main.go":           mainGo,
		"other/other.go":    otherGo,
		"docs/notes.go":     "package docs\n\n// Execute is mentioned here in a comment only.\nvar Execute = 1\n",
		"cmd/util.go":       "package cmd\n\nfunc shout(s string) string { return helper(s) }\n",
		"cmd/flags.go":      "package cmd\n\nfunc describe(c *Command) string { return c.Short }\n",
		"cmd/flags_test.go": "package cmd\n\nimport \"testing\"\n\nfunc TestDescribe(t *testing.T) { _ = describe(&Command{Short: \"x\"}) }\n",
	}
}

func TestFindGo(t *testing.T) {
	tests := []struct {
		name    string
		changed map[string]string
		want    []want
	}{
		{
			name: "changed body lists callers, production before tests, not same-named methods",
			changed: map[string]string{"cmd/command.go": strings.Replace(commandGo,
				"\treturn c.run()", "\tif c.run == nil {\n\t\treturn nil\n\t}\n\treturn c.run()", 1)},
			want: []want{
				{"main.go", KindImpact, MethodGo, "calls `(*Command).Execute`, whose body changed"},
				{"cmd/root_test.go", KindImpact, MethodGo, "calls `(*Command).Execute`"},
			},
		},
		{
			name: "new line calling a function of another file",
			changed: map[string]string{"cmd/root.go": strings.Replace(rootGo,
				"\treturn c\n", "\tc.Short = shout(c.Name)\n\treturn c\n", 1)},
			want: []want{
				{"cmd/command.go", KindUses, MethodGo, "used by the change in root.go"},
				{"cmd/util.go", KindUses, MethodGo, "declares `shout`"},
				{"main.go", KindImpact, MethodGo, "calls `Root`, whose body changed"},
				{"cmd/root_test.go", KindImpact, MethodGo, "calls `Root`, whose body changed"},
			},
		},
		{
			name:    "change touching nothing outside its file",
			changed: map[string]string{"cmd/util.go": "package cmd\n\nfunc shout(s string) string {\n\tx := s\n\treturn x\n}\n"},
			want:    nil,
		},
		{
			name: "renamed method lists the callers that still use the old name",
			changed: map[string]string{"cmd/command.go": strings.Replace(commandGo,
				"func (c *Command) Title() string {", "func (c *Command) DisplayName() string {", 1)},
			want: []want{
				{"cmd/root.go", KindImpact, MethodGo, "calls `(*Command).Title`, which the change removes"},
			},
		},
		{
			name: "changed field lists its users",
			changed: map[string]string{"cmd/command.go": strings.Replace(commandGo,
				"\tShort string\n", "\tShort string // one line\n", 1)},
			want: []want{
				{"cmd/flags.go", KindImpact, MethodGo, "uses `Command.Short`, whose declaration changed"},
				{"cmd/flags_test.go", KindImpact, MethodGo, "uses `Command.Short`"},
			},
		},
		{
			name: "changed package-level function lists same-package users",
			changed: map[string]string{"cmd/command.go": strings.Replace(commandGo,
				`return s + "!"`, `return s + "!!"`, 1)},
			want: []want{
				{"cmd/util.go", KindImpact, MethodGo, "calls `helper`, whose body changed"},
			},
		},
		{
			name: "changed signature ranks the caller as breaking",
			changed: map[string]string{"cmd/root.go": strings.Replace(rootGo,
				"func Root() *Command {", "func Root(name string) *Command {", 1)},
			want: []want{
				{"main.go", KindImpact, MethodGo, "calls `Root`, whose signature changed"},
				{"cmd/command.go", KindUses, MethodGo, "declares `Command`"},
				{"cmd/root_test.go", KindImpact, MethodGo, "calls `Root`, whose signature changed"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := repo{base: baseGo(), changed: tt.changed}.run(t)
			check(t, got, tt.want)
		})
	}
}

func TestFindGoDeletedFile(t *testing.T) {
	got := repo{base: baseGo(), changed: map[string]string{"cmd/util.go": ""}}.run(t)
	if len(got) != 0 {
		t.Fatalf("deleting an unused file listed:\n%s", dump(got))
	}
	got = repo{base: baseGo(), changed: map[string]string{"cmd/flags.go": ""}}.run(t)
	check(t, got, []want{{"cmd/flags_test.go", KindImpact, MethodGo, "calls `describe`, which the change removes"}})
}

func TestFindTypeScript(t *testing.T) {
	base := map[string]string{
		"src/math.ts":     "export function add(a: number, b: number): number {\n  return a + b;\n}\n\nexport class Calc {\n  total = 0;\n  plus(n: number): this {\n    this.total = add(this.total, n);\n    return this;\n  }\n}\n",
		"src/app.ts":      "import { add, Calc } from './math';\n\nexport function run(): number {\n  const c = new Calc();\n  return add(1, 2) + c.plus(3).total;\n}\n",
		"src/log.ts":      "// add is mentioned in a comment only\nexport const message = 'add';\n",
		"src/app.test.ts": "import { add } from './math';\n\ntest('add', () => {\n  expect(add(1, 1)).toBe(2);\n});\n",
	}
	got := repo{base: base, changed: map[string]string{
		"src/math.ts": strings.Replace(base["src/math.ts"], "  return a + b;", "  return b + a;", 1),
	}}.run(t)
	check(t, got, []want{
		{"src/app.ts", KindImpact, MethodTokens, "calls `add`, whose body changed"},
		{"src/app.test.ts", KindImpact, MethodTokens, "calls `add`"},
	})
	got = repo{base: base, changed: map[string]string{
		"src/log.ts": "import { Calc } from './math';\n\nexport const message = new Calc().plus(1);\n",
	}}.run(t)
	check(t, got, []want{{"src/math.ts", KindUses, MethodTokens, "declares `Calc`"}})
}

// A static member is reached through its class's name; the same member name
// after another receiver is some other object's member.
func TestFindTypeScriptStaticMember(t *testing.T) {
	base := map[string]string{
		"src/client.ts": "export class Client {\n  static create(o: object): Client {\n    return new Client();\n  }\n  request(u: string): string {\n    return u;\n  }\n}\n",
		"src/index.ts":  "import { Client } from './client';\n\nconst api = Client.create({});\nexport default api;\n",
		"src/use.ts":    "import api from './index';\n\napi.create({});\napi.request('x');\n",
	}
	got := repo{base: base, changed: map[string]string{
		"src/client.ts": strings.NewReplacer("return new Client();", "return new Client() as Client;", "return u;", "return u + '';").Replace(base["src/client.ts"]),
	}}.run(t)
	check(t, got, []want{
		{"src/index.ts", KindImpact, MethodTokens, "calls `Client.create`, whose body changed"},
		// api's type is followed through the index's default export
		// (Client.create returns a Client).
		{"src/use.ts", KindImpact, MethodTokens, "calls `Client.request`, whose body changed"},
	})
	for _, s := range got[1].Symbols {
		if s == "Client.create" {
			t.Errorf("src/use.ts lists the static Client.create it calls through another receiver: %v", got[1].Symbols)
		}
	}
}

// A name imported from a package index that re-exports it leads to the file
// that declares it, both ways.
func TestFindTypeScriptReexport(t *testing.T) {
	base := map[string]string{
		"src/util/helper.ts": "export function helper(s: string): string {\n  return s.trim();\n}\n",
		"src/index.ts":       "export {helper} from './util/helper.js';\nexport * from './errors.js';\n",
		"src/errors.ts":      "export class AppError extends Error {}\n",
		"src/app.ts":         "import {helper, AppError} from './index.js';\n\nexport function run(s: string): string {\n  return s;\n}\n",
		"src/other.ts":       "export function helper(): void {}\n",
	}
	got := repo{base: base, changed: map[string]string{
		"src/app.ts": strings.Replace(base["src/app.ts"], "  return s;", "  if (!s) {\n    throw new AppError();\n  }\n  return helper(s);", 1),
	}}.run(t)
	check(t, got, []want{
		{"src/errors.ts", KindUses, MethodTokens, "declares `AppError`"},
		{"src/util/helper.ts", KindUses, MethodTokens, "declares `helper`"},
	})
	base["src/app.ts"] = "import {helper} from './index.js';\n\nexport const x = helper(' a ');\n"
	got = repo{base: base, changed: map[string]string{
		"src/util/helper.ts": strings.Replace(base["src/util/helper.ts"], "s.trim()", "s.trimStart()", 1),
	}}.run(t)
	check(t, got, []want{
		{"src/app.ts", KindImpact, MethodTokens, "calls `helper`, whose body changed"},
		{"src/index.ts", KindImpact, MethodTokens, "uses `helper`, whose body changed"},
	})
}

// A JS top-level declaration is reached by its bare name or through a module
// object, never as another object's member.
func TestFindTypeScriptMemberIsNotTopLevel(t *testing.T) {
	base := map[string]string{
		"src/timeout.ts": "export function timeout(ms: number): Promise<void> {\n  return new Promise(r => setTimeout(r, ms));\n}\n",
		"src/format.ts":  "export function format(s: string): string {\n  return s;\n}\n",
		"src/app.ts":     "import {timeout} from './timeout.js';\nimport * as fmt from './format.js';\n\nexport class App {\n  opts = {timeout: 1, format: ''};\n  run(): void {\n    void timeout(1);\n  }\n}\n",
	}
	got := repo{base: base, changed: map[string]string{
		"src/app.ts": strings.Replace(base["src/app.ts"], "    void timeout(1);", "    this.opts.timeout = 2;\n    this.opts.format = fmt.format('x');", 1),
	}}.run(t)
	check(t, got, []want{{"src/format.ts", KindUses, MethodTokens, "declares `format`"}})
	got = repo{base: base, changed: map[string]string{
		"src/app.ts": strings.Replace(base["src/app.ts"], "    void timeout(1);", "    void import('./format.js').then(async () => {\n      const lazy = await import('./format.js');\n      this.opts.format = lazy.format('y');\n    });", 1),
	}}.run(t)
	check(t, got, []want{{"src/format.ts", KindUses, MethodTokens, "declares `format`"}})
}

func TestFindPython(t *testing.T) {
	base := map[string]string{
		"pkg/__init__.py": "",
		"pkg/store.py":    "class Store:\n    def __init__(self):\n        self.items = []\n\n    def put(self, item):\n        self.items.append(item)\n\n\ndef open_store():\n    return Store()\n",
		"pkg/api.py":      "from pkg.store import open_store\n\n\ndef handler(x):\n    s = open_store()\n    s.put(x)\n    return s\n",
		"pkg/other.py":    "# open_store in a comment\nNAME = 'open_store'\n",
	}
	got := repo{base: base, changed: map[string]string{
		"pkg/store.py": strings.Replace(base["pkg/store.py"], "    return Store()", "    s = Store()\n    return s", 1),
	}}.run(t)
	check(t, got, []want{{"pkg/api.py", KindImpact, MethodTokens, "calls `open_store`, whose body changed"}})
	got = repo{base: base, changed: map[string]string{
		"pkg/other.py": "from .store import Store\n\nNAME = Store()\n",
	}}.run(t)
	check(t, got, []want{{"pkg/store.py", KindUses, MethodTokens, "declares `Store`"}})
}

func TestFindJava(t *testing.T) {
	base := map[string]string{
		"src/main/java/com/acme/Account.java": "package com.acme;\n\npublic class Account {\n    private long balance;\n\n    public void deposit(long amount) {\n        balance += amount;\n    }\n\n    public long balance() {\n        return balance;\n    }\n}\n",
		"src/main/java/com/acme/Bank.java":    "package com.acme;\n\npublic class Bank {\n    public void pay(Account a) {\n        a.deposit(10);\n    }\n}\n",
		"src/main/java/com/other/Audit.java":  "package com.other;\n\nimport com.acme.Account;\n\npublic class Audit {\n    long check(Account a) {\n        return a.balance();\n    }\n}\n",
		"src/main/java/com/other/Note.java":   "package com.other;\n\n// deposit is mentioned in a comment\nclass Note {\n    String s = \"deposit\";\n}\n",
	}
	got := repo{base: base, changed: map[string]string{
		"src/main/java/com/acme/Account.java": strings.Replace(base["src/main/java/com/acme/Account.java"],
			"        balance += amount;", "        if (amount > 0) {\n            balance += amount;\n        }", 1),
	}}.run(t)
	check(t, got, []want{{"src/main/java/com/acme/Bank.java", KindImpact, MethodTokens, "calls `Account.deposit`, whose body changed"}})
}

func TestFindOtherLanguage(t *testing.T) {
	base := map[string]string{
		"lib/util.lua": "function slugify(s)\n  return s:lower()\nend\n",
		"lib/page.lua": "local util = require('util')\n\nfunction title(t)\n  return slugify(t)\nend\n",
		"lib/doc.md":   "slugify is documented here\n",
	}
	got := repo{base: base, changed: map[string]string{
		"lib/util.lua": "function slugify(s)\n  return s:gsub(' ', ''):lower()\nend\n",
	}}.run(t)
	check(t, got, []want{{"lib/page.lua", KindImpact, MethodIdentifier, "identifier search"}})
}

func TestFindValidates(t *testing.T) {
	ctx := context.Background()
	tree := memTree(nil)
	tests := []struct {
		name    string
		tree    Tree
		changes []Change
		opts    Options
		want    string
	}{
		{"nil tree", nil, nil, Options{}, "candidates: tree is nil"},
		{"negative max", tree, nil, Options{Max: -1}, "candidates: options.max must not be negative, got -1"},
		{"empty path", tree, []Change{{Path: " "}}, Options{}, "candidates: changes[0].path: is empty"},
		{"bad status", tree, []Change{{Path: "a.go", Status: "moved"}}, Options{}, `candidates: changes[0].status: "moved" is not added, modified, deleted or renamed`},
		{"root path", tree, []Change{{Path: "a.go"}, {Path: "/"}}, Options{}, "candidates: changes[1].path: names no file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Find(ctx, tt.tree, tt.changes, tt.opts)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestFindMax(t *testing.T) {
	base := baseGo()
	for i := 0; i < 5; i++ {
		base["cmd/use"+string(rune('a'+i))+".go"] = "package cmd\n\nfunc u" + string(rune('a'+i)) + "() { _ = helper(\"x\") }\n"
	}
	head := map[string]string{}
	for p, s := range base {
		head[p] = s
	}
	newSrc := strings.Replace(commandGo, `return s + "!"`, `return s + "?"`, 1)
	head["cmd/command.go"] = newSrc
	added, removed := lineDiff(commandGo, newSrc)
	ch := []Change{{Path: "cmd/command.go", Old: []byte(commandGo), New: []byte(newSrc), AddedLines: added, RemovedLines: removed}}
	got, err := Find(context.Background(), memTree(head), ch, Options{Max: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("got %d, want 3 (Max)", len(got))
	}
	all, err := Find(context.Background(), memTree(head), ch, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 6 {
		t.Fatalf("got %d, want the 6 users of helper:\n%s", len(all), dump(all))
	}
	if diff := cmp.Diff(all[:3], got); diff != "" {
		t.Errorf("Max cut another order (-all +max):\n%s", diff)
	}
}

func TestChangesFromDiff(t *testing.T) {
	diff := `diff --git a/a.go b/a.go
index 1111111..2222222 100644
--- a/a.go
+++ b/a.go
@@ -2,3 +2,4 @@ package a
 func A() {
-	x()
+	y()
+	z()
 }
diff --git a/old.go b/new.go
similarity index 90%
rename from old.go
rename to new.go
index 3333333..4444444 100644
--- a/old.go
+++ b/new.go
@@ -1,2 +1,2 @@
-package b
+package c
 
diff --git a/gone.go b/gone.go
deleted file mode 100644
index 5555555..0000000
--- a/gone.go
+++ /dev/null
@@ -1 +0,0 @@
-package gone
`
	got, err := ChangesFromDiff(diff)
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{
		{Path: "a.go", Status: StatusModified, AddedLines: []int{3, 4}, RemovedLines: []int{3}},
		{Path: "new.go", OldPath: "old.go", Status: StatusRenamed, AddedLines: []int{1}, RemovedLines: []int{1}},
		{Path: "gone.go", Status: StatusDeleted, RemovedLines: []int{1}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ChangesFromDiff (-want +got):\n%s", d)
	}
}

// TestFindGoInfersOperandTypes checks that a method shared by two types is
// told apart through the types of the variables it is called on: a function
// result, a range over a method's slice result, a struct field and a
// composite literal.
func TestFindGoInfersOperandTypes(t *testing.T) {
	a := "package p\n\ntype A struct{ next *B }\n\nfunc (a *A) Apply() int {\n\treturn 1\n}\n\nfunc (a *A) Next() *B { return a.next }\n"
	base := map[string]string{
		"go.mod":         goMod,
		"p/a.go":         a,
		"p/b.go":         "package p\n\ntype B struct{}\n\nfunc (b *B) Apply() int { return 2 }\n\nfunc NewB() *B { return &B{} }\n\ntype Set struct{ items []*A }\n\nfunc (s Set) All() []*A { return s.items }\n",
		"p/use_b.go":     "package p\n\nfunc useB() int {\n\tb := NewB()\n\tx := (&A{}).Next()\n\treturn b.Apply() + x.Apply()\n}\n",
		"p/use_range.go": "package p\n\nfunc useRange(s Set) (n int) {\n\tfor _, it := range s.All() {\n\t\tn += it.Apply()\n\t}\n\treturn n\n}\n",
		"p/use_field.go": "package p\n\ntype holder struct{ a *A }\n\nfunc (h holder) use() int { return h.a.Apply() }\n",
		"q/use_lit.go":   "package q\n\nimport \"example.com/app/p\"\n\nfunc useLit() int {\n\tv := p.A{}\n\treturn v.Apply()\n}\n",
	}
	got := repo{base: base, changed: map[string]string{"p/a.go": strings.Replace(a, "\treturn 1", "\treturn 10", 1)}}.run(t)
	check(t, got, []want{
		{"p/use_field.go", KindImpact, MethodGo, "calls `(*A).Apply`, whose body changed"},
		{"p/use_range.go", KindImpact, MethodGo, "calls `(*A).Apply`"},
		{"q/use_lit.go", KindImpact, MethodGo, "calls `(*A).Apply`"},
	})
}

// TestFindGoNamesDeepInStatements: the walks leave out the statements and
// expressions that cannot hold a name they look for, yet a name bound by a
// statement left out (c := p.NewClient()) still types a use further down,
// inside a function literal and nested composite literals, on both sides:
// a caller of a changed method and an added line's use.
func TestFindGoNamesDeepInStatements(t *testing.T) {
	client := "package p\n\ntype Client struct{}\n\nfunc NewClient() *Client { return &Client{} }\n\nfunc (c *Client) Fetch() int {\n\treturn 1\n}\n"
	deep := "package %s\n\nimport \"example.com/app/p\"\n\ntype row struct{ n int }\n\nfunc run(f func()) { f() }\n\n" +
		"func deep() {\n\tc := p.NewClient()\n\tvar d = p.NewClient()\n\tif true {\n\t\t_ = []row{{n: 1}, {n: 2}}\n\t}\n" +
		"\trun(func() {\n\t\t_ = []row{{n: 3}, {n: %s}}\n\t})\n}\n"
	base := map[string]string{
		"go.mod":      goMod,
		"p/client.go": client,
		"p/size.go":   "package p\n\nfunc (c *Client) Size() int { return 0 }\n",
		"p/other.go":  "package p\n\ntype Other struct{}\n\nfunc (o Other) Fetch() int { return 2 }\n\nfunc (o Other) Size() int { return 3 }\n",
		"q/deep.go":   fmt.Sprintf(deep, "q", "c.Fetch() + d.Fetch()"),
		"q/other.go":  "package q\n\nimport \"example.com/app/p\"\n\nfunc other() int { return p.Other{}.Fetch() }\n",
		"r/r.go":      fmt.Sprintf(deep, "r", "4"),
	}
	got := repo{base: base, changed: map[string]string{
		"p/client.go": strings.Replace(client, "\treturn 1", "\treturn 10", 1),
		"r/r.go":      fmt.Sprintf(deep, "r", "c.Size()"),
	}}.run(t)
	check(t, got, []want{
		{"p/size.go", KindUses, MethodGo, "declares `(*Client).Size`, used by the change in r.go"},
		{"q/deep.go", KindImpact, MethodGo, "calls `(*Client).Fetch`, whose body changed"},
	})
}

// TestFindGoAmbiguousUses: a member used on an operand of unknown type
// lists the files of the change's package and its imports that declare a
// member of that name when there are one or two of them, none when there
// are more.
func TestFindGoAmbiguousUses(t *testing.T) {
	base := map[string]string{
		"go.mod":     goMod,
		"p/frob.go":  "package p\n\ntype T struct{}\n\nfunc (T) Frob() {}\n",
		"p/quux.go":  "package p\n\ntype Q struct{ Quux int }\n",
		"p/quux2.go": "package p\n\ntype R struct{}\n\nfunc (R) Quux() int { return 0 }\n",
		"p/zap1.go":  "package p\n\ntype Z1 struct{ Zap int }\n",
		"p/zap2.go":  "package p\n\ntype Z2 struct{ Zap int }\n",
		"p/zap3.go":  "package p\n\ntype Z3 struct{}\n\nfunc (Z3) Zap() {}\n",
		"q/use.go":   "package q\n\nimport \"example.com/app/p\"\n\nvar _ p.T\n\nfunc use[V any](v V) {\n}\n",
	}
	got := repo{base: base, changed: map[string]string{
		"q/use.go": "package q\n\nimport \"example.com/app/p\"\n\nvar _ p.T\n\nfunc use[V any](v V) {\n\tv.Frob()\n\t_ = v.Quux\n\t_ = v.Zap\n}\n",
	}}.run(t)
	check(t, got, []want{
		{"p/frob.go", KindUses, MethodGo, "may declare `(T).Frob`, used by the change in use.go (operand type not inferred)"},
		{"p/quux.go", KindUses, MethodGo, "may declare `Q.Quux`"},
		{"p/quux2.go", KindUses, MethodGo, "may declare `(R).Quux`"},
	})
}

// stalledGrep is a Tree whose Grep waits for the context to end, as a
// search over a huge repository outlasting its time budget does.
type stalledGrep struct{ Tree }

func (s stalledGrep) Grep(ctx context.Context, _, _ []string, _ int) ([]string, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestFindAnswersWhatItFoundWhenStopped: the uses of the added lines are
// resolved while the search for the changed names runs; when the time
// runs out during that search, Find answers those uses with an error that
// says so.
func TestFindAnswersWhatItFoundWhenStopped(t *testing.T) {
	base := "package app\n\nfunc Run() int {\n\treturn 1\n}\n"
	head := "package app\n\nfunc Run() int {\n\treturn helper.Twice(1)\n}\n"
	tree := map[string]string{
		"go.mod":        "module example.com/app\n",
		"app.go":        head,
		"helper/two.go": "package helper\n\n// Twice doubles n.\nfunc Twice(n int) int { return 2 * n }\n",
		"main.go":       "package main\n\nimport \"example.com/app\"\n\nfunc main() { app.Run() }\n",
	}
	head = strings.Replace(head, "package app\n", "package app\n\nimport \"example.com/app/helper\"\n", 1)
	tree["app.go"] = head
	change := Change{Path: "app.go", Status: StatusModified, Old: []byte(base), New: []byte(head),
		AddedLines: []int{3, 4, 5, 6}, RemovedLines: []int{4}}

	full, err := Find(context.Background(), memTree(tree), []Change{change}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	paths := func(cs []Candidate) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Path+" "+string(c.Kind))
		}
		sort.Strings(out)
		return out
	}
	if got := paths(full); !cmp.Equal(got, []string{"helper/two.go uses", "main.go impact"}) {
		t.Fatalf("unbounded Find = %v, want the helper (uses) and main.go (impact)", got)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	got, err := Find(ctx, stalledGrep{memTree(tree)}, []Change{change}, Options{})
	// The search's time for reading ends before its deadline: the stalled
	// grep is cut, which Find says; on a machine slow enough for the
	// deadline to pass too, it says that.
	var cut *CutError
	if !errors.As(err, &cut) && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Find with a stalled search = %v, want a cut or the deadline error", err)
	}
	if p := paths(got); !cmp.Equal(p, []string{"helper/two.go uses"}) {
		t.Errorf("stopped Find answered %v, want what it found before the search: the helper", p)
	}
}

// Go parses are shared by every search that reads the same path and
// content: concurrent searches of two repositories holding the same caller
// answer as each does alone (run with -race). Here the caller names its
// import by a package name that is not its path's last element, which a
// search resolves by reading the package: elsewhere, that directory
// declares another package, and the caller's selector resolves to nothing.
func TestGoSharedParses(t *testing.T) {
	store := "package store\n\n// Get returns k.\nfunc Get(k string) string {\n\treturn k\n}\n"
	app := "package app\n\nimport \"example.com/app/lib/v2store\"\n\nfunc Title() string {\n\treturn store.Get(\"title\")\n}\n"
	changedStore := strings.Replace(store, "return k\n", "return k + \"!\"\n", 1)
	here := repo{base: map[string]string{
		"go.mod": goMod, "lib/v2store/store.go": store, "app/app.go": app,
	}, changed: map[string]string{"lib/v2store/store.go": changedStore}}
	elsewhere := repo{base: map[string]string{
		"go.mod":               goMod,
		"lib/v2store/store.go": strings.Replace(store, "package store", "package v2store", 1),
		"app/app.go":           app,
	}, changed: map[string]string{"lib/v2store/store.go": strings.Replace(changedStore, "package store", "package v2store", 1)}}
	wantHere, wantElsewhere := runShared(t, here, elsewhere)
	if !strings.Contains(wantHere, "app/app.go") {
		t.Fatalf("the caller is not listed:\n%s", wantHere)
	}
	if strings.Contains(wantElsewhere, "app/app.go") {
		t.Fatalf("a caller of another package listed:\n%s", wantElsewhere)
	}
}

// runShared runs Find on here and elsewhere four times each at once (the
// runs fill and share the reading cache), then once each alone, and fails
// when a concurrent run's candidates differ from the lone run's; it
// returns the lone runs' candidates for the caller's own checks.
func runShared(t *testing.T, here, elsewhere repo) (wantHere, wantElsewhere string) {
	t.Helper()
	var wg sync.WaitGroup
	gotHere, gotElsewhere := make([]string, 4), make([]string, 4)
	for i := range 4 {
		wg.Go(func() { gotHere[i] = dump(here.run(t)) })
		wg.Go(func() { gotElsewhere[i] = dump(elsewhere.run(t)) })
	}
	wg.Wait()
	wantHere, wantElsewhere = dump(here.run(t)), dump(elsewhere.run(t))
	for i := range 4 {
		if gotHere[i] != wantHere {
			t.Errorf("concurrent run:\n%s\nwant\n%s", gotHere[i], wantHere)
		}
		if gotElsewhere[i] != wantElsewhere {
			t.Errorf("concurrent run elsewhere:\n%s\nwant\n%s", gotElsewhere[i], wantElsewhere)
		}
	}
	return wantHere, wantElsewhere
}

// The references to a changed function are walked on two engines, the
// search's files split between them by size: every caller is listed
// whichever engine walked it, in every file order, and the answer is the
// same on every run.
func TestFindImpactOnBothEngines(t *testing.T) {
	base := "package lib\n\nfunc Twice(n int) int { return 2 * n }\n"
	head := "package lib\n\nfunc Twice(n, m int) int { return 2 * n * m }\n"
	tree := map[string]string{"go.mod": "module example.com/app\n", "lib/lib.go": head}
	var want []string
	for i := range 9 {
		p := fmt.Sprintf("use%d/use.go", i)
		// Sizes differ so that the split falls inside the list.
		pad := strings.Repeat("// filler\n", 1+i*i*5)
		tree[p] = fmt.Sprintf("package use%d\n\nimport \"example.com/app/lib\"\n\n%sfunc F() int { return lib.Twice(%d) }\n", i, pad, i)
		want = append(want, p+" impact")
	}
	added, removed := lineDiff(base, head)
	change := Change{Path: "lib/lib.go", Status: StatusModified, Old: []byte(base), New: []byte(head), AddedLines: added, RemovedLines: removed}
	var first []Candidate
	for run := range 3 {
		got, err := Find(context.Background(), memTree(tree), []Change{change}, Options{Max: 20})
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, c := range got {
			paths = append(paths, c.Path+" "+string(c.Kind))
		}
		sort.Strings(paths)
		if !cmp.Equal(paths, want) {
			t.Fatalf("Find = %v, want every caller: %v", paths, want)
		}
		if run == 0 {
			first = got
		} else if !cmp.Equal(got, first) {
			t.Fatalf("run %d answered %v, the first %v", run, got, first)
		}
	}
}

// TestReads: a change is read by its language's engine, a file of another
// programming language by the identifier search only when it changes
// lines, and anything else by none (its sources are never read for the
// candidates).
func TestReads(t *testing.T) {
	lines := []int{3}
	for _, tc := range []struct {
		c    Change
		want bool
	}{
		{Change{Path: "pkg/a.go", Status: StatusRenamed}, true},
		{Change{Path: "web/a.ts", Status: StatusModified}, true},
		{Change{Path: "app/a.py", Status: StatusModified}, true},
		{Change{Path: "src/A.java", Status: StatusRenamed}, true},
		{Change{Path: "lib/a.rb", Status: StatusModified, AddedLines: lines}, true},
		{Change{Path: "lib/a.rb", Status: StatusRenamed}, false},
		{Change{Path: "proto/a.proto", Status: StatusRenamed}, false},
		{Change{Path: "docs/a.md", Status: StatusModified, RemovedLines: lines}, false},
	} {
		if got := Reads(tc.c); got != tc.want {
			t.Errorf("Reads(%s, %s, %d lines) = %v, want %v", tc.c.Path, tc.c.Status, len(tc.c.AddedLines)+len(tc.c.RemovedLines), got, tc.want)
		}
	}
}
