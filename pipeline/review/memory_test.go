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

var findLoad = pipeline.Finding{Path: "a.go", Line: 4, ExistingCode: "x := load()", Severity: "high", Title: "load error ignored", Body: "Check it."}

func renderMem(t *testing.T, ref, mode, diff string, findings ...pipeline.Finding) Rendered {
	t.Helper()
	return renderMemFiles(t, ref, mode, false, []pipeline.ChangedFile{{Path: "a.go", Status: "modified", Diff: diff}}, nil, findings...)
}

func renderMemFiles(t *testing.T, ref, mode string, interdiff bool, files []pipeline.ChangedFile, excluded []pipeline.Excluded, findings ...pipeline.Finding) Rendered {
	t.Helper()
	if findings == nil {
		findings = []pipeline.Finding{}
	}
	review, _ := json.Marshal(pipeline.Review{Summary: "review at " + ref[:4], Findings: findings})
	r, err := Render(CommentsInput{Workspace: "acme", RepoSlug: "shop", PRID: 42, Ref: ref, Mode: mode, Interdiff: interdiff,
		Files: files, Excluded: excluded, Review: review})
	if err != nil {
		t.Fatal(err)
	}
	return r
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
	r := renderMem(t, memH1, "full", memFull1, findLoad)
	r.parts.rows = r.parts.rows[:0]
	body := r.parts.renderWith(mem, nil, nil)
	if len(body) > maxSummaryBytes {
		t.Errorf("summary %d bytes, over %d", len(body), maxSummaryBytes)
	}
	if !strings.Contains(body, fmt.Sprintf("%d findings of earlier reviews are no longer remembered", mem.DataDropped)) {
		t.Errorf("summary does not say how many were dropped (%d):\n%s", mem.DataDropped, body[:2000])
	}
}

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
	_, lold := lenientSides(diff)
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
	ix, _ := indexDiffs([]pipeline.ChangedFile{{Path: "big.go", Diff: d.String()}})
	df := ix.files["big.go"]
	hashes := make([]string, 100)
	for i := range hashes {
		hashes[i] = marker.CodeHash([]string{fmt.Sprintf("v%d := compute(%d)", i*199, i*199)})
	}
	b.ResetTimer()
	for range b.N {
		df.codeIndex = nil
		for i, h := range hashes {
			if _, ok := df.findCode(h, 1, i); !ok {
				b.Fatal("not found")
			}
		}
	}
}
