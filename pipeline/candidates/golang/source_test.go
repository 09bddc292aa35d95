package golang

import (
	"reflect"
	"testing"
)

// CodeLines answers the same from the kept reading of a content as from
// its first scan: comment-only and blank lines are left out, a raw string
// covers its lines.
func TestCodeLines(t *testing.T) {
	src := []byte("package p\n\n// doc\nvar s = `a\nb\n`\n\n/* x\n y */\nfunc F() {}\n")
	all := map[int]bool{}
	for l := 0; l <= 80; l++ {
		all[l] = true
	}
	want := map[int]bool{1: true, 4: true, 5: true, 6: true, 10: true}
	for range 2 {
		if got := CodeLines(src, all); !reflect.DeepEqual(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	if got := CodeLines(src, map[int]bool{3: true, 10: true}); !reflect.DeepEqual(got, map[int]bool{10: true}) {
		t.Fatalf("got %v", got)
	}
}
