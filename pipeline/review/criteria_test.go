package review

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
)

// TestRenderPartialAnswers: whatever shape or part of an answer arrives, every
// criterion gets a verdict, the counts add up and nothing fails.
func TestRenderPartialAnswers(t *testing.T) {
	criteria := []pipeline.Requirement{{ID: "SHOP-12#1", Text: "one"}, {ID: "SHOP-12#2", Text: "two"}, {ID: "SHOP-12#3", Text: "three"}}
	full := `{"summary":"s","findings":[],"requirements":[{"id":"SHOP-12#1","verdict":"met"},{"id":"SHOP-12#2","verdict":"not_met"},{"id":"SHOP-12#3","verdict":"unclear"}]}`
	tests := []struct {
		name                  string
		review                string
		met, notMet, unclear  int
		warning               string
		requirementsAsRequest any
	}{
		{name: "whole", review: full, met: 1, notMet: 1, unclear: 1},
		{name: "cut mid-answer", review: full[:len(full)/2], met: 1, unclear: 2, warning: "no verdict for SHOP-12#2: unclear"},
		{name: "cut in a verdict", review: full[:strings.Index(full, `not_met`)+4], met: 1, unclear: 2, warning: "requirements[1]: the cut fell inside this verdict: dropped"},
		{name: "prose", review: "Looks good to me.", unclear: 3, warning: "all unclear"},
		{name: "only two verdicts", review: `{"summary":"s","requirements":[{"id":"SHOP-12#2","verdict":"met"},{"id":"[shop-12#3]","verdict":"fail"}]}`,
			met: 1, notMet: 1, unclear: 1, warning: "no verdict for SHOP-12#1: unclear"},
		{name: "verdicts as null", review: `{"summary":"s","requirements":null}`, unclear: 3, warning: "all unclear"},
		{name: "garbage entries", review: `{"summary":"s","requirements":[null,1,[],{"id":{}}]}`, unclear: 3, warning: "all unclear"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, _ := json.Marshal(tt.review)
			r, err := Render(CommentsInput{Ref: "0123456789ab", Review: raw, Requirements: pipeline.RequirementsField{Criteria: criteria}})
			if err != nil {
				t.Fatal(err)
			}
			rc := r.Requirements
			if rc.Met != tt.met || rc.NotMet != tt.notMet || rc.Unclear != tt.unclear || len(rc.Criteria) != 3 {
				t.Errorf("counts %d/%d/%d (%d criteria), want %d/%d/%d", rc.Met, rc.NotMet, rc.Unclear, len(rc.Criteria), tt.met, tt.notMet, tt.unclear)
			}
			if tt.warning != "" && !strings.Contains(strings.Join(r.Warnings, "\n"), tt.warning) {
				t.Errorf("warnings %q lack %q", r.Warnings, tt.warning)
			}
			if !strings.Contains(r.Markdown, "### Acceptance criteria\n") || !strings.Contains(r.Markdown, rc.Sentence()) {
				t.Errorf("summary lacks the table or the counts:\n%s", r.Markdown)
			}
			if got := r.severityCounts()["high"]; got != tt.notMet {
				t.Errorf("severityCounts high = %d, want the %d not-met criteria", got, tt.notMet)
			}
		})
	}
}

// TestRenderCriteriaEdges: the summary's wiring of the criteria (the table
// and the links themselves are criteria's tests).
func TestRenderCriteriaEdges(t *testing.T) {
	review := json.RawMessage(`{"summary":"s","requirements":[{"id":"A#1","verdict":"met","evidence":["a b(1).go:2"]}]}`)
	diff := "diff --git a/a b(1).go b/a b(1).go\n--- a/a b(1).go\n+++ b/a b(1).go\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n"
	files := []pipeline.ChangedFile{{Path: "a b(1).go", Status: "modified", Diff: diff}}
	t.Run("verdicts without criteria are dropped", func(t *testing.T) {
		r, err := Render(CommentsInput{Ref: "abcdef1", Review: review, Files: files, Requirements: pipeline.RequirementsField{Text: "free"}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Requirements.Total() != 0 || strings.Contains(r.Markdown, "Acceptance criteria") || strings.Contains(r.Markdown, "criteria:") {
			t.Errorf("criteria shown without any in the request:\n%s", r.Markdown)
		}
		if w := strings.Join(r.Warnings, "\n"); !strings.Contains(w, "the review judged 1 acceptance criterion, but the request carries no requirements") {
			t.Errorf("warnings = %q", r.Warnings)
		}
		if b, _ := json.Marshal(r.Requirements); string(b) != `{"met":0,"notMet":0,"unclear":0,"criteria":[]}` {
			t.Errorf("answer requirements = %s", b)
		}
	})
	t.Run("a bad prUrl links nothing", func(t *testing.T) {
		for _, u := range []string{"javascript:alert(1)", "https://x/y?q=1", "/relative", "https://x/a b"} {
			r, err := Render(CommentsInput{Ref: "abcdef1", Review: review, Files: files, PRURL: u,
				Requirements: pipeline.RequirementsField{Criteria: []pipeline.Requirement{{ID: "A#1", Text: "t"}}}})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(r.Markdown, "](") || !strings.Contains(strings.Join(r.Warnings, "\n"), "evidence is not linked") {
				t.Errorf("prUrl %q: links %v, warnings %q", u, strings.Contains(r.Markdown, "]("), r.Warnings)
			}
		}
	})
}
