package merge

import (
	"testing"

	"github.com/prscout/prscout/pipeline"
)

// The review prompt's size counted as it is written equals the built
// prompt's, with context items of every kind: read, failed, dropped for the
// budget, listed directories, and text with multi-byte runes and backticks.
func TestReviewCharsAsBuilt(t *testing.T) {
	mc := MergeContext{
		Ref: mergeCommit,
		PR:  pipeline.PullRequest{Title: "Größe prüfen", Description: "naïve ```fence``` — ✓"},
		Files: []pipeline.ChangedFile{
			{Path: "a.go", Status: "modified", Diff: "@@ -1 +1 @@\n-a\n+b // é\n", Source: "package a // ü\n"},
			{Path: "b/c.ts", Status: "added", Diff: "@@ -0,0 +1 @@\n+const x = `${y}`\n"},
		},
	}
	size := int64(12)
	items := []contextItem{
		{ContextItem: pipeline.ContextItem{OK: true, Op: "get_file", Path: "x.go", Content: "func X() {} // ñ\n````\n"}},
		{ContextItem: pipeline.ContextItem{Op: "get_file", Path: "gone.go", Error: "not found"}},
		{ContextItem: pipeline.ContextItem{OK: true, Op: "get_file", Path: "big.go", Content: "long ✓ text"}, dropped: true, dropNote: "not included: over the budget"},
		{ContextItem: pipeline.ContextItem{OK: true, Op: "list_dir", Path: "b"}, entries: []pipeline.DirEntry{{Path: "b/c.ts", Type: "file", Size: &size}, {Path: "b/d", Type: "dir"}}},
	}
	for _, tc := range []struct {
		name  string
		items []contextItem
	}{{"no items", nil}, {"items", items}} {
		got := reviewChars(mc, tc.items, nil)
		want := reviewPromptChars(renderReviewPrompt(mc, tc.items))
		if got != want {
			t.Errorf("%s: counted %d characters, the built prompt has %d", tc.name, got, want)
		}
	}
	if with, without := reviewChars(mc, items, nil), reviewChars(mc, nil, nil); with <= without {
		t.Errorf("items add no characters: %d with, %d without", with, without)
	}
}
