package golang

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestScopeAnswersAsMaps defines and redefines names in nested scopes, few
// and past scopeIndexed, and checks every lookup and own against a map per
// scope.
func TestScopeAnswersAsMaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{3, scopeIndexed, scopeIndexed + 1, 5 * scopeIndexed} {
		outer := newScope(nil)
		inner := newScope(outer)
		model := map[*scope]map[string]*binding{outer: {}, inner: {}}
		for range 4 * n {
			sc := outer
			if rng.IntN(2) == 0 {
				sc = inner
			}
			name := fmt.Sprintf("v%d", rng.IntN(n))
			if rng.IntN(20) == 0 {
				name = "_"
			}
			b := &binding{idx: rng.Int()}
			sc.define(name, b)
			if name != "_" {
				model[sc][name] = b
			}
		}
		for i := range n + 2 {
			name := fmt.Sprintf("v%d", i)
			want := model[inner][name]
			if want == nil {
				want = model[outer][name]
			}
			if got := inner.lookup(name); got != want {
				t.Errorf("%d names: lookup(%s) = %v, want %v", n, name, got, want)
			}
			if got := outer.own(name); got != model[outer][name] {
				t.Errorf("%d names: outer.own(%s) = %v, want %v", n, name, got, model[outer][name])
			}
		}
		if inner.lookup("_") != nil {
			t.Errorf("%d names: _ is defined", n)
		}
		if n > scopeIndexed && len(outer.names) > scopeIndexed && outer.index == nil {
			t.Errorf("%d names: not indexed", n)
		}
	}
}
