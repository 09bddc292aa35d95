package golang

import (
	"context"
	"slices"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/golang/goscan"
)

// The Go reader's enclosing calls follow lexed.EnclosingCalls's rule: the
// innermost brackets open across an added line must be a call's.
func TestEnclosingCallees(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		added      []int // lines of the file (the body starts on line 4)
		want       []string
	}{
		{"an argument line", "\tx := pkg.Build(\n\t\t1,\n\t\t2,\n\t)\n\t_ = x\n", []int{6}, []string{"Build"}},
		{"generic callee", "\tx := Make[int](\n\t\t1,\n\t)\n\t_ = x\n", []int{5}, []string{"Make"}},
		{"the callee's line added too", "\tx := Build(\n\t\t1,\n\t)\n\t_ = x\n", []int{4, 5}, nil},
		{"a function literal's body", "\trun(func() {\n\t\twork()\n\t})\n", []int{5}, nil},
		{"a composite literal", "\tuse(T{\n\t\tA: 1,\n\t})\n", []int{5}, nil},
		{"the innermost call", "\touter(\n\t\tinner(\n\t\t\t1,\n\t\t),\n\t)\n", []int{6}, []string{"inner"}},
		{"a statement, not an argument", "\tx := 1\n\t_ = x\n", []int{4}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte("package p\n\nfunc f() {\n" + tc.body + "}\n")
			f := newGoEngine(context.Background(), nil, nil).parseKeep("p.go", src, func(goscan.Body) bool { return true })
			if f == nil {
				t.Fatalf("not parsed:\n%s", src)
			}
			added := map[int]bool{}
			for _, l := range tc.added {
				added[l] = true
			}
			var got []string
			for id := range enclosingCallees(f, added) {
				got = append(got, id.Name)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("callees %q, want %q", got, tc.want)
			}
		})
	}
}
