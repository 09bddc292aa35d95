package review

import (
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
)

// TestCoverageNamesInstructions: the coverage line names the instruction
// files the review prompt showed, and nothing when there were none.
func TestCoverageNamesInstructions(t *testing.T) {
	in := CommentsInput{
		Ref: "abc1234", Files: []pipeline.ChangedFile{{Path: "a.go", Status: "modified", Diff: fileDiff("a.go", "x", "y")}},
		Review:       []byte(`{"summary":"No issues found.","findings":[]}`),
		Instructions: []pipeline.InstructionFile{{Path: "AGENTS.md", Size: 10}, {Path: "REVIEW.md", Size: 20, Cut: true}},
	}
	out, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := "**Coverage:** 1 of 1 changed file reviewed; instructions: `AGENTS.md`, `REVIEW.md`.\n"; !strings.Contains(out.Markdown, want) {
		t.Errorf("summary lacks\n%s\ngot\n%s", want, out.Markdown)
	}
	in.Instructions = nil
	if out, err = Render(in); err != nil || strings.Contains(out.Markdown, "instructions:") {
		t.Errorf("without instruction files the coverage line still names some (%v):\n%s", err, out.Markdown)
	}
}
