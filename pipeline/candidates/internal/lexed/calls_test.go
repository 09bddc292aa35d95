package lexed

import (
	"slices"
	"testing"
)

func TestEnclosingCalls(t *testing.T) {
	for _, tc := range []struct {
		name, path, src string
		added           []int
		want            []string // callee texts
	}{
		{"keyword argument in a multi-line call", "a.py",
			"imp = SimpleImputer(\n    strategy='mean',\n    fill_value=0,\n)\n", []int{3}, []string{"SimpleImputer"}},
		{"member call", "a.ts",
			"const r = client.fetchAll(\n  id,\n  { retry: true },\n);\n", []int{2}, []string{"fetchAll"}},
		{"callee line added too: already a use", "a.py",
			"x = build(\n    a,\n)\n", []int{1, 2}, nil},
		{"a lambda body inside the arguments", "A.java",
			"run(() -> {\n  work();\n});\n", []int{2}, nil},
		{"an object literal passed as an argument: its keys are arguments", "a.ts",
			"f({\n  a: 1,\n});\n", []int{2}, []string{"f"}},
		{"an object literal after another argument, with type arguments", "a.ts",
			"make<Router, Ctx>(base, {\n  retry: 2,\n});\n", []int{2}, []string{"make"}},
		{"a literal a lambda returns is no argument", "a.ts",
			"f(g, () => ({\n  a: 1,\n}));\n", []int{2}, nil},
		{"a comparison is no type argument list", "a.ts",
			"if (a < b && c > (\n  d\n)) {}\n", []int{2}, nil},
		{"a condition, not a call", "a.ts",
			"if (\n  ready &&\n  done\n) {}\n", []int{2}, nil},
		{"no added line", "a.py", "f(\n  a,\n)\n", nil, nil},
		{"the innermost call", "a.py",
			"outer(\n    inner(\n        x=1,\n    ),\n)\n", []int{3}, []string{"inner"}},
		{"an unclosed call", "a.py", "f(\n  a,\n", []int{2}, []string{"f"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Read(tc.path, []byte(tc.src))
			added := map[int]bool{}
			for _, l := range tc.added {
				added[l] = true
			}
			var got []string
			for i := range EnclosingCalls(f, added) {
				got = append(got, f.Toks[i].Text)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("callees %q, want %q", got, tc.want)
			}
		})
	}
}
