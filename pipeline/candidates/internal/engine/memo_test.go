package engine

import (
	"sync"
	"testing"
)

// TestMemoComputesOncePerKey: a key asked again is answered from the map,
// another key is computed.
func TestMemoComputesOncePerKey(t *testing.T) {
	var mu sync.Mutex
	m := map[string]int{}
	calls := 0
	f := func(v int) func() int { return func() int { calls++; return v } }
	if got := Memo(&mu, m, "a", f(1)); got != 1 {
		t.Fatalf("a: %d", got)
	}
	if got := Memo(&mu, m, "a", f(2)); got != 1 {
		t.Fatalf("a again: %d, want the kept 1", got)
	}
	if got := Memo(&mu, m, "b", f(3)); got != 3 || calls != 2 {
		t.Fatalf("b: %d after %d computations, want 3 after 2", got, calls)
	}
}
