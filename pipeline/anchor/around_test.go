package anchor

import (
	"fmt"
	"testing"

	"github.com/prscout/prscout/pipeline"
)

func TestAround(t *testing.T) {
	diff := "--- a/x.go\n+++ b/x.go\n@@ -1,4 +1,5 @@\n a\n-b\n+B\n+C\n c\n d\n@@ -20,2 +21,2 @@\n x\n-y\n+Y\n"
	ix, _ := NewIndex([]pipeline.ChangedFile{{Path: "x.go", Diff: diff}})
	for _, tc := range []struct {
		line, radius int
		want         string
	}{
		{3, 1, "[{2 B} {3 C} {4 c}]"},
		{1, 0, "[{1 a}]"},
		{5, 20, "[{1 a} {2 B} {3 C} {4 c} {5 d} {21 x} {22 Y}]"},
		{10, 2, "[]"},
		{0, 3, "[]"},
	} {
		if got := fmt.Sprint(ix.Around("x.go", tc.line, tc.radius)); got != tc.want {
			t.Errorf("Around(%d, %d) = %s, want %s", tc.line, tc.radius, got, tc.want)
		}
	}
	if got := ix.Around("other.go", 1, 3); got != nil {
		t.Errorf("a file not in the change: %v", got)
	}
}
