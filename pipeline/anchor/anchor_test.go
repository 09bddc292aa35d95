package anchor

import (
	"strings"
	"testing"

	"github.com/bluekeyes/go-gitdiff/gitdiff"

	"github.com/prscout/prscout/pipeline"
)

const handlerDiff = `diff --git a/api/handler.go b/api/handler.go
index 1111111..2222222 100644
--- a/api/handler.go
+++ b/api/handler.go
@@ -10,8 +10,11 @@ func Handle(w http.ResponseWriter, r *http.Request) {
 	id := r.URL.Query().Get("id")
 	if id == "" {
 		http.Error(w, "missing id", 400)
 		return
 	}
+	q := "SELECT * FROM users WHERE id = " + id
+	rows, err := db.Query(q)
+	_ = rows
 	if err != nil {
 		return
 	}
`

// calcDiff has "x := compute()" as a context line (2) and as added lines (6, 9).
const calcDiff = `diff --git a/calc/calc.go b/calc/calc.go
--- a/calc/calc.go
+++ b/calc/calc.go
@@ -1,4 +1,10 @@
 func a() {
 	x := compute()
 	use(x)
 }
+func b() {
+	x := compute()
+}
+func c() {
+	x := compute()
+}
`

const renamedDiff = `diff --git a/old/name.go b/new/name.go
similarity index 90%
rename from old/name.go
rename to new/name.go
--- a/old/name.go
+++ b/new/name.go
@@ -3,3 +3,3 @@ package x
 func keep() {}
-func gone() {}
+func added() {}
 func tail() {}
`

const deletedDiff = `diff --git a/dead.go b/dead.go
deleted file mode 100644
--- a/dead.go
+++ /dev/null
@@ -1,2 +0,0 @@
-package dead
-func f() {}
`

// bareHunk has no file header; cutHunk claims more lines than it holds.
const bareHunk = "@@ -1,2 +1,3 @@\n a := 1\n+b := 2\n c := 3\n"
const cutHunk = "diff --git a/cut.go b/cut.go\n--- a/cut.go\n+++ b/cut.go\n@@ -5,9 +5,12 @@\n ctx line\n+added one\n+added two\n"

func anchorFixture(t *testing.T) *Index {
	t.Helper()
	ix, warnings := NewIndex([]pipeline.ChangedFile{
		{Path: "api/handler.go", Diff: handlerDiff},
		{Path: "calc/calc.go", Diff: calcDiff},
		{Path: "new/name.go", OldPath: "old/name.go", Status: "renamed", Diff: renamedDiff},
		{Path: "dead.go", Status: "deleted", Diff: deletedDiff},
		{Path: "bare.go", Diff: bareHunk},
		{Path: "cut.go", Diff: cutHunk},
		{Path: "pkg/a/util.go"},
		{Path: "pkg/b/util.go"},
	})
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "files[5] (cut.go): diff read leniently:") {
		t.Fatalf("warnings = %q, want one for cut.go", warnings)
	}
	return ix
}

