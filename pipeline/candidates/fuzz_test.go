package candidates

import (
	"context"
	"strings"
	"testing"
)

// FuzzFind feeds arbitrary sources, as every language the engines read, to
// Find: no input may panic.
func FuzzFind(f *testing.F) {
	for _, s := range []string{commandGo, rootGo, mainGo, "class A { m() { return `${x}` } }", "def f():\n    '''x'''\n", "s = f\"{a!r:>{w}}{{b}}\" + rf'''{c[\"k\"]}\n{d}'''\n", "package a;\nclass B { int c; }", "x = /re[/]/g; y = a / b"} {
		f.Add(s, s+"\n// tail\n")
	}
	f.Fuzz(func(t *testing.T, old, new string) {
		for _, p := range []string{"cmd/a.go", "src/a.ts", "pkg/a.py", "src/A.java", "lib/a.rb"} {
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
