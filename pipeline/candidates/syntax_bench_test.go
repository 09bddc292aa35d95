//go:build cgo

package candidates

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkSyntaxFind times Find on a change of 20 C# files in a
// repository of 5,000, warm: the readings cache kept from a first run, as
// the server keeps it across requests.
func BenchmarkSyntaxFind(b *testing.B) {
	const files, dirs = 5000, 250
	tree := map[string]string{}
	path := func(i int) string { return fmt.Sprintf("src/Ns%03d/C%04d.cs", i%dirs, i) }
	for i := range files {
		next := (i + 1) % files
		tree[path(i)] = fmt.Sprintf("using Acme.Ns%03d;\n\nnamespace Acme.Ns%03d\n{\n    public class C%04d\n    {\n        public int Run%04d(int n)\n        {\n            return C%04d.Run%04d(n) + n;\n        }\n    }\n}\n",
			next%dirs, i%dirs, i, i, next, next)
	}
	var changes []Change
	for k := range 20 {
		p := path(k * 97)
		old := tree[p]
		src := strings.Replace(old, "+ n;", "+ n * 2;", 1)
		added, removed := lineDiff(old, src)
		changes = append(changes, Change{Path: p, Status: StatusModified, Old: []byte(old), New: []byte(src), AddedLines: added, RemovedLines: removed})
	}
	head := map[string]string{}
	for p, s := range tree {
		head[p] = s
	}
	for _, c := range changes {
		head[c.Path] = string(c.New)
	}
	t := memTree(head)
	cache := NewCache(256 << 20)
	got, err := Find(context.Background(), t, changes, Options{Cache: cache})
	if err != nil || len(got) == 0 {
		b.Fatalf("nothing found: %v", err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := Find(context.Background(), t, changes, Options{Cache: cache}); err != nil {
			b.Fatal(err)
		}
	}
}
