package review

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
)

// BenchmarkRender renders a large review: 200 findings (half by
// line, half by a two-line snippet) over ten files of 300 added lines each.
func BenchmarkRender(b *testing.B) {
	var files []pipeline.ChangedFile
	var findings []pipeline.Finding
	for f := 0; f < 10; f++ {
		path := fmt.Sprintf("pkg/f%d.go", f)
		var d strings.Builder
		fmt.Fprintf(&d, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -0,0 +1,300 @@\n", path, path, path, path)
		for i := 1; i <= 300; i++ {
			fmt.Fprintf(&d, "+\tv%d := compute(%d)\n", i, i)
		}
		files = append(files, pipeline.ChangedFile{Path: path, Diff: d.String()})
		for k := 0; k < 20; k++ {
			fd := pipeline.Finding{Path: path, Severity: "medium", Title: fmt.Sprintf("finding %d", k), Body: "body"}
			if k%2 == 0 {
				fd.Line = 10 + k*10
			} else {
				fd.ExistingCode = fmt.Sprintf("v%d := compute(%d)\nv%d := compute(%d)", k*10, k*10, k*10+1, k*10+1)
			}
			findings = append(findings, fd)
		}
	}
	review, _ := json.Marshal(pipeline.Review{Summary: "s", Findings: findings})
	in := CommentsInput{Ref: "abc", Files: files, Review: review}
	b.ReportAllocs()
	for b.Loop() {
		r, err := Render(in)
		if err != nil || len(r.Inline) != 200 {
			b.Fatalf("err %v, %d inline", err, len(r.Inline))
		}
	}
}
