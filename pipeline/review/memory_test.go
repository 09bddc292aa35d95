package review

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/marker"
)

// The memory fixtures below are a part of the publish package's memory
// scenario: the pure pieces of the compare are tested here.

// memH1 is the first head of the memory scenario's file, a.go.
const memH1 = "1111111111111111111111111111111111111111"

// memFull1 is the pull request's diff at h1 (a new file).
const memFull1 = `diff --git a/a.go b/a.go
new file mode 100644
--- /dev/null
+++ b/a.go
@@ -0,0 +1,10 @@
+package a
+
+func A() {
+	x := load()
+	use(x)
+}
+
+func B() {
+	y := 1 / n
+}
`

var findLoad = pipeline.Finding{Path: "a.go", Line: 4, ExistingCode: "x := load()", Severity: "high", Title: "load error ignored", Body: "Check it."}

// memSummary is the Summary of a full review of memFull1 with findLoad.
func memSummary(t *testing.T) *Summary {
	t.Helper()
	answer, _ := json.Marshal(pipeline.Review{Summary: "review at " + memH1[:4], Findings: []pipeline.Finding{findLoad}})
	_, sum, err := Prepare(CommentsInput{Workspace: "acme", RepoSlug: "shop", PRID: 42, Ref: memH1, Mode: "full",
		Files: []pipeline.ChangedFile{{Path: "a.go", Status: "modified", Diff: memFull1}}, Review: answer})
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestMemoryDataBound: past the data bound, resolved findings are dropped
// first and the summary says how many.
func TestMemoryDataBound(t *testing.T) {
	mem := &Memory{States: map[string]int{}, Counted: map[string]int{}}
	for i := range 300 {
		state := marker.StateOpen
		if i%2 == 0 {
			state = marker.StateResolved
		}
		mem.entries = append(mem.entries, &MemoryEntry{tracked: true, data: marker.FindingData{
			Fingerprint: fmt.Sprintf("%016x", i), State: state, CommentID: int64(1000 + i), Path: fmt.Sprintf("pkg/some/long/path/file%03d.go", i),
			Line: i + 1, TitleHash: "deadbeef", CodeHash: "cafebabe", Severity: "low", Since: memH1[:12], Changed: memH1[:12],
		}})
	}
	lines, dropped := mem.dataBlock(maxDataBytes)
	size := 0
	for _, l := range lines {
		size += len(l) + 1
	}
	if size > maxDataBytes || dropped == 0 || len(lines)+dropped != 300 {
		t.Fatalf("data %d bytes, %d lines, %d dropped", size, len(lines), dropped)
	}
	if dropped <= 150 {
		// Only resolved ones may go while open ones remain to keep.
		for _, l := range lines {
			if strings.Contains(l, "s=resolved") {
				t.Fatalf("a resolved finding kept while %d were dropped: %s", dropped, l)
			}
		}
	}
	kept := marker.ParseFindingData(strings.Join(lines, "\n"))
	if len(kept) != len(lines) {
		t.Errorf("%d of %d data lines parse", len(kept), len(lines))
	}
	// Rendered: the line saying how many, and the whole summary within bound.
	sum := memSummary(t)
	sum.rows = sum.rows[:0]
	body := sum.Write(mem, nil, nil)
	if len(body) > maxSummaryBytes {
		t.Errorf("summary %d bytes, over %d", len(body), maxSummaryBytes)
	}
	if !strings.Contains(body, fmt.Sprintf("%d findings of earlier reviews are no longer remembered", mem.DataDropped)) {
		t.Errorf("summary does not say how many were dropped (%d):\n%s", mem.DataDropped, body[:2000])
	}
}
