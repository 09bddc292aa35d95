package review

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
)

func verifyInput(t *testing.T) CommentsInput {
	t.Helper()
	diff := "diff --git a/pay.go b/pay.go\n--- a/pay.go\n+++ b/pay.go\n@@ -1,3 +1,6 @@\n package pay\n+func Charge(a int) int {\n+\treturn a * rate\n+}\n+var rate = 3\n+var unused = 1\n"
	review, _ := json.Marshal(map[string]any{"summary": "Three findings.", "findings": []any{
		map[string]any{"path": "pay.go", "line": 3, "existingCode": "return a * rate", "severity": "high", "title": "Negative amounts are charged", "body": "Check a."},
		map[string]any{"path": "pay.go", "line": 5, "existingCode": "var rate = 3", "severity": "medium", "title": "Rate is a global", "body": "Pass it in."},
		map[string]any{"path": "pay.go", "line": 6, "existingCode": "var unused = 1", "severity": "low", "title": "Unused variable", "body": "Remove it."},
	}})
	return CommentsInput{Workspace: "acme", RepoSlug: "shop", PRID: 7, Ref: strings.Repeat("a", 40),
		Files: []pipeline.ChangedFile{{Path: "pay.go", Status: "modified", Diff: diff}}, Review: review}
}

func TestVerifyPromptAndDrop(t *testing.T) {
	in := verifyInput(t)
	res, err := VerifyPrompt(VerifyInput{CommentsInput: in, MinFindings: 4})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verify || res.Findings != 3 || !strings.Contains(res.Reason, "fewer than minFindings (4)") {
		t.Fatalf("below minFindings: %+v", res)
	}
	res, err = VerifyPrompt(VerifyInput{CommentsInput: in, MinFindings: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Verify || len(res.IDs) != 3 {
		t.Fatalf("at minFindings: %+v", res)
	}
	for _, id := range res.IDs {
		if !strings.Contains(res.VerifyPrompt.User, "## Finding "+id) {
			t.Errorf("id %s not in the prompt", id)
		}
	}
	// The code around the second finding's line is shown, numbered.
	if !strings.Contains(res.VerifyPrompt.User, "    5  var rate = 3") {
		t.Errorf("no code around the finding:\n%s", res.VerifyPrompt.User)
	}

	// The answer drops the second finding: it is neither inline nor in the
	// summary, and the summary says one was dropped.
	answer := fmt.Sprintf(`{"verdicts":[{"id":%q,"keep":true},{"id":%q,"keep":false,"reason":"rate is a constant"},{"id":%q,"keep":true}]}`, res.IDs[0], res.IDs[1], res.IDs[2])
	in.Verify = json.RawMessage(answer)
	r, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.VerifyDropped) != 1 || r.VerifyDropped[0].Title != "Rate is a global" || r.VerifyDropped[0].Reason != "rate is a constant" {
		t.Errorf("recorded drops: %+v", r.VerifyDropped)
	}
	if r.Stats.VerifyDropped != 1 || r.Stats.Findings != 2 || len(r.Inline) != 2 || r.Stats.BySeverity["medium"] != 0 {
		t.Fatalf("stats %+v, %d inline", r.Stats, len(r.Inline))
	}
	for _, c := range r.Inline {
		if strings.Contains(c.Body, "Rate is a global") {
			t.Error("the dropped finding was posted inline")
		}
	}
	if strings.Contains(r.Markdown, "Rate is a global") || !strings.Contains(r.Markdown, "dropped 1 finding") {
		t.Errorf("summary:\n%s", r.Markdown)
	}
	// Nor is it counted: the headline's severities add up to its findings.
	if r.Stats.BySeverity["medium"] != 0 || !strings.Contains(r.Markdown, "2 findings (1 high, 1 low)") {
		t.Errorf("the dropped finding is counted: bySeverity %v, summary:\n%s", r.Stats.BySeverity, r.Markdown)
	}

	// An unreadable answer keeps all three and says so.
	in.Verify = json.RawMessage(`"I think they are fine"`)
	r, err = Render(in)
	if err != nil {
		t.Fatal(err)
	}
	if r.Stats.VerifyDropped != 0 || len(r.Inline) != 3 || !strings.Contains(strings.Join(r.Warnings, "\n"), "verify answer could not be read") {
		t.Errorf("unreadable verify answer: stats %+v, warnings %q", r.Stats, r.Warnings)
	}
}

func TestVerifyPromptBadInput(t *testing.T) {
	in := verifyInput(t)
	if _, err := VerifyPrompt(VerifyInput{CommentsInput: in, MinFindings: -1}); !isInvalid(err, "minFindings") {
		t.Errorf("minFindings -1: %v", err)
	}
	in.Ref = ""
	if _, err := VerifyPrompt(VerifyInput{CommentsInput: in}); !isInvalid(err, "ref") {
		t.Errorf("no ref: %v", err)
	}
}

func isInvalid(err error, field string) bool {
	var inv *pipeline.InvalidError
	return errors.As(err, &inv) && inv.Field == field
}
