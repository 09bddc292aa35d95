//go:build !cgo

package treesit

import "testing"

// Without cgo the reader reads nothing, and still names the languages it
// would read, for the fallback's warnings.
func TestWithoutCgoReadsNothing(t *testing.T) {
	for _, p := range []string{"src/A.cs", "src/a.rs", "lib/a.rb", "src/a.h"} {
		if Reader.Reads(p, true) {
			t.Errorf("Reads(%s) without cgo", p)
		}
		if _, ok := Covers(p); !ok {
			t.Errorf("Covers(%s) = false", p)
		}
	}
	if _, ok := Covers("lib/a.lua"); ok {
		t.Errorf("Covers(lib/a.lua) = true")
	}
}
