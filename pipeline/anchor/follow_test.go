package anchor

import (
	"fmt"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/marker"
)

// memDelta2 is h1..h2: A's load error is handled now, C is added.
const memDelta2 = `diff --git a/a.go b/a.go
--- a/a.go
+++ b/a.go
@@ -1,10 +1,17 @@
 package a
 
 func A() {
-	x := load()
+	x, err := load()
+	if err != nil {
+		return
+	}
 	use(x)
 }
 
 func B() {
 	y := 1 / n
 }
+
+func C() {
+	z := unsafe()
+}
`

// TestOldSideFollow: lines of the old version are followed through a
// delta's hunks.
func TestOldSideFollow(t *testing.T) {
	_, old, err := parseSides(memDelta2, "a.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ line, n, want int }{{1, 1, 1}, {4, 1, 0}, {5, 1, 8}, {9, 1, 12}, {3, 2, 0}} {
		got, removed := old.follow(tc.line, tc.n)
		if removed != (tc.want == 0) || got != tc.want {
			t.Errorf("follow(%d, %d) = %d, %v; want %d", tc.line, tc.n, got, removed, tc.want)
		}
	}
	// Outside every hunk: shifted by the hunks before it.
	diff := "--- a/x\n+++ b/x\n@@ -10,2 +10,4 @@\n a\n+b\n+c\n d\n@@ -30,0 +33,2 @@\n+e\n+f\n"
	_, old, err = parseSides(diff, "x")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ line, want int }{{5, 5}, {11, 13}, {20, 22}, {30, 32}, {31, 35}} {
		if got, removed := old.follow(tc.line, 1); removed || got != tc.want {
			t.Errorf("follow(%d) = %d, %v; want %d", tc.line, got, removed, tc.want)
		}
	}
	// The same hunks with a wrong count: read leniently, spans counted from the lines.
	cut := strings.Replace(diff, "@@ -10,2 +10,4 @@", "@@ -10,3 +10,4 @@", 1)
	_, lold, err := parseSides(cut, "x")
	if err == nil {
		t.Fatal("a hunk whose counts do not add up was read strictly")
	}
	if fmt.Sprint(lold.spans) != fmt.Sprint(old.spans) {
		t.Errorf("lenient spans %v, want %v", lold.spans, old.spans)
	}
}

// BenchmarkMemoryFindCode: earlier findings looked up in a large diff.
func BenchmarkMemoryFindCode(b *testing.B) {
	var d strings.Builder
	d.WriteString("--- a/big.go\n+++ b/big.go\n@@ -0,0 +1,20000 @@\n")
	for i := range 20000 {
		fmt.Fprintf(&d, "+\tv%d := compute(%d)\n", i, i)
	}
	ix, _ := NewIndex([]pipeline.ChangedFile{{Path: "big.go", Diff: d.String()}})
	df := ix.files["big.go"]
	hashes := make([]string, 100)
	for i := range hashes {
		hashes[i] = marker.CodeHash([]string{fmt.Sprintf("v%d := compute(%d)", i*199, i*199)})
	}
	b.ResetTimer()
	for range b.N {
		df.codeIndex = nil
		for i, h := range hashes {
			if _, ok := df.FindCode(h, 1, i); !ok {
				b.Fatal("not found")
			}
		}
	}
}
