package diff

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// allocated returns the bytes fn allocates, the mean of runs.
func allocated(runs int, fn func()) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range runs {
		fn()
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(runs)
}

// addedFileSection is the section of a new Go file of n short lines.
func addedFileSection(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/p/f.go b/p/f.go\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/p/f.go\n@@ -0,0 +1,%d @@\n", n)
	for k := range n {
		fmt.Fprintf(&b, "+\tx%d := Shared%03d(y)\n", k, k%1000)
	}
	return b.String()
}

// TestSummarizeAllocatesLittlePerByte: summarizing a section allocates a
// small multiple of one copy of its text (measured in the same run):
// go-gitdiff's records of the lines (about two copies for short lines)
// and the added lines' numbers, but no copy of every line, no reader's
// buffer and no records of the lines beside go-gitdiff's (7.9 copies for
// 5,000 lines when it had them).
func TestSummarizeAllocatesLittlePerByte(t *testing.T) {
	for _, n := range []int{100, 5000} {
		section := addedFileSection(n)
		var sink string
		baseline := allocated(20, func() { sink = strings.Clone(section) })
		var s Summary
		got := allocated(20, func() { s = Summarize(section) })
		if len(s.Added) != n || s.Lenient != nil || sink != section {
			t.Fatalf("%d lines: %d added, lenient %v", n, len(s.Added), s.Lenient)
		}
		ratio := got / baseline
		t.Logf("%d lines, %d bytes: Summarize allocates %.0f bytes, %.2f copies of the text", n, len(section), got, ratio)
		if ratio > 5 {
			t.Errorf("%d lines: Summarize allocates %.2f copies of the section's text, want at most 5", n, ratio)
		}
	}
}
