package review

import (
	"fmt"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
)

// TestSummaryCoverageLine: the summary states what was not reviewed, so a
// "no findings" answer cannot hide a partial review.
func TestSummaryCoverageLine(t *testing.T) {
	cov := pipeline.CoverageOf(1, []pipeline.Excluded{{Path: "vendor/a.go", Reason: pipeline.GateDefaultPath}, {Path: "big.go", Reason: pipeline.GateTooLarge}})
	cov.ContextDropped = 1
	out, err := Render(CommentsInput{
		Ref: "abc1234", Files: []pipeline.ChangedFile{{Path: "a.go", Status: "modified", Diff: fileDiff("a.go", "x", "y")}},
		Review:   []byte(`{"summary":"No issues found.","findings":[]}`),
		Excluded: []pipeline.Excluded{{Path: "vendor/a.go", Reason: pipeline.GateDefaultPath}, {Path: "big.go", Reason: pipeline.GateTooLarge}},
		Coverage: &cov,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "**Coverage:** 1 of 3 changed files reviewed; 1 excluded (1 default_path); 1 dropped for budget (too_large); 1 file of additional context dropped for budget. Not reviewed: `vendor/a.go` (default_path), `big.go` (too_large).\n"
	if !strings.Contains(out.Markdown, want) {
		t.Errorf("summary lacks\n%s\ngot\n%s", want, out.Markdown)
	}
}

func fileDiff(p, oldBody, newBody string) string {
	return fmt.Sprintf("diff --git a/%s b/%s\nindex 1111111..2222222 100644\n--- a/%s\n+++ b/%s\n@@ -1 +1 @@\n-%s\n+%s\n", p, p, p, p, oldBody, newBody)
}
