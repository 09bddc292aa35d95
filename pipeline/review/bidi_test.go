package review

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/placement"
)

// bidiControls are the bidirectional controls that make text shown differ
// from text pasted (Trojan Source).
var bidiControls = []rune{0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E, 0x200F, 0x061C}

func bidiIn(s string) []rune {
	var found []rune
	for _, r := range bidiControls {
		if strings.ContainsRune(s, r) {
			found = append(found, r)
		}
	}
	return found
}

// TestTrojanSourceShown: bidirectional controls in the model's summary,
// a finding's title, body, quoted code and fix, and the changed line itself
// are posted in sight ("⟨U+202E⟩"), never as controls: not in the summary,
// not in the inline comment, not inside its ```diff fix block.
func TestTrojanSourceShown(t *testing.T) {
	all := string(bidiControls)
	line := "if access != \"user\u202e \u2066// admin\u2069 \u2066\" {"
	diff := "diff --git a/auth.go b/auth.go\n--- a/auth.go\n+++ b/auth.go\n@@ -1,2 +1,3 @@\n package auth\n+" + line + "\n \n"
	review, _ := json.Marshal(map[string]any{
		"summary": "Summary " + all,
		"findings": []map[string]any{{
			"path": "auth.go", "existingCode": line, "severity": "critical",
			"title": "Reordered " + all, "body": "Body " + all + " `code " + all + "`",
			"suggestedCode": "if access != \"user\" { // fixed " + all + "\n}",
		}},
	})
	out, err := Render(CommentsInput{Ref: "0123456789abcdef0123456789abcdef01234567", Review: review,
		Files: []pipeline.ChangedFile{{Path: "auth.go", Status: "modified", Diff: diff}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Inline) != 1 {
		t.Fatalf("inline %+v, want the finding posted inline", out.Inline)
	}
	if got := bidiIn(out.Markdown); len(got) > 0 {
		t.Errorf("the summary holds bidirectional controls %U:\n%s", got, out.Markdown)
	}
	body := out.Inline[0].Body
	if got := bidiIn(body); len(got) > 0 {
		t.Errorf("the inline comment holds bidirectional controls %U:\n%s", got, body)
	}
	if !strings.Contains(body, "⟨U+202E⟩") || !strings.Contains(body, "```diff") {
		t.Errorf("the inline comment does not show the controls, or has no fix block:\n%s", body)
	}
}

// TestBraceQuoteNotPosted: a made-up critical finding whose only evidence
// is "}" is not verified, so under the service's default policy (fold) it
// is not posted on the diff.
func TestBraceQuoteNotPosted(t *testing.T) {
	diff := "diff --git a/a.go b/a.go\nnew file mode 100644\n--- /dev/null\n+++ b/a.go\n@@ -0,0 +1,9 @@\n+package a\n+\n+func A() {\n+\tif x {\n+\t\ty()\n+\t}\n+}\n+\n+func B() {}\n"
	review, _ := json.Marshal(map[string]any{"summary": "s", "findings": []map[string]any{{
		"path": "a.go", "line": 7, "existingCode": "}", "severity": "critical", "title": "Made up", "body": "Nothing.",
	}}})
	out, err := Render(CommentsInput{Ref: "0123456789abcdef0123456789abcdef01234567", Review: review,
		Files: []pipeline.ChangedFile{{Path: "a.go", Status: "added", Diff: diff}}, Policy: placement.Policy{Unverified: placement.UnverifiedFold}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Inline) != 0 || len(out.Unverified) != 1 || out.Stats.ByEvidence["verified"] != 0 {
		t.Errorf("a finding quoting only \"}\" was verified: inline %d, unverified %d, by evidence %v", len(out.Inline), len(out.Unverified), out.Stats.ByEvidence)
	}
}
