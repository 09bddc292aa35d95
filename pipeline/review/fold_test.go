package review

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/marker"
)

// bigReview is a review of one file with n findings: most on added lines
// (titles of ~120 characters), every tenth outside the pull request with a
// body, severities mixed.
func bigReview(t *testing.T, n int) CommentsInput {
	t.Helper()
	var diff strings.Builder
	fmt.Fprintf(&diff, "--- a/big.go\n+++ b/big.go\n@@ -0,0 +1,%d @@\n", n)
	for i := range n {
		fmt.Fprintf(&diff, "+v%d := compute(%d)\n", i, i)
	}
	sev := []string{"low", "medium", "high", "critical"}
	var fs []pipeline.Finding
	for i := range n {
		f := pipeline.Finding{
			Path: "big.go", Line: i + 1, ExistingCode: fmt.Sprintf("v%d := compute(%d)", i, i), Severity: sev[i%4],
			Title: fmt.Sprintf("finding %04d: the computed value is never checked against the limit the caller relies on later", i),
			Body:  "Check it before use.",
		}
		if i%10 == 9 {
			f.Path, f.Line, f.ExistingCode = fmt.Sprintf("other/file%04d.go", i), 0, ""
			f.Body = strings.Repeat("A longer explanation of the finding outside the diff. ", 6)
		}
		fs = append(fs, f)
	}
	answer, err := json.Marshal(pipeline.Review{Summary: "A large review.", Findings: fs})
	if err != nil {
		t.Fatal(err)
	}
	return CommentsInput{Workspace: "acme", RepoSlug: "shop", PRID: 42, Ref: memH1, Mode: "full",
		Files: []pipeline.ChangedFile{{Path: "big.go", Status: "added", Diff: diff.String()}}, Review: answer}
}

// TestSummaryBoundedWith1500Findings: 1,500 findings make a summary of at
// most 32,000 characters whose lists fold to counts, most severe first,
// while the answer and the report findings keep every finding.
func TestSummaryBoundedWith1500Findings(t *testing.T) {
	in := bigReview(t, 1500)
	r, sum, err := Prepare(in)
	if err != nil {
		t.Fatal(err)
	}
	check := func(name, md string) {
		t.Helper()
		if n := utf8.RuneCountInString(md); n > 32000 || len(md) > maxSummaryBytes {
			t.Fatalf("%s: summary of %d characters (%d bytes), over 32,000", name, n, len(md))
		}
		t.Logf("%s: %d characters", name, utf8.RuneCountInString(md))
		if !strings.Contains(md, "…and ") || !strings.Contains(md, "the review answer and the Code Insights report list every finding") {
			t.Fatalf("%s: no folded count line:\n%s", name, md[:min(len(md), 3000)])
		}
		table := md[strings.Index(md, "### Findings"):]
		if first := strings.SplitN(table, "\n", 6); len(first) < 5 || !strings.Contains(first[4], "Critical") {
			t.Fatalf("%s: the folded table does not start with the most severe: %q", name, first)
		}
		if !strings.HasSuffix(md, marker.ReviewMarker(memH1)+"\n") {
			t.Fatalf("%s: the review marker is gone: %q", name, md[len(md)-200:])
		}
	}
	check("render", r.Markdown)
	if got := len(ReportFindings(r)); got != 1500 {
		t.Fatalf("report findings %d, want 1500", got)
	}
	if got := len(r.Inline) + len(r.Unanchored) + len(r.SummaryOnly); got != 1500 {
		t.Fatalf("answer keeps %d findings, want 1500", got)
	}
	// With review memory: the hidden data gets its budget beside the
	// folded lists, and the whole stays within the bound.
	mem := sum.Remember(nil)
	md := sum.Write(mem, nil, nil)
	check("memory", md)
	if mem.DataDropped > 1500-maxDataBytes/100 {
		t.Fatalf("memory dropped %d of 1500 findings", mem.DataDropped)
	}
}

// TestSummaryUnfoldedWhenItFits: a review that fits lists every finding.
func TestSummaryUnfoldedWhenItFits(t *testing.T) {
	r, err := Render(bigReview(t, 20))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(r.Markdown, "finding 00"); got < 20 {
		t.Fatalf("%d findings listed of 20:\n%s", got, r.Markdown)
	}
	if strings.Contains(r.Markdown, "…and ") {
		t.Fatal("a small review was folded")
	}
}
