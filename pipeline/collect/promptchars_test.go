package collect

import (
	"strconv"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/groups"
	"github.com/prscout/prscout/pipeline/merge"
)

// The prompt sizes counted as the prompts would be written are the sizes
// of the built prompts, with multi-byte and invalid UTF-8 in the texts,
// rules shared between files, windows, candidates and excluded files.
func TestPromptCharsAsBuilt(t *testing.T) {
	rules := "Keep handlers small.\nNo globals: \u00e9t\u00e9."
	files := []pipeline.ChangedFile{
		{Path: "a/\u00fcber.go", Status: "modified", Language: "Go", Rules: rules, RuleSource: "REVIEW.md",
			Diff:   "diff --git a/x b/x\n@@ -1,2 +1,2 @@\n-old \u2603\n+new \xe2\x82\n",
			Source: "package a\n\n// \xff\xfe bytes\nvar s = \"\U0001F600\"\n", SourceRange: &pipeline.SourceRange{From: 1, To: 4, Total: 4}},
		{Path: "b.go", OldPath: "old/b.go", Status: "renamed", Language: "Go", Rules: rules,
			Diff:   "diff --git a/old/b.go b/b.go\n@@ -3 +3 @@\n-a\n+```b\n",
			Source: "x\n```\ny", SourceRange: &pipeline.SourceRange{From: 1, To: 3, Total: 9, Windows: []pipeline.LineRange{{From: 1, To: 3}}}},
		{Path: "c.md", Status: "deleted", Diff: "diff --git a/c.md b/c.md\n@@ -1 +0,0 @@\n-gone \u00e9\n"},
	}
	// Texts long enough for a TextMemo to keep: backtick runs, multi-byte
	// and invalid UTF-8, no final newline.
	long := strings.Repeat("+x := `\u00e9` \xe2\n", 60) + "+`````\n" + strings.Repeat("-\u2603 old\n", 50)
	files = append(files,
		pipeline.ChangedFile{Path: "d/long.go", Status: "modified", Language: "Go", Diff: "diff --git a/d b/d\n@@ -1,50 +1,61 @@\n" + long,
			Source: strings.Repeat("line ``` \U0001F600\n", 80) + "no newline", SourceRange: &pipeline.SourceRange{From: 1, To: 81, Total: 81}},
		pipeline.ChangedFile{Path: "e/long.go", Status: "modified", Language: "c++ x", Diff: long, Source: long[:700],
			SourceRange: &pipeline.SourceRange{From: 1, To: 9, Total: 90, Windows: []pipeline.LineRange{{From: 1, To: 9}}}})
	res := ContextResult{Files: files, Rules: "Rule \u00e9", RequirementsText: "Must \xe2 work",
		Excluded:   []pipeline.Excluded{{Path: "vendor/\u00e9.go", Reason: "vendored"}},
		Candidates: []pipeline.Candidate{{Path: "d.go", Reason: "calls `F` \u2014 changed", Score: 0.9}},
		Part:       &groups.Part{Index: 1, Of: 2, Files: 3, TotalFiles: 5, Label: "a, b"}}
	res.PR.Title, res.PR.Description = "T\u00eftle", "Desc \xc3"
	lim := pipeline.DefaultLimits()
	// Counted plainly and through one memo shared by every count (twice:
	// the second time from what the memo kept).
	memo := &merge.TextMemo{}
	for _, m := range []*merge.TextMemo{nil, memo, memo} {
		for _, r := range []ContextResult{res, {}, {Files: files[2:]}} {
			r.countMemo = m
			if got, want := scoutPromptChars(r, lim), promptChars(scoutPrompt(r, lim)); got != want {
				t.Errorf("scout prompt (memo %t): counted %d, built %d", m != nil, got, want)
			}
			mc := mergeContextOf(r)
			if got, want := merge.ReviewPromptCharsWith(mc, m), promptChars(merge.ReviewPrompt(mc)); got != want {
				t.Errorf("review prompt (memo %t): counted %d, built %d", m != nil, got, want)
			}
		}
		for _, f := range files {
			if got, want := scoutFileSectionChars(3, f, map[string]string{}, m), pipeline.RuneCount(scoutFileSection(3, f, map[string]string{})); got != want {
				t.Errorf("%s (memo %t): section counted %d, built %d", f.Path, m != nil, got, want)
			}
			if got, want := fileCost(f, 5000, m), fileCost(f, 5000, nil); got != want {
				t.Errorf("%s: cost %d through the memo, %d without", f.Path, got, want)
			}
		}
	}
}

// The scout's system message is counted as the replaced text is long.
func TestScoutSystemChars(t *testing.T) {
	for _, l := range [][2]int{{1, 1}, {9, 10}, {40, 8}, {1234, 99999}} {
		lim := pipeline.DefaultLimits()
		lim.NeedsTotal, lim.NeedsPerFile = l[0], l[1]
		lim = lim.WithDefaults()
		want := pipeline.RuneCount(strings.NewReplacer("%TOTAL%", strconv.Itoa(lim.NeedsTotal), "%PERFILE%", strconv.Itoa(lim.NeedsPerFile)).Replace(scoutSystem))
		if got := scoutSystemChars(lim); got != want {
			t.Errorf("limits %v: counted %d, replaced text is %d", l, got, want)
		}
	}
}
