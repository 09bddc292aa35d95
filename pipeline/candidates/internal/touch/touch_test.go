package touch

import (
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

func lines(ls ...int) map[int]bool {
	m := map[int]bool{}
	for _, l := range ls {
		m[l] = true
	}
	return m
}

// TestTouchedRule: the rule's cases that the readers' table test does not
// reach one by one.
func TestTouchedRule(t *testing.T) {
	class := Decl{Name: "C", Kind: "class", From: 1, To: 20, HeadTo: 1, ByHeader: true}
	m := Decl{Container: "C", Name: "m", Kind: "method", From: 3, To: 6, HeadTo: 3, Callable: true}
	field := Decl{Container: "C", Name: "f", Kind: "field", From: 8, To: 8}
	sigs := func(s ...string) func(int) string { return func(i int) string { return s[i] } }
	for _, tc := range []struct {
		name       string
		head, base *Side
		elsewhere  func(int) bool
		want       []Touch
	}{
		{"a member's body touches the member, not its class",
			&Side{Decls: []Decl{class, m}, Lines: lines(5)}, nil, nil,
			[]Touch{{Index: 1, Change: engine.ChangedBody}}},
		{"a class header touches the class, as a declaration",
			&Side{Decls: []Decl{class, m}, Lines: lines(1)}, nil, nil,
			[]Touch{{Index: 0, Change: engine.ChangedDecl}}},
		{"a field is a declaration",
			&Side{Decls: []Decl{field}, Lines: lines(8)}, nil, nil,
			[]Touch{{Index: 0, Change: engine.ChangedDecl}}},
		{"a removed line in a header the head still has: signature, on the head's declaration",
			&Side{Decls: []Decl{m}}, &Side{Decls: []Decl{m}, Lines: lines(3)}, nil,
			[]Touch{{Index: 0, Change: engine.ChangedSignature}}},
		{"gone from the head: removed, from the base",
			&Side{}, &Side{Decls: []Decl{field, m}, Lines: lines(4)}, nil,
			[]Touch{{Base: true, Index: 1, Change: engine.RemovedDecl}}},
		{"gone from the file but declared elsewhere: not removed",
			&Side{}, &Side{Decls: []Decl{m}, Lines: lines(4)}, func(int) bool { return true },
			[]Touch{{Base: true, Index: 0, Change: engine.ChangedBody}}},
		{"an overload whose header text a base overload has: body",
			&Side{Decls: []Decl{m, {Container: "C", Name: "m", Kind: "method", From: 10, To: 12, HeadTo: 10, Callable: true}}, Lines: lines(10, 11), Sig: sigs("m(int)", "m(String)")},
			&Side{Decls: []Decl{m, {Container: "C", Name: "m", Kind: "method", From: 10, To: 12, HeadTo: 10, Callable: true}}, Lines: lines(11), Sig: sigs("m(int)", "m(String)")}, nil,
			[]Touch{{Index: 1, Change: engine.ChangedBody}}},
		{"header text differing from every base overload: signature",
			&Side{Decls: []Decl{m}, Lines: lines(4), Sig: sigs("m(long)")},
			&Side{Decls: []Decl{m}, Sig: sigs("m(int)")}, nil,
			[]Touch{{Index: 0, Change: engine.ChangedSignature}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Touched(tc.head, tc.base, tc.elsewhere)
			if len(got) != len(tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("touch %d = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}
