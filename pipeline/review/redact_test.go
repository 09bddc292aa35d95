package review

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/redact"
)

// TestRenderRedacts: a secret the review repeats (in its summary, a
// finding's title, body and existing code) or a context error quotes is
// neither answered nor posted; a finding on a line whose secret the diff
// shows raw still anchors by its snippet. Values are assembled at run time
// so this file holds no string a secret scanner would flag.
func TestRenderRedacts(t *testing.T) {
	gh := "gh" + "p_" + "Q3xV8mZ2kR7tY4wB9nC1dF6gH0jK5lP2sT8u"
	stripe := "sk" + "_live_" + "Zr4Tq8Wm2Xv6Ny1Bk3Hs9Dj5"
	gl := "glp" + "at-" + "Ty7Ux2Rw9Qz4Vp1Ks6Mn"
	line := `const token = "` + gh + `"`
	diff := "diff --git a/cfg.go b/cfg.go\n--- a/cfg.go\n+++ b/cfg.go\n@@ -1,2 +1,3 @@\n package cfg\n+" + line + "\n \n"
	review, _ := json.Marshal(map[string]any{
		"summary": "The PR commits " + stripe + " and a token.",
		"findings": []map[string]any{{
			"path": "cfg.go", "existingCode": line, "severity": "critical",
			"title": "Committed token " + gh, "body": "Rotate `" + gh + "` now.",
		}},
	})
	in := CommentsInput{
		Ref: "0123456789abcdef0123456789abcdef01234567", Review: review,
		Files:             []pipeline.ChangedFile{{Path: "cfg.go", Status: "modified", Diff: diff}},
		AdditionalContext: []pipeline.ContextItem{{Op: "get_file", Path: "ci.yml", Error: "upstream error: token " + gl + " refused"}},
	}
	out, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(out)
	for _, s := range []string{gh, stripe, gl} {
		if strings.Contains(string(data), s) {
			t.Errorf("secret %s reached the comments answer", s)
		}
	}
	if len(out.Inline) != 1 || out.Inline[0].Line != 2 {
		t.Fatalf("inline %+v, want the finding anchored on line 2", out.Inline)
	}
	if !strings.Contains(out.Inline[0].Body, "Rotate `[REDACTED:github_token]` now.") {
		t.Errorf("inline body:\n%s", out.Inline[0].Body)
	}
	want := map[string]int{redact.KindGitHubToken: 3, // title, body, existing code
		redact.KindStripeKey: 1, redact.KindGitLabToken: 1}
	if len(out.Stats.Redactions) != len(want) {
		t.Errorf("redactions %v, want %v", out.Stats.Redactions, want)
	}
	for k, n := range want {
		if out.Stats.Redactions[k] != n {
			t.Errorf("redactions %v, want %v", out.Stats.Redactions, want)
		}
	}
}
