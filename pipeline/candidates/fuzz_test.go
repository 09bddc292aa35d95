package candidates

import (
	"context"
	"strings"
	"testing"

	"github.com/prscout/prscout/internal/testalloc"
)

// FuzzFind feeds arbitrary sources, as every language the engines read, to
// Find: no input may panic.
func FuzzFind(f *testing.F) {
	for _, s := range []string{commandGo, rootGo, mainGo, "class A { m() { return `${x}` } }", "def f():\n    '''x'''\n", "s = f\"{a!r:>{w}}{{b}}\" + rf'''{c[\"k\"]}\n{d}'''\n", "package a;\nclass B { int c; }", "x = /re[/]/g; y = a / b"} {
		f.Add(s, s+"\n// tail\n")
	}
	f.Fuzz(func(t *testing.T, old, new string) {
		for _, p := range []string{"cmd/a.go", "src/a.ts", "pkg/a.py", "src/A.java", "lib/a.rb", "lib/a.lua"} {
			tree := memTree(map[string]string{"go.mod": goMod, "cmd/command.go": commandGo, "cmd/root.go": rootGo, "main.go": mainGo, p: new})
			added, removed := make([]int, 0), make([]int, 0)
			for i := 1; i <= strings.Count(new, "\n")+1 && i < 200; i++ {
				added = append(added, i)
			}
			for i := 1; i <= strings.Count(old, "\n")+1 && i < 200; i++ {
				removed = append(removed, i)
			}
			_, err := Find(context.Background(), tree, []Change{{Path: p, Old: []byte(old), New: []byte(new), AddedLines: added, RemovedLines: removed}}, Options{})
			if err != nil {
				t.Fatal(err)
			}
		}
	})
}

// readerSeeds are sources of about n bytes nested deep or on one line, in
// the syntax of every reader: each shape once made a reader copy, rescan
// or recurse per level.
func readerSeeds(n int) []string {
	d := n / 8
	return []string{
		strings.Repeat("func() {} ", n/10),
		"var x = " + strings.Repeat("f(", d) + strings.Repeat(")", d) + "\n",
		"package p\n\nfunc F() {\n" + strings.Repeat("{", d) + strings.Repeat("}", d) + "\n}\n",
		"x = " + strings.Repeat("`${", d) + "target()" + strings.Repeat("}`", d) + ";\n",
		"x = " + strings.Repeat(`f"{`, d) + "target()" + strings.Repeat(`}"`, d) + "\n",
		"x = a" + strings.Repeat(".m()", n/4) + "\n",
		strings.Repeat("a.bbbbb\n", n/8),
		"class A {\n" + strings.Repeat("class C{", d) + "void m(){ Target.run(); }" + strings.Repeat("}", d) + "\n}\n",
		strings.Repeat("def a\n  b\nend\n", n/14),
		strings.Repeat("import {a as b} from './a';\n", n/28),
		"class A {\n  void m() {\n    x = \"" + strings.Repeat("unterminated ", n/13) + "\n",
		"fn f() {\n" + strings.Repeat("match x { _ => ", d/2) + "\n",
	}
}

// fuzzReader runs Find on src as the changed file at each path of pairs
// (a changed path, then a searched one) and as the searched file beside
// it, and fails when the bytes allocated pass a fixed multiple of the
// sources' size: the work bound of each reader, not a clock.
func fuzzReader(f *testing.F, extra map[string]string, pairs ...string) {
	for _, s := range readerSeeds(4000) {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, old, new string) {
		if len(old) > 64<<10 || len(new) > 64<<10 {
			return
		}
		for i := 0; i+1 < len(pairs); i += 2 {
			p, searched := pairs[i], pairs[i+1]
			files := map[string]string{p: new, searched: new}
			for k, v := range extra {
				files[k] = v
			}
			added, removed := make([]int, 0), make([]int, 0)
			for i := 1; i <= strings.Count(new, "\n")+1 && i < 200; i++ {
				added = append(added, i)
			}
			for i := 1; i <= strings.Count(old, "\n")+1 && i < 200; i++ {
				removed = append(removed, i)
			}
			var err error
			alloc := testalloc.Bytes(func() {
				_, err = Find(context.Background(), memTree(files), []Change{{Path: p, Old: []byte(old), New: []byte(new), AddedLines: added, RemovedLines: removed}}, Options{})
			})
			if err != nil {
				t.Fatal(err)
			}
			if bound := uint64(maxAllocPerByte*(treeBytes(files)+len(old)) + fuzzAllocBase); alloc > bound {
				t.Fatalf("%s: %d bytes allocated for %d bytes of source", p, alloc, treeBytes(files)+len(old))
			}
		}
	})
}

// FuzzReaderGo bounds the Go reader's work on any source.
func FuzzReaderGo(f *testing.F) {
	fuzzReader(f, map[string]string{"go.mod": goMod}, "cmd/a.go", "cmd/b.go")
}

// FuzzReaderTS bounds the TypeScript/JavaScript reader's work.
func FuzzReaderTS(f *testing.F) { fuzzReader(f, nil, "src/a.ts", "src/b.ts") }

// FuzzReaderPython bounds the Python reader's work.
func FuzzReaderPython(f *testing.F) { fuzzReader(f, nil, "pkg/a.py", "pkg/b.py") }

// FuzzReaderJava bounds the Java reader's work.
func FuzzReaderJava(f *testing.F) { fuzzReader(f, nil, "src/p/A.java", "src/p/B.java") }

// FuzzReaderText bounds the identifier search's work (languages without
// a reader of their own).
func FuzzReaderText(f *testing.F) { fuzzReader(f, nil, "lib/a.lua", "lib/b.lua") }
