package anchor

import (
	"testing"

	"github.com/prscout/prscout/pipeline"
)

// twoHunkDiff has hunk 1 at new lines 1-4 and hunk 2 at new lines 20-23.
const twoHunkDiff = `diff --git a/svc/svc.go b/svc/svc.go
--- a/svc/svc.go
+++ b/svc/svc.go
@@ -1,3 +1,4 @@
 package svc
+var limit = 10
 func A() {
 }
@@ -18,3 +20,4 @@ func B() {
 	x := 1
+	y := x * limit
 	use(y)
 }
`

func TestAnchorRanges(t *testing.T) {
	ix, _ := NewIndex([]pipeline.ChangedFile{{Path: "svc/svc.go", Status: "modified", Diff: twoHunkDiff}})
	cases := []struct {
		name      string
		f         pipeline.Finding
		anchor    string
		line, end int
		codeLines int
	}{
		{"range in one hunk", pipeline.Finding{Line: 20, EndLine: 22}, Line, 20, 22, 3},
		{"range across hunks is its end line", pipeline.Finding{Line: 2, EndLine: 21}, Line, 21, 0, 1},
		{"end outside the diff is one line", pipeline.Finding{Line: 22, EndLine: 30}, Line, 22, 0, 1},
		{"start outside the diff anchors the end", pipeline.Finding{Line: 15, EndLine: 21}, Line, 21, 0, 1},
		{"no end is one line", pipeline.Finding{Line: 21}, Line, 21, 0, 1},
		{"multi-line snippet spans", pipeline.Finding{ExistingCode: "x := 1\ny := x * limit"}, Snippet, 20, 21, 2},
		{"snippet from the line spans", pipeline.Finding{Line: 21, ExistingCode: "y := x*limit\nuse(y)"}, Line, 21, 22, 2},
		{"one-line snippet", pipeline.Finding{ExistingCode: "var limit = 10"}, Snippet, 2, 0, 1},
		{"neither end in the diff", pipeline.Finding{Line: 8, EndLine: 12}, OnFile, 0, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.f.Path = "svc/svc.go"
			a := ix.Anchor(c.f)
			if a.Anchor != c.anchor || a.Line != c.line || a.EndLine != c.end || len(a.Code) != c.codeLines {
				t.Fatalf("Anchor(%+v) = %s %d-%d with %d code lines, want %s %d-%d with %d", c.f, a.Anchor, a.Line, a.EndLine, len(a.Code), c.anchor, c.line, c.end, c.codeLines)
			}
		})
	}
}

func TestHeadLines(t *testing.T) {
	ix, _ := NewIndex([]pipeline.ChangedFile{{Path: "svc/svc.go", Status: "modified", Diff: twoHunkDiff}})
	lines, first, last, ok := ix.HeadLines("svc/svc.go", "y:=x*limit\n  use( y )", 0)
	if !ok || first != 21 || last != 22 || len(lines) != 2 || lines[0] != "\ty := x * limit" {
		t.Fatalf("HeadLines = %q %d-%d %v", lines, first, last, ok)
	}
	if _, _, _, ok := ix.HeadLines("svc/svc.go", "y := x * limit2", 0); ok {
		t.Fatal("a line that is not at the head matched")
	}
	// Containment never matches a fix: the lines it replaces must be the code.
	if _, _, _, ok := ix.HeadLines("svc/svc.go", "x * limit", 0); ok {
		t.Fatal("part of a line matched")
	}
	if _, _, _, ok := ix.HeadLines("svc/other.go", "x := 1", 0); ok {
		t.Fatal("a file outside the change matched")
	}
}

// TestHeadLinesInSource: code outside the diff is found in the whole
// source the request gave, never in a windowed one.
func TestHeadLinesInSource(t *testing.T) {
	src := "package svc\n\nvar limit = 10\n\nfunc helper() int {\n\treturn limit\n}\n"
	whole := &pipeline.SourceRange{From: 1, To: 7, Total: 7}
	ix, _ := NewIndex([]pipeline.ChangedFile{{Path: "svc/svc.go", Status: "modified", Diff: twoHunkDiff, Source: src, SourceRange: whole}})
	lines, first, last, ok := ix.HeadLines("svc/svc.go", "func helper() int {\n  return limit", 0)
	if !ok || first != 5 || last != 6 || lines[1] != "\treturn limit" {
		t.Fatalf("HeadLines in the source = %q %d-%d %v", lines, first, last, ok)
	}
	windowed := &pipeline.SourceRange{From: 1, To: 7, Total: 900, Windows: []pipeline.LineRange{{From: 1, To: 7}}}
	ix, _ = NewIndex([]pipeline.ChangedFile{{Path: "svc/svc.go", Status: "modified", Diff: twoHunkDiff, Source: src, SourceRange: windowed}})
	if _, _, _, ok := ix.HeadLines("svc/svc.go", "func helper() int {", 0); ok {
		t.Fatal("matched in a windowed source")
	}
}