func TestAnchor(t *testing.T) {
	ix := anchorFixture(t)
	tests := []struct {
		name       string
		f          pipeline.Finding
		wantPath   string
		wantLine   int
		wantAnchor string
		wantReason string
	}{
		{"added line", pipeline.Finding{Path: "api/handler.go", Line: 15}, "api/handler.go", 15, Line, ""},
		{"context line", pipeline.Finding{Path: "api/handler.go", Line: 10}, "api/handler.go", 10, Line, ""},
		{"line and snippet agree", pipeline.Finding{Path: "api/handler.go", Line: 16, ExistingCode: "rows, err := db.Query(q)"}, "api/handler.go", 16, Line, ""},
		{"multi-line snippet covering the line", pipeline.Finding{Path: "api/handler.go", Line: 16, ExistingCode: "q := \"SELECT * FROM users WHERE id = \" + id\nrows, err := db.Query(q)"}, "api/handler.go", 16, Line, ""},
		{"snippet beats a wrong line", pipeline.Finding{Path: "api/handler.go", Line: 12, ExistingCode: "rows, err := db.Query(q)"}, "api/handler.go", 16, Snippet, ""},
		{"snippet when the line is outside the diff", pipeline.Finding{Path: "api/handler.go", Line: 40, ExistingCode: "  rows, err :=   db.Query(q)\n\n\t_ = rows  "}, "api/handler.go", 16, Snippet, ""},
		{"snippet without a line", pipeline.Finding{Path: "api/handler.go", ExistingCode: "_ = rows"}, "api/handler.go", 17, Snippet, ""},
		{"snippet copied with diff markers", pipeline.Finding{Path: "api/handler.go", ExistingCode: "+\trows, err := db.Query(q)\n+\t_ = rows"}, "api/handler.go", 16, Snippet, ""},
		{"snippet quoting part of a line", pipeline.Finding{Path: "api/handler.go", ExistingCode: "db.Query(q)"}, "api/handler.go", 16, Snippet, ""},
		{"short partial snippet does not match", pipeline.Finding{Path: "api/handler.go", ExistingCode: "q)"}, "api/handler.go", 0, OnFile, "the quoted code was not found in the diff"},
		{"not found snippet keeps a valid line", pipeline.Finding{Path: "api/handler.go", Line: 18, ExistingCode: "nothing like this"}, "api/handler.go", 18, Line, ""},
		{"added match beats context match", pipeline.Finding{Path: "calc/calc.go", ExistingCode: "x := compute()"}, "calc/calc.go", 6, Snippet, ""},
		{"nearest added match to the line", pipeline.Finding{Path: "calc/calc.go", Line: 20, ExistingCode: "x := compute()"}, "calc/calc.go", 9, Snippet, ""},
		{"line on the context copy stays", pipeline.Finding{Path: "calc/calc.go", Line: 2, ExistingCode: "x := compute()"}, "calc/calc.go", 2, Line, ""},
		{"a/ prefix", pipeline.Finding{Path: "a/api/handler.go", Line: 15}, "api/handler.go", 15, Line, ""},
		{"b/ prefix", pipeline.Finding{Path: "b/api/handler.go", Line: 15}, "api/handler.go", 15, Line, ""},
		{"./ and / prefixes, backticks", pipeline.Finding{Path: " `./api/handler.go` ", Line: 15}, "api/handler.go", 15, Line, ""},
		{"leading slash", pipeline.Finding{Path: "/api/handler.go", Line: 15}, "api/handler.go", 15, Line, ""},
		{"unique suffix", pipeline.Finding{Path: "handler.go", Line: 15}, "api/handler.go", 15, Line, ""},
		{"ambiguous suffix", pipeline.Finding{Path: "util.go", Line: 1}, "util.go", 0, Unanchored, "not a changed file"},
		{"rename's old path", pipeline.Finding{Path: "old/name.go", Line: 4}, "new/name.go", 4, Line, ""},
		{"unknown path", pipeline.Finding{Path: "cmd/main.go", Line: 3}, "cmd/main.go", 0, Unanchored, "not a changed file"},
		{"no path", pipeline.Finding{Line: 3}, "", 0, Unanchored, "no path"},
		{"line outside the diff", pipeline.Finding{Path: "api/handler.go", Line: 3}, "api/handler.go", 0, OnFile, "line 3 is not in the diff"},
		{"line and snippet both wrong", pipeline.Finding{Path: "api/handler.go", Line: 3, ExistingCode: "zzz"}, "api/handler.go", 0, OnFile, "line 3 is not in the diff and the quoted code was not found"},
		{"no line at all", pipeline.Finding{Path: "api/handler.go"}, "api/handler.go", 0, OnFile, "no line given"},
		{"deleted file", pipeline.Finding{Path: "dead.go", Line: 1}, "dead.go", 0, OnFile, "the diff has no new-side lines"},
		{"file without diff", pipeline.Finding{Path: "pkg/a/util.go", Line: 1}, "pkg/a/util.go", 0, OnFile, "the diff has no new-side lines"},
		{"bare hunk", pipeline.Finding{Path: "bare.go", Line: 2}, "bare.go", 2, Line, ""},
		{"cut hunk read leniently", pipeline.Finding{Path: "cut.go", ExistingCode: "added two"}, "cut.go", 7, Snippet, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ix.Anchor(tt.f)
			if got.Path != tt.wantPath || got.Line != tt.wantLine || got.Anchor != tt.wantAnchor || got.Reason != tt.wantReason {
				t.Errorf("Anchor(%+v) = %+v; want path %q line %d anchor %q reason %q", tt.f, got, tt.wantPath, tt.wantLine, tt.wantAnchor, tt.wantReason)
			}
			if got.Line > 0 && !ix.HasLine(got.Path, got.Line) {
				t.Errorf("Placed line %d is not a new-side line of %s", got.Line, got.Path)
			}
		})
	}
}

