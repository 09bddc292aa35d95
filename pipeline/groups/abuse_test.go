package groups

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
)

// sharedNamesChange is a change of n files in 50 directories: every file
// uses the same 300 names, each declared by 4 of the files (just under the
// too-common bound), and declares 20 names every file declares.
func sharedNamesChange(n int) []pipeline.ChangedFile {
	const names = 300
	var uses strings.Builder
	for k := range names {
		fmt.Fprintf(&uses, "+\tx%d := Shared%03d(y)\n", k, k)
	}
	var common strings.Builder
	for k := range 20 {
		fmt.Fprintf(&common, "+func Common%02d() {}\n", k)
	}
	files := make([]pipeline.ChangedFile, n)
	for i := range files {
		p := fmt.Sprintf("pkg%02d/f%05d.go", i%50, i)
		diff := "diff --git a/" + p + " b/" + p + "\n--- a/" + p + "\n+++ b/" + p + "\n@@ -0,0 +1,400 @@\n"
		if i < names*4 {
			diff += fmt.Sprintf("+func Shared%03d(y int) int { return y }\n", i/4)
		}
		files[i] = pipeline.ChangedFile{Path: p, Status: "modified", Diff: diff + common.String() + uses.String()}
	}
	return files
}

// TestAbuseSharedNames: grouping a 5,000-file change whose files share
// names stays bounded: the links are capped per file, the plan takes well
// under a few seconds and allocates a bounded amount.
func TestAbuseSharedNames(t *testing.T) {
	files := sharedNamesChange(5000)
	costs := make([]int, len(files))
	for i, f := range files {
		costs[i] = len(f.Diff)
	}
	links := NameLinks(files)
	if len(links) > maxLinksPerFile*len(files) {
		t.Errorf("%d name links for %d files: more than %d per file", len(links), len(files), maxLinksPerFile)
	}
	if len(links) == 0 {
		t.Error("no name links at all: the declared names link nothing")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	plan := Plan(files, costs, 40*costs[0])
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	total := 0
	for _, g := range plan {
		total += len(g)
	}
	if total != len(files) {
		t.Fatalf("planned %d of %d files", total, len(files))
	}
	// A bound against quadratic linking (5,000 files sharing names would
	// allocate gigabytes); TestAbuseSharedNamesNearLinear checks the growth.
	if alloc > 300<<20 {
		t.Errorf("planning %d files allocated %d MB", len(files), alloc>>20)
	}
	t.Logf("%d files: %d links, %d groups, %d MB allocated", len(files), len(links), len(plan), alloc>>20)
}

// TestAbuseSharedNamesNearLinear: twice the files cost at most a little
// over twice the bytes allocated (quadratic linking quadruples them).
func TestAbuseSharedNamesNearLinear(t *testing.T) {
	allocated := func(n int) uint64 {
		files := sharedNamesChange(n)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		NameLinks(files)
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := allocated(1500), allocated(3000)
	if float64(large) > 2.6*float64(small) {
		t.Errorf("name links: %d KB allocated for 1,500 files, %d KB for 3,000", small>>10, large>>10)
	}
	if n := testing.AllocsPerRun(1, func() { NameLinks(sharedNamesChange(1000)) }); n > 2_000_000 {
		t.Errorf("%.0f allocations for 1,000 files", n)
	}
}

// keywordLine is a change of two files: one adding a line of n
// "func() {} " (and a declaration of Target), one using Target.
func keywordLine(n int) []pipeline.ChangedFile {
	return []pipeline.ChangedFile{
		{Path: "g/x.go", Diff: "+func Target() int { return 1 }\n+var fs = []any{" + strings.Repeat("func() {} ", n) + "}\n"},
		{Path: "g/y.go", Diff: "+var _ = Target()\n"},
	}
}

// TestAbuseKeywordLine: a 200 KB line of declaration keywords costs the
// name links memory linear in its length (each keyword once cut the rest
// of its line into identifiers: quadratic), and the links still join the
// declaring file to its user.
func TestAbuseKeywordLine(t *testing.T) {
	allocated := func(n int) uint64 {
		files := keywordLine(n)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if l := NameLinks(files); len(l) != 1 || l[0] != [2]int{0, 1} {
			t.Fatalf("links of %d keywords: %v, want [[0 1]]", n, l)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := allocated(10_000), allocated(20_000)
	if float64(large) > 2.6*float64(small) {
		t.Errorf("name links: %d KB allocated for a line of 10,000 keywords, %d KB for 20,000", small>>10, large>>10)
	}
	// The line's identifiers (20,000 strings of 16 bytes) once, plus room.
	if large > 4<<20 {
		t.Errorf("name links of a 200 KB line allocated %d KB", large>>10)
	}
}
