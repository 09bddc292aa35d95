package review

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/prscout/prscout/pipeline"
)

func TestReportFindings(t *testing.T) {
	review := map[string]any{
		"summary": "two findings",
		"findings": []map[string]any{
			{"path": "a.go", "line": 2, "severity": "high", "title": "Global x", "body": "Avoid package state.\n\nIt races."},
			{"path": "other.go", "line": 9, "severity": "low", "title": "Not in the diff", "body": "elsewhere"},
			{"path": "other.go", "line": 9, "severity": "low", "title": "Not in the diff", "body": "repeated"},
		},
	}
	raw, _ := json.Marshal(review)
	r, err := Render(CommentsInput{Ref: "abc1234", Files: []pipeline.ChangedFile{{Path: "a.go", Status: "modified", Diff: reportDiff}}, Review: raw})
	if err != nil {
		t.Fatal(err)
	}
	got := ReportFindings(r)
	if len(got) != 2 {
		t.Fatalf("got %d findings, want 2: %+v", len(got), got)
	}
	// The inline finding keeps its body and the fingerprint of its comment.
	want0 := pipeline.ReportFinding{Path: "a.go", Line: 2, Severity: "high", Title: "Global x", Body: "Avoid package state.\n\nIt races.", Fingerprint: r.Inline[0].Fingerprint}
	if d := cmp.Diff(want0, got[0]); d != "" {
		t.Errorf("inline finding (-want +got):\n%s", d)
	}
	// The unanchored finding's fingerprint is the one Render
	// deduplicated it by (quoted in the duplicate's warning).
	var dupFP string
	for _, w := range r.Warnings {
		if m := regexp.MustCompile(`repeats an earlier finding \(([0-9a-f]+)\)`).FindStringSubmatch(w); m != nil {
			dupFP = m[1]
		}
	}
	if dupFP == "" {
		t.Fatalf("no duplicate warning in %q", r.Warnings)
	}
	want1 := pipeline.ReportFinding{Path: "other.go", Severity: "low", Title: "Not in the diff", Body: "elsewhere", Fingerprint: dupFP}
	if d := cmp.Diff(want1, got[1]); d != "" {
		t.Errorf("unanchored finding (-want +got):\n%s", d)
	}
}

func TestInlineBodyText(t *testing.T) {
	for _, body := range []string{"", "one line", "line one\n\n```go\nx := 1\n```"} {
		f := pipeline.Finding{Severity: "medium", Title: "T", Body: body}
		if got := inlineBodyText(inlineBody(f, nil, "0123456789abcdef")); got != body {
			t.Errorf("inlineBodyText(inlineBody(%q)) = %q", body, got)
		}
	}
}

const reportDiff = "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,2 +1,3 @@\n package a\n+var x = 1\n func f() {}\n"
