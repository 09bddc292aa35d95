package collect

import (
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
	res := ContextResult{Files: files, Rules: "Rule \u00e9", RequirementsText: "Must \xe2 work",
		Excluded:   []pipeline.Excluded{{Path: "vendor/\u00e9.go", Reason: "vendored"}},
		Candidates: []pipeline.Candidate{{Path: "d.go", Reason: "calls `F` \u2014 changed", Score: 0.9}},
		Part:       &groups.Part{Index: 1, Of: 2, Files: 3, TotalFiles: 5, Label: "a, b"}}
	res.PR.Title, res.PR.Description = "T\u00eftle", "Desc \xc3"
	lim := pipeline.DefaultLimits()
	for _, r := range []ContextResult{res, {}, {Files: files[2:]}} {
		if got, want := scoutPromptChars(r, lim), promptChars(scoutPrompt(r, lim)); got != want {
			t.Errorf("scout prompt: counted %d, built %d", got, want)
		}
		mc := mergeContextOf(r)
		if got, want := merge.ReviewPromptChars(mc), promptChars(merge.ReviewPrompt(mc)); got != want {
			t.Errorf("review prompt: counted %d, built %d", got, want)
		}
	}
	for _, f := range files {
		if got, want := scoutFileSectionChars(3, f, map[string]string{}), pipeline.RuneCount(scoutFileSection(3, f, map[string]string{})); got != want {
			t.Errorf("%s: section counted %d, built %d", f.Path, got, want)
		}
	}
}