func TestIndexDiffsNewSideLines(t *testing.T) {
	ix := anchorFixture(t)
	for _, tt := range []struct {
		path string
		in   []int
		out  []int
	}{
		{"api/handler.go", []int{10, 14, 15, 16, 17, 20}, []int{0, 9, 21}},
		{"new/name.go", []int{3, 4, 5}, []int{2, 6}},
		{"bare.go", []int{1, 2, 3}, []int{4}},
		{"dead.go", nil, []int{1, 2}},
	} {
		for _, n := range tt.in {
			if !ix.HasLine(tt.path, n) {
				t.Errorf("%s:%d should be a new-side line", tt.path, n)
			}
		}
		for _, n := range tt.out {
			if ix.HasLine(tt.path, n) {
				t.Errorf("%s:%d should not be a new-side line", tt.path, n)
			}
		}
	}
}

func FuzzAnchor(f *testing.F) {
	f.Add(handlerDiff, "api/handler.go", 15, "rows, err := db.Query(q)")
	f.Add(calcDiff, "calc.go", 0, "x := compute()")
	f.Add(renamedDiff, "old/name.go", 4, "+func added() {}")
	f.Add(bareHunk, "f.go", 2, "b := 2")
	f.Add(cutHunk, "a/f.go", 99, "added")
	f.Add("@@ -1 +2147483647,2 @@\n+x\n+y\n", "f.go", 2147483647, "y")
	f.Fuzz(func(t *testing.T, diff, path string, line int, code string) {
		files := []pipeline.ChangedFile{{Path: "f.go", Diff: diff}, {Path: "dir/g.go", Diff: diff}}
		ix, _ := NewIndex(files)
		a := ix.Anchor(pipeline.Finding{Path: path, Line: line, ExistingCode: code, Title: "t", Severity: "low"})
		switch a.Anchor {
		case Line, Snippet:
			if a.Line < 1 || !ix.HasLine(a.Path, a.Line) {
				t.Fatalf("Placed %s:%d is not a new-side line", a.Path, a.Line)
			}
			if a.Anchor == Line && a.Line != line {
				t.Fatalf("line anchor moved the line from %d to %d", line, a.Line)
			}
			if a.Path != "f.go" && a.Path != "dir/g.go" {
				t.Fatalf("Placed to unknown path %q", a.Path)
			}
			// When go-gitdiff reads the diff, the line must lie inside one of
			// its fragments' new-side ranges.
			if gf, _, err := gitdiff.Parse(strings.NewReader("--- a/f.go\n+++ b/f.go\n" + diff)); err == nil && !strings.Contains(diff, "diff --git") && !strings.Contains(diff, "--- ") {
				inside := false
				for _, file := range gf {
					for _, frag := range file.TextFragments {
						if int64(a.Line) >= frag.NewPosition && int64(a.Line) < frag.NewPosition+frag.NewLines {
							inside = true
						}
					}
				}
				if !inside {
					t.Fatalf("line %d is outside every fragment's new side", a.Line)
				}
			}
		case OnFile, Unanchored:
			if a.Line != 0 {
				t.Fatalf("%s anchor with line %d", a.Anchor, a.Line)
			}
		default:
			t.Fatalf("unknown anchor %q", a.Anchor)
		}
	})
}
